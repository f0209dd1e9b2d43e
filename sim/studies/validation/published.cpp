// The validation driver: runs datasets, summarizes errors per GPU and split, and writes tables, JSON, the
// generated docs/validation/ pages and their scatter plots.
#include "sim/studies/validation/published.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>

#include "sim/core/errors.hpp"
#include "sim/io/files.hpp"
#include "sim/report/run_formats.hpp"
#include "sim/run/metrics.hpp"
#include "sim/run/trust.hpp"
#include "sim/report/svg.hpp"

namespace vgpusim {
namespace {

double ape(double measured, double predicted) { return 100.0 * std::abs(predicted - measured) / measured; }

double mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? 0 : s / static_cast<double>(v.size());
}

std::string percent(double v) { return fmt::format("{:.1f}%", v); }

}  // namespace

namespace {
using DatasetFn = std::vector<ValidationRun> (*)(const std::string&, const PublishedOptions&);
// The datasets, in the order `--published all` runs them.
const std::vector<std::pair<std::string, DatasetFn>>& datasets() {
  static const std::vector<std::pair<std::string, DatasetFn>> all = {{"gavel", validate_gavel},
                                                                     {"migperf", validate_migperf},
                                                                     {"gpu-benches", validate_gpu_benches},
                                                                     {"vidur", validate_vidur},
                                                                     {"lucid", validate_lucid},
                                                                     {"neusight", validate_neusight}};
  return all;
}
}  // namespace

const std::vector<std::string>& published_datasets() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const auto& [name, fn] : datasets()) n.push_back(name);
    return n;
  }();
  return names;
}

std::vector<ValidationRun> validate_published(const std::string& dataset, const std::string& dir,
                                              const PublishedOptions& options) {
  if (!std::filesystem::is_directory(dir)) throw InputError(fmt::format("{}: not a folder", dir));
  for (const auto& [name, fn] : datasets())
    if (name == dataset) return fn(dir, options);
  throw InputError(fmt::format("unknown dataset '{}'; known: {}, or all", dataset, fmt::join(published_datasets(), ", ")));
}

std::vector<ValidationSummary> summarize(const ValidationRun& run) {
  std::vector<ValidationSummary> out;
  std::vector<std::vector<double>> apes;
  std::vector<std::map<std::string, std::vector<double>>> base;
  auto group = [&](const std::string& gpu, const std::string& split) -> size_t {
    for (size_t i = 0; i < out.size(); ++i)
      if (out[i].gpu == gpu && out[i].split == split) return i;
    ValidationSummary s;
    s.dataset = run.dataset;
    s.gpu = gpu;
    s.split = split;
    out.push_back(s);
    apes.emplace_back();
    base.emplace_back();
    return out.size() - 1;
  };
  auto add = [&](size_t g, const ValidationCase& c) {
    ++out[g].cases;
    if (out[g].mode.empty()) out[g].mode = c.mode;
    apes[g].push_back(ape(c.measured, c.predicted));
    for (const auto& [name, v] : c.baseline) base[g][name].push_back(ape(c.measured, v));
  };
  for (const ValidationCase& c : run.cases) add(group(c.gpu, c.split), c);
  for (const ValidationSkip& s : run.skipped) {
    size_t g = out.size();
    for (size_t i = 0; i < out.size() && g == out.size(); ++i)
      if (out[i].gpu == s.gpu && (s.split.empty() || out[i].split == s.split)) g = i;
    if (g == out.size()) g = group(s.gpu, s.split.empty() ? "-" : s.split);
    ++out[g].skipped;
    ++out[g].skip_reasons[s.reason];
  }
  for (const ValidationCase& c : run.cases)
    if (!c.band.empty()) add(group(c.gpu, c.split + ", " + c.band), c);
  if (run.pooled)
    for (const ValidationCase& c : run.cases) add(group("all", c.split), c);
  for (size_t g = 0; g < out.size(); ++g) {
    out[g].mape = mean(apes[g]);
    std::sort(apes[g].begin(), apes[g].end());
    out[g].median_ape = apes[g].empty() ? 0 : percentile(apes[g], 50);
    out[g].p90_ape = apes[g].empty() ? 0 : percentile(apes[g], 90);
    for (const auto& [name, v] : base[g]) out[g].baseline_mape[name] = mean(v);
  }
  return out;
}

std::string summary_table(const std::vector<ValidationSummary>& summaries) {
  std::string out = fmt::format("{:<25} {:<10} {:<40} {:>6} {:>7} {:>8} {:>8} {:>8}  {}\n", "dataset", "gpu", "split",
                                "cases", "skipped", "MAPE", "median", "p90", "baselines (MAPE)");
  for (const ValidationSummary& s : summaries) {
    std::vector<std::string> b;
    for (const auto& [name, v] : s.baseline_mape) b.push_back(fmt::format("{} {}", name, percent(v)));
    if (s.cases == 0) {
      out += fmt::format("{:<25} {:<10} {:<40} {:>6} {:>7} {:>8} {:>8} {:>8}\n", s.dataset, s.gpu, s.split, 0,
                         s.skipped, "-", "-", "-");
      continue;
    }
    out += fmt::format("{:<25} {:<10} {:<40} {:>6} {:>7} {:>8} {:>8} {:>8}  {}\n", s.dataset, s.gpu, s.split, s.cases,
                       s.skipped, percent(s.mape), percent(s.median_ape), percent(s.p90_ape), fmt::join(b, "; "));
  }
  std::map<std::string, size_t> reasons;
  for (const ValidationSummary& s : summaries)
    for (const auto& [r, n] : s.skip_reasons)
      reasons[s.dataset + " " + s.gpu + (s.split == "-" ? "" : " " + s.split) + ": " + r] += n;
  if (!reasons.empty()) {
    out += "skipped:\n";
    for (const auto& [r, n] : reasons) out += fmt::format("  {} x {}\n", n, r);
  }
  return out;
}

std::string summaries_json(const std::vector<ValidationSummary>& summaries) {
  nlohmann::ordered_json j = nlohmann::ordered_json::array();
  for (const ValidationSummary& s : summaries) {
    nlohmann::ordered_json g;
    g["dataset"] = s.dataset;
    g["gpu"] = s.gpu;
    if (!s.mode.empty()) g["mode"] = s.mode;
    g["split"] = s.split;
    g["cases"] = s.cases;
    g["skipped"] = s.skipped;
    if (s.cases > 0) {
      g["mape"] = s.mape;
      g["median_ape"] = s.median_ape;
      g["p90_ape"] = s.p90_ape;
    } else {
      g["mape"] = nullptr;
      g["median_ape"] = nullptr;
      g["p90_ape"] = nullptr;
    }
    g["baseline"] = nlohmann::ordered_json::object();
    for (const auto& [name, v] : s.baseline_mape) g["baseline"][name] = v;
    g["skip_reasons"] = nlohmann::ordered_json::object();
    for (const auto& [r, n] : s.skip_reasons) g["skip_reasons"][r] = n;
    j.push_back(g);
  }
  return j.dump(2) + "\n";
}

std::string validation_svg(const ValidationRun& run) {
  // Points by GPU; log scales when the data spans more than two decades. At most 3000 points, an even stride.
  double lo = 1e300, hi = 0;
  for (const ValidationCase& c : run.cases)
    for (double v : {c.measured, c.predicted})
      if (v > 0) {
        lo = std::min(lo, v);
        hi = std::max(hi, v);
      }
  if (!(hi > 0)) {
    lo = 0.1;
    hi = 1;
  }
  const bool log = hi / lo > 100;
  if (!log) {
    lo = 0;
    hi *= 1.05;
  } else {
    lo = std::pow(10.0, std::floor(std::log10(lo)));
    hi = std::pow(10.0, std::ceil(std::log10(hi)));
  }
  const double W = 560, H = 480;
  const svg::PlotArea a{70, 40, W - 20, H - 60};
  const svg::Scale x{lo, hi, a.left, a.right, log};
  const svg::Scale y{lo, hi, a.bottom, a.top, log};
  const auto ticks = log ? svg::log_ticks(lo, hi) : svg::linear_ticks(lo, hi, 6);
  // A file of its own, not inline HTML: it needs the SVG namespace.
  std::string out = svg::open(W, H, "scatter", run.dataset + ": predicted against measured");
  out.replace(0, 4, "<svg xmlns=\"http://www.w3.org/2000/svg\"");
  out += "<style>.axis-title{font:12px sans-serif}.axis{stroke:#333}.grid{stroke:#ddd}.tick{font:11px sans-serif}.title{font:13px sans-serif}"
         ".diag{stroke:#888;stroke-dasharray:4 3}.p0{fill:#1f77b4}.p1{fill:#d62728}.p2{fill:#2ca02c}"
         ".p3{fill:#9467bd}.p4{fill:#ff7f0e}.p5{fill:#8c564b}.p6{fill:#e377c2}.p7{fill:#7f7f7f}"
         "circle{fill-opacity:0.45}</style>\n";
  out += svg::x_axis(a, x, ticks, "measured " + run.quantity);
  out += svg::y_axis(a, y, ticks, "predicted");
  out += svg::line(x(lo), y(lo), x(hi), y(hi), "diag");
  std::vector<std::string> gpus;
  for (const ValidationCase& c : run.cases)
    if (std::find(gpus.begin(), gpus.end(), c.gpu) == gpus.end()) gpus.push_back(c.gpu);
  const size_t stride = std::max<size_t>(1, (run.cases.size() + 2999) / 3000);
  for (size_t i = 0; i < run.cases.size(); i += stride) {
    const ValidationCase& c = run.cases[i];
    if (!(c.measured > 0) || !(c.predicted > 0) || c.measured < lo || c.predicted < lo || c.measured > hi ||
        c.predicted > hi)
      continue;
    const size_t k = static_cast<size_t>(std::find(gpus.begin(), gpus.end(), c.gpu) - gpus.begin()) % 8;
    out += svg::circle(x(c.measured), y(c.predicted), 2.5, fmt::format("p{}", k));
  }
  for (size_t k = 0; k < gpus.size(); ++k) {
    const double ly = a.top + 14.0 * static_cast<double>(k) + 6;
    out += svg::circle(a.left + 12, ly - 4, 4, fmt::format("p{}", k % 8));
    out += svg::text(a.left + 20, ly, gpus[k], "tick");
  }
  if (stride > 1)
    out += svg::text(a.right, a.bottom - 6, fmt::format("every {}th case shown", stride), "tick", "end");
  out += svg::close();
  return out;
}

std::string validation_page(const ValidationRun& run, const std::vector<ValidationSummary>& summaries,
                            const std::string& data_dir) {
  std::string out = fmt::format(
      "<!-- Generated by `vgpusim validate --published {} {} --docs docs/validation`; do not edit. -->\n"
      "# Validation against published measurements: {}\n\n",
      run.dataset, data_dir, run.dataset);
  out += run.method + "\n\n";
  out += "| GPU | split | cases | skipped | MAPE | median APE | p90 APE | naive baselines (MAPE) |\n";
  out += "|---|---|---|---|---|---|---|---|\n";
  for (const ValidationSummary& s : summaries) {
    std::vector<std::string> b;
    for (const auto& [name, v] : s.baseline_mape) b.push_back(fmt::format("{}: {}", name, percent(v)));
    if (s.cases == 0)
      out += fmt::format("| {} | {} | 0 | {} | - | - | - | |\n", s.gpu, s.split, s.skipped);
    else
      out += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} |\n", s.gpu, s.split, s.cases, s.skipped,
                         percent(s.mape), percent(s.median_ape), percent(s.p90_ape), fmt::join(b, "; "));
  }
  std::map<std::string, size_t> reasons;
  for (const ValidationSummary& s : summaries)
    for (const auto& [r, n] : s.skip_reasons) reasons[s.gpu + (s.split == "-" ? "" : " " + s.split) + ": " + r] += n;
  if (!reasons.empty()) {
    out += "\nSkipped:\n\n";
    for (const auto& [r, n] : reasons) out += fmt::format("- {} x {}\n", n, r);
  }
  out += fmt::format("\n![predicted against measured {}, with the y = x line]({}.svg)\n", run.quantity, run.dataset);
  return out;
}

int validate_published_command(const std::string& dataset, const std::string& dir, const PublishedOptions& options,
                               const std::string& json, const std::string& docs_dir, const std::string& cases_csv) {
  if (!options.gpu.empty() && dataset != "vidur" && dataset != "neusight")
    throw InputError("--gpu applies to the vidur and neusight datasets only (the others are predicted on the GPU they "
                     "measured)");
  std::vector<std::string> names;
  if (dataset == "all") {
    for (const std::string& name : published_datasets())
      if (std::filesystem::is_directory(std::filesystem::path(dir) / name)) names.push_back(name);
    if (names.empty())
      throw InputError(fmt::format("{}: holds no dataset folder ({})", dir, fmt::join(published_datasets(), ", ")));
  } else {
    names = {dataset};
  }
  if (!options.trust.empty() && !options.gpu.empty())
    throw InputError("--trust goes without --gpu (the table is of the suite's own cases)");
  std::vector<ValidationSummary> all;
  std::vector<ValidationRun> runs;
  std::string csv = "dataset,gpu,split,id,measured,predicted\n";
  for (const std::string& name : names) {
    // DIR is either the folder of all datasets or, for one dataset, its own folder.
    std::string d = dir;
    if (std::filesystem::is_directory(std::filesystem::path(dir) / name)) d = (std::filesystem::path(dir) / name).string();
    for (const ValidationRun& run : validate_published(name, d, options)) {
      const std::vector<ValidationSummary> summaries = summarize(run);
      all.insert(all.end(), summaries.begin(), summaries.end());
      if (!docs_dir.empty()) {
        write_atomically(docs_dir, run.dataset + ".md", validation_page(run, summaries, d));
        write_atomically(docs_dir, run.dataset + ".svg", validation_svg(run));
      }
      for (const ValidationCase& c : run.cases)
        csv += fmt::format("{},{},{},{},{:.6g},{:.6g}\n", run.dataset, csv_field(c.gpu), csv_field(c.split),
                           csv_field(c.id), c.measured, c.predicted);
      if (!options.trust.empty()) runs.push_back(run);
    }
  }
  std::cout << summary_table(all);
  if (!json.empty()) write_file_atomically(json, summaries_json(all));
  if (!cases_csv.empty()) write_file_atomically(cases_csv, csv);
  if (!options.trust.empty()) write_file_atomically(options.trust, trust_table_csv(trust_table(runs, builtin_trust_table())));
  return 0;
}

}  // namespace vgpusim
