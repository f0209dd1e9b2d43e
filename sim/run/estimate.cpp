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
  const RunRecord rec = simulate_pilot(pilot, pilot_budget(sc));
  e.pilot_events = rec.events;
  e.pilot_span = rec.end;
  e.pilot_complete = !rec.truncated;
  double shared_events = 0;
  if (e.pilot_complete) {
    shared_events = static_cast<double>(rec.events);
  } else if (!std::isfinite(sc.duration)) {
    shared_events = std::numeric_limits<double>::quiet_NaN();  // runs until the work is done: not extrapolated
  } else if (rec.end <= 0) {
    shared_events = std::numeric_limits<double>::infinity();
  } else {
    shared_events = static_cast<double>(rec.events) * sc.duration / rec.end;
  }
  // The baselines replay each tenant's work alone: about as many events again.
  e.events = 2 * shared_events * reps;
  if (std::isfinite(shared_events))
    e.memory_bytes += shared_events * 2 * kBytesPerEvent + (with_timeline ? shared_events * kTimelineBytesPerEvent : 0);
  else if (!std::isnan(shared_events))
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
