// The vgpusim command line: run a scenario, list the catalog, the models and the scenario keys.
// Exit status: 0 ok, 2 bad input (scenario, arguments), 1 internal error.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>

#include "models/gpu/roofline.hpp"
#include "sim/io/gpu_catalog.hpp"
#include "sim/studies/cluster/cluster_scenario.hpp"
#include "sim/io/instance_catalog.hpp"
#include "models/cluster/placement.hpp"
#include "sim/run/metrics.hpp"
#include "sim/io/files.hpp"
#include "sim/report/results_writers.hpp"
#include "sim/report/html_report.hpp"
#include "sim/report/listings.hpp"
#include "sim/scenario/loader.hpp"
#include "sim/run/simulation.hpp"
#include "sim/report/timeline.hpp"
#include "sim/studies/calibration/calibrate.hpp"
#include "sim/studies/plan/plan_command.hpp"

#ifndef VGPUSIM_VERSION
#define VGPUSIM_VERSION "0.0.0"
#endif

namespace vgpusim {
namespace {

std::chrono::steady_clock::time_point g_run_started;

void draw_progress(double now, double end, uint64_t events) {
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - g_run_started).count();
  if (wall < 1.0) return;  // quick runs stay silent
  const int width = 30;
  const int filled = static_cast<int>(width * now / end);
  std::fprintf(stderr, "\r[%s%s] %5.1f%% simulated %s  %.3g events/s ", std::string(static_cast<size_t>(filled), '#').c_str(),
               std::string(static_cast<size_t>(width - filled), ' ').c_str(), 100 * now / end,
               units::format(now, units::Dim::Time).c_str(), static_cast<double>(events) / wall);
  if (now >= end) std::fprintf(stderr, "\n");
}

// Instance types for plans, by name from the instance catalog.
InstanceLookup plan_instance_lookup() {
  return [](const std::string& name) -> std::optional<PlanInstanceType> {
    const Instance* i = builtin_instance_catalog().find(name);
    if (!i) return std::nullopt;
    // Fractional GPUs (SR-IOV slices) have no whole GPU to place tenants on: gpus 0 tells the plan so.
    const int gpus = i->gpu_count >= 1 && i->gpu_count == static_cast<int>(i->gpu_count) ? static_cast<int>(i->gpu_count) : 0;
    return PlanInstanceType{i->name, i->gpu_model, gpus, i->on_demand * 3600};
  };
}

// A job-level cluster study (`kind: cluster`, docs/cluster.md).
int run_cluster_command(const std::string& scenario_path, const std::string& out_dir,
                        const std::vector<std::string>& sets, bool quiet) {
  if (!sets.empty()) throw InputError(scenario_path + ": --set, --seed and --fidelity do not apply to cluster scenarios");
  const ClusterResults results = run_cluster(load_cluster_scenario_file(scenario_path));
  if (!out_dir.empty()) {
    const std::string json = cluster_results_json(results), csv = cluster_results_csv(results);
    write_atomically(out_dir, "results.json", json);
    write_atomically(out_dir, "results.csv", csv);
  }
  if (!quiet) std::cout << cluster_results_table(results);
  return 0;
}

int run_command(const std::string& scenario_path, const std::string& out_dir, const std::vector<std::string>& sets,
                bool quiet, const std::string& timeline_path, const std::string& report_path) {
  if (is_cluster_scenario_file(scenario_path)) return run_cluster_command(scenario_path, out_dir, sets, quiet);
  std::vector<Override> overrides;
  for (const std::string& s : sets) overrides.push_back(parse_override(s));
  const Scenario sc = load_scenario_file(scenario_path, builtin_catalog(), overrides);
  g_run_started = std::chrono::steady_clock::now();
  const bool bar = !quiet && ::isatty(STDERR_FILENO);
  Timeline timeline;
  const Results results =
      run_scenario(sc, bar ? draw_progress : nullptr, timeline_path.empty() ? nullptr : &timeline);
  const std::string html = report_path.empty() ? "" : results_html(results);
  if (!out_dir.empty()) {
    // Render everything first so that a failure leaves no partial set of files.
    const std::string json = results_json(results), csv = results_csv(results);
    write_atomically(out_dir, "results.json", json);
    write_atomically(out_dir, "results.csv", csv);
  }
  if (!timeline_path.empty()) {
    write_file_atomically(timeline_path, timeline.to_json());
  }
  if (!report_path.empty()) {
    write_file_atomically(report_path, html);
  }
  if (!quiet) std::cout << results_table(results);
  return 0;
}

}  // namespace
}  // namespace vgpusim

int main(int argc, char** argv) {
  using namespace vgpusim;
  CLI::App app{"vgpusim: simulate GPU sharing (passthrough, time-slicing, ...) and report what each tenant loses",
               "vgpusim"};
  app.set_version_flag("--version", std::string("vgpusim ") + VGPUSIM_VERSION);
  app.require_subcommand(1);
  app.footer(
      "Examples:\n"
      "  vgpusim run scenarios/quickstart.yaml\n"
      "  vgpusim run scenarios/timeslice-two-trainers.yaml --out results/ --fidelity fluid\n"
      "  vgpusim run scenarios/quickstart.yaml --set sharing.g0.slice=4ms --set tenants.chat.memory=20GiB\n"
      "  vgpusim list gpus --sources\n"
      "  vgpusim list instances\n"
      "  vgpusim list models\n"
      "  vgpusim plan scenarios/plan-inference.yaml --out plan/ [--shard 0/4]\n"
      "  vgpusim fit hwcal/data/h200/2026-11-30/raw.json -o models/calibration/h200.yaml\n"
      "  vgpusim validate hwcal/data/h200/2026-11-30/raw.json --calibration models/calibration/h200.yaml\n"
      "Exit status: 0 ok, 2 bad input, 1 internal error.");

  auto* run = app.add_subcommand("run", "simulate a scenario and print per-tenant results");
  std::string scenario, out_dir, fidelity;
  std::vector<std::string> sets;
  long long seed = -1;
  bool quiet = false;
  run->add_option("scenario", scenario, "scenario YAML file")->required();
  run->add_option("--out", out_dir, "write results.json and results.csv into this directory");
  run->add_option("--seed", seed, "override the scenario's seed")->check(CLI::NonNegativeNumber);
  run->add_option("--fidelity", fidelity, "override the scenario's fidelity")->check(CLI::IsMember({"exact", "fluid"}));
  run->add_option("--set", sets, "override a scenario value: key.path=value (repeatable)");
  run->add_flag("--quiet,-q", quiet, "print nothing on success");
  std::string timeline_path;
  run->add_option("--timeline", timeline_path,
                  "write a Chrome trace of the run (open in Perfetto or chrome://tracing): kernels, slices, switches, "
                  "utilization and memory");
  std::string report_path;
  run->add_option("--report", report_path,
                  "write a self-contained HTML report: vGPU loss, latency CDFs, utilization over time, warnings");

  auto* fit = app.add_subcommand("fit", "fit model parameters to hwcal raw measurements and write a calibration file");
  std::string raw_path, cal_out, gpu_override;
  fit->add_option("raw", raw_path, "hwcal raw measurement file (JSON)")->required();
  fit->add_option("-o,--out", cal_out, "calibration file to write (YAML)");
  fit->add_option("--gpu", gpu_override, "catalog GPU it was measured on (default: from the device name)");

  auto* validate = app.add_subcommand("validate", "re-simulate the measured co-runs and report prediction errors");
  std::string validate_raw, cal_in, validation_json;
  validate->add_option("raw", validate_raw, "hwcal raw measurement file (JSON)")->required();
  validate->add_option("--calibration", cal_in, "calibration file (without: the models' defaults)");
  validate->add_option("--json", validation_json, "also write the table as JSON");
  validate->add_option("--gpu", gpu_override, "catalog GPU it was measured on (default: from the calibration)");

  auto* synth = app.add_subcommand("synth-raw", "write a synthetic raw file made by the simulator (for tests)");
  std::string synth_gpu, synth_out;
  double synth_noise = 0.003;
  uint64_t synth_seed = 1;
  synth->add_option("gpu", synth_gpu, "catalog GPU")->required();
  synth->add_option("-o,--out", synth_out, "file to write")->required();
  synth->add_option("--noise", synth_noise, "relative noise on every measurement (default 0.003)");
  synth->add_option("--seed", synth_seed, "noise seed");

  auto* plan = app.add_subcommand("plan", "find the cheapest instance type, count and sharing that meets every SLO");
  std::string plan_path, plan_out, shard_flag;
  unsigned shards = 1, threads = 0;
  bool plan_quiet = false;
  plan->add_option("plan", plan_path, "plan file (kind: plan)")->required();
  plan->add_option("--out", plan_out, "write plan.json (or plan-shard-I-of-N.json) into this directory");
  plan->add_option("--shard", shard_flag, "evaluate only shard I of N (I/N); also SLURM_ARRAY_TASK_ID or "
                                          "JOB_COMPLETION_INDEX with --shards");
  plan->add_option("--shards", shards, "shard count for SLURM_ARRAY_TASK_ID / JOB_COMPLETION_INDEX");
  plan->add_option("--threads", threads, "simulation threads (default: all cores)");
  plan->add_flag("--quiet,-q", plan_quiet, "print nothing on success");

  auto* merge = app.add_subcommand("merge", "join the plan.json files of shards and report the decision");
  std::vector<std::string> merge_parts;
  std::string merge_out;
  merge->add_option("parts", merge_parts, "plan-shard-*.json files")->required();
  merge->add_option("--out", merge_out, "write the merged plan.json into this directory");

  auto* list = app.add_subcommand("list", "list catalog GPUs, models, or scenario keys");
  std::string what;
  bool sources = false, markdown = false;
  std::string list_name;
  list->add_option("what", what, "gpus | instances | models | keys")
      ->required()
      ->check(CLI::IsMember({"gpus", "instances", "models", "keys"}));
  list->add_option("name", list_name,
                   "with `models --markdown`: only this model's parameter block; with `keys`: scenario (the default) "
                   "or cluster");
  list->add_flag("--sources", sources, "with `gpus` or `instances`: print every value's source");
  list->add_flag("--markdown", markdown,
                 "with `keys`: print docs/scenario-reference.md; with `models`: the parameter blocks of "
                 "docs/models/*.md");

  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return 2;
  }

  try {
    if (*run && is_plan_file(scenario)) return plan_command(scenario, out_dir, "", 1, 0, plan_instance_lookup(), quiet, true);
    if (*run) {
      if (seed >= 0) sets.insert(sets.begin(), "seed=" + std::to_string(seed));
      if (!fidelity.empty()) sets.insert(sets.begin(), "fidelity=" + fidelity);
      return run_command(scenario, out_dir, sets, quiet, timeline_path, report_path);
    }
    const InstanceLookup instances = plan_instance_lookup();
    if (*plan) return plan_command(plan_path, plan_out, shard_flag, shards, threads, instances, plan_quiet);
    if (*merge) return merge_command(merge_parts, merge_out);
    if (*fit) return fit_command(raw_path, cal_out, gpu_override);
    if (*validate) return validate_command(validate_raw, cal_in, validation_json, gpu_override);
    if (*synth) {
      write_file_atomically(synth_out, synthetic_raw(synth_gpu, SyntheticTruth{}, synth_noise, synth_seed));
      return 0;
    }
    if (what == "gpus") std::cout << gpus_listing(sources);
    if (what == "instances") std::cout << instances_listing(sources);
    if (what == "models") std::cout << (markdown ? models_markdown(list_name) : models_listing());
    if (what == "keys") {
      if (!list_name.empty() && list_name != "scenario" && list_name != "cluster")
        throw InputError("list keys: expected scenario or cluster, found '" + list_name + "'");
      if (list_name == "cluster")
        std::cout << (markdown ? cluster_reference_markdown() : keys_listing(cluster_sections()));
      else
        std::cout << (markdown ? scenario_reference_markdown() : keys_listing(scenario_sections()));
    }
    return 0;
  } catch (const InputError& e) {
    std::cerr << e.what() << "\n";
    return 2;
  } catch (const RawFormatError& e) {
    std::cerr << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "vgpusim: internal error: " << e.what() << "\n";
    return 1;
  }
}
