// The vgpusim command line: argument parsing and dispatch to the rooms that do the work (sim/report for runs and
// listings, sim/studies for cluster studies, plans and calibration). Exit status: 0 ok, 2 bad input (a file,
// arguments), 1 internal error.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <cmath>
#include <functional>
#include <iostream>
#include <memory>
#include <utility>

#include "sim/core/units.hpp"
#include "sim/io/hwcal_raw.hpp"
#include "sim/report/listings.hpp"
#include "sim/report/run_command.hpp"
#include "sim/report/run_formats.hpp"
#include "sim/report/shard.hpp"
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

// --timeline-window FROM:TO.
std::pair<double, double> parse_timeline_window(const std::string& text) {
  namespace units = vgpusim::units;
  const auto colon = text.find(':');
  const units::ParseResult from =
      units::parse(colon == std::string::npos ? text : text.substr(0, colon), units::Dim::Time);
  const units::ParseResult to =
      units::parse(colon == std::string::npos ? "" : text.substr(colon + 1), units::Dim::Time);
  if (colon == std::string::npos || !from.ok || !to.ok || !(to.value > from.value) || !std::isfinite(to.value))
    throw vgpusim::InputError(fmt::format(
        "--timeline-window {}: expected FROM:TO, two times with TO after FROM, e.g. 10s:12s", text));
  return {from.value, to.value};
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

// One subcommand: its options (bound to a struct the action shares) and what it does once they are parsed.
struct Subcommand {
  CLI::App* app;
  std::function<int()> act;
};

Subcommand run_subcommand(CLI::App& app) {
  using namespace vgpusim;
  struct Options {
    std::string scenario, out_dir, fidelity, timeline_path, timeline_window, report_path;
    std::vector<std::string> sets, writes, fail_on;
    long long seed = -1;
    bool quiet = false, json = false;
    unsigned threads = 0;
    LimitOptions limits;
  };
  auto o = std::make_shared<Options>();
  auto* run = app.add_subcommand("run", "simulate a scenario (or a cluster study, or a plan) and print its results");
  run->add_option("scenario", o->scenario, "scenario YAML file")->required();
  run->add_option("--out", o->out_dir, "write results.json and results.csv into this directory");
  run->add_option("--seed", o->seed, "override the scenario's seed")->check(CLI::NonNegativeNumber);
  run->add_option("--fidelity", o->fidelity, "override the scenario's fidelity")
      ->check(CLI::IsMember({"exact", "fluid"}));
  run->add_option("--set", o->sets, "override a scenario value: key.path=value (repeatable)");
  run->add_flag("--quiet,-q", o->quiet, "print nothing on success (warnings still go to stderr)");
  run->add_flag("--json", o->json, "print results.json (the format `json`) on stdout instead of the table");
  run->add_option("--threads", o->threads,
                  "threads for a scenario's replications and baselines (default: all cores; results do not depend on "
                  "it)")
      ->check(CLI::Range(1u, 4096u));
  run->add_option("--fail-on", o->fail_on,
                  "exit 3 when the run shows one of these: failure (a tenant failed), oom (a tenant ran out of "
                  "memory), slo (a tenant missed an SLO), warning (any of those, or another warning such as a queue "
                  "that does not reach a steady state); comma-separated")
      ->delimiter(',')
      ->check(CLI::IsMember({"failure", "oom", "slo", "warning"}));
  add_limit_options(run, o->limits);
  run->add_option("--timeline", o->timeline_path,
                  "write a Chrome trace of the run (open in Perfetto or chrome://tracing): kernels, slices, switches, "
                  "utilization and memory (the format `timeline`)");
  run->add_option("--timeline-window", o->timeline_window,
                  "keep only this part of the run in the timeline, FROM:TO in simulated time, e.g. 10s:12s (a long "
                  "run's timeline holds every kernel)");
  run->add_option("--report", o->report_path,
                  "write a self-contained HTML report: vGPU loss, latency CDFs, utilization over time, warnings (the "
                  "format `html`)");
  run->add_option("--write", o->writes,
                  "write one output format to a file: FORMAT=FILE (repeatable); scenario formats: " +
                      run_format_names() + "; cluster and plan files: table, json, csv");
  return {run, [o] {
            RunOptions options;
            options.out_dir = o->out_dir;
            options.quiet = o->quiet;
            options.json = o->json;
            options.threads = o->threads;
            options.fail_on = o->fail_on;
            options.limits = parse_limits(o->limits);
            if (!o->fidelity.empty()) options.overrides.push_back(parse_override("fidelity=" + o->fidelity));
            if (o->seed >= 0) options.overrides.push_back(parse_override("seed=" + std::to_string(o->seed)));
            for (const std::string& s : o->sets) options.overrides.push_back(parse_override(s));
            if (!o->timeline_path.empty()) options.writes.emplace_back("timeline", o->timeline_path);
            if (!o->timeline_window.empty()) options.timeline_window = parse_timeline_window(o->timeline_window);
            if (!o->report_path.empty()) options.writes.emplace_back("html", o->report_path);
            for (const std::string& w : o->writes) options.writes.push_back(parse_write(w));
            ScenarioDocument doc = read_scenario_document(o->scenario);
            if (doc.kind == "cluster") return run_cluster_command(doc, options);
            if (doc.kind == "plan") return run_plan_command(doc, options);
            return run_scenario_command(std::move(doc), options);
          }};
}

Subcommand fit_subcommand(CLI::App& app) {
  using namespace vgpusim;
  struct Options {
    std::string raw_path, out, gpu, gpu_benches, vidur;
  };
  auto o = std::make_shared<Options>();
  auto* fit = app.add_subcommand("fit", "fit model parameters to hwcal raw measurements and write a calibration file");
  fit->add_option("raw", o->raw_path, "hwcal raw measurement file (JSON)");
  fit->add_option("--gpu-benches", o->gpu_benches,
                  "the gpu-benches folder (scenarios/measurements/gpu-benches). Alone: writes one calibration per "
                  "catalog GPU it covers into the -o folder (keeping files fitted from hwcal raw files); with a raw "
                  "file: adds that GPU's facts and the values the raw file does not fit");
  fit->add_option("--vidur", o->vidur,
                  "the Vidur folder (scenarios/measurements/vidur): fits the roofline's op classes per GPU on its "
                  "profiled ops; with --gpu-benches, on top of that fit (how the shipped calibrations are made); "
                  "alone, into each GPU's calibration file in the -o folder (its other values kept)");
  fit->add_option("-o,--out", o->out, "calibration file to write (YAML); with --gpu-benches or --vidur a folder");
  fit->add_option("--gpu", o->gpu, "catalog GPU it was measured on (default: from the device name)");
  return {fit, [o] {
            if (!o->gpu_benches.empty() && o->raw_path.empty()) {
              if (!o->gpu.empty())
                throw InputError(
                    "fit: --gpu goes with a raw file, not with --gpu-benches alone (each table names its GPU)");
              return fit_gpu_benches_command(o->gpu_benches, o->out, o->vidur);
            }
            if (!o->vidur.empty()) {
              if (!o->raw_path.empty() || !o->gpu.empty())
                throw InputError(
                    "fit: --vidur goes alone (with -o) or with --gpu-benches, not with a raw file or --gpu");
              return fit_vidur_command(o->vidur, o->out);
            }
            if (o->raw_path.empty()) throw InputError("fit: give a raw file, or --gpu-benches DIR");
            return fit_command(o->raw_path, o->out, o->gpu, o->gpu_benches);
          }};
}

Subcommand validate_subcommand(CLI::App& app) {
  using namespace vgpusim;
  struct Options {
    std::string raw, calibration, json, docs, cases, gpu, trust;
    std::vector<std::string> published;
  };
  auto o = std::make_shared<Options>();
  auto* validate = app.add_subcommand(
      "validate", "re-simulate measured situations (hwcal co-runs, or published datasets) and report prediction errors");
  validate->add_option("raw", o->raw, "hwcal raw measurement file (JSON)");
  validate->add_option("--published", o->published,
                       "NAME DIR: a published dataset (" + fmt::format("{}", fmt::join(published_datasets(), ", ")) +
                           ", or all) and its folder, e.g. scenarios/measurements")
      ->expected(2);
  validate->add_option("--docs", o->docs,
                       "write the docs/validation pages to this folder (with a raw file: hwcal-<gpu>-<run>.md, needs "
                       "--calibration)");
  validate->add_option("--cases", o->cases, "with --published: write every case to this CSV file");
  validate->add_option("--trust", o->trust,
                       "with --published: write the trust bands' table (models/catalog/trust.csv) to this file");
  validate->add_option("--calibration", o->calibration, "calibration file (without: the models' defaults)");
  validate->add_option("--json", o->json, "also write the table as JSON");
  validate->add_option("--gpu", o->gpu,
                       "catalog GPU it was measured on (default: from the calibration); with --published vidur: the "
                       "GPU to predict the ops on");
  return {validate, [o] {
            if (!o->published.empty()) {
              if (!o->raw.empty() || !o->calibration.empty())
                throw InputError("validate: give either a raw file or --published NAME DIR, not both");
              PublishedOptions options;
              options.gpu = o->gpu;
              options.trust = o->trust;
              return validate_published_command(o->published[0], o->published[1], options, o->json, o->docs,
                                                o->cases);
            }
            if (o->raw.empty()) throw InputError("validate: give a raw file, or --published NAME DIR");
            if (!o->cases.empty() || !o->trust.empty())
              throw InputError("validate: --cases and --trust go with --published");
            return validate_command(o->raw, o->calibration, o->json, o->gpu, o->docs);
          }};
}

Subcommand synth_subcommand(CLI::App& app) {
  using namespace vgpusim;
  struct Options {
    std::string gpu, out;
    double noise = 0.003;
    uint64_t seed = 1;
  };
  auto o = std::make_shared<Options>();
  auto* synth = app.add_subcommand("synth-raw", "write a synthetic raw file made by the simulator (for tests)");
  synth->add_option("gpu", o->gpu, "catalog GPU")->required();
  synth->add_option("-o,--out", o->out, "file to write")->required();
  synth->add_option("--noise", o->noise, "relative noise on every measurement (default 0.003)");
  synth->add_option("--seed", o->seed, "noise seed");
  return {synth, [o] { return synth_raw_command(o->gpu, o->out, o->noise, o->seed); }};
}

Subcommand plan_subcommand(CLI::App& app) {
  using namespace vgpusim;
  struct Options {
    std::string path, out;
    PlanRun run;
    bool quiet = false;
  };
  auto o = std::make_shared<Options>();
  auto* plan = app.add_subcommand("plan", "find the cheapest instance type, count and sharing that meets every SLO");
  plan->add_option("plan", o->path, "plan file (kind: plan)")->required();
  plan->add_option("--out", o->out, "write plan.json (or plan-shard-I-of-N.json) into this directory");
  plan->add_option("--shard", o->run.shard_flag,
                   "evaluate only shard I of N (I/N); also SLURM_ARRAY_TASK_ID or JOB_COMPLETION_INDEX with --shards");
  plan->add_option("--shards", o->run.shards, "shard count for SLURM_ARRAY_TASK_ID / JOB_COMPLETION_INDEX");
  plan->add_option("--threads", o->run.threads, "simulation threads (default: all cores)")
      ->check(CLI::Range(1u, 4096u));
  plan->add_flag("--quiet,-q", o->quiet, "print nothing on success");
  plan->add_flag("--json", o->run.json, "print plan.json (a shard: its shard file) on stdout instead of the table");
  return {plan, [o] { return plan_command(read_scenario_document(o->path, "plan file"), o->run, o->out, o->quiet); }};
}

// `vgpusim merge`: the shard files' schema says which command wrote them; all must be of one.
int merge_shards_command(const std::vector<std::string>& parts, const std::string& out) {
  using namespace vgpusim;
  const std::vector<std::string> files = shard_files(parts);
  const std::string schema = shard_schema(files.front());
  for (const std::string& f : files)
    if (shard_schema(f) != schema)
      throw InputError(fmt::format("{}: a shard of another kind ({}) than {} ({})", f, shard_schema(f), files.front(),
                                   schema.empty() ? "no schema" : schema));
  if (schema == "vgpusim.plan/1") return merge_command(files, out);
  if (schema == "vgpusim.sweep/1") return merge_sweep_command(files, out);
  if (schema == "vgpusim.study-shard/1") return merge_study_command(files, out);
  throw InputError(fmt::format("{}: not a shard of plan, sweep or study (schema '{}')", files.front(), schema));
}

Subcommand merge_subcommand(CLI::App& app) {
  using namespace vgpusim;
  struct Options {
    std::vector<std::string> parts;
    std::string out;
  };
  auto o = std::make_shared<Options>();
  auto* merge = app.add_subcommand("merge", "join the outputs of plan, sweep or study shards into the unsharded run's");
  merge->add_option("parts", o->parts, "shard output directories, or their *-shard-I-of-N.json files")->required();
  merge->add_option("--out", o->out, "write the merged outputs into this directory");
  return {merge, [o] { return merge_shards_command(o->parts, o->out); }};
}

Subcommand sweep_subcommand(CLI::App& app) {
  using namespace vgpusim;
  struct Options {
    std::string path;
    std::vector<std::string> sets;
    SweepOptions sweep;
    LimitOptions limits;
  };
  auto o = std::make_shared<Options>();
  auto* sweep = app.add_subcommand("sweep", "run a scenario under every combination of some keys' values and compare");
  sweep->add_option("scenario", o->path, "scenario YAML file")->required();
  sweep->add_option("--vary", o->sweep.vary,
                    "KEY=V1,V2,...: a key (as --set names it) and its values (repeatable: every combination runs); "
                    "values split at commas outside {} and [], e.g. sharing.g0={mode: mps},{mode: timeslice}")
      ->required();
  sweep->add_option("--set", o->sets, "a value for every combination: key.path=value (repeatable)");
  add_limit_options(sweep, o->limits);
  sweep->add_option("--csv", o->sweep.csv, "write every combination's results as one tidy CSV to this file");
  sweep->add_option("--out", o->sweep.out,
                    "write sweep.json, sweep.csv, sweep.html and c<k>/results.json (a shard: sweep-shard-I-of-N.json) "
                    "into this directory");
  sweep->add_option("--shard", o->sweep.shard_flag,
                    "run only shard I of N (I/N); also SLURM_ARRAY_TASK_ID or JOB_COMPLETION_INDEX with --shards");
  sweep->add_option("--shards", o->sweep.shards, "shard count for SLURM_ARRAY_TASK_ID / JOB_COMPLETION_INDEX")
      ->check(CLI::Range(1u, 100000u));
  sweep->add_option("--threads", o->sweep.threads, "simulation threads (default: all cores)")
      ->check(CLI::Range(1u, 4096u));
  sweep->add_flag("--quiet,-q", o->sweep.quiet, "print no table");
  sweep->add_flag("--json", o->sweep.json, "print sweep.json (schema vgpusim.sweep/1) on stdout instead of the table");
  return {sweep, [o] {
            for (const std::string& s : o->sets) o->sweep.fixed.push_back(parse_override(s));
            o->sweep.limits = parse_limits(o->limits);
            return sweep_command(o->path, o->sweep);
          }};
}

Subcommand study_subcommand(CLI::App& app) {
  using namespace vgpusim;
  auto o = std::make_shared<StudyOptions>();
  auto* study = app.add_subcommand(
      "study", "reproduce the FGD paper's cluster study (reference protocol and policies) or compare two of its files");
  study->add_option("--nodes", o->nodes, "openb node list (openb_node_list_gpu_node.csv)");
  study->add_option("--trace", o->traces, "openb pod list (repeatable); the file stem names the workload");
  study->add_option("--policies", o->policies,
                    "comma-separated: random, dot_product, gpu_clustering, gpu_packing, best_fit, fgd, fgd_exact")
      ->capture_default_str();
  study->add_option("--seeds", o->seeds, "seeds, e.g. 42-51 or 1,2,5")->capture_default_str();
  study->add_option("--tune", o->tune, "top the trace up to this many times the cluster's GPUs")
      ->capture_default_str();
  study->add_option("--out", o->out,
                    "write analysis_allo_discrete.csv, analysis_frag_discrete.csv, analysis_frag_ratio_discrete.csv "
                    "and summary.csv here");
  study->add_option("--threads", o->threads, "simulation threads (default: all cores)")->check(CLI::Range(1, 4096));
  study->add_option("--shard", o->shard_flag,
                    "run only shard I of N (I/N) into study-shard-I-of-N.json; also SLURM_ARRAY_TASK_ID or "
                    "JOB_COMPLETION_INDEX with --shards");
  study->add_option("--shards", o->shards, "shard count for SLURM_ARRAY_TASK_ID / JOB_COMPLETION_INDEX")
      ->check(CLI::Range(1u, 100000u));
  study->add_option("--compare", o->compare,
                    "PUBLISHED.csv OURS.csv: per workload and policy, the largest difference of the mean curves")
      ->expected(2);
  study->add_option("--tolerance", o->tolerance,
                    "with --compare: exit 4 when a difference exceeds this many percentage points")
      ->capture_default_str();
  study->add_flag("--quiet,-q", o->quiet, "print no table");
  study->add_flag("--json", o->json,
                  "print every run as JSON (schema vgpusim.study-shard/1, the file a shard writes) instead of the table");
  return {study, [o] { return study_command(*o); }};
}

Subcommand list_subcommand(CLI::App& app) {
  using namespace vgpusim;
  struct Options {
    std::string what, name;
    bool sources = false, markdown = false;
  };
  auto o = std::make_shared<Options>();
  auto* list = app.add_subcommand("list", "list catalog GPUs, models, or scenario keys");
  list->add_option("what", o->what, "gpus | instances | llm-models | models | keys")
      ->required()
      ->check(CLI::IsMember({"gpus", "instances", "llm-models", "models", "keys"}));
  list->add_option("name", o->name,
                   "with `models --markdown`: only this model's parameter block; with `keys`: scenario (the default) "
                   "or cluster");
  list->add_flag("--sources", o->sources, "with `gpus`, `instances` or `llm-models`: print every value's source");
  list->add_flag("--markdown", o->markdown,
                 "with `keys`: print docs/scenario-reference.md; with `models`: the parameter blocks of "
                 "docs/models/*.md");
  return {list, [o] {
            if (o->what == "gpus") std::cout << gpus_listing(o->sources);
            if (o->what == "instances") std::cout << instances_listing(o->sources);
            if (o->what == "llm-models") std::cout << llm_models_listing(o->sources);
            if (o->what == "models") std::cout << (o->markdown ? models_markdown(o->name) : models_listing());
            if (o->what == "keys") {
              if (!o->name.empty() && o->name != "scenario" && o->name != "cluster")
                throw InputError("list keys: expected scenario or cluster, found '" + o->name + "'");
              if (o->name == "cluster")
                std::cout << (o->markdown ? cluster_reference_markdown() : keys_listing(cluster_sections()));
              else
                std::cout << (o->markdown ? scenario_reference_markdown() : keys_listing(scenario_sections()));
            }
            return 0;
          }};
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
  const std::vector<Subcommand> commands = {run_subcommand(app),   fit_subcommand(app),   validate_subcommand(app),
                                            synth_subcommand(app), plan_subcommand(app),  merge_subcommand(app),
                                            sweep_subcommand(app), study_subcommand(app), list_subcommand(app)};
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return 2;
  }

  try {
    for (const Subcommand& c : commands)
      if (*c.app) return c.act();
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
