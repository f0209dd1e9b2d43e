// results.json, results.csv and the stdout table. Numbers in the table are at fixed precision so that golden
// tests catch any change in a model's predictions.
#include "sim/report/results_writers.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "sim/core/units.hpp"

namespace vgpusim {
namespace {

using nlohmann::ordered_json;

ordered_json num(double v) { return std::isfinite(v) ? ordered_json(v) : ordered_json(nullptr); }

ordered_json perf_json(const Performance& p) {
  ordered_json j;
  j["units"] = p.units;
  j["throughput_per_s"] = num(p.throughput);
  j["unit_time_mean_s"] = num(p.unit_time_mean);
  j["unit_time_ci95_s"] = num(p.unit_time_ci95);
  if (p.latency) {
    j["latency_s"] = {{"mean", num(p.latency->mean)},
                      {"p50", num(p.latency->p50)},
                      {"p95", num(p.latency->p95)},
                      {"p99", num(p.latency->p99)},
                      {"max", num(p.latency->max)}};
  }
  return j;
}

std::string fixed(double v, int digits) { return std::isfinite(v) ? fmt::format("{:.{}f}", v, digits) : "-"; }

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

}  // namespace

std::string results_json(const Results& r) {
  ordered_json j;
  j["schema"] = "vgpusim.results/1";
  j["scenario"] = {{"name", r.scenario_name},
                   {"file", r.scenario_file},
                   {"seed", r.seed},
                   {"fidelity", r.fidelity},
                   {"duration_s", num(r.duration)}};
  j["simulated_end_s"] = num(r.end);
  j["events"] = r.events;
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
    ordered_json slo = ordered_json::array();
    for (const SloResult& s : t.slo)
      slo.push_back({{"percentile", s.percentile}, {"bound_s", s.bound}, {"attainment", s.attainment}, {"met", s.met}});
    tj["slo"] = slo;
    ordered_json failures = ordered_json::array();
    for (const Failure& f : t.failures) failures.push_back({{"kind", f.kind}, {"time_s", f.time}, {"message", f.message}});
    tj["failures"] = failures;
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

std::string results_csv(const Results& r) {
  std::string out =
      "tenant,gpu,workload,unit,units,throughput_per_s,baseline_throughput_per_s,relative_performance,slowdown,"
      "vgpu_loss,vgpu_loss_ci95,completion_s,latency_p50_s,latency_p95_s,latency_p99_s,failures\n";
  for (const TenantResult& t : r.tenants) {
    auto lat = [&](double LatencySummary::*m) { return t.shared.latency ? fmt::format("{:.9g}", (*t.shared.latency).*m) : ""; };
    auto g = [](double v) { return std::isfinite(v) ? fmt::format("{:.9g}", v) : ""; };
    std::string failures;
    for (const Failure& f : t.failures) failures += (failures.empty() ? "" : "; ") + f.kind;
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", csv_field(t.name), csv_field(t.gpu),
                       t.workload, t.unit, t.shared.units, g(t.shared.throughput), g(t.baseline.throughput),
                       g(t.relative_performance), g(t.slowdown), g(t.vgpu_loss), g(t.vgpu_loss_ci95), g(t.completion),
                       lat(&LatencySummary::p50), lat(&LatencySummary::p95), lat(&LatencySummary::p99),
                       csv_field(failures));
  }
  return out;
}

std::string results_table(const Results& r) {
  std::string out = fmt::format("scenario: {}\nfidelity: {}  seed: {}  simulated: {} s\n\n", r.scenario_name,
                                r.fidelity, r.seed, fixed(r.end, 6));
  size_t name_w = 6, gpu_w = 3;
  for (const TenantResult& t : r.tenants) {
    name_w = std::max(name_w, t.name.size());
    gpu_w = std::max(gpu_w, t.gpu.size());
  }
  out += fmt::format("{:<{}} {:<{}} {:<10} {:>10} {:>12} {:>12} {:>9} {:>16} {:>11}\n", "tenant", name_w, "gpu", gpu_w,
                     "workload", "units", "per s", "alone per s", "relative", "vGPU loss", "p99 ms");
  for (const TenantResult& t : r.tenants) {
    const std::string loss = std::isfinite(t.vgpu_loss_ci95)
                                 ? fmt::format("{}% ±{}", fixed(100 * t.vgpu_loss, 2), fixed(100 * t.vgpu_loss_ci95, 2))
                                 : fmt::format("{}%", fixed(100 * t.vgpu_loss, 2));
    out += fmt::format("{:<{}} {:<{}} {:<10} {:>10} {:>12} {:>12} {:>9} {:>16} {:>11}\n", t.name, name_w, t.gpu, gpu_w,
                       t.workload, t.shared.units, fixed(t.shared.throughput, 4), fixed(t.baseline.throughput, 4),
                       fixed(t.relative_performance, 4), loss,
                       t.shared.latency ? fixed(1e3 * t.shared.latency->p99, 3) : "-");
  }
  bool notes = false;
  for (const TenantResult& t : r.tenants) {
    for (const SloResult& s : t.slo) {
      out += fmt::format("{}SLO {}: p{:g} <= {}: {:.2f}% of requests within, {}\n", notes ? "" : "\n", t.name,
                         s.percentile, units::format(s.bound, units::Dim::Time), 100 * s.attainment,
                         s.met ? "met" : "MISSED");
      notes = true;
    }
    for (const Failure& f : t.failures) {
      out += fmt::format("{}FAILED {} at {} s: {}\n", notes ? "" : "\n", t.name, fixed(f.time, 6), f.message);
      notes = true;
    }
  }
  out += "\n";
  size_t id_w = 3, model_w = 5;
  for (const GpuResult& g : r.gpus) {
    id_w = std::max(id_w, g.id.size());
    model_w = std::max(model_w, g.model.size());
  }
  out += fmt::format("{:<{}} {:<{}} {:<12} {:>12} {:>8}\n", "gpu", id_w, "model", model_w, "mode", "utilization", "busy");
  for (const GpuResult& g : r.gpus)
    out += fmt::format("{:<{}} {:<{}} {:<12} {:>11}% {:>7}%\n", g.id, id_w, g.model, model_w, g.mode,
                       fixed(100 * g.utilization, 2), fixed(100 * g.busy_fraction, 2));
  if (!r.comparisons.empty()) {
    out += "\nprediction vs article\n";
    for (const ComparisonResult& c : r.comparisons)
      out += fmt::format("  {}: {} predicted {}, article {}{}\n      source: {}\n", c.name, c.metric,
                         fixed(c.predicted, 4), fixed(c.article, 4),
                         std::isfinite(c.difference) ? fmt::format(" ({:+.1f}%)", 100 * c.difference) : "", c.source);
  }
  return out;
}

}  // namespace vgpusim
