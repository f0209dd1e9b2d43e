// The vgpusim command line: argument parsing and dispatch to the rooms that do the work (sim/report for runs and
// listings, sim/studies for cluster studies, plans and calibration). Exit status: 0 ok, 2 bad input (a file,
// arguments), 1 internal error.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <cmath>
#include <iostream>
#include <utility>

#include "sim/core/units.hpp"
#include "sim/io/hwcal_raw.hpp"
#include "sim/report/listings.hpp"
#include "sim/report/run_command.hpp"
#include "sim/report/run_formats.hpp"
#include "sim/report/sweep_command.hpp"
#include "sim/studies/calibration/calibrate.hpp"
#include "sim/studies/calibration/published_fit.hpp"
#include "sim/studies/calibration/vidur_fit.hpp"
#include "sim/studies/cluster/cluster_command.hpp"
#include "sim/studies/cluster/cluster_scenario.hpp"
#include "sim/studies/cluster/study_command.hpp"
#include "sim/studies/plan/plan_command.hpp"
#include "sim/studies/validation/published.hpp"

#ifndef VGPUSIM_VERSION
#define VGPUSIM_VERSION "0.0.0"
#endif

namespace {

// "FORMAT=FILE" of --write.
std::pair<std::string, std::string> parse_write(const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    throw vgpusim::InputError("--write '" + text + "': expected FORMAT=FILE, e.g. json=out/results.json");
  return {text.substr(0, eq), text.substr(eq + 1)};
}

std::string run_format_names() {
  std::string names;
  for (const vgpusim::RunFormat& f : vgpusim::run_formats()) names += (names.empty() ? "" : ", ") + f.name;
  return names;
}

// --max-events and --max-memory, as given.
struct LimitOptions {
  double max_events = vgpusim::kDefaultMaxEvents;
  std::string max_memory;
};

void add_limit_options(CLI::App* cmd, LimitOptions& o) {
  cmd->add_option("--max-events", o.max_events,
                  fmt::format("refuse a run estimated (from a pilot of its first events) to take more engine events "
                              "than this (default {:.0e})",
                              vgpusim::kDefaultMaxEvents))
      ->check(CLI::PositiveNumber);
  cmd->add_option("--max-memory", o.max_memory,
                  "refuse a run estimated to need more memory than this, e.g. 16GiB (default 4GiB)");
}

vgpusim::RunLimits parse_limits(const LimitOptions& o) {
  namespace units = vgpusim::units;
  vgpusim::RunLimits limits;
  limits.max_events = o.max_events;
  if (!o.max_memory.empty()) {
    const units::ParseResult m = units::parse(o.max_memory, units::Dim::Bytes);
    if (!m.ok || !(m.value > 0) || !std::isfinite(m.value))
      throw vgpusim::InputError(
          fmt::format("--max-memory {}: {}", o.max_memory, m.ok ? "must be positive and finite" : m.error));
    limits.max_memory = m.value;
  }
  return limits;
}

}  // namespace

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
      "  vgpusim run scenarios/quickstart.yaml --write html=report.html --write csv=tenants.csv\n"
      "  vgpusim list gpus --sources\n"
      "  vgpusim list instances\n"
      "  vgpusim list models\n"
      "  vgpusim plan scenarios/plan-inference.yaml --out plan/ [--shard 0/4]\n"
      "  vgpusim sweep scenarios/quickstart.yaml --vary 'sharing.g0={mode: timeslice},{mode: mps}' --csv sweep.csv\n"
      "  vgpusim fit hwcal/data/h200/2026-11-30/raw.json -o models/calibration/h200.yaml\n"
      "  vgpusim validate hwcal/data/h200/2026-11-30/raw.json --calibration models/calibration/h200.yaml\n"
      "Exit status: 0 ok, 2 bad input, 3 a problem --fail-on names (run), 4 study --compare above its tolerance, 1 "
      "internal error.");

  auto* run = app.add_subcommand("run", "simulate a scenario (or a cluster study, or a plan) and print its results");
  std::string scenario, out_dir, fidelity, timeline_path, report_path;
  std::vector<std::string> sets, writes;
  long long seed = -1;
  bool quiet = false;
  run->add_option("scenario", scenario, "scenario YAML file")->required();
  run->add_option("--out", out_dir, "write results.json and results.csv into this directory");
  run->add_option("--seed", seed, "override the scenario's seed")->check(CLI::NonNegativeNumber);
  run->add_option("--fidelity", fidelity, "override the scenario's fidelity")->check(CLI::IsMember({"exact", "fluid"}));
  run->add_option("--set", sets, "override a scenario value: key.path=value (repeatable)");
  run->add_flag("--quiet,-q", quiet, "print nothing on success (warnings still go to stderr)");
  std::vector<std::string> fail_on;
  run->add_option("--fail-on", fail_on,
                  "exit 3 when the run shows one of these: failure (a tenant failed), oom (a tenant ran out of "
                  "memory), slo (a tenant missed an SLO), warning (any of those, or another warning such as a queue "
                  "that does not reach a steady state); comma-separated")
      ->delimiter(',')
      ->check(CLI::IsMember({"failure", "oom", "slo", "warning"}));
  LimitOptions run_limits;
  add_limit_options(run, run_limits);
  run->add_option("--timeline", timeline_path,
                  "write a Chrome trace of the run (open in Perfetto or chrome://tracing): kernels, slices, switches, "
                  "utilization and memory (the format `timeline`)");
  std::string timeline_window;
  run->add_option("--timeline-window", timeline_window,
                  "keep only this part of the run in the timeline, FROM:TO in simulated time, e.g. 10s:12s (a long "
                  "run's timeline holds every kernel)");
  run->add_option("--report", report_path,
                  "write a self-contained HTML report: vGPU loss, latency CDFs, utilization over time, warnings (the "
                  "format `html`)");
  run->add_option("--write", writes,
                  "write one output format to a file: FORMAT=FILE (repeatable); scenario formats: " +
                      run_format_names() + "; cluster and plan files: table, json, csv");

  auto* fit = app.add_subcommand("fit", "fit model parameters to hwcal raw measurements and write a calibration file");
  std::string raw_path, cal_out, gpu_override;
  std::string gpu_benches_dir;
  fit->add_option("raw", raw_path, "hwcal raw measurement file (JSON)");
  fit->add_option("--gpu-benches", gpu_benches_dir,
                  "the gpu-benches folder (scenarios/measurements/gpu-benches). Alone: writes one calibration per "
                  "catalog GPU it covers into the -o folder (keeping files fitted from hwcal raw files); with a raw "
                  "file: adds that GPU's facts and the values the raw file does not fit");
  std::string vidur_dir;
  fit->add_option("--vidur", vidur_dir,
                  "the Vidur folder (scenarios/measurements/vidur): fits the roofline's op classes per GPU on its "
                  "profiled ops; with --gpu-benches, on top of that fit (how the shipped calibrations are made); "
                  "alone, into each GPU's calibration file in the -o folder (its other values kept)");
  fit->add_option("-o,--out", cal_out, "calibration file to write (YAML); with --gpu-benches or --vidur a folder");
  fit->add_option("--gpu", gpu_override, "catalog GPU it was measured on (default: from the device name)");

  auto* validate = app.add_subcommand(
      "validate", "re-simulate measured situations (hwcal co-runs, or published datasets) and report prediction errors");
  std::string validate_raw, cal_in, validation_json, validation_docs, validation_cases;
  std::vector<std::string> published;
  validate->add_option("raw", validate_raw, "hwcal raw measurement file (JSON)");
  validate->add_option("--published", published,
                       "NAME DIR: a published dataset (" + fmt::format("{}", fmt::join(published_datasets(), ", ")) +
                           ", or all) and its folder, e.g. scenarios/measurements")
      ->expected(2);
  validate->add_option("--docs", validation_docs, "write the docs/validation pages to this folder (with a raw file: hwcal-<gpu>-<run>.md, needs "
                       "--calibration)");
  validate->add_option("--cases", validation_cases, "with --published: write every case to this CSV file");
  validate->add_option("--calibration", cal_in, "calibration file (without: the models' defaults)");
  validate->add_option("--json", validation_json, "also write the table as JSON");
  validate->add_option("--gpu", gpu_override, "catalog GPU it was measured on (default: from the calibration); with --published vidur: the GPU to predict the ops on");

  auto* synth = app.add_subcommand("synth-raw", "write a synthetic raw file made by the simulator (for tests)");
  std::string synth_gpu, synth_out;
  double synth_noise = 0.003;
  uint64_t synth_seed = 1;
  synth->add_option("gpu", synth_gpu, "catalog GPU")->required();
  synth->add_option("-o,--out", synth_out, "file to write")->required();
  synth->add_option("--noise", synth_noise, "relative noise on every measurement (default 0.003)");
  synth->add_option("--seed", synth_seed, "noise seed");

  auto* plan = app.add_subcommand("plan", "find the cheapest instance type, count and sharing that meets every SLO");
  std::string plan_path, plan_out;
  PlanRun plan_run;
  bool plan_quiet = false;
  plan->add_option("plan", plan_path, "plan file (kind: plan)")->required();
  plan->add_option("--out", plan_out, "write plan.json (or plan-shard-I-of-N.json) into this directory");
  plan->add_option("--shard", plan_run.shard_flag,
                   "evaluate only shard I of N (I/N); also SLURM_ARRAY_TASK_ID or JOB_COMPLETION_INDEX with --shards");
  plan->add_option("--shards", plan_run.shards, "shard count for SLURM_ARRAY_TASK_ID / JOB_COMPLETION_INDEX");
  plan->add_option("--threads", plan_run.threads, "simulation threads (default: all cores)")
      ->check(CLI::Range(1u, 4096u));
  plan->add_flag("--quiet,-q", plan_quiet, "print nothing on success");

  auto* merge = app.add_subcommand("merge", "join the plan.json files of shards and report the decision");
  std::vector<std::string> merge_parts;
  std::string merge_out;
  merge->add_option("parts", merge_parts, "plan-shard-*.json files")->required();
  merge->add_option("--out", merge_out, "write the merged plan.json into this directory");

  auto* sweep = app.add_subcommand("sweep", "run a scenario under every combination of some keys' values and compare");
  std::string sweep_path;
  std::vector<std::string> sweep_sets;
  SweepOptions sweep_options;
  sweep->add_option("scenario", sweep_path, "scenario YAML file")->required();
  sweep->add_option("--vary", sweep_options.vary,
                    "KEY=V1,V2,...: a key (as --set names it) and its values (repeatable: every combination runs); "
                    "values split at commas outside {} and [], e.g. sharing.g0={mode: mps},{mode: timeslice}")
      ->required();
  sweep->add_option("--set", sweep_sets, "a value for every combination: key.path=value (repeatable)");
  LimitOptions sweep_limits;
  add_limit_options(sweep, sweep_limits);
  sweep->add_option("--csv", sweep_options.csv, "write every combination's results as one tidy CSV to this file");
  sweep->add_option("--threads", sweep_options.threads, "simulation threads (default: all cores)")
      ->check(CLI::Range(1u, 4096u));
  sweep->add_flag("--quiet,-q", sweep_options.quiet, "print no table");

  auto* study = app.add_subcommand(
      "study", "reproduce the FGD paper's cluster study (reference protocol and policies) or compare two of its files");
  StudyOptions study_options;
  study->add_option("--nodes", study_options.nodes, "openb node list (openb_node_list_gpu_node.csv)");
  study->add_option("--trace", study_options.traces, "openb pod list (repeatable); the file stem names the workload");
  study->add_option("--policies", study_options.policies,
                    "comma-separated: random, dot_product, gpu_clustering, gpu_packing, best_fit, fgd, fgd_exact")
      ->capture_default_str();
  study->add_option("--seeds", study_options.seeds, "seeds, e.g. 42-51 or 1,2,5")->capture_default_str();
  study->add_option("--tune", study_options.tune, "top the trace up to this many times the cluster's GPUs")
      ->capture_default_str();
  study->add_option("--out", study_options.out,
                    "write analysis_allo_discrete.csv, analysis_frag_discrete.csv, analysis_frag_ratio_discrete.csv "
                    "and summary.csv here");
  study->add_option("--threads", study_options.threads, "simulation threads (default: all cores)")
      ->check(CLI::Range(1, 4096));
  study->add_option("--compare", study_options.compare,
                    "PUBLISHED.csv OURS.csv: per workload and policy, the largest difference of the mean curves")
      ->expected(2);
  study->add_option("--tolerance", study_options.tolerance,
                    "with --compare: exit 4 when a difference exceeds this many percentage points")
      ->capture_default_str();
  study->add_flag("--quiet,-q", study_options.quiet, "print no table");

  auto* list = app.add_subcommand("list", "list catalog GPUs, models, or scenario keys");
  std::string what, list_name;
  bool sources = false, markdown = false;
  list->add_option("what", what, "gpus | instances | llm-models | models | keys")
      ->required()
      ->check(CLI::IsMember({"gpus", "instances", "llm-models", "models", "keys"}));
  list->add_option("name", list_name,
                   "with `models --markdown`: only this model's parameter block; with `keys`: scenario (the default) "
                   "or cluster");
  list->add_flag("--sources", sources, "with `gpus`, `instances` or `llm-models`: print every value's source");
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
    if (*run) {
      RunOptions options;
      options.out_dir = out_dir;
      options.quiet = quiet;
      options.fail_on = fail_on;
      options.limits = parse_limits(run_limits);
      if (!fidelity.empty()) options.overrides.push_back(parse_override("fidelity=" + fidelity));
      if (seed >= 0) options.overrides.push_back(parse_override("seed=" + std::to_string(seed)));
      for (const std::string& s : sets) options.overrides.push_back(parse_override(s));
      if (!timeline_path.empty()) options.writes.emplace_back("timeline", timeline_path);
      if (!timeline_window.empty()) {
        const auto colon = timeline_window.find(':');
        const units::ParseResult from =
            units::parse(colon == std::string::npos ? timeline_window : timeline_window.substr(0, colon), units::Dim::Time);
        const units::ParseResult to = units::parse(colon == std::string::npos ? "" : timeline_window.substr(colon + 1),
                                                   units::Dim::Time);
        if (colon == std::string::npos || !from.ok || !to.ok || !(to.value > from.value) || !std::isfinite(to.value))
          throw InputError(fmt::format("--timeline-window {}: expected FROM:TO, two times with TO after FROM, e.g. "
                                       "10s:12s",
                                       timeline_window));
        options.timeline_window = {from.value, to.value};
      }
      if (!report_path.empty()) options.writes.emplace_back("html", report_path);
      for (const std::string& w : writes) options.writes.push_back(parse_write(w));
      ScenarioDocument doc = read_scenario_document(scenario);
      if (doc.kind == "cluster") return run_cluster_command(doc, options);
      if (doc.kind == "plan") return run_plan_command(doc, options);
      return run_scenario_command(std::move(doc), options);
    }
    if (*sweep) {
      for (const std::string& s : sweep_sets) sweep_options.fixed.push_back(parse_override(s));
      sweep_options.limits = parse_limits(sweep_limits);
      return sweep_command(sweep_path, sweep_options);
    }
    if (*study) return study_command(study_options);
    if (*plan) return plan_command(read_scenario_document(plan_path, "plan file"), plan_run, plan_out, plan_quiet);
    if (*merge) return merge_command(merge_parts, merge_out);
    if (*fit) {
      if (!gpu_benches_dir.empty() && raw_path.empty()) {
        if (!gpu_override.empty())
          throw InputError("fit: --gpu goes with a raw file, not with --gpu-benches alone (each table names its GPU)");
        return fit_gpu_benches_command(gpu_benches_dir, cal_out, vidur_dir);
      }
      if (!vidur_dir.empty()) {
        if (!raw_path.empty() || !gpu_override.empty())
          throw InputError("fit: --vidur goes alone (with -o) or with --gpu-benches, not with a raw file or --gpu");
        return fit_vidur_command(vidur_dir, cal_out);
      }
      if (raw_path.empty()) throw InputError("fit: give a raw file, or --gpu-benches DIR");
      return fit_command(raw_path, cal_out, gpu_override, gpu_benches_dir);
    }
    if (*validate) {
      if (!published.empty()) {
        if (!validate_raw.empty() || !cal_in.empty())
          throw InputError("validate: give either a raw file or --published NAME DIR, not both");
        PublishedOptions options;
        options.gpu = gpu_override;
        return validate_published_command(published[0], published[1], options, validation_json, validation_docs,
                                          validation_cases);
      }
      if (validate_raw.empty()) throw InputError("validate: give a raw file, or --published NAME DIR");
      if (!validation_cases.empty()) throw InputError("validate: --cases goes with --published");
      return validate_command(validate_raw, cal_in, validation_json, gpu_override, validation_docs);
    }
    if (*synth) return synth_raw_command(synth_gpu, synth_out, synth_noise, synth_seed);
    if (what == "gpus") std::cout << gpus_listing(sources);
    if (what == "instances") std::cout << instances_listing(sources);
    if (what == "llm-models") std::cout << llm_models_listing(sources);
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
