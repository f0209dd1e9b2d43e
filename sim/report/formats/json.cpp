// Run format `json`: results.json (schema vgpusim.results/1, docs/results-schema.md).
#include <nlohmann/json.hpp>

#include "sim/report/run_formats.hpp"

#ifndef VGPUSIM_VERSION
#define VGPUSIM_VERSION "0.0.0"
#endif

namespace vgpusim {
namespace {

using nlohmann::ordered_json;

ordered_json num(double v) { return std::isfinite(v) ? ordered_json(v) : ordered_json(nullptr); }

ordered_json perf_json(const Performance& p) {
  ordered_json j;
  j["units"] = p.units;
  j["throughput_per_s"] = num(p.throughput);
  j["throughput_ci95_per_s"] = num(p.throughput_ci95);
  j["unit_time_mean_s"] = num(p.unit_time_mean);
  j["unit_time_ci95_s"] = num(p.unit_time_ci95);
  if (p.latency) {
    j["latency_s"] = {{"mean", num(p.latency->mean)},
                      {"p50", num(p.latency->p50)},
                      {"p95", num(p.latency->p95)},
                      {"p99", num(p.latency->p99)},
                      {"max", num(p.latency->max)},
                      {"p50_ci95", num(p.latency->p50_ci95)},
                      {"p99_ci95", num(p.latency->p99_ci95)}};
  }
  if (!p.unit_parts.empty()) {
    ordered_json parts = ordered_json::object();
    for (const auto& [name, seconds] : p.unit_parts) parts[name] = num(seconds);
    j["critical_path_s"] = parts;
  }
  if (!p.time_split.empty()) {
    ordered_json parts = ordered_json::object();
    for (const auto& [name, share] : p.time_split) parts[name] = num(share);
    j["time_split"] = parts;
  }
  if (!p.samples.empty()) {
    ordered_json m = ordered_json::object();
    for (const SampleSummary& s : p.samples)
      m[s.name] = {{"count", s.count},         {"mean", num(s.mean)},         {"p50", num(s.p50)},
                   {"p90", num(s.p90)},         {"p99", num(s.p99)},           {"p50_ci95", num(s.p50_ci95)},
                   {"p99_ci95", num(s.p99_ci95)}};
    j["metrics_s"] = m;
  }
  if (!p.counts.empty()) {
    ordered_json c = ordered_json::object();
    for (const CountSummary& x : p.counts)
      c[x.name] = {{"total", num(x.total)}, {"per_s", num(x.rate)}, {"per_s_ci95", num(x.rate_ci95)}};
    j["counts"] = c;
  }
  return j;
}

ordered_json trust_json(const TrustBand& b) {
  ordered_json j;
  j["class"] = b.cls.empty() ? ordered_json(nullptr) : ordered_json(b.cls);
  j["situation"] = b.situation;
  j["text"] = trust_text(b);
  if (b.cls.empty()) return j;
  j["match"] = b.match;
  j["validated"] = b.row.situation;
  j["quantity"] = b.row.quantity;
  j["datasets"] = b.row.datasets;
  j["gpus"] = b.row.gpus;
  j["cases"] = b.row.cases;
  j["mape"] = b.row.mape / 100;
  j["p90"] = b.row.p90 / 100;
  j["vgpu_loss_band"] = {{"mape", num(b.loss_mape)}, {"p90", num(b.loss_p90)}};
  if (!b.row.best_baseline.empty())
    j["best_baseline"] = {{"name", b.row.best_baseline}, {"mape", b.row.best_baseline_mape / 100}};
  return j;
}

}  // namespace

std::string results_json(const Results& r) {
  ordered_json j;
  j["schema"] = "vgpusim.results/1";
  j["tool"] = {{"name", "vgpusim"}, {"version", VGPUSIM_VERSION}};
  j["scenario"] = {{"name", r.scenario_name},
                   {"file", r.scenario_file},
                   {"hash", r.scenario_hash},
                   {"seed", r.seed},
                   {"replications", r.replications},
                   {"fidelity", r.fidelity},
                   {"duration_s", num(r.duration)}};
  j["simulated_end_s"] = num(r.end);
  j["events"] = r.events;
  if (r.host_stretch > 0) j["host_stretch"] = num(r.host_stretch);
  ordered_json tenants = ordered_json::array();
  for (const TenantResult& t : r.tenants) {
    ordered_json tj;
    tj["name"] = t.name;
    tj["gpu"] = t.gpu;
    tj["workload"] = t.workload;
    tj["unit"] = t.unit;
    tj["start_s"] = num(t.start);
    tj["finished"] = t.finished;
    tj["completion_s"] = num(t.completion);
    tj["gpu_work_s"] = num(t.gpu_work);
    tj["performance"] = perf_json(t.shared);
    tj["baseline"] = perf_json(t.baseline);
    tj["relative_performance"] = num(t.relative_performance);
    tj["slowdown"] = num(t.slowdown);
    tj["vgpu_loss"] = num(t.vgpu_loss);
    tj["vgpu_loss_ci95"] = num(t.vgpu_loss_ci95);
    ordered_json per = ordered_json::array();
    for (double x : t.vgpu_loss_replications) per.push_back(num(x));
    tj["vgpu_loss_replications"] = per;
    tj["vgpu_loss_interval"] = interval_kind(r, t);
    if (!t.slowdown_causes.empty()) {
      ordered_json causes = ordered_json::object();
      for (const auto& [name, seconds] : t.slowdown_causes) causes[name] = num(seconds);
      tj["slowdown_causes_s"] = causes;
    }
    tj["trust"] = trust_json(t.trust);
    ordered_json slo = ordered_json::array();
    for (const SloResult& s : t.slo)
      slo.push_back({{"metric", s.metric.empty() ? "latency" : s.metric},
                     {"percentile", s.percentile}, {"bound_s", s.bound}, {"attainment", s.attainment}, {"met", s.met}});
    tj["slo"] = slo;
    ordered_json failures = ordered_json::array();
    for (const Failure& f : t.failures)
      failures.push_back({{"kind", f.kind}, {"time_s", f.time}, {"message", f.message}});
    tj["failures"] = failures;
    tj["warnings"] = t.warnings;
    if (!t.workload_facts.empty()) {
      ordered_json facts = ordered_json::object();
      for (const auto& [name, value] : t.workload_facts) facts[name] = num(value);
      tj["workload_facts"] = facts;
    }
    tenants.push_back(tj);
  }
  j["tenants"] = tenants;
  ordered_json gpus = ordered_json::array();
  for (const GpuResult& g : r.gpus) {
    gpus.push_back({{"id", g.id},
                    {"model", g.model},
                    {"mode", g.mode},
                    {"utilization", num(g.utilization)},
                    {"busy_fraction", num(g.busy_fraction)},
                    {"utilization_series", {{"interval_s", g.interval}, {"values", g.series}}}});
  }
  j["gpus"] = gpus;
  ordered_json comparisons = ordered_json::array();
  for (const ComparisonResult& c : r.comparisons)
    comparisons.push_back({{"name", c.name},
                           {"metric", c.metric},
                           {"predicted", num(c.predicted)},
                           {"article", num(c.article)},
                           {"difference", num(c.difference)},
                           {"source", c.source}});
  j["comparisons"] = comparisons;
  return j.dump(2) + "\n";
}

RunFormat json_run_format() {
  return {"json", "results.json", "every result, machine-readable (schema vgpusim.results/1)", false,
          [](const RunReport& r) { return results_json(r.results); }};
}

}  // namespace vgpusim
