// Run format `table`: the text table for people (stdout), at fixed precision so that golden tests catch any change
// in a model's predictions.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "sim/core/units.hpp"
#include "sim/report/run_formats.hpp"
#include "sim/report/text_format.hpp"

namespace vgpusim {

std::string results_table(const Results& r) {
  std::string out = fmt::format("scenario: {}\nfidelity: {}  seed: {}  replications: {}  simulated: {} s\n\n",
                                r.scenario_name, r.fidelity, r.seed, r.replications, fixed(r.end, 6));
  size_t name_w = 6, gpu_w = 3;
  for (const TenantResult& t : r.tenants) {
    name_w = std::max(name_w, t.name.size());
    gpu_w = std::max(gpu_w, t.gpu.size());
  }
  out += fmt::format("{:<{}} {:<{}} {:<10} {:>10} {:>12} {:>12} {:>9} {:>16} {:>18}\n", "tenant", name_w, "gpu", gpu_w,
                     "workload", "units", "per s", "alone per s", "relative", "vGPU loss", "p99 ms");
  for (const TenantResult& t : r.tenants) {
    const std::string loss = loss_interval_shown(t)
                                 ? fmt::format("{}% ±{}", fixed(100 * t.vgpu_loss, 2), fixed(100 * t.vgpu_loss_ci95, 2))
                                 : fmt::format("{}%", fixed(100 * t.vgpu_loss, 2));
    std::string p99 = "-";
    if (t.shared.latency) {
      p99 = fixed(1e3 * t.shared.latency->p99, 3);
      if (std::isfinite(t.shared.latency->p99_ci95) && t.shared.latency->p99_ci95 != 0)
        p99 += " ±" + fixed(1e3 * t.shared.latency->p99_ci95, 3);
    }
    out += fmt::format("{:<{}} {:<{}} {:<10} {:>10} {:>12} {:>12} {:>9} {:>16} {:>18}\n", t.name, name_w, t.gpu, gpu_w,
                       t.workload, t.shared.units, fixed(t.shared.throughput, 4), fixed(t.baseline.throughput, 4),
                       fixed(t.relative_performance, 4), loss, p99);
  }
  // What each prediction's kind scored against measurements, and loss intervals that are not uncertainties.
  out += "\ntrust (validated error of predictions of this kind, docs/validation.md#trust-bands):\n";
  for (const TenantResult& t : r.tenants) {
    out += fmt::format("  {}: {}\n", t.name, trust_text(t.trust));
    if (std::isfinite(t.vgpu_loss_ci95) && t.vgpu_loss_ci95 == 0)
      out += fmt::format("  {}: vGPU loss interval {}\n", t.name, interval_kind(r, t));
  }
  // Why each tenant slowed: a closed-loop unit's extra time by where it went; an open-loop tenant's time split.
  const auto singular = [](const std::string& unit) {
    return unit.empty() ? std::string("unit") : unit.substr(0, unit.size() - (unit.back() == 's' ? 1 : 0));
  };
  const auto split = [](const Performance& p) {
    std::string s;
    for (const auto& [name, share] : p.time_split)
      s += fmt::format("{}{} {}%", s.empty() ? "" : ", ", name, fixed(100 * share, 1));
    return s;
  };
  std::string why;
  for (const TenantResult& t : r.tenants) {
    if (!t.slowdown_causes.empty()) {
      double total = 0;
      std::string parts;
      for (const auto& [name, seconds] : t.slowdown_causes) {
        total += seconds;
        parts += fmt::format("{}{} {:+.3f}", parts.empty() ? "" : ", ", name, 1e3 * seconds);
      }
      why += fmt::format("  {}: {:+.3f} ms per {} ({}; alone {} ms)\n", t.name, 1e3 * total, singular(t.unit), parts,
                         fixed(1e3 / t.baseline.throughput, 3));
    } else if (!t.shared.time_split.empty() && !t.baseline.time_split.empty()) {
      why += fmt::format("  {}: time shared: {}; alone: {}\n", t.name, split(t.shared), split(t.baseline));
    }
  }
  if (r.host_stretch > 1)
    why += fmt::format("  host CPU: the tenants' threads outnumber the cores: host time x{:.3f} (docs/models/host-cpu.md)\n",
                       r.host_stretch);
  if (!why.empty())
    out += "\nwhy (closed loop: ms per unit shared minus alone, by where it went; open loop: shares of its time; "
           "docs/results-schema.md#why-a-tenant-slowed):\n" + why;
  bool notes = false;
  for (const TenantResult& t : r.tenants) {
    for (const SloResult& s : t.slo) {
      out += fmt::format("{}SLO {}: {}p{:g} <= {}: {:.2f}% of requests within, {}\n", notes ? "" : "\n", t.name,
                         s.metric.empty() ? "" : s.metric + " ", s.percentile, units::format(s.bound, units::Dim::Time),
                         100 * s.attainment, s.met ? "met" : "MISSED");
      notes = true;
    }
    for (const Failure& f : t.failures) {
      out += fmt::format("{}FAILED {} at {} s: {}\n", notes ? "" : "\n", t.name, fixed(f.time, 6), f.message);
      notes = true;
    }
  }
  // Named per-request figures (ms) and amounts (per second), shared.
  for (const TenantResult& t : r.tenants) {
    if (t.shared.samples.empty() && t.shared.counts.empty()) continue;
    out += fmt::format("{}{} {}:", notes ? "" : "\n", t.workload, t.name);
    for (const SampleSummary& s : t.shared.samples)
      out += fmt::format(" {} p50 {} p99 {} ms;", s.name, fixed(1e3 * s.p50, 3), fixed(1e3 * s.p99, 3));
    for (const CountSummary& c : t.shared.counts) out += fmt::format(" {} {}/s;", c.name, fixed(c.rate, 3));
    out.back() = '\n';
    notes = true;
  }
  // Where an iteration's time goes (a trace replay's critical path), shared and alone.
  for (const TenantResult& t : r.tenants) {
    if (t.shared.unit_parts.empty()) continue;
    for (const auto& [label, p] : {std::pair{"shared", &t.shared}, std::pair{"alone", &t.baseline}}) {
      out += fmt::format("{}critical path {} ({}), ms per {}:", notes ? "" : "\n", t.name, label, singular(t.unit));
      for (const auto& [name, seconds] : p->unit_parts) out += fmt::format(" {} {}", name, fixed(1e3 * seconds, 3));
      out += "\n";
      notes = true;
    }
  }
  out += "\n";
  size_t id_w = 3, model_w = 5;
  for (const GpuResult& g : r.gpus) {
    id_w = std::max(id_w, g.id.size());
    model_w = std::max(model_w, g.model.size());
  }
  out +=
      fmt::format("{:<{}} {:<{}} {:<12} {:>12} {:>8}\n", "gpu", id_w, "model", model_w, "mode", "utilization", "busy");
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

RunFormat table_run_format() {
  return {"table", "", "the table printed on stdout", false,
          [](const RunReport& r) { return results_table(r.results); }};
}

}  // namespace vgpusim
