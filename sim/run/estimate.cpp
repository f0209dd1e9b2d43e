// Estimates a run's events and memory before it runs (sim/run/estimate.hpp).
#include "sim/run/estimate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "sim/core/errors.hpp"
#include "sim/core/units.hpp"
#include "sim/run/metrics.hpp"
#include "sim/run/runs.hpp"
#include "sim/run/simulation.hpp"

namespace vgpusim {

uint64_t pilot_budget(const Scenario& sc) { return std::max<uint64_t>(50000, 50 * uint64_t{sc.tenants.size()}); }

namespace {

double bins_memory(const Scenario& sc, double bins) {
  // Each replication's results keep every GPU's series, the shared run holds one more, a baseline one.
  const double series = static_cast<double>(sc.targets.size()) * (std::max(1, sc.replications) + 1) + 1;
  return bins * sizeof(double) * series;
}

// A size as --max-memory accepts it: the next power of two, without the space.
std::string option_size(double bytes) {
  std::string s = units::format(std::pow(2.0, std::ceil(std::log2(bytes))), units::Dim::Bytes);
  s.erase(std::remove(s.begin(), s.end(), ' '), s.end());
  return s;
}

}  // namespace

RunEstimate estimate_run(const Scenario& sc, bool with_timeline, const RunLimits& limits) {
  RunEstimate e;
  const double reps = std::max(1, sc.replications);
  e.bins = sc.metrics_interval > 0 && std::isfinite(sc.duration) ? std::ceil(sc.duration / sc.metrics_interval) : 0;
  e.bins_bytes = bins_memory(sc, e.bins);
  const auto place = [&](const char* key) {
    const auto it = sc.places.find(key);
    return it == sc.places.end() ? std::string() : fmt::format("{}: {}: ", it->second, key);
  };
  e.duration_at = place("duration");
  e.interval_at = place("metrics.interval");
  e.memory_bytes = e.bins_bytes;
  // Bins alone over the limit: no need for a pilot (which would not keep them anyway).
  if (e.memory_bytes > limits.max_memory) {
    e.events = std::numeric_limits<double>::quiet_NaN();
    return e;
  }
  Scenario pilot = replication(sc, 0);
  pilot.metrics_interval = 0;
  // A pilot's events extrapolated to the whole run: NaN when the run goes on until its work is done (not
  // extrapolated), infinite when simulated time did not advance.
  const auto extrapolated = [&](const RunRecord& rec) {
    if (!rec.truncated) return static_cast<double>(rec.events);
    if (!std::isfinite(sc.duration)) return std::numeric_limits<double>::quiet_NaN();
    if (rec.end <= 0) return std::numeric_limits<double>::infinity();
    return static_cast<double>(rec.events) * sc.duration / rec.end;
  };
  const RunRecord rec = simulate_pilot(pilot, pilot_budget(sc));
  e.pilot_events = rec.events;
  e.pilot_span = rec.end;
  e.pilot_complete = !rec.truncated;
  const double shared_events = extrapolated(rec);
  // The baselines: one run per distinct baseline (baseline_sources), each its tenant's work alone, so they may
  // take far more events than the shared run (many tenants that starve each other there). A pilot of each of up to
  // kPilotBaselines of them, spread over the tenants, scaled to them all.
  constexpr size_t kPilotBaselines = 8;
  const std::vector<size_t> source = baseline_sources(pilot);
  std::vector<size_t> distinct;
  for (size_t t = 0; t < source.size(); ++t)
    if (source[t] == t) distinct.push_back(t);
  const size_t sampled = std::min(kPilotBaselines, distinct.size());
  double baseline_events = 0;
  for (size_t k = 0; k < sampled; ++k) {
    const RunRecord b = simulate_baseline(pilot, distinct[k * distinct.size() / sampled], pilot_budget(sc) / sampled);
    baseline_events += extrapolated(b);
  }
  if (sampled) baseline_events *= static_cast<double>(distinct.size()) / static_cast<double>(sampled);
  const double events = shared_events + baseline_events;
  e.events = events * reps;
  if (std::isfinite(events))
    e.memory_bytes += events * kBytesPerEvent + (with_timeline ? shared_events * kTimelineBytesPerEvent : 0);
  else if (!std::isnan(events))
    e.memory_bytes = std::numeric_limits<double>::infinity();
  return e;
}

void check_run_limits(const RunEstimate& e, const RunLimits& limits) {
  if (e.events > limits.max_events) {
    if (std::isinf(e.events))
      throw InputError(fmt::format(
          "the run would not end: its first {} events all happen at simulated time 0 (work too small to advance "
          "the clock, or too many tenants starting at once); check the workloads' sizes and rates",
          e.pilot_events));
    throw InputError(fmt::format(
        "{}the run would take about {:.3g} engine events (its first {} covered {} of simulated time), above the "
        "limit of {:.3g}: shorten `duration`, lower the rates or replications, or raise the limit with "
        "--max-events {:.2g}",
        e.duration_at, e.events, e.pilot_events, units::format(e.pilot_span, units::Dim::Time), limits.max_events,
        std::pow(10.0, std::ceil(std::log10(e.events)))));
  }
  if (e.memory_bytes > limits.max_memory) {
    const bool by_bins = e.bins_bytes > e.memory_bytes / 2;
    const std::string bins =
        by_bins ? fmt::format(" ({:.3g} utilization bins per GPU: widen `metrics.interval`)", e.bins) : "";
    throw InputError(fmt::format("{}the run would need about {} of memory{}, above the limit of {}: raise it with "
                                 "--max-memory SIZE (e.g. --max-memory {})",
                                 by_bins && !e.interval_at.empty() ? e.interval_at : e.duration_at, units::format(e.memory_bytes, units::Dim::Bytes), bins,
                                 units::format(limits.max_memory, units::Dim::Bytes),
                                 std::isfinite(e.memory_bytes) ? option_size(e.memory_bytes) : std::string("64GiB")));
  }
}

}  // namespace vgpusim
