// `vgpusim study`: loads the node list and pod lists once, runs every (trace, policy, seed) on threads, writes the
// published format. docs/cluster.md, "Reproducing the FGD study".
#include "sim/studies/cluster/study_command.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "sim/core/errors.hpp"
#include "sim/core/parallel.hpp"
#include "sim/io/files.hpp"
#include "sim/io/openb.hpp"
#include "sim/io/text_fields.hpp"
#include "sim/report/shard.hpp"
#include "sim/studies/cluster/reference_study.hpp"

namespace vgpusim {
std::vector<RefNode> load_study_nodes(const std::string& path) {
  std::vector<RefNode> nodes;
  for (const ClusterNode& n : read_openb_nodes(path, true)) {
    if (n.gpus > 64) throw InputError(fmt::format("{}: node {} has {} GPUs; at most 64", path, n.name, n.gpus));
    RefNode r;
    r.model = n.gpu_model;
    r.cpu_left = std::llround(n.cpu_milli);
    r.memory_left = std::llround(n.memory_mib);
    r.gpu_left.assign(static_cast<size_t>(n.gpus), kRefMilli);
    nodes.push_back(std::move(r));
  }
  if (nodes.empty()) throw InputError(fmt::format("{}: no node with a GPU", path));
  return nodes;
}

StudyTrace load_study_trace(const std::string& path) {
  StudyTrace t;
  t.workload = std::filesystem::path(path).stem().string();
  std::vector<ClusterJob> jobs = read_openb_pods(path, 0);
  // The reference sorts the pods by name (byte order) before it shuffles them.
  std::stable_sort(jobs.begin(), jobs.end(), [](const ClusterJob& a, const ClusterJob& b) { return a.name < b.name; });
  for (const ClusterJob& j : jobs) {
    RefPod p;
    p.cpu_milli = std::llround(j.cpu_milli);
    p.memory_mib = std::llround(j.memory_mib);
    p.gpu_count = j.num_gpu;
    p.milli_gpu = j.num_gpu == 0 ? 0 : j.gpu_units / kUnitsPerMilliGpu;
    for (const std::string& m : j.gpu_models)
      if (!m.empty()) p.gpu_types.push_back(m);
    t.pods.push_back(std::move(p));
  }
  if (t.pods.empty()) throw InputError(fmt::format("{}: no pods", path));
  if (std::none_of(t.pods.begin(), t.pods.end(), [](const RefPod& p) { return p.total_milli_gpu() > 0; }))
    throw InputError(fmt::format("{}: no pod asks for a GPU", path));
  return t;
}

std::vector<uint64_t> parse_seed_list(const std::string& text) {
  std::vector<uint64_t> seeds;
  const auto bad = [&](const std::string& why) {
    return InputError(fmt::format("--seeds '{}': {} (expected e.g. 42-51 or 1,2,5)", text, why));
  };
  const auto number = [&](const std::string& s) -> uint64_t {
    if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos || s.size() > 18)
      throw bad(fmt::format("'{}' is not a seed", s));
    return std::stoull(s);
  };
  for (const std::string& part : split_fields(text, ',')) {
    const size_t dash = part.find('-');
    if (dash == std::string::npos) {
      seeds.push_back(number(part));
      continue;
    }
    const uint64_t a = number(part.substr(0, dash)), b = number(part.substr(dash + 1));
    if (b < a) throw bad(fmt::format("the range {} ends before it starts", part));
    if (b - a >= 100000) throw bad("more than 100000 seeds");
    for (uint64_t s = a; s <= b; ++s) seeds.push_back(s);
  }
  if (seeds.empty()) throw bad("no seed");
  if (seeds.size() > 100000) throw bad("more than 100000 seeds");
  std::vector<uint64_t> sorted = seeds;
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) throw bad("a seed appears twice");
  return seeds;
}

namespace {

// The four files of the published format and the summary.
void write_study_files(const std::string& out, const std::vector<StudyRun>& runs) {
  write_files_atomically({{out + "/analysis_allo_discrete.csv", study_allocation_csv(runs)},
                          {out + "/analysis_frag_discrete.csv", study_fragmentation_csv(runs)},
                          {out + "/analysis_frag_ratio_discrete.csv", study_fragmentation_ratio_csv(runs)},
                          {out + "/summary.csv", study_summary_csv(runs)}});
}

nlohmann::ordered_json curve_json(const std::vector<double>& v) {
  nlohmann::ordered_json a = nlohmann::ordered_json::array();
  for (double x : v) a.push_back(number_or_null(x));
  return a;
}

// What makes two shards parts of one study: its inputs as given (paths, policies, seeds, tune).
nlohmann::ordered_json study_inputs(const StudyOptions& o) {
  return {{"nodes", o.nodes}, {"traces", o.traces}, {"policies", o.policies}, {"seeds", o.seeds}, {"tune", o.tune}};
}

// A shard's runs, every field of each, so that merging writes the very files one process would have.
std::string study_shard_json(const StudyOptions& o, size_t total, unsigned shard, unsigned shards,
                             const std::vector<size_t>& indices, const std::vector<StudyRun>& runs) {
  nlohmann::ordered_json j;
  j["schema"] = "vgpusim.study-shard/1";
  j["study"] = study_inputs(o);
  j["shard"] = {{"index", shard}, {"count", shards}};
  j["runs_total"] = total;
  nlohmann::ordered_json rs = nlohmann::ordered_json::array();
  for (size_t k = 0; k < runs.size(); ++k) {
    const StudyRun& r = runs[k];
    rs.push_back({{"index", indices[k]},
                  {"workload", r.workload},
                  {"policy_label", r.policy_label},
                  {"seed", r.seed},
                  {"tune", r.tune},
                  {"total_gpus", r.total_gpus},
                  {"pods", r.pods},
                  {"failed", r.failed},
                  {"first_failure", r.first_failure},
                  {"first_failure_arrived_percent", number_or_null(r.first_failure_arrived_percent)},
                  {"first_failure_request", r.first_failure_request},
                  {"final_unallocated_milli_gpu", r.final_unallocated_milli_gpu},
                  {"final_allocation_percent", number_or_null(r.final_allocation_percent)},
                  {"final_fragmentation_percent", number_or_null(r.final_fragmentation_percent)},
                  {"final_fragmentation_ratio", number_or_null(r.final_fragmentation_ratio)},
                  {"allocation", curve_json(r.allocation)},
                  {"fragmentation", curve_json(r.fragmentation)},
                  {"fragmentation_ratio", curve_json(r.fragmentation_ratio)}});
  }
  j["runs"] = rs;
  return j.dump(2) + "\n";
}

std::vector<double> read_curve(const ShardReader& r, const nlohmann::json& obj, const char* key,
                               const std::string& where) {
  std::vector<double> out;
  const nlohmann::json& list = r.list(obj, key, where);
  // A run has a value (or null) at every level: the study table and the curve files read all of them.
  if (list.size() != static_cast<size_t>(kStudyLevels))
    throw InputError(fmt::format("{}: {}.{}: expected {} levels (arrived GPU 0..{}%), found {}", r.part, where, key,
                                 kStudyLevels, kStudyLevels - 1, list.size()));
  for (size_t i = 0; i < list.size(); ++i) {
    if (list[i].is_null()) {
      out.push_back(std::numeric_limits<double>::quiet_NaN());
    } else if (list[i].is_number() && std::isfinite(list[i].get<double>())) {
      out.push_back(list[i].get<double>());
    } else {
      throw InputError(fmt::format("{}: {}.{}[{}]: expected a number or null", r.part, where, key, i));
    }
  }
  return out;
}

}  // namespace

int merge_study_command(const std::vector<std::string>& parts, const std::string& out_dir) {
  nlohmann::json inputs;
  std::string first_part;
  size_t total = 0;
  std::vector<std::pair<size_t, StudyRun>> all;
  std::set<size_t> seen;
  constexpr uint64_t kMaxRuns = 100000000;
  for (const std::string& part : parts) {
    const nlohmann::json j = read_shard_json(part, "vgpusim.study-shard/1");
    const ShardReader r{part};
    const nlohmann::json& study = r.at(j, "study", "(top level)");
    const size_t shard_total = r.whole(j, "runs_total", "(top level)", kMaxRuns);
    if (first_part.empty()) {
      first_part = part;
      inputs = study;
      total = shard_total;
    } else if (study != inputs || shard_total != total) {
      throw InputError(fmt::format("{}: a shard of another study than {} (nodes, traces, policies, seeds or tune "
                                   "differ)",
                                   part, first_part));
    }
    const nlohmann::json& runs = r.list(j, "runs", "(top level)");
    for (size_t i = 0; i < runs.size(); ++i) {
      const nlohmann::json& x = runs[i];
      const std::string where = fmt::format("runs[{}]", i);
      const size_t index = r.whole(x, "index", where, kMaxRuns);
      if (index >= total)
        throw InputError(fmt::format("{}: {}.index: {} is not below runs_total {}", part, where, index, total));
      if (!seen.insert(index).second) throw InputError(fmt::format("{}: run #{} is in two shards", part, index));
      const auto count = [&](const char* key) {
        return static_cast<int64_t>(r.whole(x, key, where, static_cast<uint64_t>(std::numeric_limits<int64_t>::max())));
      };
      StudyRun run;
      run.workload = r.text(x, "workload", where);
      run.policy_label = r.text(x, "policy_label", where);
      run.seed = r.whole(x, "seed", where, std::numeric_limits<uint64_t>::max());
      run.tune = r.number(x, "tune", where);
      run.total_gpus = count("total_gpus");
      run.pods = count("pods");
      run.failed = count("failed");
      const nlohmann::json& first_failure = r.at(x, "first_failure", where);
      if (first_failure == -1)
        run.first_failure = -1;
      else
        run.first_failure = count("first_failure");
      run.first_failure_arrived_percent = r.number_or_nan(x, "first_failure_arrived_percent", where);
      run.first_failure_request = r.text(x, "first_failure_request", where);
      run.final_unallocated_milli_gpu = count("final_unallocated_milli_gpu");
      run.final_allocation_percent = r.number_or_nan(x, "final_allocation_percent", where);
      run.final_fragmentation_percent = r.number_or_nan(x, "final_fragmentation_percent", where);
      run.final_fragmentation_ratio = r.number_or_nan(x, "final_fragmentation_ratio", where);
      run.allocation = read_curve(r, x, "allocation", where);
      run.fragmentation = read_curve(r, x, "fragmentation", where);
      run.fragmentation_ratio = read_curve(r, x, "fragmentation_ratio", where);
      all.emplace_back(index, std::move(run));
    }
  }
  std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<StudyRun> runs;
  for (auto& [index, run] : all) runs.push_back(std::move(run));
  if (runs.size() != total)
    std::cerr << fmt::format("vgpusim merge: {} of {} study runs present: shards are missing\n", runs.size(), total);
  if (!out_dir.empty()) write_study_files(out_dir, runs);
  std::cout << study_table(runs);
  return 0;
}

int study_command(const StudyOptions& o) {
  if (!o.compare.empty()) {
    if (o.compare.size() != 2) throw InputError("study --compare: expected two files, PUBLISHED.csv OURS.csv");
    if (o.json) throw InputError("study --json: goes with a study's runs, not with --compare");
    if (!(o.tolerance >= 0)) throw InputError("study --tolerance: expected a number >= 0");
    const StudyComparison c = compare_study_files(o.compare[0], o.compare[1]);
    if (c.rows.empty())
      throw InputError(fmt::format("study --compare: {} and {} have no (workload, policy) in common", o.compare[0],
                                   o.compare[1]));
    if (!o.quiet) std::cout << study_comparison_table(c, o.tolerance);
    const bool above = std::any_of(c.rows.begin(), c.rows.end(),
                                   [&](const StudyDifference& d) { return d.max_abs > o.tolerance; });
    if (above)
      std::cerr << fmt::format("vgpusim study: a mean curve differs by more than {} percentage points\n",
                               o.tolerance);
    return above ? 4 : 0;
  }
  if (o.nodes.empty()) throw InputError("study: give --nodes NODES.csv (or --compare A B)");
  if (o.traces.empty()) throw InputError("study: give at least one --trace POD_LIST.csv");
  if (o.out.empty()) throw InputError("study: give --out DIR");
  if (!(o.tune > 0 && o.tune <= 100)) throw InputError(fmt::format("study --tune: expected 0 < tune <= 100, found {}", o.tune));
  std::vector<const StudyPolicy*> policies;
  for (const std::string& name : split_fields(o.policies, ',')) {
    const StudyPolicy* p = find_study_policy(name);
    if (!p) {
      std::string known;
      for (const StudyPolicy& q : study_policies()) known += fmt::format("{}{}", known.empty() ? "" : ", ", q.name);
      throw InputError(fmt::format("study --policies: unknown policy '{}' (known: {})", name, known));
    }
    if (std::find(policies.begin(), policies.end(), p) != policies.end())
      throw InputError(fmt::format("study --policies: '{}' appears twice", name));
    policies.push_back(p);
  }
  const std::vector<uint64_t> seeds = parse_seed_list(o.seeds);
  const std::vector<RefNode> nodes = load_study_nodes(o.nodes);
  std::vector<StudyTrace> traces;
  for (const std::string& path : o.traces) {
    traces.push_back(load_study_trace(path));
    for (size_t i = 0; i + 1 < traces.size(); ++i)
      if (traces[i].workload == traces.back().workload)
        throw InputError(fmt::format("study: two traces named {} (the file stem names the workload)", path));
  }

  struct Job {
    size_t trace, policy;
    uint64_t seed;
  };
  std::vector<Job> jobs;
  for (size_t t = 0; t < traces.size(); ++t)
    for (size_t p = 0; p < policies.size(); ++p)
      for (uint64_t s : seeds) jobs.push_back({t, p, s});
  const auto [shard, shards] = resolve_shard(o.shard_flag, o.shards);
  std::vector<size_t> mine;  // indices into jobs
  for (size_t i = 0; i < jobs.size(); ++i)
    if (i % shards == shard) mine.push_back(i);
  std::vector<StudyRun> runs(mine.size());
  const unsigned threads = o.threads > 0 ? o.threads : std::max(1u, std::thread::hardware_concurrency());
  run_parallel(mine.size(), threads, [&](size_t k) {
    const Job& job = jobs[mine[k]];
    runs[k] = run_reference_protocol(nodes, traces[job.trace], *policies[job.policy], job.seed, o.tune);
  });
  if (shards > 1) {
    write_file_atomically(fmt::format("{}/{}", o.out, shard_file_name("study", shard, shards)),
                          study_shard_json(o, jobs.size(), shard, shards, mine, runs));
    if (!o.quiet)
      std::cout << (o.json ? study_shard_json(o, jobs.size(), shard, shards, mine, runs)
                           : fmt::format("study shard {} of {}: {} of {} runs\n", shard, shards, runs.size(),
                                         jobs.size()));
    return 0;
  }
  write_study_files(o.out, runs);
  if (!o.quiet) std::cout << (o.json ? study_shard_json(o, jobs.size(), 0, 1, mine, runs) : study_table(runs));
  return 0;
}

}  // namespace vgpusim
