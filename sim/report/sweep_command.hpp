// `vgpusim sweep`: one scenario run under every combination of values given for some of its keys (--vary
// KEY=V1,V2,...), on threads, with one comparison table (tenants x combinations) and one tidy CSV.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "sim/run/estimate.hpp"
#include "sim/run/metrics.hpp"
#include "sim/scenario/loader.hpp"

namespace vgpusim {

// One key and the values it takes.
struct Variation {
  std::string key;
  std::vector<std::string> values;
};

// Parses "KEY=V1,V2,..." (as --set takes KEY=VALUE). Values are split at commas outside braces, brackets and
// quotes, so a value may be a YAML mapping: sharing.g0={mode: mps},{mode: timeslice, slice: 4ms}. Throws
// InputError when there is no '=' or no value, or a value is given twice.
Variation parse_variation(const std::string& text);

// The most combinations one sweep runs.
inline constexpr size_t kMaxCombinations = 10000;

// The combinations of `variations`, the first key varying slowest; each a list of overrides in key order.
std::vector<std::vector<Override>> combinations(const std::vector<Variation>& variations);

struct SweepPoint {
  std::vector<Override> values;  // this combination
  Results results;
};

// Runs the scenario at `path` once per combination (with `fixed` applied first), on up to `threads` threads.
// Every combination is loaded (and so checked) before any runs. Results come in combination order.
std::vector<SweepPoint> run_sweep(const std::string& path, const std::vector<Override>& fixed,
                                  const std::vector<Variation>& variations, unsigned threads,
                                  const RunLimits& limits = {});

// For people: per combination, each tenant's relative performance with its interval, vGPU loss, throughput and
// p99 latency (inference); fixed precision.
std::string sweep_table(const std::vector<SweepPoint>& points);
// Tidy (long) CSV: results.csv's rows for every combination, with the varied keys as columns after the run's
// metadata.
std::string sweep_csv(const std::vector<Variation>& variations, const std::vector<SweepPoint>& points);

struct SweepOptions {
  std::vector<Override> fixed;  // --set
  std::vector<std::string> vary;
  std::string csv;  // --csv FILE
  unsigned threads = 0;  // 0: every core
  bool quiet = false;
  RunLimits limits;  // --max-events, --max-memory: for the whole sweep
};
int sweep_command(const std::string& path, const SweepOptions& options);

}  // namespace vgpusim
