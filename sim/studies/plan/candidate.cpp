// How a plan candidate is built and judged (candidate.hpp).
#include "sim/studies/plan/candidate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <variant>

#include "sim/core/errors.hpp"
#include "sim/io/calibration_file.hpp"
#include "sim/run/estimate.hpp"
#include "sim/run/runs.hpp"
#include "sim/scenario/builder.hpp"

namespace vgpusim::plan_detail {
namespace {

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

std::string tenant_name(const PlanWorkload& w, int r) {
  return w.replicas > 1 ? fmt::format("{}#{}", w.name, r + 1) : w.name;
}

}  // namespace

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

// Resolves the candidate; returns "" or why it cannot exist.
std::string resolve(const PlanSpec& plan, const Candidate& c, CandidateSetup& s) {
  s.it = &instance_of(plan, c.instance);
  s.gpu = builtin_catalog().find(s.it->gpu);
  if (!s.gpu) return "unknown GPU " + s.it->gpu;
  if (s.it->fraction < 1) {
    // One SR-IOV virtual function of the GPU, scheduled at a fixed share: the provider's other tenants of the GPU
    // (unknown) cannot take its slots, so it is simulated alone with that share.
    s.info = find_sharing_mode("sriov");
    s.own_config = {s.info, with_overrides(s.info->mode_params(), builtin_overrides(s.gpu->spec.name))};
    s.own_config.params.set_word("scheduler", "fixed");
    s.config = &s.own_config;
  } else {
    const PlanSharing& sharing = sharing_of(plan, c.sharing);
    s.info = sharing.config.mode;
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


// The candidate as a scenario, through the ScenarioBuilder as a loaded scenario would be: GPUs named i<instance>g<k>,
// each shared by the candidate's mode (MIG: one instance per replica on its GPU, time-sliced as a partition without
// a sharing of its own is), the replicas as tenants in replica order.
std::string build(const PlanSpec& plan, const Candidate& c, const CandidateSetup& s, size_t gpus,
                  const std::vector<Replica>& replicas, const std::vector<size_t>& gpu_of, Scenario& sc,
                  const std::vector<std::string>& profile_of) {
  ScenarioBuilder b(plan.file,
                    fmt::format("{}: {} x {}{}, {}", plan.name, c.count, c.instance, c.spot ? " spot" : "", c.sharing));
  b.set_seed(plan.seed);
  b.set_duration(plan.duration);
  b.set_fidelity(plan.fidelity);
  for (size_t g = 0; g < gpus; ++g) {
    const size_t per = static_cast<size_t>(s.it->gpus);
    const size_t k = b.add_gpu(catalog_gpu(fmt::format("i{}g{}", g / per, g % per), *s.gpu));
    b.share_gpu(k, *s.config);
    if (!s.mig) b.add_whole_gpu(k);
  }
  // MIG: each GPU's instances, one per replica on it; target_of[i] is replica i's instance.
  std::vector<size_t> target_of(replicas.size());
  if (s.mig) {
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
      for (size_t j = 0; j < parts.size(); ++j) target_of[on_it[j]] = b.add_partition(g, std::to_string(j), parts[j]);
    }
  } else {
    for (size_t i = 0; i < replicas.size(); ++i) target_of[i] = gpu_of[i];
  }
  for (size_t i = 0; i < replicas.size(); ++i) {
    const PlanWorkload& w = plan.workloads[replicas[i].workload];
    TenantSpec t;
    ScenarioBuilder::TenantGiven given;
    t.name = tenant_name(w, replicas[i].r);
    t.target = target_of[i];
    t.memory = w.memory;
    given.memory = true;
    if (s.it->fraction < 1) {
      t.share = ParamValues::defaults(s.info->tenant_params());
      t.share.set("fraction", s.it->fraction);
      given.share = true;
    }
    t.workload = w.workload;
    b.add_tenant(std::move(t), given);
  }
  const std::vector<ScenarioBuilder::Problem> problems = b.finish();
  if (!problems.empty()) return problems.front().message;
  sc = b.take();
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
    // A GPU that holds one tenant and would hold this one alone: the slots, not the memory, ran out.
    if (s.max_tenants() == 1 && (w.memory <= s.memory() || !s.memory_checked())) some_room = true;
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
PlacedReplica judge(const PlanWorkload& w, const TenantResult& t, const PlanSpot* spot) {
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
    // (A met target without a figure, e.g. tpot when every answer is one token long, sets no margin.)
    if (std::isfinite(s.achieved) && s.bound > 0)
      margin = std::min(margin, (s.bound - s.achieved) / s.bound);
    else if (!s.met)
      margin = -1.0;
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

Results run_candidate(const Scenario& sc) {
  const RunEstimate e = estimate_run(sc, false, RunLimits{});
  if (e.events > kDefaultMaxEvents)
    throw InputError(
        std::isinf(e.events)
            ? fmt::format("a candidate's run would not end: its first {} events all happen at simulated time 0; "
                          "check the workloads' sizes and rates",
                          e.pilot_events)
            : fmt::format("a candidate's run would take about {:.3g} engine events (its first {} covered {} of "
                          "simulated time), above {:.3g}: shorten the plan's `duration` or lower its rates",
                          e.events, e.pilot_events, units::format(e.pilot_span, units::Dim::Time),
                          kDefaultMaxEvents));
  return run_scenario(sc);
}

}  // namespace vgpusim::plan_detail
