// Candidate enumeration, simulation and judgement. Replicas go onto a candidate's GPUs by a search of groupings
// (each group simulated alone on one GPU; MIG: each replica's profile too) or, beyond its bound, by the
// fewest-tenants rule; the candidate then runs as an ordinary scenario.
#include "sim/io/calibration_file.hpp"
#include "sim/studies/plan/plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <variant>

#include "sim/core/parallel.hpp"
#include "sim/io/gpu_catalog.hpp"
#include "models/sharing/mig_profiles.hpp"
#include "sim/run/metrics.hpp"

namespace vgpusim {

namespace {

// The sharing of an SR-IOV slice instance, as its candidates show it.
std::string sriov_label(double fraction) { return fmt::format("sriov slice {:g} GPU", fraction); }

}  // namespace

std::vector<Candidate> enumerate_candidates(const PlanSpec& plan) {
  std::vector<Candidate> out;
  for (const PlanInstanceType& it : plan.instances)
    for (int n = 1; n <= plan.max_instances; ++n)
      for (const PlanSharing& s : plan.sharing)
        for (const bool spot : {false, true}) {
          if (spot && !plan.spot.enabled) continue;
          // A slice of a GPU comes shared by the provider's SR-IOV: the plan's sharing options do not apply.
          if (it.fraction < 1 && &s != &plan.sharing.front()) continue;
          Candidate c;
          c.index = out.size();
          c.instance = it.name;
          c.spot = spot;
          c.count = n;
          c.sharing = it.fraction < 1 ? sriov_label(it.fraction) : s.label;
          const double discount = plan.spot.discount >= 0 ? plan.spot.discount : it.spot_discount;
          c.cost_per_hour = it.price_per_hour * n * (spot ? 1 - discount : 1);
          out.push_back(c);
        }
  return out;
}

namespace {

// The scenarios' default start_jitter (sim/scenario/sections.cpp).
constexpr double kPlanStartJitter = 1e-3;

const PlanInstanceType& instance_of(const PlanSpec& plan, const std::string& name) {
  for (const PlanInstanceType& it : plan.instances)
    if (it.name == name) return it;
  throw std::logic_error("no instance type " + name);
}

const PlanSharing& sharing_of(const PlanSpec& plan, const std::string& label) {
  for (const PlanSharing& s : plan.sharing)
    if (s.label == label) return s;
  throw std::logic_error("no sharing option " + label);
}

struct Replica {
  size_t workload;  // index in plan.workloads
  int r;            // 0-based replica number
};

// Every replica, largest memory first (stable: plan order).
std::vector<Replica> replicas_of(const PlanSpec& plan) {
  std::vector<Replica> out;
  for (size_t w = 0; w < plan.workloads.size(); ++w)
    for (int r = 0; r < plan.workloads[w].replicas; ++r) out.push_back({w, r});
  std::stable_sort(out.begin(), out.end(), [&](const Replica& a, const Replica& b) {
    return plan.workloads[a.workload].memory > plan.workloads[b.workload].memory;
  });
  return out;
}

// What a candidate is made of once its names are resolved.
struct CandidateSetup {
  const PlanInstanceType* it = nullptr;
  const CatalogEntry* gpu = nullptr;
  const SharingModeInfo* info = nullptr;
  const SharingConfig* config = nullptr;
  size_t gpus = 0;  // count x GPUs per instance
  const MigGpuTable* mig = nullptr;  // a partitioning mode: the GPU's profile table (layouts are searched)
  SharingConfig own_config;          // an SR-IOV slice's sharing (config points here)
  // Tenants one GPU may hold, and the memory each GPU offers them.
  int max_tenants() const { return it->fraction < 1 ? 1 : info->max_contexts; }
  double memory() const { return gpu->spec.memory * it->fraction; }
  bool memory_checked() const { return it->fraction < 1 || !info->memory_isolation; }
};

// Resolves the candidate; returns "" or why it cannot exist.
std::string resolve(const PlanSpec& plan, const Candidate& c, CandidateSetup& s) {
  s.it = &instance_of(plan, c.instance);
  s.gpu = builtin_catalog().find(s.it->gpu);
  if (!s.gpu) return "unknown GPU " + s.it->gpu;
  if (s.it->fraction < 1) {
    // One SR-IOV virtual function of the GPU, scheduled at a fixed share: the provider's other tenants of the GPU
    // (unknown) cannot take its slots, so it is simulated alone with that share.
    s.info = find_sharing_mode("sriov");
    s.own_config = {s.info->name, with_overrides(s.info->mode_params(), builtin_overrides(s.gpu->spec.name))};
    s.own_config.params.set_word("scheduler", "fixed");
    s.config = &s.own_config;
  } else {
    const PlanSharing& sharing = sharing_of(plan, c.sharing);
    s.info = find_sharing_mode(sharing.config.mode);
    const auto on_gpu = sharing.by_gpu.find(s.it->gpu);  // with the GPU's shipped calibration
    s.config = on_gpu != sharing.by_gpu.end() ? &on_gpu->second : &sharing.config;
  }
  if (s.info->device_kind != s.gpu->spec.kind) return fmt::format("{} does not apply to {}", s.info->name, s.it->gpu);
  s.gpus = static_cast<size_t>(c.count) * static_cast<size_t>(s.it->gpus);
  if (s.info->partitions) {
    s.mig = mig_table(s.gpu->spec.name);
    if (!s.mig) return fmt::format("{} has no {} profiles", s.it->gpu, s.info->name);
  }
  return "";
}

std::string tenant_name(const PlanWorkload& w, int r) {
  return w.replicas > 1 ? fmt::format("{}#{}", w.name, r + 1) : w.name;
}

// The scenario of `gpus` GPUs of the candidate's kind with replica i on GPU gpu_of[i]; returns "" or the mode's
// refusal of some GPU's tenants.
// With MIG, replica i gets its own instance of profile profile_of[i] on its GPU (instances in replica order).
std::string build(const PlanSpec& plan, const Candidate& c, const CandidateSetup& s, size_t gpus,
                  const std::vector<Replica>& replicas, const std::vector<size_t>& gpu_of, Scenario& sc,
                  const std::vector<std::string>& profile_of = {}) {
  sc.file = plan.file;
  sc.name = fmt::format("{}: {} x {}{}, {}", plan.name, c.count, c.instance, c.spot ? " spot" : "", c.sharing);
  sc.seed = plan.seed;
  sc.duration = plan.duration;
  sc.fidelity = plan.fidelity;
  sc.metrics_interval = plan.duration / 100;
  for (size_t g = 0; g < gpus; ++g) {
    ScenarioGpu inst;
    inst.id = fmt::format("i{}g{}", g / static_cast<size_t>(s.it->gpus), g % static_cast<size_t>(s.it->gpus));
    inst.spec = s.gpu->spec;
    inst.calibrated = builtin_overrides(s.gpu->spec.name);
    inst.performance = with_overrides(roofline_params(), inst.calibrated);
    sc.gpus.push_back(inst);
    sc.sharing.push_back(*s.config);
    if (!s.mig) sc.targets.push_back({inst.id, sc.gpus.size() - 1, "", -1, s.gpu->spec, *s.config, true});
  }
  // MIG: each GPU's instances, one per replica on it; target_of[i] is replica i's instance.
  std::vector<size_t> target_of(replicas.size());
  if (s.mig) {
    const SharingModeInfo* inner = find_sharing_mode("timeslice");
    for (size_t g = 0; g < gpus; ++g) {
      std::vector<std::string> profiles;
      std::vector<size_t> on_it;
      for (size_t i = 0; i < replicas.size(); ++i)
        if (gpu_of[i] == g) {
          profiles.push_back(profile_of.at(i));
          on_it.push_back(i);
        }
      if (profiles.empty()) continue;
      auto made = s.info->make_partitions(s.gpu->spec, profiles, s.config->params);
      if (const auto* error = std::get_if<std::string>(&made)) return *error;
      const auto& parts = std::get<std::vector<Partition>>(made);
      for (size_t j = 0; j < parts.size(); ++j) {
        target_of[on_it[j]] = sc.targets.size();
        sc.targets.push_back({fmt::format("{}/{}", sc.gpus[g].id, j), g, parts[j].profile, parts[j].slot,
                              parts[j].spec,
                              {inner->name, with_overrides(inner->mode_params(), sc.gpus[g].calibrated)}, true});
      }
    }
  } else {
    for (size_t i = 0; i < replicas.size(); ++i) target_of[i] = gpu_of[i];
  }
  std::vector<int> tenants(sc.targets.size(), 0);
  for (size_t i = 0; i < replicas.size(); ++i) {
    const PlanWorkload& w = plan.workloads[replicas[i].workload];
    const size_t k = target_of[i];
    ++tenants[k];
    TenantSpec t;
    t.name = tenant_name(w, replicas[i].r);
    t.gpu = sc.targets[k].gpu;
    t.target = k;
    if (s.mig) t.share = ParamValues::defaults(find_sharing_mode("timeslice")->tenant_params());
    t.memory = w.memory;
    t.stream = t.name;
    if (!s.mig) t.share = ParamValues::defaults(s.info->tenant_params());
    if (s.it->fraction < 1) t.share.set("fraction", s.it->fraction);
    t.workload = w.workload;
    // As in a scenario without `start`: replicas do not start in the same microsecond (scenario key start_jitter).
    t.start_distribution = Distribution::uniform(0, kPlanStartJitter);
    sc.tenants.push_back(t);
  }
  draw_starts(sc);
  if (s.info->validate && !s.mig)
    for (size_t k = 0; k < sc.targets.size(); ++k)
      if (tenants[k] > 0) {
        const std::string error = s.info->validate(model_setup(sc, k));
        if (!error.empty()) return error;
      }
  return "";
}

// The fixed rule: each replica, largest memory first, on the GPU with the fewest tenants that has room. Returns ""
// or why the replicas do not fit.
std::string fewest_tenants(const PlanSpec& plan, const CandidateSetup& s, const std::vector<Replica>& replicas,
                           std::vector<size_t>& gpu_of) {
  std::vector<double> used(s.gpus, 0);
  std::vector<int> tenants(s.gpus, 0);
  gpu_of.assign(replicas.size(), 0);
  for (size_t i = 0; i < replicas.size(); ++i) {
    const PlanWorkload& w = plan.workloads[replicas[i].workload];
    long best = -1;
    bool some_room = false;
    for (size_t k = 0; k < s.gpus; ++k) {
      const bool room = used[k] + w.memory <= s.memory() || !s.memory_checked();
      const bool slot = s.max_tenants() == 0 || tenants[k] < s.max_tenants();
      some_room = some_room || room;
      if (room && slot && (best < 0 || tenants[k] < tenants[static_cast<size_t>(best)])) best = static_cast<long>(k);
    }
    if (best < 0)
      return some_room ? fmt::format("{} allows {} tenant(s) per GPU; no GPU left for {} replica {}",
                                     s.it->fraction < 1 ? "a GPU slice" : s.info->name, s.max_tenants(), w.name,
                                     replicas[i].r + 1)
                       : fmt::format("not enough GPU memory for {} replica {}", w.name, replicas[i].r + 1);
    gpu_of[i] = static_cast<size_t>(best);
    used[gpu_of[i]] += w.memory;
    ++tenants[gpu_of[i]];
  }
  return "";
}

// Judges one replica's result: whether it has SLOs, meets them, and by how much (the smallest relative margin
// over its SLOs: (bound - latency) / bound, (throughput - target) / target, (deadline - completion) / deadline).
PlacedReplica judge(const PlanWorkload& w, const TenantResult& t, const PlanSpot* spot = nullptr) {
  // On spot capacity: the share of time the replica is away (down) and the share whose work is redone (lost).
  const double down = spot ? std::min(1.0, spot->interruptions * spot->restart) : 0;
  const double lost = spot ? std::min(1.0 - down, spot->interruptions * spot->checkpoint_interval / 2) : 0;
  const double kept = std::max(0.0, 1 - down - lost);
  PlacedReplica p;
  p.tenant = t.name;
  p.workload = w.name;
  p.gpu = t.gpu;
  p.met = t.failures.empty();
  p.has_slo = !t.slo.empty() || w.slo.throughput > 0 || std::isfinite(w.slo.deadline) || !t.failures.empty();
  if (t.shared.latency) p.p99 = t.shared.latency->p99;
  double margin = std::numeric_limits<double>::infinity();
  for (const SloResult& s : t.slo) {
    // No request finished: no latency at all, a miss by the whole bound.
    margin = std::min(margin, std::isfinite(s.achieved) && s.bound > 0 ? (s.bound - s.achieved) / s.bound : -1.0);
    // Requests that arrive while the replica is away are not served within any bound.
    const double attained = s.attainment * (1 - down), needed = s.percentile / 100;
    p.met = p.met && (spot ? attained >= needed : s.met);
    if (spot) margin = std::min(margin, (attained - needed) / needed);
  }
  if (w.slo.throughput > 0) {
    const double throughput = t.shared.throughput * kept;
    p.met = p.met && throughput >= w.slo.throughput;
    margin = std::min(margin, (throughput - w.slo.throughput) / w.slo.throughput);
  }
  if (std::isfinite(w.slo.deadline)) {
    const double completion = kept > 0 ? t.completion / kept : std::numeric_limits<double>::infinity();
    p.met = p.met && t.finished && completion <= w.slo.deadline;
    margin = std::min(margin, t.finished ? (w.slo.deadline - completion) / w.slo.deadline : -1.0);
  }
  if (!t.failures.empty()) margin = -1;
  if (!p.met) margin = std::min(margin, 0.0);  // a missed SLO never shows a positive margin
  p.margin = p.has_slo ? margin : std::numeric_limits<double>::quiet_NaN();
  return p;
}

// A placement's worth: replicas meeting their SLOs, then the smallest margin (higher is better).
struct Worth {
  int met = 0;
  double margin = std::numeric_limits<double>::infinity();
  bool operator<(const Worth& o) const { return met != o.met ? met < o.met : margin < o.margin; }
  Worth operator+(const Worth& o) const { return {met + o.met, std::min(margin, o.margin)}; }
};

// Exact search of assignments of replicas to GPUs, when the distinct groups of replicas one GPU could hold are few:
// every group is simulated alone on one GPU (GPUs do not interact), and a dynamic programme over the replicas not
// yet placed picks the partition into at most `gpus` groups with the most replicas meeting their SLOs, then the
// largest smallest margin. Replicas of one workload are interchangeable, so groups are counts per workload.
class PlacementSearch {
 public:
  PlacementSearch(const PlanSpec& plan, const Candidate& c, const CandidateSetup& s)
      : plan_(plan), c_(c), s_(s) {
    radix_.resize(plan.workloads.size());
    states_ = 1;
    for (size_t w = 0; w < plan.workloads.size(); ++w) {
      radix_[w] = states_;
      states_ *= static_cast<size_t>(plan.workloads[w].replicas) + 1;
      if (states_ > kMaxStates) return;
    }
  }
  static constexpr size_t kMaxStates = 4096;
  bool exact() const { return states_ <= kMaxStates; }
  bool capped() const { return capped_; }  // MIG: some group's profile choices were cut off
  size_t simulated() const { return s_.mig ? alone_.size() : groups_.size(); }

  // The best partition of every replica into at most s.gpus groups (false: none fits). Fills gpu_of (replica order)
  // and, with MIG, profile_of: each replica's instance profile.
  bool solve(const std::vector<Replica>& replicas, std::vector<size_t>& gpu_of, std::vector<std::string>& profile_of) {
    std::vector<int> all(plan_.workloads.size());
    for (size_t w = 0; w < all.size(); ++w) all[w] = plan_.workloads[w].replicas;
    int gpus = static_cast<int>(std::min<size_t>(s_.gpus, replicas.size()));
    if (!best(encode(all), gpus).ok) return false;
    // Groups in order; replicas of a workload fill its groups in replica order.
    std::vector<std::vector<int>> groups;
    for (size_t state = encode(all); state != 0; --gpus) {
      const Best& step = memo_.at({state, gpus});
      groups.push_back(decode(step.group));
      state -= step.group;
    }
    std::vector<std::vector<std::pair<size_t, std::string>>> slots(plan_.workloads.size());
    for (size_t g = 0; g < groups.size(); ++g) {
      const std::vector<std::string>& profiles = profiles_[encode(groups[g])];
      size_t next = 0;
      for (size_t w = 0; w < groups[g].size(); ++w)
        for (int k = 0; k < groups[g][w]; ++k)
          slots[w].push_back({g, s_.mig ? profiles.at(next++) : std::string()});
    }
    gpu_of.assign(replicas.size(), 0);
    profile_of.assign(replicas.size(), "");
    for (size_t i = 0; i < replicas.size(); ++i) {
      const auto& slot = slots[replicas[i].workload][static_cast<size_t>(replicas[i].r)];
      gpu_of[i] = slot.first;
      profile_of[i] = slot.second;
    }
    return true;
  }

 private:
  struct Best {
    bool ok = false;
    Worth worth;
    size_t group = 0;  // the first group taken (encoded)
  };

  size_t encode(const std::vector<int>& counts) const {
    size_t x = 0;
    for (size_t w = 0; w < counts.size(); ++w) x += static_cast<size_t>(counts[w]) * radix_[w];
    return x;
  }
  std::vector<int> decode(size_t x) const {
    std::vector<int> counts(plan_.workloads.size());
    for (size_t w = counts.size(); w-- > 0;) {
      counts[w] = static_cast<int>(x / radix_[w]);
      x %= radix_[w];
    }
    return counts;
  }

  // One replica of workload w alone on one MIG instance of profile p (instances are isolated, so this is its
  // performance in any layout).
  const PlacedReplica& alone(size_t w, size_t p) {
    const auto key = std::make_pair(w, p);
    if (const auto it = alone_.find(key); it != alone_.end()) return it->second;
    Scenario sc;
    const std::vector<Replica> one = {{w, 0}};
    PlacedReplica result;
    if (build(plan_, c_, s_, 1, one, {0}, sc, {s_.mig->profiles[p].name}).empty())
      result = judge(plan_.workloads[w], run_scenario(sc).tenants[0], c_.spot ? &plan_.spot : nullptr);
    else
      result.has_slo = true;  // cannot be built: counts as missed
    return alone_.emplace(key, result).first->second;
  }

  // MIG: the best choice of one instance profile per replica of the group that places on one GPU (the layout
  // check), by the replicas' worth alone on their instances. Replicas of a workload take profiles as a multiset.
  std::optional<Worth> mig_group(size_t code) {
    const std::vector<int> counts = decode(code);
    const MigGpuTable& table = *s_.mig;
    // Per workload in the group: the profiles with room for its memory, and its choices (multisets of them).
    std::vector<size_t> ws;
    std::vector<std::vector<std::vector<size_t>>> choices;
    int smallest_slices = 0;  // compute slices of the group with every replica on its smallest profile
    for (size_t w = 0; w < counts.size(); ++w) {
      if (counts[w] == 0) continue;
      std::vector<size_t> fit;
      int least = table.compute_slices + 1;
      for (size_t p = 0; p < table.profiles.size(); ++p)
        if (table.profiles[p].memory >= plan_.workloads[w].memory) {
          fit.push_back(p);
          least = std::min(least, table.profiles[p].compute_slices);
        }
      if (fit.empty()) return std::nullopt;
      smallest_slices += counts[w] * least;
      if (smallest_slices > table.compute_slices) return std::nullopt;  // too many for one GPU
      std::vector<std::vector<size_t>> multisets;
      std::vector<size_t> idx(static_cast<size_t>(counts[w]), 0);  // non-decreasing indices into fit
      for (;;) {
        std::vector<size_t> m;
        for (size_t i : idx) m.push_back(fit[i]);
        multisets.push_back(m);
        if (multisets.size() >= 5000) {
          capped_ = true;
          break;
        }
        size_t i = idx.size();
        while (i > 0 && idx[i - 1] + 1 == fit.size()) --i;
        if (i == 0) break;
        ++idx[i - 1];
        for (size_t j = i; j < idx.size(); ++j) idx[j] = idx[i - 1];
      }
      ws.push_back(w);
      choices.push_back(std::move(multisets));
    }
    std::optional<Worth> best;
    std::vector<std::string> best_profiles;
    std::vector<size_t> pick(ws.size(), 0);
    for (size_t tried = 0;; ++tried) {
      if (tried == 200000) {
        capped_ = true;
        break;
      }
      std::vector<std::string> names;
      std::vector<int> per_profile(table.profiles.size(), 0);
      Worth worth;
      for (size_t k = 0; k < ws.size(); ++k)
        for (size_t p : choices[k][pick[k]]) {
          names.push_back(table.profiles[p].name);
          ++per_profile[p];
        }
      const bool fits = mig_layout_fits(table, per_profile);
      if (fits)
        for (size_t k = 0; k < ws.size(); ++k)
          for (size_t p : choices[k][pick[k]]) {
            const PlacedReplica& r = alone(ws[k], p);
            if (!r.has_slo) continue;
            worth.met += r.met ? 1 : 0;
            worth.margin = std::min(worth.margin, r.margin);
          }
      if (fits && (!best || *best < worth)) {
        best = worth;
        best_profiles = names;
      }
      size_t k = 0;  // next combination (odometer)
      for (; k < ws.size(); ++k) {
        if (++pick[k] < choices[k].size()) break;
        pick[k] = 0;
      }
      if (k == ws.size()) break;
    }
    if (best) profiles_[code] = best_profiles;
    return best;
  }

  // A group alone on one GPU: its worth, or nullopt when it does not fit or the mode refuses it.
  const std::optional<Worth>& group(size_t code) {
    const auto it = groups_.find(code);
    if (it != groups_.end()) return it->second;
    if (s_.mig) return groups_.emplace(code, mig_group(code)).first->second;
    const std::vector<int> counts = decode(code);
    std::optional<Worth> worth;
    double memory = 0;
    int tenants = 0;
    std::vector<Replica> reps;
    for (size_t w = 0; w < counts.size(); ++w) {
      memory += counts[w] * plan_.workloads[w].memory;
      tenants += counts[w];
      for (int k = 0; k < counts[w]; ++k) reps.push_back({w, k});
    }
    const bool room = memory <= s_.memory() || !s_.memory_checked();
    const bool slots = s_.max_tenants() == 0 || tenants <= s_.max_tenants();
    if (room && slots) {
      Scenario sc;
      if (build(plan_, c_, s_, 1, reps, std::vector<size_t>(reps.size(), 0), sc).empty()) {
        const Results r = run_scenario(sc);
        Worth w;
        for (size_t i = 0; i < reps.size(); ++i) {
          const PlacedReplica p =
              judge(plan_.workloads[reps[i].workload], r.tenants[i], c_.spot ? &plan_.spot : nullptr);
          if (!p.has_slo) continue;
          w.met += p.met ? 1 : 0;
          w.margin = std::min(w.margin, p.margin);
        }
        worth = w;
      }
    }
    return groups_.emplace(code, worth).first->second;
  }

  // The best cover of `state` with at most `gpus` groups; each step takes a group holding the first workload left.
  Best best(size_t state, int gpus) {
    if (state == 0) return {true, Worth{}, 0};
    if (gpus == 0) return {};
    const auto key = std::make_pair(state, gpus);
    if (const auto it = memo_.find(key); it != memo_.end()) return it->second;
    const std::vector<int> left = decode(state);
    size_t first = 0;
    while (left[first] == 0) ++first;
    Best out;
    // Every sub-multiset of `left` with at least one replica of `first`.
    std::vector<int> take(left.size(), 0);
    take[first] = 1;
    for (;;) {
      const size_t code = encode(take);
      if (const std::optional<Worth>& w = group(code)) {
        const Best rest = best(state - code, gpus - 1);
        if (rest.ok && (!out.ok || out.worth < *w + rest.worth)) out = {true, *w + rest.worth, code};
      }
      size_t i = first;  // next multiset (odometer), keeping take[first] >= 1
      for (; i < left.size(); ++i) {
        if (take[i] < left[i]) {
          ++take[i];
          break;
        }
        take[i] = i == first ? 1 : 0;
      }
      if (i == left.size()) break;
    }
    memo_[key] = out;
    return out;
  }

  const PlanSpec& plan_;
  const Candidate& c_;
  const CandidateSetup& s_;
  std::vector<size_t> radix_;
  size_t states_ = 0;
  std::map<size_t, std::optional<Worth>> groups_;
  std::map<size_t, std::vector<std::string>> profiles_;         // MIG: a group's instance profiles
  std::map<std::pair<size_t, size_t>, PlacedReplica> alone_;  // MIG: (workload, profile) alone
  bool capped_ = false;
  std::map<std::pair<size_t, int>, Best> memo_;
};

}  // namespace

void evaluate_candidate(const PlanSpec& plan, Candidate& c) {
  // One replication per candidate (a plan weighs many candidates; see docs/plan.md).
  CandidateSetup setup;
  std::string why = resolve(plan, c, setup);
  const std::vector<Replica> replicas = replicas_of(plan);
  std::vector<size_t> gpu_of;
  std::vector<std::string> profile_of;
  if (why.empty()) {
    // The fixed rule first: its reason is the one reported when nothing fits.
    why = setup.mig ? fmt::format("no {} layout holds the replicas on {} GPU(s)", setup.info->name, setup.gpus)
                    : fewest_tenants(plan, setup, replicas, gpu_of);
    if (setup.mig) {
      double largest = 0;
      for (const MigProfile& p : setup.mig->profiles) largest = std::max(largest, p.memory);
      for (const PlanWorkload& w : plan.workloads)
        if (w.memory > largest) {
          c.feasible = false;
          c.note = fmt::format("{} needs {:.1f} GiB; the largest {} profile of {} holds {:.1f} GiB", w.name,
                               w.memory / 1073741824.0, setup.info->name, setup.it->gpu, largest / 1073741824.0);
          return;
        }
    }
    PlacementSearch search(plan, c, setup);
    if (!plan.search_placement && !setup.mig) {
      c.search = "fewest tenants";
    } else if (search.exact()) {
      std::vector<size_t> found;
      if (search.solve(replicas, found, profile_of)) {
        gpu_of = found;
        why.clear();
      }
      c.search = setup.mig ? fmt::format("{} MIG layouts ({} replica-profile pairs simulated)",
                                         search.capped() ? "capped" : "exact", search.simulated())
                           : fmt::format("exact ({} groups simulated)", search.simulated());
    } else if (setup.mig) {
      why = "too many groupings to search MIG layouts (the product of replicas + 1 over workloads exceeds 4096)";
    } else {
      // A bound on what any placement could reach: a replica meets its SLOs at best alone on a GPU.
      int could = 0, with_slo = 0;
      for (size_t w = 0; w < plan.workloads.size(); ++w) {
        Scenario alone;
        const std::vector<Replica> one = {{w, 0}};
        PlacedReplica p;
        if (build(plan, c, setup, 1, one, {0}, alone).empty())
          p = judge(plan.workloads[w], run_scenario(alone).tenants[0], c.spot ? &plan.spot : nullptr);
        else
          p.has_slo = true;  // cannot run even alone: counted, and missed
        if (!p.has_slo) continue;
        with_slo += plan.workloads[w].replicas;
        could += p.met ? plan.workloads[w].replicas : 0;
      }
      c.search = fmt::format("fewest tenants (too many groups to search; at most {}/{} replicas could meet their SLOs)",
                             could, with_slo);
    }
  }
  Scenario sc;
  if (why.empty()) why = build(plan, c, setup, setup.gpus, replicas, gpu_of, sc, profile_of);
  if (!why.empty()) {
    c.feasible = false;
    c.note = why;
    return;
  }
  c.feasible = true;
  const Results r = run_scenario(sc);
  std::vector<std::string> missed;
  for (size_t i = 0; i < sc.tenants.size(); ++i) {
    PlacedReplica p = judge(plan.workloads[replicas[i].workload], r.tenants[i], c.spot ? &plan.spot : nullptr);
    if (!profile_of.empty()) p.profile = profile_of[i];
    c.placement.push_back(p);
    if (!p.has_slo) continue;
    ++c.slos;
    if (p.met)
      ++c.slos_met;
    else
      missed.push_back(p.tenant);
  }
  c.meets_all = c.slos_met == c.slos;
  if (!missed.empty()) {
    c.note = "missed: " + missed.front();
    if (missed.size() > 1) c.note += fmt::format(" and {} more", missed.size() - 1);
  }
}

std::vector<Candidate> evaluate_plan(const PlanSpec& plan, unsigned shard, unsigned shards, unsigned threads) {
  std::vector<Candidate> all = enumerate_candidates(plan), mine;
  for (const Candidate& c : all)
    if (c.index % shards == shard) mine.push_back(c);
  run_parallel(mine.size(), threads, [&](size_t i) { evaluate_candidate(plan, mine[i]); });
  return mine;
}

PlanOutcome summarize_plan(std::vector<Candidate> candidates) {
  std::sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) { return a.index < b.index; });
  PlanOutcome out;
  out.candidates = std::move(candidates);
  const auto cheaper = [&](size_t i, long than) {
    if (than < 0) return true;
    const Candidate &c = out.candidates[i], &b = out.candidates[static_cast<size_t>(than)];
    return c.cost_per_hour < b.cost_per_hour || (c.cost_per_hour == b.cost_per_hour && c.count < b.count);
  };
  for (size_t i = 0; i < out.candidates.size(); ++i) {
    const Candidate& c = out.candidates[i];
    if (!c.feasible || !c.meets_all) continue;
    if (cheaper(i, out.best)) {
      out.runner_up = out.best;
      out.best = static_cast<long>(i);
    } else if (cheaper(i, out.runner_up)) {
      out.runner_up = static_cast<long>(i);
    }
  }
  // Pareto: no other candidate is at most as costly and attains strictly more (or as much for strictly less).
  for (size_t i = 0; i < out.candidates.size(); ++i) {
    const Candidate& a = out.candidates[i];
    if (!a.feasible) continue;
    bool dominated = false;
    for (const Candidate& b : out.candidates) {
      if (!b.feasible || &a == &b) continue;
      const bool no_worse = b.cost_per_hour <= a.cost_per_hour && b.attainment() >= a.attainment();
      const bool better = b.cost_per_hour < a.cost_per_hour || b.attainment() > a.attainment();
      if (no_worse && better) dominated = true;
    }
    if (!dominated) out.pareto.push_back(i);
  }
  std::sort(out.pareto.begin(), out.pareto.end(), [&](size_t x, size_t y) {
    return out.candidates[x].cost_per_hour < out.candidates[y].cost_per_hour ||
           (out.candidates[x].cost_per_hour == out.candidates[y].cost_per_hour && x < y);
  });
  // Equal cost and attainment: keep the first only.
  std::vector<size_t> unique;
  for (size_t i : out.pareto)
    if (unique.empty() || out.candidates[unique.back()].cost_per_hour != out.candidates[i].cost_per_hour ||
        out.candidates[unique.back()].attainment() != out.candidates[i].attainment())
      unique.push_back(i);
  out.pareto = unique;
  return out;
}

}  // namespace vgpusim
