// The FGD paper's experiment protocol and its published file format (see the header and docs/cluster.md).
#include "sim/studies/cluster/reference_study.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <random>
#include <set>
#include <stdexcept>
#include <tuple>

#include "sim/core/errors.hpp"
#include "sim/core/units.hpp"
#include "sim/io/text_fields.hpp"

namespace vgpusim {
namespace {

using units::kNaN;

// Uniform integer in [0, n), without modulo bias.
uint64_t draw_below(std::mt19937_64& rng, uint64_t n) {
  const uint64_t limit = std::numeric_limits<uint64_t>::max() - std::numeric_limits<uint64_t>::max() % n;
  uint64_t x;
  do x = rng();
  while (x >= limit);
  return x % n;
}

double round2(double x) { return std::nearbyint(x * 100) / 100; }

// What one policy says of one pod spec on one node, kept until the node changes.
struct CachedScore {
  uint32_t version = 0;  // the node's version it was computed at; 0: never
  bool feasible = false;
  double score = 0;
  uint64_t gpus = 0;     // device bit mask
};

uint64_t mask_of(const std::vector<int>& gpus) {
  uint64_t m = 0;
  for (int g : gpus) m |= uint64_t{1} << g;
  return m;
}

std::vector<int> gpus_of(uint64_t mask) {
  std::vector<int> out;
  for (int g = 0; g < 64; ++g)
    if (mask & (uint64_t{1} << g)) out.push_back(g);
  return out;
}

// What a score depends on of a pod (memory is checked apart: no score uses it).
using SpecKey = std::tuple<int64_t, int, int, std::vector<std::string>>;
SpecKey spec_key(const RefPod& p) { return {p.cpu_milli, p.milli_gpu, p.gpu_count, p.gpu_types}; }

// The score cache's largest size; beyond it every node is scored afresh for every pod.
constexpr size_t kMaxCacheBytes = size_t{256} << 20;

// Per level: count and sums of the per-pod values whose arrived level rounds to it.
struct LevelSums {
  int64_t n = 0, ratio_n = 0;  // ratio_n: pods with idle GPU (the ratio is undefined without)
  double allocation = 0, fragmentation = 0, ratio = 0;
};

std::string py_float(double x) {
  if (std::isnan(x)) return "";
  std::string s = fmt::format("{}", x);
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  return s;
}

std::string stem_of(const StudyRun& r) { return r.workload; }

std::string curves_csv(const std::vector<StudyRun>& runs, const std::vector<double> StudyRun::*curve,
                       bool total_gpus) {
  std::string out = total_gpus ? "workload,sc_policy,tune,seed,total_gpus" : "workload,sc_policy,tune,seed";
  for (int p = 0; p < kStudyLevels; ++p) out += fmt::format(",{}", p);
  out += '\n';
  for (const StudyRun& r : runs) {
    out += fmt::format("{},{},{},{}", stem_of(r), r.policy_label, py_float(r.tune), r.seed);
    if (total_gpus) out += fmt::format(",{}", r.total_gpus);
    for (double v : r.*curve) {
      out += ',';
      out += py_float(v);
    }
    out += '\n';
  }
  return out;
}

}  // namespace

const std::vector<StudyPolicy>& study_policies() {
  static const std::vector<StudyPolicy> policies = [] {
    std::vector<StudyPolicy> v;
    for (const RefPolicyInfo& p : reference_policies()) v.push_back({p.name, p.label, &p, nullptr});
    // Ours, except mig_aware: it rounds shares up to sevenths, which the reference's milli-GPU state cannot hold.
    for (const PlacementPolicyInfo& p : placement_policies())
      if (p.name != "mig_aware") v.push_back({"vgpusim_" + p.name, "vgpusim-" + p.name, nullptr, &p});
    return v;
  }();
  return policies;
}

const StudyPolicy* find_study_policy(const std::string& name) {
  for (const StudyPolicy& p : study_policies())
    if (p.name == name) return &p;
  return nullptr;
}

namespace {

// Our own policies' view of the same cluster: NodeStates in capacity units, and the trace as ClusterJobs.
struct OursView {
  std::vector<ClusterNode> nodes;
  std::vector<NodeState> states;
  std::vector<TaskType> workload;
  std::vector<double> fragmentation;
};

ClusterJob job_of(const RefPod& p) {
  ClusterJob j;
  j.cpu_milli = static_cast<double>(p.cpu_milli);
  j.memory_mib = static_cast<double>(p.memory_mib);
  j.num_gpu = p.milli_gpu > 0 ? p.gpu_count : 0;
  j.gpu_units = j.num_gpu == 0 ? 0 : p.milli_gpu * kUnitsPerMilliGpu;
  j.gpu_models = p.gpu_types;
  return j;
}

void make_view(OursView& v, const std::vector<RefNode>& nodes, const StudyTrace& trace) {
  v.nodes.resize(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) {
    v.nodes[i].name = fmt::format("node-{}", i);
    v.nodes[i].gpu_model = nodes[i].model;
    v.nodes[i].gpus = static_cast<int>(nodes[i].gpu_left.size());
  }
  v.states.resize(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) {
    NodeState& s = v.states[i];
    s.node = &v.nodes[i];
    s.cpu_free = static_cast<double>(nodes[i].cpu_left);
    s.memory_free = static_cast<double>(nodes[i].memory_left);
    s.gpu_free.clear();
    for (int left : nodes[i].gpu_left) s.gpu_free.push_back(left * kUnitsPerMilliGpu);
  }
  std::vector<ClusterJob> jobs;
  for (const RefPod& p : trace.pods) jobs.push_back(job_of(p));
  v.workload = workload_distribution(jobs);
  v.fragmentation.resize(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) v.fragmentation[i] = node_fragmentation(v.states[i], v.workload);
}

// The pod sequence: the trace in name order, shuffled, then random copies of trace pods until the GPU asked for
// reaches `target` milli-GPU (tune x capacity). As in the reference, the stop test adds one device's milli-GPU of
// the next copy.
std::vector<const RefPod*> pod_sequence(const StudyTrace& trace, double target, std::mt19937_64& rng) {
  std::vector<const RefPod*> seq;
  seq.reserve(trace.pods.size() * 2);
  for (const RefPod& p : trace.pods) seq.push_back(&p);
  for (size_t i = seq.size(); i > 1; --i) std::swap(seq[i - 1], seq[draw_below(rng, i)]);
  double asked = 0;
  for (const RefPod* p : seq) asked += static_cast<double>(p->total_milli_gpu());
  if (asked <= 0) throw InputError(fmt::format("{}: no pod asks for a GPU", trace.workload));
  if (asked < target) {
    for (;;) {
      const RefPod* c = &trace.pods[draw_below(rng, trace.pods.size())];
      if (asked + c->milli_gpu > target) break;
      asked += static_cast<double>(c->total_milli_gpu());
      seq.push_back(c);
    }
  } else if (asked > target) {
    while (asked > target && !seq.empty()) {  // tune below 1: drop random pods until under the target
      const size_t i = draw_below(rng, seq.size());
      asked -= static_cast<double>(seq[i]->total_milli_gpu());
      seq.erase(seq.begin() + static_cast<std::ptrdiff_t>(i));
    }
  }
  return seq;
}

// Ties between nodes go to the smallest name, and the reference prefixes every node's name with a seeded random
// number: a random order of nodes fixed for the run.
std::vector<int> node_order(size_t nodes, std::mt19937_64& rng) {
  std::vector<int> order(nodes);
  std::iota(order.begin(), order.end(), 0);
  for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[draw_below(rng, i)]);
  return order;
}

// The run's curves by arrived level (a level without a pod takes the levels either side).
void level_curves(const std::vector<LevelSums>& levels, StudyRun& run) {
  for (int p = 0; p < kStudyLevels; ++p) {
    LevelSums s;
    const auto add = [&](int q) {
      if (q < 0 || q >= static_cast<int>(levels.size())) return;
      const LevelSums& l = levels[static_cast<size_t>(q)];
      s.n += l.n;
      s.ratio_n += l.ratio_n;
      s.allocation += l.allocation;
      s.fragmentation += l.fragmentation;
      s.ratio += l.ratio;
    };
    add(p);
    if (s.n == 0) {  // no pod at this level: the levels either side
      add(p - 1);
      add(p + 1);
    }
    if (s.n == 0) {
      run.allocation.push_back(kNaN);
      run.fragmentation.push_back(kNaN);
      run.fragmentation_ratio.push_back(kNaN);
      continue;
    }
    const double n = static_cast<double>(s.n);
    run.allocation.push_back(round2(s.allocation / n));
    run.fragmentation.push_back(round2(100 * (s.fragmentation / n) / 1000 / static_cast<double>(run.total_gpus)));
    run.fragmentation_ratio.push_back(s.ratio_n > 0 ? s.ratio / static_cast<double>(s.ratio_n) : kNaN);
  }
}

}  // namespace

StudyRun run_reference_protocol(const std::vector<RefNode>& nodes_in, const StudyTrace& trace,
                                const StudyPolicy& policy, uint64_t seed, double tune, bool use_cache) {
  StudyRun run;
  run.workload = trace.workload;
  run.policy_label = policy.label;
  run.seed = seed;
  run.tune = tune;
  std::vector<RefNode> nodes = nodes_in;
  for (const RefNode& n : nodes) {
    if (n.gpu_left.size() > 64) throw InputError("a node has more than 64 GPUs; the study handles up to 64");
    run.total_gpus += static_cast<int64_t>(n.gpu_left.size());
  }
  if (run.total_gpus == 0) throw InputError("the cluster has no GPU");
  const double capacity_milli = 1000.0 * static_cast<double>(run.total_gpus);

  std::mt19937_64 rng(seed);
  const std::vector<const RefPod*> seq = pod_sequence(trace, tune * capacity_milli, rng);
  const std::vector<int> order = node_order(nodes.size(), rng);

  const std::vector<TypicalPod> typical = reference_typical_pods(trace.pods);
  const RefPolicy id = policy.reference ? policy.reference->id : RefPolicy::BestFit;
  OursView ours;
  if (policy.ours) make_view(ours, nodes, trace);

  // Pod specs, so that a node's scores can be kept until it changes.
  std::map<SpecKey, int> spec_ids;
  std::vector<int> spec_of(seq.size());
  for (size_t i = 0; i < seq.size(); ++i)
    spec_of[i] = spec_ids.emplace(spec_key(*seq[i]), static_cast<int>(spec_ids.size())).first->second;
  const size_t nspec = spec_ids.size();
  const bool cached = use_cache && nodes.size() * nspec * sizeof(CachedScore) <= kMaxCacheBytes;
  std::vector<CachedScore> cache(cached ? nodes.size() * nspec : 0);
  CachedScore fresh;
  std::vector<uint32_t> version(nodes.size(), 1);
  std::vector<double> node_frag(nodes.size());
  double frag = 0, used = 0;
  for (size_t i = 0; i < nodes.size(); ++i) {
    node_frag[i] = reference_node_fragmentation(nodes[i], typical);
    frag += node_frag[i];
    for (int left : nodes[i].gpu_left) used += kRefMilli - left;
  }

  std::vector<LevelSums> levels;
  double arrived = 0;
  std::vector<int> feasible;
  run.pods = static_cast<int64_t>(seq.size());
  for (size_t k = 0; k < seq.size(); ++k) {
    const RefPod& pod = *seq[k];
    arrived += static_cast<double>(pod.total_milli_gpu());
    int chosen = -1;
    uint64_t gpus = 0;
    double best = 0;
    feasible.clear();
    if (policy.ours) {
      const Placement pl = policy.ours->place(PlacementContext{ours.states, ours.workload, &ours.fragmentation},
                                              job_of(pod));
      if (pl.node >= 0) {
        if (pl.gpu_units != pod.milli_gpu * kUnitsPerMilliGpu && pod.milli_gpu > 0)
          throw std::logic_error("study: a vgpusim policy rounded a request, which the study cannot record");
        chosen = pl.node;
        gpus = mask_of(pl.gpus);
        NodeState& st = ours.states[static_cast<size_t>(chosen)];
        st.cpu_free -= static_cast<double>(pod.cpu_milli);
        st.memory_free -= static_cast<double>(pod.memory_mib);
        for (int g : pl.gpus) st.gpu_free[static_cast<size_t>(g)] -= pl.gpu_units;
        ours.fragmentation[static_cast<size_t>(chosen)] = node_fragmentation(st, ours.workload);
      }
    }
    RefPod scored = pod;  // memory is checked below, apart from the cache
    scored.memory_mib = 0;
    for (int i : order) {
      if (policy.ours) break;
      CachedScore& c = cached ? cache[static_cast<size_t>(i) * nspec + static_cast<size_t>(spec_of[k])] : fresh;
      if (!cached || c.version != version[i]) {
        c.version = version[i];
        c.feasible = reference_fits(nodes[i], scored);
        if (c.feasible) {
          RefScore s = reference_score(id, nodes[i], pod, typical, node_frag[i]);
          c.score = s.score;
          c.gpus = mask_of(s.gpus);
        }
      }
      if (!c.feasible || nodes[i].memory_left < pod.memory_mib) continue;
      if (id == RefPolicy::Random) {
        feasible.push_back(i);
        continue;
      }
      if (chosen < 0 || c.score > best) {
        chosen = i;
        best = c.score;
        gpus = c.gpus;
      }
    }
    if (id == RefPolicy::Random && !feasible.empty()) {
      chosen = feasible[draw_below(rng, feasible.size())];
      gpus = mask_of(reference_best_gpus(nodes[chosen], pod));
      if (pod.share()) {  // a share pod's device: uniform among those with room
        std::vector<int> room;
        for (int g = 0; g < static_cast<int>(nodes[chosen].gpu_left.size()); ++g)
          if (nodes[chosen].gpu_left[g] >= pod.milli_gpu) room.push_back(g);
        gpus = uint64_t{1} << room[draw_below(rng, room.size())];
      }
    }
    if (chosen < 0) {
      ++run.failed;
      if (run.first_failure < 0) {
        run.first_failure = static_cast<int64_t>(k);
        run.first_failure_arrived_percent = 100 * arrived / capacity_milli;
        run.first_failure_request = fmt::format("{}m CPU; {} x {} milli-GPU{}{}", pod.cpu_milli, pod.gpu_count,
                                                pod.milli_gpu, pod.gpu_types.empty() ? "" : "; ",
                                                fmt::join(pod.gpu_types, "|"));
      }
    } else {
      RefNode& n = nodes[chosen];
      reference_place(n, pod, gpus_of(gpus));
      if (n.cpu_left < 0 || n.memory_left < 0 ||
          std::any_of(n.gpu_left.begin(), n.gpu_left.end(), [](int left) { return left < 0; }))
        throw std::logic_error(fmt::format("study: {} over-allocated a node", policy.name));
      ++version[chosen];
      used += static_cast<double>(pod.total_milli_gpu());
      frag -= node_frag[chosen];
      node_frag[chosen] = reference_node_fragmentation(n, typical);
      frag += node_frag[chosen];
    }
    // The reference logs these after every pod (2 decimals) and its analysis buckets them by arrived level.
    const double idle = capacity_milli - used;
    const auto level = static_cast<int64_t>(std::nearbyint(arrived / static_cast<double>(run.total_gpus) / 10));
    if (level < 0) continue;
    if (static_cast<size_t>(level) >= levels.size()) levels.resize(static_cast<size_t>(level) + 1);
    LevelSums& s = levels[static_cast<size_t>(level)];
    ++s.n;
    s.allocation += round2(used / static_cast<double>(run.total_gpus) / 10);
    s.fragmentation += round2(frag);
    if (idle > 0) {
      s.ratio += round2(100 * frag / idle);
      ++s.ratio_n;
    }
  }
  run.final_unallocated_milli_gpu = static_cast<int64_t>(std::llround(capacity_milli - used));
  run.final_allocation_percent = 100 * used / capacity_milli;
  run.final_fragmentation_percent = 100 * frag / capacity_milli;
  run.final_fragmentation_ratio = capacity_milli > used ? 100 * frag / (capacity_milli - used) : 0;

  level_curves(levels, run);
  return run;
}

std::string study_allocation_csv(const std::vector<StudyRun>& runs) {
  return curves_csv(runs, &StudyRun::allocation, true);
}
std::string study_fragmentation_csv(const std::vector<StudyRun>& runs) {
  return curves_csv(runs, &StudyRun::fragmentation, false);
}
std::string study_fragmentation_ratio_csv(const std::vector<StudyRun>& runs) {
  return curves_csv(runs, &StudyRun::fragmentation_ratio, false);
}

std::string study_summary_csv(const std::vector<StudyRun>& runs) {
  std::string out =
      "workload,sc_policy,tune,seed,total_gpus,pods,failed,first_failure_pod,first_failure_arrived_percent,"
      "first_failure_request,final_allocation_percent,final_unallocated_milli_gpu,final_fragmentation_percent,final_fragmentation_ratio\n";
  for (const StudyRun& r : runs)
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{:.4f},{},{:.4f},{:.4f}\n", r.workload, r.policy_label,
                       py_float(r.tune), r.seed, r.total_gpus, r.pods, r.failed,
                       r.first_failure < 0 ? std::string() : std::to_string(r.first_failure),
                       std::isnan(r.first_failure_arrived_percent)
                           ? std::string()
                           : fmt::format("{:.4f}", r.first_failure_arrived_percent),
                       r.first_failure_request, r.final_allocation_percent, r.final_unallocated_milli_gpu, r.final_fragmentation_percent,
                       r.final_fragmentation_ratio);
  return out;
}

std::string study_table(const std::vector<StudyRun>& runs) {
  // Group by (workload, policy) in first-seen order.
  std::vector<std::pair<std::string, std::string>> keys;
  std::map<std::pair<std::string, std::string>, std::vector<const StudyRun*>> groups;
  for (const StudyRun& r : runs) {
    auto key = std::make_pair(r.workload, r.policy_label);
    if (!groups.count(key)) keys.push_back(key);
    groups[key].push_back(&r);
  }
  std::string out = fmt::format("{:<28} {:<20} {:>5} {:>10} {:>10} {:>12} {:>10}\n", "workload", "policy", "seeds",
                                "alloc@100", "alloc@130", "1st fail at", "frag@130");
  for (const auto& key : keys) {
    const auto& g = groups[key];
    const auto mean = [&](auto get) {
      double s = 0;
      int n = 0;
      for (const StudyRun* r : g) {
        const double v = get(*r);
        if (!std::isnan(v)) {
          s += v;
          ++n;
        }
      }
      return n ? s / n : kNaN;
    };
    out += fmt::format("{:<28} {:<20} {:>5} {:>9.2f}% {:>9.2f}% {:>11.2f}% {:>9.2f}%\n", key.first, key.second,
                       g.size(), mean([](const StudyRun& r) { return r.allocation[100]; }),
                       mean([](const StudyRun& r) { return r.allocation[130]; }),
                       mean([](const StudyRun& r) { return r.first_failure_arrived_percent; }),
                       mean([](const StudyRun& r) { return r.fragmentation[130]; }));
  }
  return out;
}

namespace {

// (workload, policy) -> per level, the values of each seed.
struct CurveFile {
  std::map<std::pair<std::string, std::string>, std::vector<std::vector<double>>> curves;
  std::map<std::pair<std::string, std::string>, std::set<double>> seeds;
  std::map<std::pair<std::string, std::string>, std::string> tune;
};

CurveFile read_curve_file(const std::string& path) {
  CurveFile f;
  int first_level = -1;
  bool header = true;
  for_each_line(path, [&](const std::string& line, size_t n) {
    const std::vector<std::string> c = split_fields(line, ',');
    if (header) {
      header = false;
      if (c.size() < 5 || c[0] != "workload" || c[1] != "sc_policy" || c[2] != "tune" || c[3] != "seed")
        throw InputError(fmt::format("{}:{}: expected the header workload,sc_policy,tune,seed,[total_gpus,]0..130",
                                     path, n));
      first_level = c[4] == "total_gpus" ? 5 : 4;
      for (size_t i = static_cast<size_t>(first_level); i < c.size(); ++i)
        if (c[i] != std::to_string(i - static_cast<size_t>(first_level)))
          throw InputError(fmt::format("{}:{}: column {}: expected the level {}, found '{}'", path, n, i + 1,
                                       i - static_cast<size_t>(first_level), c[i]));
      return;
    }
    const size_t want = static_cast<size_t>(first_level) + kStudyLevels;
    if (c.size() != want)
      throw InputError(fmt::format("{}:{}: expected {} columns, found {}", path, n, want, c.size()));
    const auto key = std::make_pair(c[0], c[1]);
    if (!f.tune.count(key)) f.tune[key] = c[2];
    if (f.tune[key] != c[2])
      throw InputError(fmt::format("{}:{}: {} / {} appears with tune {} and {}; compare one tune at a time", path, n,
                                   c[0], c[1], f.tune[key], c[2]));
    const double seed = field_number(path, n, "seed", c[3]);
    if (!f.seeds[key].insert(seed).second)
      throw InputError(fmt::format("{}:{}: seed {} of {} / {} appears twice", path, n, c[3], c[0], c[1]));
    auto& levels = f.curves[key];
    levels.resize(kStudyLevels);
    for (int p = 0; p < kStudyLevels; ++p) {
      const std::string& cell = c[static_cast<size_t>(first_level + p)];
      if (cell.empty()) continue;
      levels[static_cast<size_t>(p)].push_back(field_number(path, n, std::to_string(p), cell));
    }
  });
  if (header) throw InputError(fmt::format("{}: empty file", path));
  return f;
}

// Mean and its standard error (NaN with one value).
std::pair<double, double> mean_and_sem(const std::vector<double>& v) {
  const double n = static_cast<double>(v.size());
  const double m = std::accumulate(v.begin(), v.end(), 0.0) / n;
  if (v.size() < 2) return {m, kNaN};
  double ss = 0;
  for (double x : v) ss += (x - m) * (x - m);
  return {m, std::sqrt(ss / (n - 1) / n)};
}

}  // namespace

StudyComparison compare_study_files(const std::string& path_a, const std::string& path_b) {
  const CurveFile a = read_curve_file(path_a), b = read_curve_file(path_b);
  StudyComparison out;
  for (const auto& [key, levels_a] : a.curves) {
    const auto it = b.curves.find(key);
    if (it == b.curves.end()) {
      out.only_in_a.push_back(fmt::format("{}/{}", key.first, key.second));
      continue;
    }
    StudyDifference d;
    d.workload = key.first;
    d.policy = key.second;
    d.seeds_a = static_cast<int>(a.seeds.at(key).size());
    d.seeds_b = static_cast<int>(b.seeds.at(key).size());
    for (int p = 0; p < kStudyLevels; ++p) {
      const auto& va = levels_a[static_cast<size_t>(p)];
      const auto& vb = it->second[static_cast<size_t>(p)];
      if (va.empty() || vb.empty()) continue;
      const auto [ma, sa] = mean_and_sem(va);
      const auto [mb, sb] = mean_and_sem(vb);
      ++d.levels;
      if (std::fabs(ma - mb) > d.max_abs || d.at_level < 0) {
        d.max_abs = std::fabs(ma - mb);
        d.at_level = p;
        d.seed_noise = 2 * std::sqrt(sa * sa + sb * sb);
      }
    }
    out.rows.push_back(d);
  }
  for (const auto& [key, levels] : b.curves)
    if (!a.curves.count(key)) out.only_in_b.push_back(fmt::format("{}/{}", key.first, key.second));
  return out;
}

std::string study_comparison_table(const StudyComparison& c, double tolerance) {
  std::string out = fmt::format("{:<28} {:<20} {:>7} {:>6} {:>10} {:>5} {:>11}  {}\n", "workload", "policy", "seeds",
                                "levels", "max diff", "at", "seed noise", "");
  for (const StudyDifference& d : c.rows)
    out += fmt::format("{:<28} {:<20} {:>3}/{:<3} {:>6} {:>8.2f}pp {:>4}% {:>9.2f}pp  {}\n", d.workload, d.policy,
                       d.seeds_a, d.seeds_b, d.levels, d.max_abs, d.at_level, d.seed_noise,
                       d.max_abs > tolerance ? "ABOVE TOLERANCE" : "ok");
  out += "seed noise: twice the standard error of the difference of the two means at that level (NaN: one seed)\n";
  for (const std::string& k : c.only_in_a) out += fmt::format("only in the first file: {}\n", k);
  for (const std::string& k : c.only_in_b) out += fmt::format("only in the second file: {}\n", k);
  return out;
}

}  // namespace vgpusim
