// `vgpusim study`: loads the node list and pod lists once, runs every (trace, policy, seed) on threads, writes the
// published format. docs/cluster.md, "Reproducing the FGD study".
#include "sim/studies/cluster/study_command.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <thread>

#include "sim/core/errors.hpp"
#include "sim/core/parallel.hpp"
#include "sim/io/files.hpp"
#include "sim/io/openb.hpp"
#include "sim/io/text_fields.hpp"
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

int study_command(const StudyOptions& o) {
  if (!o.compare.empty()) {
    if (o.compare.size() != 2) throw InputError("study --compare: expected two files, PUBLISHED.csv OURS.csv");
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
  std::vector<StudyRun> runs(jobs.size());
  const unsigned threads = o.threads > 0 ? o.threads : std::max(1u, std::thread::hardware_concurrency());
  run_parallel(jobs.size(), threads, [&](size_t i) {
    runs[i] = run_reference_protocol(nodes, traces[jobs[i].trace], *policies[jobs[i].policy], jobs[i].seed, o.tune);
  });

  write_files_atomically({{o.out + "/analysis_allo_discrete.csv", study_allocation_csv(runs)},
                          {o.out + "/analysis_frag_discrete.csv", study_fragmentation_csv(runs)},
                          {o.out + "/analysis_frag_ratio_discrete.csv", study_fragmentation_ratio_csv(runs)},
                          {o.out + "/summary.csv", study_summary_csv(runs)}});
  if (!o.quiet) std::cout << study_table(runs);
  return 0;
}

}  // namespace vgpusim
