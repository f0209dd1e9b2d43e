// libFuzzer targets over every reader of user input (docs/fuzzing.md). One source, compiled once, linked into one
// executable per reader, fuzz_<reader>: the executable's name chooses the reader when it starts. A reader may refuse
// its input (exit 2 on the command line); anything else (another exception, a crash, a sanitizer report, a hang,
// runaway memory) is a finding. Built only with -DVGPUSIM_FUZZ=ON and clang.
#include <unistd.h>

#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

#include "models/workload/trace_replay.hpp"
#include "sim/core/errors.hpp"
#include "sim/io/calibration_file.hpp"
#include "sim/io/gpu_catalog.hpp"
#include "sim/io/hwcal_raw.hpp"
#include "sim/io/k8s_configs.hpp"
#include "sim/io/neusight.hpp"
#include "sim/io/kineto_reader.hpp"
#include "sim/io/openb.hpp"
#include "sim/io/text_fields.hpp"
#include "sim/scenario/document.hpp"
#include "sim/scenario/loader.hpp"
#include "sim/report/sweep_command.hpp"
#include "sim/run/simulation.hpp"
#include "sim/io/gpu_catalog.hpp"
#include "sim/studies/cluster/cluster_scenario.hpp"
#include "sim/studies/cluster/study_command.hpp"
#include "sim/studies/plan/plan_command.hpp"
#include "sim/studies/plan/plan_loader.hpp"

namespace {

// The reader this executable fuzzes: its name without "fuzz_" (set by LLVMFuzzerInitialize).
std::string g_target;

// The input as a file, for readers that take a path: one per process, rewritten for every input.
std::string as_file(const std::string& data, const std::string& suffix) {
  const std::filesystem::path p =
      std::filesystem::temp_directory_path() / ("vgpusim-fuzz-" + std::to_string(::getpid()) + suffix);
  std::ofstream(p, std::ios::binary | std::ios::trunc) << data;
  return p.string();
}

void fuzz_one(const std::string& data) {
  using namespace vgpusim;
  const std::string& target = g_target;
  if (target == "scenario") {
    // Any kind of scenario file: a scenario is loaded as a run would; cluster and plan files by their loaders.
    const ScenarioDocument doc = parse_scenario_document(data, "fuzz.yaml");
    if (doc.kind == "plan") {
      load_plan(doc, builtin_instance_lookup());
    } else if (doc.kind == "cluster") {
      load_cluster_scenario(doc);
    } else {
      load_scenario(ScenarioDocument(doc), builtin_catalog(), {});
    }
  } else if (target == "kineto") {
    const bool gz = data.size() >= 2 && static_cast<unsigned char>(data[0]) == 0x1f &&
                    static_cast<unsigned char>(data[1]) == 0x8b;
    const std::string path = as_file(data, gz ? ".json.gz" : ".json");
    read_kineto_trace(path, std::nullopt, size_t{64} << 20);
    // Then through the dependency graph and its replay (a bounded share of one pass).
    const Scenario sc = load_scenario_text(
        "version: 1\nname: fuzz\nreplications: 1\ngpus: [{id: g0, model: A100-40GB}]\ntenants: [{name: t, on: g0, "
        "workload: {trace: {path: \"" + path + "\", source: A100-40GB, iterations: 2}}}]\n",
        "fuzz.yaml", builtin_catalog());
    // The invariant: replayed on its own GPU, a graph never gets stuck (the builder breaks every cycle of waits;
    // a stuck replay throws an InputError from the simulation, which here is a finding, not a refusal), and the
    // tenant finishes its passes unless the pilot's budget or the run's end came first.
    RunRecord r;
    try {
      r = simulate_pilot(sc, 20000);
    } catch (const InputError& e) {
      std::fprintf(stderr, "the replay got stuck: %s\n", e.what());
      std::abort();
    }
    if (!r.truncated && std::isnan(r.tenants.at(0).finish) && r.end < sc.duration) {
      std::fprintf(stderr, "the replay stopped at %g s without finishing, %lld passes\n", r.end,
                   r.tenants[0].units);
      std::abort();
    }
  } else if (target == "openb") {
    const std::string path = as_file(data, ".csv");
    read_openb_nodes(path, false);
    read_openb_pods(path, 0);
  } else if (target == "raw") {
    parse_raw(data, "fuzz.json");
  } else if (target == "calibration") {
    read_calibration_text(data, "fuzz.yaml");
  } else if (target == "merge") {
    std::ostringstream sink;
    std::streambuf* was = std::cout.rdbuf(sink.rdbuf());
    try {
      // The shard of a plan, a sweep or a study, read by each merge (the others refuse its schema).
      const std::string path = as_file(data, ".json");
      for (int kind = 0; kind < 3; ++kind) try {
          if (kind == 0) merge_command({path}, "");
          if (kind == 1) merge_sweep_command({path}, "");
          if (kind == 2) merge_study_command({path}, "");
        } catch (const InputError&) {
        }
    } catch (...) {
      std::cout.rdbuf(was);
      throw;
    }
    std::cout.rdbuf(was);
  } else if (target == "opgraph") {
    // A per-op profile (NeuSight's format) through the node classes and the operator model.
    const OpDevice d = op_device(builtin_catalog().find("H100-SXM")->spec);
    const OpModelParams p = OpModelParams::table().defaults();
    for (const NeusightOp& op : read_neusight_profile(as_file(data, ".csv"), 24))
      for (bool training : {false, true}) {
        const FxNodeKernels k = fx_node_kernels(op.node, training);
        for (const auto* list : {&k.forward, &k.backward, &k.accumulate})
          for (const OpKernel& x : *list) (void)op_kernel_time(x, d, p);
      }
  } else if (target == "k8s") {
    const std::string path = as_file(data, ".yaml");
    read_device_plugin_config(path);
    read_mig_parted_config(path, "all-balanced");
  }
}

}  // namespace

// The reader from the executable's name (tests/fuzz/CMakeLists.txt links this one object as fuzz_<reader>).
extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  const std::string name = *argc > 0 ? std::filesystem::path((*argv)[0]).filename().string() : std::string();
  // VGPUSIM_FUZZ_TARGETS: the CMake list of readers, comma-separated.
  for (const std::string& t : vgpusim::split_fields(VGPUSIM_FUZZ_TARGETS, ','))
    if (name == "fuzz_" + t) g_target = t;
  if (g_target.empty()) {
    std::fprintf(stderr, "fuzz_readers: the executable's name '%s' names no reader (fuzz_scenario, ...)\n",
                 name.c_str());
    std::exit(2);
  }
  return 0;
}

// The refusals the command line turns into exit 2 (tools/vgpusim/main.cpp); the Kineto reader's own TraceError,
// which the scenario loader turns into an InputError naming the `trace` key.
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* bytes, size_t size) {
  try {
    fuzz_one(std::string(reinterpret_cast<const char*>(bytes), size));
  } catch (const vgpusim::InputError&) {
  } catch (const vgpusim::RawFormatError&) {
  } catch (const vgpusim::TraceError&) {
    if (g_target != "kineto") throw;
  }
  return 0;
}
