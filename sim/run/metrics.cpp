// Metrics from raw records. Throughput counts units over the tenant's active window (start to finish, or to the
// end of the run); the vGPU loss compares with the tenant's baseline run.
#include "sim/run/metrics.hpp"

#include <fmt/format.h>
#include <boost/math/distributions/students_t.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

#include "sim/core/rng.hpp"
#include "sim/core/units.hpp"

namespace vgpusim {

namespace {
using units::kNaN;
constexpr size_t kBatches = 10;
}  // namespace

double percentile(const std::vector<double>& sorted, double pct) {
  if (sorted.size() == 1) return sorted.front();
  const double pos = pct / 100.0 * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (pos - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

double mean_ci95_halfwidth(const std::vector<double>& values) {
  if (values.size() < 2 * kBatches) return kNaN;
  const size_t per = values.size() / kBatches;
  std::vector<double> means;
  for (size_t b = 0; b < kBatches; ++b) {
    double s = 0;
    for (size_t i = b * per; i < (b + 1) * per; ++i) s += values[i];
    means.push_back(s / static_cast<double>(per));
  }
  const double m = std::accumulate(means.begin(), means.end(), 0.0) / kBatches;
  double var = 0;
  for (double x : means) var += (x - m) * (x - m);
  var /= kBatches - 1;
  return student_t95(kBatches - 1) * std::sqrt(var / kBatches);
}

double student_t95(size_t dof) {
  return boost::math::quantile(boost::math::students_t(static_cast<double>(dof)), 0.975);
}

std::string interval_kind(const Results& r, const TenantResult& t) {
  const bool replications = r.replications > 1;
  if (!std::isfinite(t.vgpu_loss_ci95)) return "none: too few units";
  if (t.vgpu_loss_ci95 == 0)
    return replications ? "none: the replications agree exactly (a fixed input), which is not a certainty"
                        : "none: every unit took the same time (a fixed input), which is not a certainty";
  return replications ? "replications" : "batch means";
}

bool loss_interval_shown(const TenantResult& t) { return std::isfinite(t.vgpu_loss_ci95) && t.vgpu_loss_ci95 != 0; }

double replication_ci95_halfwidth(const std::vector<double>& all) {
  std::vector<double> values;
  for (double x : all)
    if (std::isfinite(x)) values.push_back(x);
  const size_t n = values.size();
  if (n < 2) return kNaN;
  const double m = std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(n);
  double var = 0;
  for (double x : values) var += (x - m) * (x - m);
  if (var == 0) return 0;  // the replications agree exactly
  var /= static_cast<double>(n - 1);
  return student_t95(n - 1) * std::sqrt(var / static_cast<double>(n));
}

namespace {

Performance performance(const TenantRecord& r, double run_end, bool is_inference) {
  Performance p;
  p.units = r.units;
  const double end = std::isnan(r.finish) ? run_end : r.finish;
  const double window = end - r.start;
  p.throughput = window > 0 ? static_cast<double>(r.units) / window : 0;
  if (!r.unit_times.empty()) {
    p.unit_time_mean = std::accumulate(r.unit_times.begin(), r.unit_times.end(), 0.0) /
                       static_cast<double>(r.unit_times.size());
    p.unit_time_ci95 = mean_ci95_halfwidth(r.unit_times);
    if (is_inference) {
      std::vector<double> s = r.unit_times;
      std::sort(s.begin(), s.end());
      p.latency = LatencySummary{p.unit_time_mean, percentile(s, 50), percentile(s, 95), percentile(s, 99), s.back()};
      for (int k = 0; k <= 100; ++k) p.latency_cdf.emplace_back(percentile(s, k), k / 100.0);
    }
  } else {
    p.unit_time_ci95 = kNaN;
  }
  if (r.units > 0)
    for (const auto& [name, total] : r.unit_parts) p.unit_parts.emplace_back(name, total / static_cast<double>(r.units));
  if (window > 0) {
    const ContextTimes& g = r.gpu_times;
    const double on_gpu[] = {g.running, g.slowed, g.waiting, g.withheld};
    double rest = 1;
    for (size_t k = 0; k < 4; ++k) {
      p.time_split.emplace_back(kTimeParts[k], on_gpu[k] / window);
      rest -= on_gpu[k] / window;
    }
    p.time_split.emplace_back(kTimeParts[4], std::max(0.0, rest));
  }
  for (const auto& [name, values] : r.samples) {
    SampleSummary s{name, static_cast<long long>(values.size())};
    if (!values.empty()) {
      std::vector<double> v = values;
      std::sort(v.begin(), v.end());
      s.mean = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
      s.p50 = percentile(v, 50);
      s.p90 = percentile(v, 90);
      s.p99 = percentile(v, 99);
    }
    p.samples.push_back(s);
  }
  for (const auto& [name, total] : r.counts) p.counts.push_back({name, total, window > 0 ? total / window : 0});
  return p;
}

}  // namespace

std::string queue_growth_warning(const std::vector<double>& unit_times, double baseline_mean) {
  const size_t n = unit_times.size();
  if (n < 40) return "";
  auto mean = [&](size_t from, size_t to) {
    return std::accumulate(unit_times.begin() + static_cast<std::ptrdiff_t>(from),
                           unit_times.begin() + static_cast<std::ptrdiff_t>(to), 0.0) /
           static_cast<double>(to - from);
  };
  const double second = mean(n / 4, n / 2), last = mean(3 * n / 4, n);
  if (!(last > 1.5 * second && last > 2 * baseline_mean)) return "";
  return fmt::format(
      "the request queue does not reach a steady state: the last quarter of the requests waited {:.3g}x as long "
      "as the second quarter (mean latency {} vs {}); the offered load is at or above what the tenant gets, so its "
      "latencies grow with the run's length",
      last / second, units::format(last, units::Dim::Time), units::format(second, units::Dim::Time));
}


void add_comparisons(const Scenario& sc, Results& res) {
  res.comparisons.clear();
  for (const Comparison& c : sc.compare) {
    const TenantResult& t = res.tenants[c.tenant];
    ComparisonResult cr{c.name, c.metric, c.source, kNaN, c.article, kNaN};
    if (c.metric == "throughput_ratio" || c.metric == "time_ratio") {
      const double a = t.shared.throughput, b = res.tenants[static_cast<size_t>(c.versus)].shared.throughput;
      if (a > 0 && b > 0) cr.predicted = c.metric == "throughput_ratio" ? a / b : b / a;
    } else if (c.metric == "latency_ratio" || c.metric == "p99_ratio") {
      const auto& a = t.shared.latency;
      const auto& b = res.tenants[static_cast<size_t>(c.versus)].shared.latency;
      if (a && b) cr.predicted = c.metric == "latency_ratio" ? a->mean / b->mean : a->p99 / b->p99;
    } else if (c.metric == "relative_performance") {
      cr.predicted = t.relative_performance;
    } else if (c.metric == "slowdown") {
      cr.predicted = t.slowdown;
    } else if (c.metric == "vgpu_loss") {
      cr.predicted = t.vgpu_loss;
    } else if (c.metric == "throughput") {
      cr.predicted = t.shared.throughput;
    } else if (c.metric == "failed") {
      cr.predicted = t.failures.empty() ? 0.0 : 1.0;
    }
    if (c.article != 0) cr.difference = (cr.predicted - c.article) / c.article;
    res.comparisons.push_back(cr);
  }
}

std::vector<std::pair<std::string, double>> slowdown_causes(const TenantResult& t, bool open_loop) {
  const Performance &a = t.shared, &b = t.baseline;
  if (open_loop || !(a.throughput > 0) || !(b.throughput > 0) || a.time_split.size() != b.time_split.size()) return {};
  std::vector<std::pair<std::string, double>> causes;
  for (size_t k = 0; k < a.time_split.size(); ++k)
    causes.emplace_back(a.time_split[k].first,
                        a.time_split[k].second / a.throughput - b.time_split[k].second / b.throughput);
  return causes;
}

Results compute_results(const Scenario& sc, const RunRecord& shared, const std::vector<const RunRecord*>& baselines) {
  Results res;
  res.scenario_name = sc.name;
  res.scenario_file = sc.file;
  res.scenario_hash = sc.file_hash;
  res.fidelity = sc.fidelity == Fidelity::Exact ? "exact" : "fluid";
  res.seed = sc.seed;
  res.duration = sc.duration;
  res.end = shared.end;
  res.events = shared.events;
  res.host_stretch = sc.host.cores > 0 ? shared.host_stretch : 0;
  for (size_t i = 0; i < sc.tenants.size(); ++i) {
    const TenantSpec& t = sc.tenants[i];
    const TenantRecord& r = shared.tenants[i];
    const TenantRecord& b = baselines[i]->tenants.front();
    const bool inference = t.workload->open_loop();       // the vGPU loss by latency
    const bool latencies = t.workload->reports_latency();  // percentiles reported
    TenantResult tr;
    tr.name = t.name;
    tr.gpu = sc.targets[t.target].id;
    tr.workload = t.workload->kind();
    tr.unit = t.workload->unit();
    tr.start = r.start;
    tr.finished = !std::isnan(r.finish);
    tr.completion = r.finish;
    tr.warnings = t.workload->warnings();
    tr.workload_facts = t.workload->facts();
    tr.trust = trust_band(sc, i);
    // A row of zeros must not read as a result: a unit longer than the run, or a workload that stopped.
    if (r.failures.empty() && (r.units == 0 || b.units == 0))
      tr.warnings.push_back(fmt::format(
          "it finished no {} {} in {} simulated: its throughput, latency and vGPU loss are not measured (a unit "
          "longer than the run, or work that cannot go on); run longer",
          t.workload->unit(), r.units == 0 ? (b.units == 0 ? "shared or alone" : "shared") : "alone",
          units::format(r.units == 0 ? shared.end : baselines[i]->end, units::Dim::Time)));
    tr.gpu_work = r.gpu_work;
    tr.failures = r.failures;
    tr.shared = performance(r, shared.end, latencies);
    tr.baseline = performance(b, baselines[i]->end, latencies);
    tr.slowdown_causes = slowdown_causes(tr, inference);
    for (const SloTarget& s : t.workload->slo()) {
      // The unit's latency, or the figure the target names (none recorded: no requests).
      std::vector<double> sorted_times = r.unit_times;
      if (!s.metric.empty()) {
        const auto it =
            std::find_if(r.samples.begin(), r.samples.end(), [&](const auto& e) { return e.first == s.metric; });
        sorted_times = it == r.samples.end() ? std::vector<double>{} : it->second;
      }
      std::sort(sorted_times.begin(), sorted_times.end());
      SloResult sr{s.percentile, s.latency, 0, false};
      sr.metric = s.metric;
      if (sorted_times.empty() && !s.metric.empty() && r.units > 0) {
        // Requests finished but none has this figure (a tpot target, every answer one token long): nothing missed it.
        sr.attainment = 1;
        sr.met = true;
      } else if (!sorted_times.empty()) {
        sr.achieved = percentile(sorted_times, s.percentile);
        const auto within =
            std::count_if(sorted_times.begin(), sorted_times.end(), [&](double x) { return x <= s.latency; });
        sr.attainment = static_cast<double>(within) / static_cast<double>(sorted_times.size());
        sr.met = sr.attainment >= s.percentile / 100.0;
      }
      tr.slo.push_back(sr);
    }
    // Relative performance and its sampling uncertainty (relative errors add in quadrature).
    double rel = kNaN, rel_err = kNaN;
    if (inference) {
      if (tr.shared.unit_time_mean > 0 && tr.baseline.unit_time_mean > 0) {
        rel = tr.baseline.unit_time_mean / tr.shared.unit_time_mean;
        rel_err = std::hypot(tr.shared.unit_time_ci95 / tr.shared.unit_time_mean,
                             tr.baseline.unit_time_ci95 / tr.baseline.unit_time_mean);
      }
    } else if (tr.baseline.throughput > 0) {
      rel = tr.shared.throughput / tr.baseline.throughput;
      if (tr.shared.unit_time_mean > 0 && tr.baseline.unit_time_mean > 0)
        rel_err = std::hypot(tr.shared.unit_time_ci95 / tr.shared.unit_time_mean,
                             tr.baseline.unit_time_ci95 / tr.baseline.unit_time_mean);
    }
    if (inference) {
      const std::string w = queue_growth_warning(r.unit_times, tr.baseline.unit_time_mean);
      const double spread = tr.shared.unit_time_ci95 / tr.shared.unit_time_mean;
      if (!w.empty()) {
        tr.warnings.push_back(w);
      } else if (spread > kMaxLatencySpread) {
        tr.warnings.push_back(fmt::format(
            "the mean latency is not pinned down by this run: its 95% interval (batch means) is +-{:.0f}%; a queue "
            "near saturation remembers longer than the run, and requests of very different sizes (an LLM's output "
            "lengths) spread their latencies, so latency figures depend on the run's length: run longer",
            100 * spread));
      }
    }
    tr.relative_performance = rel;
    tr.slowdown = rel > 0 ? 1.0 / rel : kNaN;
    tr.vgpu_loss = 1.0 - rel;
    tr.vgpu_loss_ci95 = rel * rel_err;
    set_loss_band(tr.trust, rel);
    res.tenants.push_back(std::move(tr));
  }
  for (size_t g = 0; g < sc.targets.size(); ++g) {
    const GpuStats& s = shared.gpus[g];
    const Target& target = sc.targets[g];
    GpuResult gr;
    gr.id = target.id;
    gr.model = target.partition.empty() ? target.spec.name : target.spec.name + " " + target.partition;
    gr.mode = target.sharing.mode_name();
    gr.utilization = shared.end > 0 ? s.delivered / shared.end : 0;
    gr.busy_fraction = shared.end > 0 ? s.busy_time / shared.end : 0;
    gr.interval = s.series.interval;
    const size_t bins = s.series.interval > 0 ? static_cast<size_t>(std::ceil(shared.end / s.series.interval - 1e-9)) : 0;
    for (size_t k = 0; k < bins; ++k) {
      const double w = k < s.series.work.size() ? s.series.work[k] : 0.0;
      const double width = std::min(s.series.interval, shared.end - static_cast<double>(k) * s.series.interval);
      gr.series.push_back(width > 0 ? w / width : 0.0);
    }
    res.gpus.push_back(std::move(gr));
  }
  add_comparisons(sc, res);
  return res;
}

}  // namespace vgpusim
