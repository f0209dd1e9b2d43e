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
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
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

Results compute_results(const Scenario& sc, const RunRecord& shared, const std::vector<RunRecord>& baselines) {
  Results res;
  res.scenario_name = sc.name;
  res.scenario_file = sc.file;
  res.scenario_hash = sc.file_hash;
  res.fidelity = sc.fidelity == Fidelity::Exact ? "exact" : "fluid";
  res.seed = sc.seed;
  res.duration = sc.duration;
  res.end = shared.end;
  res.events = shared.events;
  for (size_t i = 0; i < sc.tenants.size(); ++i) {
    const TenantSpec& t = sc.tenants[i];
    const TenantRecord& r = shared.tenants[i];
    const TenantRecord& b = baselines[i].tenants.front();
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
    tr.gpu_work = r.gpu_work;
    tr.failures = r.failures;
    tr.shared = performance(r, shared.end, latencies);
    tr.baseline = performance(b, baselines[i].end, latencies);
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

Scenario replication(const Scenario& sc, int i) {
  Scenario r = sc;
  r.seed = i == 0 ? sc.seed : stream_seed(sc.seed, "replication " + std::to_string(i));
  draw_starts(r);
  return r;
}

namespace {

// The mean of the finite values (a replication in which a figure does not exist leaves it out); NaN without one.
double mean_of(const std::vector<double>& v) {
  double sum = 0;
  size_t n = 0;
  for (double x : v)
    if (std::isfinite(x)) {
      sum += x;
      ++n;
    }
  return n ? sum / static_cast<double>(n) : kNaN;
}

// The mean of `field` over the replications' performances.
template <typename Get>
double mean_over(const std::vector<Results>& reps, size_t t, Get get) {
  std::vector<double> v;
  for (const Results& r : reps) v.push_back(get(r.tenants[t]));
  return mean_of(v);
}

Performance merged_performance(const std::vector<Results>& reps, size_t t, bool shared) {
  auto perf = [&](const TenantResult& x) -> const Performance& { return shared ? x.shared : x.baseline; };
  Performance p = perf(reps.front().tenants[t]);  // the CDF is the first replication's
  std::vector<double> means;
  double units = 0;
  for (const Results& r : reps) {
    const Performance& x = perf(r.tenants[t]);
    units += static_cast<double>(x.units);
    means.push_back(x.units > 0 ? x.unit_time_mean : kNaN);  // a replication without units has no mean
  }
  p.units = std::llround(units / static_cast<double>(reps.size()));
  std::vector<double> throughputs;
  for (const Results& r : reps) throughputs.push_back(perf(r.tenants[t]).throughput);
  p.throughput = mean_of(throughputs);
  p.throughput_ci95 = replication_ci95_halfwidth(throughputs);
  p.unit_time_mean = mean_of(means);
  if (!std::isfinite(p.unit_time_mean)) p.unit_time_mean = 0;
  p.unit_time_ci95 = replication_ci95_halfwidth(means);
  // Latency percentiles: the mean over the replications that have them.
  LatencySummary l{};
  std::vector<double> p50s, p99s;
  double n = 0;
  for (const Results& r : reps) {
    const auto& x = perf(r.tenants[t]).latency;
    if (!x) continue;
    l.mean += x->mean;
    l.p50 += x->p50;
    l.p95 += x->p95;
    l.p99 += x->p99;
    l.max = std::max(l.max, x->max);
    p50s.push_back(x->p50);
    p99s.push_back(x->p99);
    n += 1;
  }
  if (n > 0) {
    p.latency = LatencySummary{l.mean / n, l.p50 / n, l.p95 / n, l.p99 / n, l.max};
    p.latency->p50_ci95 = replication_ci95_halfwidth(p50s);
    p.latency->p99_ci95 = replication_ci95_halfwidth(p99s);
  }
  for (size_t k = 0; k < p.unit_parts.size(); ++k) {
    std::vector<double> v;
    for (const Results& r : reps) {
      const auto& parts = perf(r.tenants[t]).unit_parts;
      if (k < parts.size()) v.push_back(parts[k].second);
    }
    p.unit_parts[k].second = mean_of(v);
  }
  // Named figures and amounts (those of any replication): means over the replications that have them, with
  // intervals on p50, p99 and rates.
  for (const Results& r : reps) {
    for (const SampleSummary& x : perf(r.tenants[t]).samples)
      if (std::none_of(p.samples.begin(), p.samples.end(), [&](const SampleSummary& s) { return s.name == x.name; }))
        p.samples.push_back(x);
    for (const CountSummary& x : perf(r.tenants[t]).counts)
      if (std::none_of(p.counts.begin(), p.counts.end(), [&](const CountSummary& c) { return c.name == x.name; }))
        p.counts.push_back(x);
  }
  for (SampleSummary& s : p.samples) {
    std::vector<double> mean, p50, p90, p99, count;
    for (const Results& r : reps)
      for (const SampleSummary& x : perf(r.tenants[t]).samples)
        if (x.name == s.name && x.count > 0) {
          mean.push_back(x.mean);
          p50.push_back(x.p50);
          p90.push_back(x.p90);
          p99.push_back(x.p99);
          count.push_back(static_cast<double>(x.count));
        }
    if (mean.empty()) continue;
    s.count = std::llround(mean_of(count));
    s.mean = mean_of(mean);
    s.p50 = mean_of(p50);
    s.p90 = mean_of(p90);
    s.p99 = mean_of(p99);
    s.p50_ci95 = replication_ci95_halfwidth(p50);
    s.p99_ci95 = replication_ci95_halfwidth(p99);
  }
  for (CountSummary& c : p.counts) {
    std::vector<double> total, rate;
    for (const Results& r : reps) {
      double x_total = 0, x_rate = 0;  // a replication without it counted none
      for (const CountSummary& x : perf(r.tenants[t]).counts)
        if (x.name == c.name) x_total = x.total, x_rate = x.rate;
      total.push_back(x_total);
      rate.push_back(x_rate);
    }
    c.total = mean_of(total);
    c.rate = mean_of(rate);
    c.rate_ci95 = replication_ci95_halfwidth(rate);
  }
  return p;
}

}  // namespace

Results merge_replications(const Scenario& sc, const std::vector<Results>& reps) {
  Results res = reps.front();
  res.replications = static_cast<int>(reps.size());
  res.events = 0;
  for (const Results& r : reps) {
    res.events += r.events;
    res.end = std::max(res.end, r.end);
  }
  for (size_t t = 0; t < res.tenants.size(); ++t) {
    TenantResult& tr = res.tenants[t];
    std::vector<double> rel;
    bool finished = true;
    for (const Results& r : reps) {
      rel.push_back(r.tenants[t].relative_performance);
      finished = finished && r.tenants[t].finished;
    }
    tr.relative_performance = mean_of(rel);
    tr.slowdown = tr.relative_performance > 0 ? 1.0 / tr.relative_performance : kNaN;
    tr.vgpu_loss = 1.0 - tr.relative_performance;
    tr.vgpu_loss_ci95 = replication_ci95_halfwidth(rel);
    tr.vgpu_loss_replications.clear();
    for (double x : rel) tr.vgpu_loss_replications.push_back(1.0 - x);
    tr.start = mean_over(reps, t, [](const TenantResult& x) { return x.start; });
    tr.finished = finished;
    tr.completion = finished ? mean_over(reps, t, [](const TenantResult& x) { return x.completion; }) : kNaN;
    tr.gpu_work = mean_over(reps, t, [](const TenantResult& x) { return x.gpu_work; });
    tr.shared = merged_performance(reps, t, true);
    tr.baseline = merged_performance(reps, t, false);
    for (size_t k = 0; k < tr.slo.size(); ++k) {
      tr.slo[k].attainment = mean_over(reps, t, [&](const TenantResult& x) {
        return x.shared.units > 0 ? x.slo[k].attainment : kNaN;  // no requests: no attainment
      });
      if (!std::isfinite(tr.slo[k].attainment)) tr.slo[k].attainment = 0;
      tr.slo[k].met = tr.slo[k].attainment >= tr.slo[k].percentile / 100.0;
      tr.slo[k].achieved = mean_over(reps, t, [&](const TenantResult& x) { return x.slo[k].achieved; });
    }
    // Failures of any replication (start offsets differ between them), each kind and message once.
    tr.failures.clear();
    for (const Results& r : reps)
      for (const Failure& f : r.tenants[t].failures) {
        const bool seen = std::any_of(tr.failures.begin(), tr.failures.end(), [&](const Failure& g) {
          return g.kind == f.kind && g.message == f.message;
        });
        if (!seen) tr.failures.push_back(f);
      }
    // Warnings: the first replication's that has one, with how many replications showed it.
    tr.warnings.clear();
    size_t warned = 0;
    for (const Results& r : reps)
      if (!r.tenants[t].warnings.empty()) {
        if (tr.warnings.empty()) tr.warnings = r.tenants[t].warnings;
        ++warned;
      }
    for (std::string& w : tr.warnings) w += fmt::format(" (in {} of {} replications)", warned, reps.size());
  }
  for (size_t g = 0; g < res.gpus.size(); ++g) {
    std::vector<double> u, b;
    for (const Results& r : reps) {
      u.push_back(r.gpus[g].utilization);
      b.push_back(r.gpus[g].busy_fraction);
    }
    res.gpus[g].utilization = mean_of(u);
    res.gpus[g].busy_fraction = mean_of(b);
  }
  add_comparisons(sc, res);
  return res;
}

Results run_scenario(const Scenario& sc, ProgressFn progress, RunObserver* observer) {
  const int n = std::max(1, sc.replications);
  std::vector<Results> reps;
  for (int i = 0; i < n; ++i) {
    const Scenario r = replication(sc, i);
    // The timeline and the progress bar follow the first replication.
    const RunRecord shared = simulate(r, i == 0 ? progress : nullptr, i == 0 ? observer : nullptr);
    std::vector<RunRecord> baselines;
    for (size_t t = 0; t < r.tenants.size(); ++t) baselines.push_back(simulate_baseline(r, t));
    reps.push_back(compute_results(r, shared, baselines));
  }
  if (n == 1) return reps.front();
  return merge_replications(sc, reps);
}

}  // namespace vgpusim
