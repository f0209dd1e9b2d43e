// The sweep command: combinations of --vary values, each a full scenario run (replications and baselines
// included), on threads; then one table and one tidy CSV.
#include "sim/report/sweep_command.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "sim/run/runs.hpp"
#include "sim/core/errors.hpp"
#include "sim/core/parallel.hpp"
#include "sim/io/files.hpp"
#include "sim/io/gpu_catalog.hpp"
#include "sim/report/run_formats.hpp"
#include "sim/report/shard.hpp"
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

size_t combinations_count(const std::vector<Variation>& variations) {
  size_t count = 1;  // past kMaxCombinations it stays there: no overflow however many keys vary
  for (const Variation& v : variations) count = std::min(count * std::max<size_t>(1, v.values.size()), kMaxCombinations + 1);
  return count;
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
                                  const RunLimits& limits, unsigned shard, unsigned shards) {
  std::set<std::string> keys;
  for (const Variation& v : variations)
    if (!keys.insert(v.key).second) throw InputError(fmt::format("--vary {}: the key is varied twice", v.key));
  const size_t count = combinations_count(variations);
  if (count > kMaxCombinations)
    throw InputError(fmt::format("--vary: {} combinations; a sweep runs at most {}", count, kMaxCombinations));
  const auto combos = combinations(variations);
  // Load every combination first: a bad value stops the sweep before anything runs.
  std::vector<Scenario> scenarios;
  std::vector<SweepPoint> points;
  for (size_t k = 0; k < combos.size(); ++k) {
    const std::vector<Override>& values = combos[k];
    std::vector<Override> all = fixed;
    all.insert(all.end(), values.begin(), values.end());
    try {
      Scenario sc = load_scenario(read_scenario_document(path), builtin_catalog(), all);
      if (k % shards != shard) continue;  // checked, run by another shard
      scenarios.push_back(std::move(sc));
    } catch (const InputError& e) {
      std::string which;
      for (const Override& o : values) which += fmt::format("{}{}={}", which.empty() ? "" : ", ", o.path, o.value);
      throw InputError(fmt::format("{} (in the combination {})", e.what(), which));
    }
    points.push_back({values, {}, k});
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
                                              static_cast<unsigned>(std::max<size_t>(1, scenarios.size())));
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

// `v` formatted by the fmt `spec`, or "-" when it is not finite.
std::string formatted(double v, const char* spec) {
  return std::isfinite(v) ? fmt::format(fmt::runtime(spec), v) : "-";
}

// A varied key that is already a metadata column of the tidy CSV (seed, fidelity, replications) is not repeated.
bool is_metadata(const std::string& key) { return key == "seed" || key == "fidelity" || key == "replications"; }

std::string sweep_csv_header(const std::vector<Variation>& variations) {
  std::vector<std::string> keys;
  for (const Variation& v : variations)
    if (!is_metadata(v.key)) keys.push_back(v.key);
  return tidy_csv_header(keys);
}

std::vector<std::string> sweep_extra_values(const std::vector<Override>& values) {
  std::vector<std::string> out;
  for (const Override& o : values)
    if (!is_metadata(o.path)) out.push_back(o.value);
  return out;
}

}  // namespace

SweepCombination summarize_point(const SweepPoint& p) {
  SweepCombination c;
  c.index = p.index;
  c.values = p.values;
  for (const TenantResult& t : p.results.tenants) {
    SweepTenantRow row;
    row.tenant = t.name;
    row.relative = t.relative_performance;
    row.relative_ci95 = t.vgpu_loss_ci95;
    row.vgpu_loss = t.vgpu_loss;
    row.throughput = t.shared.throughput;
    if (t.shared.latency) {
      row.has_latency = true;
      row.p99 = t.shared.latency->p99;
      row.p99_ci95 = t.shared.latency->p99_ci95;
    }
    if (!t.failures.empty()) row.failure = t.failures.front().kind;
    row.trust = trust_text(t.trust);
    row.trust_loss_mape = t.trust.loss_mape;
    c.tenants.push_back(row);
  }
  c.csv_rows = tidy_csv_rows(p.results, sweep_extra_values(p.values));
  c.results_json = results_json(p.results);
  return c;
}

std::string sweep_table(const std::vector<SweepCombination>& combinations) {
  size_t width = 11;
  size_t tenant_width = 6;
  for (const SweepCombination& c : combinations) {
    width = std::max(width, combination_text(c.values).size());
    for (const SweepTenantRow& t : c.tenants) tenant_width = std::max(tenant_width, t.tenant.size());
  }
  std::string out = fmt::format("{:<{}}  {:<{}}  {:>8} {:>7}  {:>9}  {:>7}  {:>12}  {:>16}\n", "combination", width,
                                "tenant", tenant_width, "relative", "±", "vGPU loss", "trust ±", "units per s", "p99 ms");
  for (const SweepCombination& c : combinations) {
    const std::string name = combination_text(c.values);
    for (const SweepTenantRow& t : c.tenants) {
      std::string p99 = "-";
      if (t.has_latency) {
        p99 = formatted(t.p99 * 1e3, "{:.2f}");
        if (std::isfinite(t.p99_ci95) && t.p99_ci95 != 0) p99 += " ±" + formatted(t.p99_ci95 * 1e3, "{:.2f}");
      }
      // An interval of exactly 0 is replications that agree (a fixed input), not a certainty: no "±0".
      const std::string ci = t.relative_ci95 == 0 ? std::string("-") : formatted(t.relative_ci95, "{:.4f}");
      out += fmt::format("{:<{}}  {:<{}}  {:>8} {:>7}  {:>9}  {:>7}  {:>12}  {:>16}{}\n", name, width, t.tenant,
                         tenant_width, formatted(t.relative, "{:.4f}"), ci, formatted(100 * t.vgpu_loss, "{:.2f}%"),
                         formatted(100 * t.trust_loss_mape, "{:.1f}"), formatted(t.throughput, "{:.4f}"), p99,
                         t.failure.empty() ? std::string() : fmt::format("  FAILED: {}", t.failure));
    }
  }
  return out;
}

std::string sweep_table(const std::vector<SweepPoint>& points) {
  std::vector<SweepCombination> combinations;
  for (const SweepPoint& p : points) combinations.push_back(summarize_point(p));
  return sweep_table(combinations);
}

std::string sweep_csv(const std::vector<Variation>& variations, const std::vector<SweepCombination>& combinations) {
  std::string out = sweep_csv_header(variations);
  for (const SweepCombination& c : combinations) out += c.csv_rows;
  return out;
}

namespace {

// What a sweep's outputs say about the sweep itself; the same in every shard of it.
struct SweepManifest {
  std::string scenario;
  std::vector<Override> fixed;
  std::vector<Variation> variations;
  size_t total = 0;  // combinations of the whole sweep
  unsigned shard = 0, shards = 1;
};

// A combination's folder: c<index>, zero-padded to the width of the largest index.
std::string combination_dir(size_t index, size_t total) {
  const size_t width = fmt::format("{}", total > 0 ? total - 1 : 0).size();
  return fmt::format("c{:0{}}", index, width);
}

nlohmann::ordered_json overrides_json(const std::vector<Override>& values) {
  nlohmann::ordered_json a = nlohmann::ordered_json::array();
  for (const Override& o : values) a.push_back({o.path, o.value});
  return a;
}

std::string sweep_json(const SweepManifest& m, const std::vector<SweepCombination>& combinations) {
  nlohmann::ordered_json j;
  j["schema"] = "vgpusim.sweep/1";
  j["scenario"] = m.scenario;
  j["fixed"] = overrides_json(m.fixed);
  nlohmann::ordered_json vs = nlohmann::ordered_json::array();
  for (const Variation& v : m.variations) vs.push_back({{"key", v.key}, {"values", v.values}});
  j["variations"] = vs;
  j["shard"] = {{"index", m.shard}, {"count", m.shards}};
  j["combinations_total"] = m.total;
  nlohmann::ordered_json cs = nlohmann::ordered_json::array();
  for (const SweepCombination& c : combinations) {
    nlohmann::ordered_json tenants = nlohmann::ordered_json::array();
    for (const SweepTenantRow& t : c.tenants)
      tenants.push_back({{"tenant", t.tenant},
                         {"relative_performance", number_or_null(t.relative)},
                         {"ci95", number_or_null(t.relative_ci95)},
                         {"vgpu_loss", number_or_null(t.vgpu_loss)},
                         {"throughput", number_or_null(t.throughput)},
                         {"latency", t.has_latency},
                         {"p99_s", number_or_null(t.p99)},
                         {"p99_ci95_s", number_or_null(t.p99_ci95)},
                         {"failure", t.failure},
                         {"trust", t.trust},
                         {"trust_vgpu_loss_mape", number_or_null(t.trust_loss_mape)}});
    cs.push_back({{"index", c.index},
                  {"values", overrides_json(c.values)},
                  {"results", combination_dir(c.index, m.total) + "/results.json"},
                  {"tenants", tenants},
                  {"csv_rows", c.csv_rows}});
  }
  j["combinations"] = cs;
  return j.dump(2) + "\n";
}

// The unsharded outputs: sweep.json, sweep.csv, sweep.html and each combination's results.json.
std::vector<std::pair<std::string, std::string>> sweep_files(const std::string& out, const SweepManifest& m,
                                                             const std::vector<SweepCombination>& combinations) {
  std::vector<std::pair<std::string, std::string>> files;
  if (m.shards > 1) {
    files.emplace_back(fmt::format("{}/{}", out, shard_file_name("sweep", m.shard, m.shards)),
                       sweep_json(m, combinations));
  } else {
    files.emplace_back(out + "/sweep.json", sweep_json(m, combinations));
    files.emplace_back(out + "/sweep.csv", sweep_csv(m.variations, combinations));
    files.emplace_back(out + "/sweep.html", sweep_html(m.scenario, combinations));
  }
  for (const SweepCombination& c : combinations)
    files.emplace_back(fmt::format("{}/{}/results.json", out, combination_dir(c.index, m.total)), c.results_json);
  return files;
}

std::vector<Override> read_overrides(const ShardReader& r, const nlohmann::json& obj, const char* key,
                                     const std::string& where) {
  std::vector<Override> out;
  const nlohmann::json& list = r.list(obj, key, where);
  for (size_t i = 0; i < list.size(); ++i) {
    const nlohmann::json& pair = list[i];
    if (!pair.is_array() || pair.size() != 2 || !pair[0].is_string() || !pair[1].is_string())
      throw InputError(fmt::format("{}: {}.{}[{}]: expected [key, value]", r.part, where, key, i));
    out.push_back({pair[0].get<std::string>(), pair[1].get<std::string>()});
  }
  return out;
}

}  // namespace

int sweep_command(const std::string& path, const SweepOptions& options) {
  if (options.vary.empty()) throw InputError("sweep: give at least one --vary KEY=V1,V2,...");
  std::vector<Variation> variations;
  for (const std::string& v : options.vary) variations.push_back(parse_variation(v));
  const unsigned threads = options.threads > 0 ? options.threads : std::max(1u, std::thread::hardware_concurrency());
  const auto [shard, shards] = resolve_shard(options.shard_flag, options.shards);
  if (shards > 1 && options.out.empty())
    throw InputError("sweep --shard: give --out DIR for the shard's files (`vgpusim merge` joins them)");
  if (shards > 1 && !options.csv.empty())
    throw InputError("sweep --csv: a shard writes its part into --out DIR; `vgpusim merge --out DIR` writes sweep.csv");
  // An unwritable --csv or --out is found before the runs, not after them.
  if (!options.csv.empty()) discard_staged({stage_file(options.csv, "")});
  if (!options.out.empty()) discard_staged({stage_file(options.out, "sweep.json", "")});
  const std::vector<SweepPoint> points =
      run_sweep(path, options.fixed, variations, threads, options.limits, shard, shards);
  std::vector<SweepCombination> combinations;
  for (const SweepPoint& p : points) combinations.push_back(summarize_point(p));
  if (!options.csv.empty()) write_file_atomically(options.csv, sweep_csv(variations, combinations));
  const SweepManifest m{path, options.fixed, variations, combinations_count(variations), shard, shards};
  if (!options.out.empty()) write_files_atomically(sweep_files(options.out, m, combinations));
  if (!options.quiet) std::cout << (options.json ? sweep_json(m, combinations) : sweep_table(combinations));
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

int merge_sweep_command(const std::vector<std::string>& parts, const std::string& out_dir) {
  SweepManifest m;
  nlohmann::json first;
  std::string first_part;
  std::vector<SweepCombination> all;
  std::set<size_t> seen;
  for (const std::string& part : parts) {
    const nlohmann::json j = read_shard_json(part, "vgpusim.sweep/1");
    const ShardReader r{part};
    // Shards of one sweep only: the same scenario, fixed values, variations and combination count.
    nlohmann::json same = {{"scenario", r.at(j, "scenario", "(top level)")},
                           {"fixed", r.at(j, "fixed", "(top level)")},
                           {"variations", r.at(j, "variations", "(top level)")},
                           {"combinations_total", r.at(j, "combinations_total", "(top level)")}};
    if (first_part.empty()) {
      first_part = part;
      first = same;
      m.scenario = r.text(j, "scenario", "(top level)");
      m.fixed = read_overrides(r, j, "fixed", "(top level)");
      const nlohmann::json& vs = r.list(j, "variations", "(top level)");
      for (size_t i = 0; i < vs.size(); ++i) {
        const std::string where = fmt::format("variations[{}]", i);
        Variation v{r.text(vs[i], "key", where), {}};
        for (const nlohmann::json& value : r.list(vs[i], "values", where)) {
          if (!value.is_string()) throw InputError(fmt::format("{}: {}.values: expected strings", part, where));
          v.values.push_back(value.get<std::string>());
        }
        m.variations.push_back(v);
      }
      m.total = r.whole(j, "combinations_total", "(top level)", kMaxCombinations);
    } else if (same != first) {
      throw InputError(fmt::format("{}: a shard of another sweep than {} (scenario, --set, --vary or the number of "
                                   "combinations differ)",
                                   part, first_part));
    }
    const std::filesystem::path folder = std::filesystem::path(part).parent_path();
    const nlohmann::json& cs = r.list(j, "combinations", "(top level)");
    for (size_t i = 0; i < cs.size(); ++i) {
      const nlohmann::json& cj = cs[i];
      const std::string where = fmt::format("combinations[{}]", i);
      SweepCombination c;
      c.index = r.whole(cj, "index", where, kMaxCombinations);
      if (c.index >= m.total)
        throw InputError(fmt::format("{}: {}.index: {} is not below combinations_total {}", part, where, c.index,
                                     m.total));
      if (!seen.insert(c.index).second)
        throw InputError(fmt::format("{}: combination #{} is in two shards", part, c.index));
      c.values = read_overrides(r, cj, "values", where);
      const std::string results = combination_dir(c.index, m.total) + "/results.json";
      if (r.text(cj, "results", where) != results)
        throw InputError(fmt::format("{}: {}.results: expected \"{}\"", part, where, results));
      c.results_json = read_text_file((folder / results).string(), "a combination's results");
      c.csv_rows = r.text(cj, "csv_rows", where);
      const nlohmann::json& ts = r.list(cj, "tenants", where);
      for (size_t k = 0; k < ts.size(); ++k) {
        const std::string tw = fmt::format("{}.tenants[{}]", where, k);
        SweepTenantRow t;
        t.tenant = r.text(ts[k], "tenant", tw);
        t.relative = r.number_or_nan(ts[k], "relative_performance", tw);
        t.relative_ci95 = r.number_or_nan(ts[k], "ci95", tw);
        t.vgpu_loss = r.number_or_nan(ts[k], "vgpu_loss", tw);
        t.throughput = r.number_or_nan(ts[k], "throughput", tw);
        t.has_latency = r.flag(ts[k], "latency", tw);
        t.p99 = r.number_or_nan(ts[k], "p99_s", tw);
        t.p99_ci95 = r.number_or_nan(ts[k], "p99_ci95_s", tw);
        t.failure = r.text(ts[k], "failure", tw);
        t.trust = r.text(ts[k], "trust", tw);
        t.trust_loss_mape = r.number_or_nan(ts[k], "trust_vgpu_loss_mape", tw);
        c.tenants.push_back(t);
      }
      all.push_back(std::move(c));
    }
  }
  std::sort(all.begin(), all.end(), [](const SweepCombination& a, const SweepCombination& b) { return a.index < b.index; });
  if (all.size() != m.total)
    std::cerr << fmt::format("vgpusim merge: {} of {} combinations present: shards are missing\n", all.size(),
                             m.total);
  if (!out_dir.empty()) write_files_atomically(sweep_files(out_dir, m, all));
  std::cout << sweep_table(all);
  return 0;
}

}  // namespace vgpusim
