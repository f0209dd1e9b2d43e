// The sweep command: combinations of --vary values, each a full scenario run (replications and baselines
// included), on threads; then one table and one tidy CSV.
#include "sim/report/sweep_command.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <set>
#include <thread>

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
                                  const std::vector<Variation>& variations, unsigned threads) {
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

std::string sweep_csv(const std::string& scenario_file, const std::vector<Variation>& variations,
                      const std::vector<SweepPoint>& points) {
  std::string out = "scenario";
  for (const Variation& v : variations) out += fmt::format(",{}", csv_field(v.key));
  out += ",tenant,gpu,metric,value,ci95,unit\n";
  auto g = [](double v) { return std::isfinite(v) ? fmt::format("{:.9g}", v) : std::string(); };
  for (const SweepPoint& p : points) {
    std::string prefix = csv_field(scenario_file);
    for (const Override& o : p.values) prefix += fmt::format(",{}", csv_field(o.value));
    for (const TenantResult& t : p.results.tenants) {
      const std::string who = fmt::format("{},{},{},", prefix, csv_field(t.name), csv_field(t.gpu));
      out += who + fmt::format("relative_performance,{},{},ratio\n", g(t.relative_performance), g(t.vgpu_loss_ci95));
      out += who + fmt::format("vgpu_loss,{},{},ratio\n", g(t.vgpu_loss), g(t.vgpu_loss_ci95));
      out += who + fmt::format("throughput,{},{},{}/s\n", g(t.shared.throughput), g(t.shared.throughput_ci95),
                               csv_field(t.unit));
      if (t.shared.latency) {
        out += who + fmt::format("latency_p50,{},{},s\n", g(t.shared.latency->p50), g(t.shared.latency->p50_ci95));
        out += who + fmt::format("latency_p99,{},{},s\n", g(t.shared.latency->p99), g(t.shared.latency->p99_ci95));
      }
      out += who + fmt::format("failures,{},,count\n", t.failures.size());
    }
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
  const std::vector<SweepPoint> points = run_sweep(path, options.fixed, variations, threads);
  if (!options.csv.empty()) write_file_atomically(options.csv, sweep_csv(path, variations, points));
  if (!options.quiet) std::cout << sweep_table(points);
  for (const SweepPoint& p : points)
    for (const TenantResult& t : p.results.tenants) {
      for (const Failure& f : t.failures)
        std::cerr << fmt::format("warning: {}: tenant {} failed: {}\n", combination_text(p.values), t.name,
                                 f.message);
      for (const SloResult& slo : t.slo)
        if (!slo.met)
          std::cerr << fmt::format("warning: {}: tenant {} missed its p{:g} SLO: {:.2f}% of requests within it\n",
                                   combination_text(p.values), t.name, slo.percentile, 100 * slo.attainment);
    }
  return 0;
}

}  // namespace vgpusim
