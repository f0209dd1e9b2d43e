// Run format `csv`: results.csv, one row per tenant.
#include <fmt/format.h>

#include <cmath>

#include "sim/report/run_formats.hpp"

namespace vgpusim {

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string results_csv(const Results& r) {
  std::string out =
      "tenant,gpu,workload,unit,units,throughput_per_s,baseline_throughput_per_s,relative_performance,slowdown,"
      "vgpu_loss,vgpu_loss_ci95,completion_s,latency_p50_s,latency_p95_s,latency_p99_s,failures,throughput_ci95_per_s,"
      "latency_p50_ci95_s,latency_p99_ci95_s\n";
  for (const TenantResult& t : r.tenants) {
    auto g = [](double v) { return std::isfinite(v) ? fmt::format("{:.9g}", v) : ""; };
    auto lat = [&](double LatencySummary::*m) { return t.shared.latency ? g((*t.shared.latency).*m) : ""; };
    std::string failures;
    for (const Failure& f : t.failures) failures += (failures.empty() ? "" : "; ") + f.kind;
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", csv_field(t.name),
                       csv_field(t.gpu), t.workload, t.unit, t.shared.units, g(t.shared.throughput),
                       g(t.baseline.throughput), g(t.relative_performance), g(t.slowdown), g(t.vgpu_loss),
                       g(t.vgpu_loss_ci95), g(t.completion), lat(&LatencySummary::p50), lat(&LatencySummary::p95),
                       lat(&LatencySummary::p99), csv_field(failures), g(t.shared.throughput_ci95),
                       lat(&LatencySummary::p50_ci95), lat(&LatencySummary::p99_ci95));
  }
  return out;
}

RunFormat csv_run_format() {
  return {"csv", "results.csv", "one row per tenant", false, [](const RunReport& r) { return results_csv(r.results); }};
}

}  // namespace vgpusim
