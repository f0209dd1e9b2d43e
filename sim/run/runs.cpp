// Replications of a scenario, their merged results, and the whole run (runs.hpp).
#include "sim/run/runs.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstddef>
#include <iterator>
#include <exception>
#include <limits>
#include <string>

#include "sim/core/parallel.hpp"
#include "sim/core/rng.hpp"
#include "sim/core/units.hpp"

namespace vgpusim {

namespace {
using units::kNaN;
}  // namespace

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
  // Named parts (the first replication's names): means over the replications that have them.
  for (auto member : {&Performance::unit_parts, &Performance::time_split})
    for (size_t k = 0; k < (p.*member).size(); ++k) {
      std::vector<double> v;
      for (const Results& r : reps) {
        const auto& parts = perf(r.tenants[t]).*member;
        if (k < parts.size()) v.push_back(parts[k].second);
      }
      (p.*member)[k].second = mean_of(v);
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
    set_loss_band(tr.trust, tr.relative_performance);
    tr.vgpu_loss_replications.clear();
    for (double x : rel) tr.vgpu_loss_replications.push_back(1.0 - x);
    tr.start = mean_over(reps, t, [](const TenantResult& x) { return x.start; });
    tr.finished = finished;
    tr.completion = finished ? mean_over(reps, t, [](const TenantResult& x) { return x.completion; }) : kNaN;
    tr.gpu_work = mean_over(reps, t, [](const TenantResult& x) { return x.gpu_work; });
    tr.shared = merged_performance(reps, t, true);
    tr.baseline = merged_performance(reps, t, false);
    // Causes of the means, for a tenant that has them (closed loop) in some replication.
    const bool causes = std::any_of(reps.begin(), reps.end(),
                                    [&](const Results& x) { return !x.tenants[t].slowdown_causes.empty(); });
    tr.slowdown_causes = slowdown_causes(tr, !causes);
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

Results run_scenario(const Scenario& sc, ProgressFn progress, RunObserver* observer, unsigned threads) {
  const int n = std::max(1, sc.replications);
  std::vector<Results> reps;
  for (int i = 0; i < n; ++i) {
    const Scenario r = replication(sc, i);
    // The shared run (0) and each tenant's baseline (1 + t) on threads; one replication at a time, so that only its
    // records are held. Tenants whose alone runs would be the same share one: only the first of them runs.
    const std::vector<size_t> source = baseline_sources(r);
    std::vector<RunRecord> records(1 + r.tenants.size());
    std::vector<std::exception_ptr> errors(records.size());
    run_parallel(records.size(), std::max(1u, threads), [&](size_t k) {
      try {
        // The timeline and the progress bar follow the first replication.
        if (k == 0)
          records[k] = simulate(r, i == 0 ? progress : nullptr, i == 0 ? observer : nullptr);
        else if (source[k - 1] == k - 1)
          records[k] = simulate_baseline(r, k - 1);
      } catch (...) {
        errors[k] = std::current_exception();
      }
    });
    // The error the runs in order would have stopped at, whatever the thread count.
    for (const std::exception_ptr& e : errors)
      if (e) std::rethrow_exception(e);
    std::vector<const RunRecord*> baselines;
    for (size_t t = 0; t < r.tenants.size(); ++t) baselines.push_back(&records[1 + source[t]]);
    reps.push_back(compute_results(r, records.front(), baselines));
  }
  if (n == 1) return reps.front();
  return merge_replications(sc, reps);
}

}  // namespace vgpusim
