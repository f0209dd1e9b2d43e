// Scenario loading, workloads: which kind a tenant runs (each kind reads itself, sim/scenario/workloads), and
// kernels given as work or as a measured duration.
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>

#include "sim/io/calibration_file.hpp"
#include "models/gpu/roofline.hpp"
#include "sim/scenario/loader_state.hpp"
#include "sim/scenario/workload_kind.hpp"

namespace vgpusim {

using units::Dim;

KernelSpec Loader::kernel(const YAML::Node& node, const std::string& path, const std::string& default_precision,
                  const ScenarioGpu& tenant_gpu, int kernels) {
  MapReader r(file, node, path, section_named("kernel"));
  r.finish();
  const bool by_work = r.has("flops") || r.has("fp16") || r.has("fp32") || r.has("fp64") || r.has("bytes");
  const double blocks = r.has("blocks") ? static_cast<double>(r.integer("blocks", 1, 1LL << 40)) : 0.0;
  LaunchKind launch = LaunchKind::Stream;
  if (r.has("launch")) {
    const std::string l = r.choice("launch", {"stream", "graph", "persistent"});
    launch = l == "graph" ? LaunchKind::Graph : l == "persistent" ? LaunchKind::Persistent : LaunchKind::Stream;
  }
  if (r.has("duration")) {
    if (by_work)
      fail_at(file, node, path, "give either `duration` (with `on` and `bound`) or work (flops, bytes), not both");
    if (r.has("working_set"))
      fail_at(file, r.node("working_set"), r.child_path("working_set"),
              "`working_set` goes with work (bytes): a measured duration already holds what L2 did");
    if (r.has("threads"))
      fail_at(file, r.node("threads"), r.child_path("threads"),
              "`threads` goes with work (flops, bytes): a measured duration already holds its occupancy");
    const double d = r.quantity("duration", Dim::Time);
    if (!(d > 0)) fail_at(file, r.node("duration"), r.child_path("duration"), "expected a positive time");
    const GpuSpec* ref = &tenant_gpu.spec;
    RooflineParams perf = tenant_gpu.performance;
    if (r.has("on")) {
      const std::string name = r.string("on");
      const CatalogEntry* e = catalog.find(name);
      if (!e) unknown_gpu_model(r.node("on"), r.child_path("on"), name);
      if (name != tenant_gpu.spec.name) {
        ref = &e->spec;
        perf = RooflineParams::table().with(builtin_overrides(name));
      }
    }
    const std::string b = r.choice("bound", {"memory", "fp16", "fp32", "fp64"});
    const KernelBound bound = b == "memory" ? KernelBound::Memory
                              : b == "fp16" ? KernelBound::FP16
                              : b == "fp32" ? KernelBound::FP32
                                            : KernelBound::FP64;
    return kernel_from_duration(d, *ref, bound, blocks, perf, kernels, launch);
  }
  for (const char* key : {"on", "bound"})
    if (r.has(key)) fail_at(file, r.node(key), r.child_path(key), fmt::format("`{}` goes with `duration`", key));
  KernelSpec k;
  k.blocks = blocks;
  k.launch = launch;
  if (r.has("threads")) k.threads = static_cast<double>(r.integer("threads", 1, 1024));
  k.flops_fp16 = r.quantity("fp16", Dim::Flops);
  k.flops_fp32 = r.quantity("fp32", Dim::Flops);
  k.flops_fp64 = r.quantity("fp64", Dim::Flops);
  k.bytes = r.quantity("bytes", Dim::Bytes);
  if (r.has("working_set")) {
    k.working_set = r.quantity("working_set", Dim::Bytes);
    if (!(k.working_set > 0))
      fail_at(file, r.node("working_set"), r.child_path("working_set"), "expected a positive size");
  }
  if (r.has("flops")) {
    const double f = r.quantity("flops", Dim::Flops);
    const std::string p = r.has("precision") ? r.choice("precision", {"fp16", "fp32", "fp64"}) : default_precision;
    (p == "fp16" ? k.flops_fp16 : p == "fp32" ? k.flops_fp32 : k.flops_fp64) += f;
  } else if (r.has("precision")) {
    fail_at(file, r.node("precision"), r.child_path("precision"), "`precision` goes with `flops`");
  }
  for (double v : {k.flops_fp16, k.flops_fp32, k.flops_fp64, k.bytes})
    if (v < 0) fail_at(file, node, path, "work amounts must not be negative");
  if (k.flops_fp16 + k.flops_fp32 + k.flops_fp64 + k.bytes <= 0)
    fail_at(file, node, path, "expected some work: flops, fp16, fp32, fp64, bytes or duration");
  return k;
}

void Loader::unknown_gpu_model(const YAML::Node& node, const std::string& path, const std::string& name) {
  fail_at(file, node, path,
          fmt::format("unknown GPU model '{}'{} (see `vgpusim list gpus`)", name,
                      did_you_mean_suffix(name, catalog.names())));
}

int Loader::count(const MapReader& r, const std::string& key) {
  return static_cast<int>(r.integer(key, 1, 1000000));
}

WorkloadRef Loader::workload(const YAML::Node& node, const std::string& path, const ScenarioGpu& gpu) {
  // The kinds' keys, as the reference documents them (section tenants[].workload).
  const Section kinds = workload_section();
  MapReader w(file, node, path, kinds);
  w.finish();
  std::vector<std::string> given, names;
  for (const KeySpec& k : kinds.keys) {
    names.push_back(k.name);
    if (w.has(k.name)) given.push_back(k.name);
  }
  if (given.size() != 1) {
    const std::string last = names.back();
    names.pop_back();
    fail_at(file, node, path,
            given.empty() ? fmt::format("expected one workload kind: {}{}{}", fmt::join(names, ", "),
                                        names.empty() ? "" : " or ", last)
                          : fmt::format("expected exactly one workload kind, found {} and {}", given[0], given[1]));
  }
  const std::string key = gpu.id + '\n' + YAML::Dump(node);
  if (const auto known = workloads.find(key); known != workloads.end()) return known->second;
  const WorkloadKindInfo* kind = find_workload_kind(given[0]);
  MapReader r(file, w.node(kind->name), w.child_path(kind->name), kind->sections.front());
  r.finish();
  return workloads[key] = kind->read(*this, r, gpu);
}

}  // namespace vgpusim
