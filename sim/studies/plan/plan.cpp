// Candidate enumeration, simulation and judgement. Replicas go onto a candidate's GPUs by a search of groupings
// (each group simulated alone on one GPU; MIG: each replica's profile too) or, beyond its bound, by the
// fewest-tenants rule; the candidate then runs as an ordinary scenario.
#include "sim/studies/plan/plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <variant>

#include "sim/run/runs.hpp"
#include "sim/core/parallel.hpp"
#include "sim/studies/plan/candidate.hpp"
#include "sim/studies/plan/placement_search.hpp"

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
          c.mode = it.fraction < 1 ? "sriov" : s.config.mode_name();
          c.gpu = it.gpu;
          c.gpus_per_instance = it.gpus;
          const double discount = plan.spot.discount >= 0 ? plan.spot.discount : it.spot_discount;
          c.cost_per_hour = it.price_per_hour * n * (spot ? 1 - discount : 1);
          out.push_back(c);
        }
  return out;
}

namespace {

using namespace plan_detail;

// A bound on what any placement could reach, "met/with SLOs": a replica meets its SLOs at best alone on a GPU.
std::string placement_bound(const PlanSpec& plan, const Candidate& c, const CandidateSetup& setup) {
  int could = 0, with_slo = 0;
  for (size_t w = 0; w < plan.workloads.size(); ++w) {
    Scenario alone;
    const std::vector<Replica> one = {{w, 0}};
    PlacedReplica p;
    if (build(plan, c, setup, 1, one, {0}, alone).empty())
      p = judge(plan.workloads[w], run_candidate(alone).tenants[0], c.spot ? &plan.spot : nullptr);
    else
      p.has_slo = true;  // cannot run even alone: counted, and missed
    if (!p.has_slo) continue;
    with_slo += plan.workloads[w].replicas;
    could += p.met ? plan.workloads[w].replicas : 0;
  }
  return fmt::format("{}/{}", could, with_slo);
}

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
    if (!plan.search_placement && !setup.mig) {
      c.search = "fewest tenants";
    } else if (const std::optional<SearchedPlacement> found = search_placement(plan, c, setup, replicas)) {
      if (found->found) {
        gpu_of = found->gpu_of;
        profile_of = found->profile_of;
        why.clear();
      }
      c.search = setup.mig ? fmt::format("{} MIG layouts ({} replica-profile pairs simulated)",
                                         found->capped ? "capped" : "exact", found->simulated)
                           : fmt::format("exact ({} groups simulated)", found->simulated);
    } else if (setup.mig) {
      why = fmt::format("too many groupings to search MIG layouts (the product of replicas + 1 over workloads "
                        "exceeds {})",
                        kMaxSearchStates);
    } else {
      c.search = fmt::format("fewest tenants (too many groups to search; at most {} replicas could meet their SLOs)",
                             placement_bound(plan, c, setup));
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
  const Results r = run_candidate(sc);
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
