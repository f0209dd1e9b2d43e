// What a scenario run will cost, estimated before it runs, so that a run that would take hours or exhaust memory is
// refused with the numbers instead of starting (docs/user-guide.md, "Resource limits").
#pragma once

#include <cstdint>
#include <string>

#include "sim/scenario/scenario.hpp"

namespace vgpusim {

struct RunEstimate {
  double events = 0;        // engine events of the whole job (every replication's shared run and baselines); inf
                            // when simulated time does not advance; NaN when unknown (no duration and the pilot
                            // did not reach the end)
  double memory_bytes = 0;  // memory the run adds to what the loaded scenario holds (rough)
  double bins = 0;          // utilization bins per GPU
  double bins_bytes = 0;    // the part of memory_bytes they take
  uint64_t pilot_events = 0;
  double pilot_span = 0;    // s of simulated time the pilot covered
  bool pilot_complete = false;  // the pilot ran the whole shared run
  // Where the scenario set what sizes the run (Scenario::places): "FILE:LINE:COL: key: ", or "" when defaulted.
  std::string duration_at, interval_at;
};

// Default limits; `--max-events` and `--max-memory` raise them.
inline constexpr double kDefaultMaxEvents = 1e9;                             // ~10 minutes on one core
inline constexpr double kDefaultMaxMemory = 4.0 * 1024 * 1024 * 1024;        // 4 GiB

struct RunLimits {
  double max_events = kDefaultMaxEvents;
  double max_memory = kDefaultMaxMemory;  // bytes
};

// Bytes a recorded timeline keeps per engine event of the first replication's shared run (measured on the shipped
// scenarios, rounded up), and what every run keeps per event otherwise (unit times and counters).
inline constexpr double kTimelineBytesPerEvent = 400;
inline constexpr double kBytesPerEvent = 16;
// The pilot: the first events of the shared run (more when there are many tenants, so that each gets going).
uint64_t pilot_budget(const Scenario& sc);

// Estimates the run from the utilization bins it will keep and a pilot: the first pilot_budget(sc) events of the
// shared run, extrapolated at their rate to the run's duration, twice (the baselines replay the same work), for
// every replication. The bins are checked before the pilot runs, so a tiny metrics interval costs nothing here.
RunEstimate estimate_run(const Scenario& sc, bool with_timeline, const RunLimits& limits);

// Throws InputError naming the estimate, the limit and the option that raises it when `e` is above a limit.
void check_run_limits(const RunEstimate& e, const RunLimits& limits);

}  // namespace vgpusim
