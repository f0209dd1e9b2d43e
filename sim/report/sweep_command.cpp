// The sweep command: combinations of --vary values, each a full scenario run (replications and baselines
// included), on threads; then one table and one tidy CSV.
#include "sim/report/sweep_command.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <set>
#include <thread>

#include "sim/run/runs.hpp"
#include "sim/core/errors.hpp"
#include "sim/core/parallel.hpp"
#include "sim/io/files.hpp"
#include "sim/io/gpu_catalog.hpp"
#include "sim/report/run_formats.hpp"
#include "sim/scenario/document.hpp"

namespace vgpusim {

Variation parse_variation(const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    throw InputError(fmt::format("--vary '{}': expected KEY=V1,V2,... (e.g. sharing.g0.mode=timeslice,mps)", text));
  Variation v;
  v.key = text.substr(0, eq);
  std::string cur;
  int depth = 0;
  char quote = 0;
  for (char c : text.substr(eq + 1)) {
    if (quote) {
      if (c == quote) quote = 0;
    } else if ((c == '"' || c == '\'') && cur.find_first_not_of(' ') == std::string::npos) {
      quote = c;  // a quoted value (a quote inside a plain value is just a character)
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      if (--depth < 0) throw InputError(fmt::format("--vary {}: a '{}' closes nothing", text, c));
    } else if (c == ',' && depth == 0) {
      v.values.push_back(cur);
      cur.clear();
      continue;
    }
    cur += c;
  }
  if (quote) throw InputError(fmt::format("--vary {}: a quote is not closed", text));
  if (depth > 0) throw InputError(fmt::format("--vary {}: a '{{' or '[' is not closed", text));
  v.values.push_back(cur);
  std::set<std::string> seen;
  for (std::string& value : v.values) {
    const auto first = value.find_first_not_of(' ');
    const auto last = value.find_last_not_of(' ');
    value = first == std::string::npos ? "" : value.substr(first, last - first + 1);
    if (value.empty()) throw InputError(fmt::format("--vary {}: an empty value", text));
    if (!seen.insert(value).second) throw InputError(fmt::format("--vary {}: '{}' is given twice", text, value));
  }
  return v;
}

std::vector<std::vector<Override>> combinations(const std::vector<Variation>& variations) {
  std::vector<std::vector<Override>> out(1);
  for (const Variation& v : variations) {
    std::vector<std::vector<Override>> next;
    for (const std::vector<Override>& prefix : out)
      for (const std::string& value : v.values) {
        next.push_back(prefix);
        next.back().push_back({v.key, value});
      }
    out = std::move(next);
  }
  return out;
}

std::vector<SweepPoint> run_sweep(const std::string& path, const std::vector<Override>& fixed,
                                  const std::vector<Variation>& variations, unsigned threads,
                                  const RunLimits& limits) {
  std::set<std::string> keys;
  for (const Variation& v : variations)
    if (!keys.insert(v.key).second) throw InputError(fmt::format("--vary {}: the key is varied twice", v.key));
  size_t count = 1;
  for (const Variation& v : variations) count *= std::max<size_t>(1, v.values.size());
  if (count > kMaxCombinations)
    throw InputError(fmt::format("--vary: {} combinations; a sweep runs at most {}", count, kMaxCombinations));
  const auto combos = combinations(variations);
  // Load every combination first: a bad value stops the sweep before anything runs.
  std::vector<Scenario> scenarios;
  std::vector<SweepPoint> points;
  for (const std::vector<Override>& values : combos) {
    std::vector<Override> all = fixed;
    all.insert(all.end(), values.begin(), values.end());
    try {
      scenarios.push_back(load_scenario(read_scenario_document(path), builtin_catalog(), all));
    } catch (const InputError& e) {
      std::string which;
      for (const Override& o : values) which += fmt::format("{}{}={}", which.empty() ? "" : ", ", o.path, o.value);
      throw InputError(fmt::format("{} (in the combination {})", e.what(), which));
    }
    points.push_back({values, {}});
  }
  // The whole sweep against the limits: the combinations' events add up; as many run at once as threads.
  // The message quotes the pilot of the combination with the most events.
  RunEstimate total;
  double events = 0, largest_memory = 0;
  for (const Scenario& sc : scenarios) {
    const RunEstimate e = estimate_run(sc, false, limits);
    if (!(e.events <= total.events)) total = e;
    events += e.events;
    largest_memory = std::max(largest_memory, e.memory_bytes);
  }
  total.events = events;
  const unsigned running = std::min<unsigned>(threads == 0 ? std::max(1u, std::thread::hardware_concurrency()) : threads,
                                              static_cast<unsigned>(scenarios.size()));
  total.memory_bytes = largest_memory * running;
  check_run_limits(total, limits);
  run_parallel(points.size(), threads, [&](size_t i) { points[i].results = run_scenario(scenarios[i]); });
  return points;
}

namespace {

std::string combination_text(const std::vector<Override>& values) {
  std::string out;
  for (const Override& o : values) out += fmt::format("{}{}={}", out.empty() ? "" : " ", o.path, o.value);
  return out;
}

std::string fixed(double v, const char* spec) { return std::isfinite(v) ? fmt::format(fmt::runtime(spec), v) : "-"; }

}  // namespace

std::string sweep_table(const std::vector<SweepPoint>& points) {
  size_t width = 11;
  size_t tenant_width = 6;
  for (const SweepPoint& p : points) {
    width = std::max(width, combination_text(p.values).size());
    for (const TenantResult& t : p.results.tenants) tenant_width = std::max(tenant_width, t.name.size());
  }
  std::string out = fmt::format("{:<{}}  {:<{}}  {:>8} {:>7}  {:>9}  {:>12}  {:>16}\n", "combination", width, "tenant",
                                tenant_width, "relative", "±", "vGPU loss", "units per s", "p99 ms");
  for (const SweepPoint& p : points) {
    const std::string name = combination_text(p.values);
    for (const TenantResult& t : p.results.tenants) {
      std::string p99 = "-";
      if (t.shared.latency) {
        p99 = fixed(t.shared.latency->p99 * 1e3, "{:.2f}");
        if (std::isfinite(t.shared.latency->p99_ci95)) p99 += " ±" + fixed(t.shared.latency->p99_ci95 * 1e3, "{:.2f}");
      }
      out += fmt::format("{:<{}}  {:<{}}  {:>8} {:>7}  {:>9}  {:>12}  {:>16}{}\n", name, width, t.name, tenant_width,
                         fixed(t.relative_performance, "{:.4f}"), fixed(t.vgpu_loss_ci95, "{:.4f}"),
                         fixed(100 * t.vgpu_loss, "{:.2f}%"), fixed(t.shared.throughput, "{:.4f}"), p99,
                         t.failures.empty() ? std::string() : fmt::format("  FAILED: {}", t.failures.front().kind));
    }
  }
  return out;
}

std::string sweep_csv(const std::vector<Variation>& variations, const std::vector<SweepPoint>& points) {
  // A varied key that is already a metadata column (seed, fidelity, replications) is not repeated.
  auto is_metadata = [](const std::string& key) {
    return key == "seed" || key == "fidelity" || key == "replications";
  };
  std::vector<std::string> keys;
  for (const Variation& v : variations)
    if (!is_metadata(v.key)) keys.push_back(v.key);
  std::string out = tidy_csv_header(keys);
  for (const SweepPoint& p : points) {
    std::vector<std::string> values;
    for (const Override& o : p.values)
      if (!is_metadata(o.path)) values.push_back(o.value);
    out += tidy_csv_rows(p.results, values);
  }
  return out;
}

int sweep_command(const std::string& path, const SweepOptions& options) {
  if (options.vary.empty()) throw InputError("sweep: give at least one --vary KEY=V1,V2,...");
  std::vector<Variation> variations;
  for (const std::string& v : options.vary) variations.push_back(parse_variation(v));
  const unsigned threads = options.threads > 0 ? options.threads : std::max(1u, std::thread::hardware_concurrency());
  // An unwritable --csv is found before the runs, not after them.
  if (!options.csv.empty()) discard_staged({stage_file(options.csv, "")});
  const std::vector<SweepPoint> points = run_sweep(path, options.fixed, variations, threads, options.limits);
  if (!options.csv.empty()) write_file_atomically(options.csv, sweep_csv(variations, points));
  if (!options.quiet) std::cout << sweep_table(points);
  for (const SweepPoint& p : points)
    for (const TenantResult& t : p.results.tenants) {
      for (const Failure& f : t.failures)
        std::cerr << fmt::format("warning: {}: tenant {} failed: {}\n", combination_text(p.values), t.name,
                                 f.message);
      for (const SloResult& slo : t.slo)
        if (!slo.met)
          std::cerr << fmt::format("warning: {}: tenant {} missed its {}p{:g} SLO: {:.2f}% of requests within it\n",
                                   combination_text(p.values), t.name, slo.metric.empty() ? "" : slo.metric + " ",
                                   slo.percentile, 100 * slo.attainment);
    }
  return 0;
}

}  // namespace vgpusim
