// Candidate enumeration, simulation and judgement. Replicas are spread over a candidate's GPUs (fewest tenants
// first, within memory and the mode's tenant limit); the candidate then runs as an ordinary scenario.
#include "sim/io/calibration_file.hpp"
#include "sim/studies/plan/plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "sim/core/parallel.hpp"
#include "sim/io/gpu_catalog.hpp"
#include "sim/run/metrics.hpp"

namespace vgpusim {

std::vector<Candidate> enumerate_candidates(const PlanSpec& plan) {
  std::vector<Candidate> out;
  for (const PlanInstanceType& it : plan.instances)
    for (int n = 1; n <= plan.max_instances; ++n)
      for (const PlanSharing& s : plan.sharing) {
        Candidate c;
        c.index = out.size();
        c.instance = it.name;
        c.count = n;
        c.sharing = s.label;
        c.cost_per_hour = it.price_per_hour * n;
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

// Builds the candidate's scenario; returns "" or why it cannot exist.
std::string build(const PlanSpec& plan, const Candidate& c, Scenario& sc) {
  const PlanInstanceType& it = instance_of(plan, c.instance);
  const PlanSharing& sharing = sharing_of(plan, c.sharing);
  const CatalogEntry* gpu = builtin_catalog().find(it.gpu);
  if (!gpu) return "unknown GPU " + it.gpu;
  const SharingModeInfo* info = find_sharing_mode(sharing.config.mode);
  if (info->device_kind != gpu->spec.kind) return fmt::format("{} does not apply to {}", info->name, it.gpu);
  sc.file = plan.file;
  sc.name = fmt::format("{}: {} x {}, {}", plan.name, c.count, c.instance, c.sharing);
  sc.seed = plan.seed;
  sc.duration = plan.duration;
  sc.fidelity = plan.fidelity;
  sc.metrics_interval = plan.duration / 100;
  const auto on_gpu = sharing.by_gpu.find(it.gpu);  // with the GPU's shipped calibration
  const SharingConfig& config = on_gpu != sharing.by_gpu.end() ? on_gpu->second : sharing.config;
  for (int i = 0; i < c.count; ++i)
    for (int g = 0; g < it.gpus; ++g) {
      ScenarioGpu inst;
      inst.id = fmt::format("i{}g{}", i, g);
      inst.spec = gpu->spec;
      inst.calibrated = builtin_overrides(gpu->spec.name);
      inst.performance = with_overrides(roofline_params(), inst.calibrated);
      sc.gpus.push_back(inst);
      sc.sharing.push_back(config);
      sc.targets.push_back({inst.id, sc.gpus.size() - 1, "", -1, gpu->spec, config, true});
    }
  // Replicas, largest memory first, each on the GPU with the fewest tenants that has room.
  struct Replica {
    const PlanWorkload* w;
    int r;
  };
  std::vector<Replica> replicas;
  for (const PlanWorkload& w : plan.workloads)
    for (int r = 0; r < w.replicas; ++r) replicas.push_back({&w, r});
  std::stable_sort(replicas.begin(), replicas.end(),
                   [](const Replica& a, const Replica& b) { return a.w->memory > b.w->memory; });
  std::vector<double> used(sc.targets.size(), 0);
  std::vector<int> tenants(sc.targets.size(), 0);
  for (const Replica& rep : replicas) {
    long best = -1;
    bool some_room = false;
    for (size_t k = 0; k < sc.targets.size(); ++k) {
      const bool room = used[k] + rep.w->memory <= sc.targets[k].spec.memory || info->memory_isolation;
      const bool slot = info->max_contexts == 0 || tenants[k] < info->max_contexts;
      some_room = some_room || room;
      if (room && slot && (best < 0 || tenants[k] < tenants[static_cast<size_t>(best)])) best = static_cast<long>(k);
    }
    if (best < 0)
      return some_room ? fmt::format("{} allows {} tenant(s) per GPU; no GPU left for {} replica {}", info->name,
                                     info->max_contexts, rep.w->name, rep.r + 1)
                       : fmt::format("not enough GPU memory for {} replica {}", rep.w->name, rep.r + 1);
    const auto k = static_cast<size_t>(best);
    used[k] += rep.w->memory;
    ++tenants[k];
    TenantSpec t;
    t.name = rep.w->replicas > 1 ? fmt::format("{}#{}", rep.w->name, rep.r + 1) : rep.w->name;
    t.gpu = sc.targets[k].gpu;
    t.target = k;
    t.memory = rep.w->memory;
    t.stream = t.name;
    t.share = ParamValues::defaults(info->tenant_params());
    t.workload = rep.w->workload;
    // As in a scenario without `start`: replicas do not start in the same microsecond (scenario key start_jitter).
    t.start_distribution = Distribution::uniform(0, kPlanStartJitter);
    sc.tenants.push_back(t);
  }
  draw_starts(sc);
  if (info->validate)
    for (size_t k = 0; k < sc.targets.size(); ++k)
      if (tenants[k] > 0) {
        const std::string error = info->validate(model_setup(sc, k));
        if (!error.empty()) return error;
      }
  return "";
}

}  // namespace

void evaluate_candidate(const PlanSpec& plan, Candidate& c) {
  // One replication per candidate (a plan weighs many candidates; see docs/plan.md).
  Scenario sc;
  const std::string why = build(plan, c, sc);
  if (!why.empty()) {
    c.feasible = false;
    c.note = why;
    return;
  }
  c.feasible = true;
  const Results r = run_scenario(sc);
  std::vector<std::string> missed;
  for (size_t i = 0; i < sc.tenants.size(); ++i) {
    const TenantResult& t = r.tenants[i];
    const PlanWorkload* w = nullptr;
    for (const PlanWorkload& pw : plan.workloads)
      if (t.name == pw.name || t.name.rfind(pw.name + "#", 0) == 0) w = &pw;
    bool has_slo = !t.slo.empty() || w->slo.throughput > 0 || std::isfinite(w->slo.deadline);
    bool met = t.failures.empty();
    for (const SloResult& s : t.slo) met = met && s.met;
    if (w->slo.throughput > 0) met = met && t.shared.throughput >= w->slo.throughput;
    if (std::isfinite(w->slo.deadline)) met = met && t.finished && t.completion <= w->slo.deadline;
    has_slo = has_slo || !t.failures.empty();
    if (!has_slo) continue;
    ++c.slos;
    if (met)
      ++c.slos_met;
    else
      missed.push_back(t.name);
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
  for (size_t i = 0; i < out.candidates.size(); ++i) {
    const Candidate& c = out.candidates[i];
    if (!c.feasible || !c.meets_all) continue;
    const auto b = static_cast<size_t>(out.best);
    if (out.best < 0 || c.cost_per_hour < out.candidates[b].cost_per_hour ||
        (c.cost_per_hour == out.candidates[b].cost_per_hour && c.count < out.candidates[b].count))
      out.best = static_cast<long>(i);
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
