// Run format `csv`: results.csv in long (tidy) form, one row per tenant or GPU and metric, each row carrying the
// run's metadata, so files from many runs concatenate into one table.
#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "sim/report/run_formats.hpp"

#ifndef VGPUSIM_VERSION
#define VGPUSIM_VERSION "0.0.0"
#endif

namespace vgpusim {

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

namespace {

std::string number(double v) { return std::isfinite(v) ? fmt::format("{:.9g}", v) : std::string(); }

const GpuResult* gpu_of(const Results& r, const std::string& id) {
  for (const GpuResult& g : r.gpus)
    if (g.id == id) return &g;
  return nullptr;
}

}  // namespace

std::vector<MetricRow> tidy_metrics(const Results& r) {
  std::vector<MetricRow> rows;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (const TenantResult& t : r.tenants) {
    auto add = [&](std::string metric, double value, double ci95, std::string unit, std::string dcgm = "") {
      rows.push_back({t.name, t.gpu, t.workload, std::move(metric), value, ci95, std::move(unit), std::move(dcgm)});
    };
    add("relative_performance", t.relative_performance, t.vgpu_loss_ci95, "ratio");
    add("vgpu_loss", t.vgpu_loss, t.vgpu_loss_ci95, "ratio");
    add("throughput", t.shared.throughput, t.shared.throughput_ci95, fmt::format("{}/s", t.unit));
    add("baseline_throughput", t.baseline.throughput, t.baseline.throughput_ci95, fmt::format("{}/s", t.unit));
    add("units", static_cast<double>(t.shared.units), nan, t.unit);
    if (t.shared.latency) {
      add("latency_p50", t.shared.latency->p50, t.shared.latency->p50_ci95, "s");
      add("latency_p95", t.shared.latency->p95, nan, "s");
      add("latency_p99", t.shared.latency->p99, t.shared.latency->p99_ci95, "s");
    }
    if (t.finished) add("completion", t.completion, nan, "s");
    add("gpu_work", t.gpu_work, nan, "s");
    add("failures", static_cast<double>(t.failures.size()), nan, "count");
    // The trust band: the validated error of this kind of prediction (results.json names its class).
    if (!t.trust.cls.empty()) {
      add("trust_mape", t.trust.row.mape / 100, nan, "ratio");
      add("trust_p90", t.trust.row.p90 / 100, nan, "ratio");
      add("trust_cases", static_cast<double>(t.trust.row.cases), nan, "count");
      if (std::isfinite(t.trust.loss_mape)) {
        add("trust_vgpu_loss_mape", t.trust.loss_mape, nan, "ratio");
        add("trust_vgpu_loss_p90", t.trust.loss_p90, nan, "ratio");
      }
    }
    // A trace replay's critical path per iteration, shared and alone.
    for (const auto& [name, seconds] : t.shared.unit_parts) add("critical_path_" + name, seconds, nan, "s");
    for (const auto& [name, seconds] : t.baseline.unit_parts) add("baseline_critical_path_" + name, seconds, nan, "s");
    // Where its time went shared (shares of its window; alone: results.json), and why a unit took longer shared
    // (s per unit).
    for (const auto& [name, share] : t.shared.time_split) add("time_" + name, share, nan, "ratio");
    for (const auto& [name, seconds] : t.slowdown_causes) add("slowdown_" + name, seconds, nan, "s");
    // Named per-request figures (an LLM server's ttft, tpot) and amounts (output tokens).
    for (const SampleSummary& s : t.shared.samples) {
      add(s.name + "_mean", s.mean, nan, "s");
      add(s.name + "_p50", s.p50, s.p50_ci95, "s");
      add(s.name + "_p90", s.p90, nan, "s");
      add(s.name + "_p99", s.p99, s.p99_ci95, "s");
    }
    for (const CountSummary& c : t.shared.counts) {
      // A count of seconds (kv_cache_busy_s) has a rate that is a share of the time.
      const bool seconds = c.name.ends_with("_s");
      add(c.name, c.total, nan, seconds ? "s" : "count");
      add(c.name + "_rate", c.rate, c.rate_ci95, seconds ? "ratio" : c.name + "/s");
    }
  }
  for (const GpuResult& g : r.gpus) {
    rows.push_back({"", g.id, "", "utilization", g.utilization, nan, "ratio", ""});
    // The fraction of time a kernel was running: what DCGM and nvidia-smi call GPU utilization.
    rows.push_back({"", g.id, "", "busy_fraction", g.busy_fraction, nan, "ratio", "DCGM_FI_DEV_GPU_UTIL"});
  }
  return rows;
}

std::string tidy_csv_header(const std::vector<std::string>& extra_columns) {
  std::string out = "scenario,scenario_file,scenario_hash,tool_version,seed,replications,fidelity";
  for (const std::string& c : extra_columns) out += fmt::format(",{}", csv_field(c));
  return out + ",gpu,gpu_model,mode,tenant,workload,metric,value,ci95,unit,dcgm_field\n";
}

std::string tidy_csv_rows(const Results& r, const std::vector<std::string>& extra_values) {
  std::string meta = fmt::format("{},{},{},{},{},{},{}", csv_field(r.scenario_name), csv_field(r.scenario_file),
                                 r.scenario_hash, VGPUSIM_VERSION, r.seed, r.replications, r.fidelity);
  for (const std::string& v : extra_values) meta += fmt::format(",{}", csv_field(v));
  std::string out;
  for (const MetricRow& m : tidy_metrics(r)) {
    const GpuResult* g = gpu_of(r, m.gpu);
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{}\n", meta, csv_field(m.gpu),
                       g ? csv_field(g->model) : std::string(), g ? g->mode : std::string(), csv_field(m.tenant),
                       m.workload, m.metric, number(m.value), number(m.ci95), csv_field(m.unit), m.dcgm_field);
  }
  return out;
}

std::string results_csv(const Results& r) { return tidy_csv_header({}) + tidy_csv_rows(r, {}); }

RunFormat csv_run_format() {
  return {"csv", "results.csv", "one row per tenant or GPU and metric, with the run's metadata (tidy)", false,
          [](const RunReport& r) { return results_csv(r.results); }};
}

}  // namespace vgpusim
