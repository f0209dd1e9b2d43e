// `vgpusim sweep`: one scenario run under every combination of values given for some of its keys (--vary
// KEY=V1,V2,...), on threads, with one comparison table (tenants x combinations), one tidy CSV and, with --out DIR,
// each combination's results.json and an HTML page comparing them; --shard I/N runs a share of the combinations,
// which `vgpusim merge` joins (docs/scale.md).
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

// How many combinations `variations` make (the product of their value counts).
size_t combinations_count(const std::vector<Variation>& variations);
// The combinations of `variations`, the first key varying slowest; each a list of overrides in key order.
std::vector<std::vector<Override>> combinations(const std::vector<Variation>& variations);

struct SweepPoint {
  std::vector<Override> values;  // this combination
  Results results;
  size_t index = 0;  // the combination's position among all (first key slowest)
};

// Runs the scenario at `path` once per combination (with `fixed` applied first), on up to `threads` threads; with
// `shards` > 1 only the combinations whose index % shards == shard. Every combination is loaded (and so checked)
// before any runs. Results come in combination order.
std::vector<SweepPoint> run_sweep(const std::string& path, const std::vector<Override>& fixed,
                                  const std::vector<Variation>& variations, unsigned threads,
                                  const RunLimits& limits = {}, unsigned shard = 0, unsigned shards = 1);

// One tenant of one combination as the table, the page and a shard file show it.
struct SweepTenantRow {
  std::string tenant;
  double relative = 0, relative_ci95 = 0, vgpu_loss = 0, throughput = 0;  // NaN where unknown
  bool has_latency = false;
  double p99 = 0, p99_ci95 = 0;  // s
  std::string failure;           // the first failure's kind, or ""
  std::string trust;             // its trust band in words (sim/run/trust.hpp: trust_text)
  double trust_loss_mape = 0;    // the band in vGPU loss (a ratio); NaN where its class is not of the loss
};
// One combination's outputs, made from its run or read back from a shard file.
struct SweepCombination {
  size_t index = 0;
  std::vector<Override> values;
  std::vector<SweepTenantRow> tenants;
  std::string csv_rows;      // its rows of the tidy CSV
  std::string results_json;  // its results.json
};
SweepCombination summarize_point(const SweepPoint& point);

// For people: per combination, each tenant's relative performance with its interval, vGPU loss, throughput and
// p99 latency (inference); fixed precision.
std::string sweep_table(const std::vector<SweepCombination>& combinations);
std::string sweep_table(const std::vector<SweepPoint>& points);
// One UTF-8 HTML page with inline CSS and SVG (no script, no outside reference): per tenant, bar charts of vGPU
// loss and (inference) p99 latency over the combinations, with their 95% intervals.
std::string sweep_html(const std::string& scenario, const std::vector<SweepCombination>& combinations);
// Tidy (long) CSV: results.csv's rows for every combination, with the varied keys as columns after the run's
// metadata.
std::string sweep_csv(const std::vector<Variation>& variations, const std::vector<SweepCombination>& combinations);

struct SweepOptions {
  std::vector<Override> fixed;  // --set
  std::vector<std::string> vary;
  std::string csv;  // --csv FILE
  std::string out;  // --out DIR
  std::string shard_flag;  // --shard I/N
  unsigned shards = 1;     // --shards N, with a job array's index
  unsigned threads = 0;  // 0: every core
  bool quiet = false;
  bool json = false;  // --json: print sweep.json (schema vgpusim.sweep/1) instead of the table
  RunLimits limits;  // --max-events, --max-memory: for the whole sweep
};
// --out DIR gets sweep.json (schema vgpusim.sweep/1), sweep.csv, sweep.html and c<k>/results.json per
// combination; a shard writes sweep-shard-I-of-N.json and its combinations' c<k>/results.json.
int sweep_command(const std::string& path, const SweepOptions& options);
// Joins shard files of one sweep (each beside its c<k> folders) into the unsharded run's outputs in `out_dir`.
int merge_sweep_command(const std::vector<std::string>& parts, const std::string& out_dir);

}  // namespace vgpusim
