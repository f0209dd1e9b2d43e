// The placement search (placement_search.hpp).
#include "sim/studies/plan/placement_search.hpp"

#include "sim/run/runs.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <utility>
#include <variant>

namespace vgpusim::plan_detail {
namespace {

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
      if (states_ > kMaxSearchStates) return;
    }
  }
  bool exact() const { return states_ <= kMaxSearchStates; }
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
      result = judge(plan_.workloads[w], run_candidate(sc).tenants[0], c_.spot ? &plan_.spot : nullptr);
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
        const Results r = run_candidate(sc);
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

std::optional<SearchedPlacement> search_placement(const PlanSpec& plan, const Candidate& c, const CandidateSetup& s,
                                                  const std::vector<Replica>& replicas) {
  PlacementSearch search(plan, c, s);
  if (!search.exact()) return std::nullopt;
  SearchedPlacement out;
  out.found = search.solve(replicas, out.gpu_of, out.profile_of);
  out.simulated = search.simulated();
  out.capped = search.capped();
  return out;
}

}  // namespace vgpusim::plan_detail
