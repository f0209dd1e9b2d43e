// Fit and validate orchestration. Which experiments fit what: efficiencies, DRAM saturation and time-slice
// parameters come from their dedicated experiments (sim/studies/calibration/fit.cpp); l2_interference from the
// green-context co-runs (SM partitions that share DRAM and L2), by least squares of predicted against measured
// slowdowns; every other co-run (streams, processes, MPS) is validation only.
#include "sim/studies/calibration/calibrate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <numeric>

#include "models/gpu/device_names.hpp"
#include "sim/core/rng.hpp"
#include "sim/io/gpu_catalog.hpp"
#include "sim/io/files.hpp"
#include "sim/io/yaml_reader.hpp"
#include "sim/studies/calibration/paced_replay.hpp"
#include "sim/studies/calibration/published_fit.hpp"

namespace vgpusim {
namespace {

bool fit_set(const CorunExperiment& e) { return e.form == "green_ctx"; }

// Values the raw reader left out (e.g. a null slowdown of a pair hwcal cut short): said on stderr, not fatal.
RawFile read_raw_reporting_warnings(const std::string& raw_path) {
  RawFile raw = read_raw_file(raw_path);
  for (const std::string& warning : raw.warnings) std::cerr << "warning: " << warning << "\n";
  return raw;
}

const GpuSpec& datasheet(const std::string& gpu) {
  const CatalogEntry* e = builtin_catalog().find(gpu);
  if (!e) throw InputError("unknown catalog GPU '" + gpu + "' (see `vgpusim list gpus`)");
  return e->spec;
}

// The device as measured: the catalog's rates with the SM count the raw file reports.
GpuSpec measured_spec(const RawFile& raw, const std::string& gpu) {
  GpuSpec s = datasheet(gpu);
  if (raw.device.sm_count > 0 && raw.device.sm_count != s.compute_units) {
    const double k = raw.device.sm_count / s.compute_units;
    s.fp64 *= k;
    s.fp32 *= k;
    s.fp16_tensor *= k;
    s.compute_units = raw.device.sm_count;
  }
  return s;
}

double relative_error(double predicted, double measured) { return (predicted - measured) / measured; }

}  // namespace

std::string raw_catalog_gpu(const RawFile& raw, const std::string& gpu_override) {
  if (!gpu_override.empty()) {
    datasheet(gpu_override);
    return gpu_override;
  }
  const std::string name = catalog_name_for_device(raw.device.name, raw.device.memory, builtin_catalog().names());
  if (name.empty())
    throw InputError(fmt::format("{}: cannot tell which catalog GPU '{}' is; give --gpu (see `vgpusim list gpus`)",
                                 raw.file, raw.device.name));
  return name;
}

Calibration fit_calibration(const RawFile& raw, const std::string& gpu) {
  Calibration c;
  c.gpu = gpu;
  c.device = raw.device.name;
  c.driver = raw.device.driver;
  c.date = raw.device.date;
  c.raw = raw.file;
  c.values = fit_direct(raw, datasheet(gpu));
  // l2_interference on the green-context co-runs, with everything else as fitted.
  std::vector<const CorunExperiment*> fit;
  for (const CorunExperiment& e : raw.coruns)
    if (fit_set(e)) fit.push_back(&e);
  if (!fit.empty()) {
    const GpuSpec spec = measured_spec(raw, gpu);
    ParamOverrides base = c.overrides();
    auto sse = [&](double alpha, const std::vector<size_t>& pick) {
      ParamOverrides p = base;
      p["contention.l2_interference"] = alpha;
      double e = 0;
      for (size_t i : pick) {
        const CorunPrediction pr = predict_corun(*fit[i], spec, p);
        e += std::pow(relative_error(pr.slowdown_a, fit[i]->slowdown_a), 2) +
             std::pow(relative_error(pr.slowdown_b, fit[i]->slowdown_b), 2);
      }
      return e;
    };
    std::vector<size_t> all(fit.size());
    std::iota(all.begin(), all.end(), 0);
    const double alpha = minimize_1d([&](double a) { return sse(a, all); }, 0.0, 5.0, 40);
    const double sd = bootstrap_sd(fit.size(), [&](const std::vector<size_t>& pick) {
      return minimize_1d([&](double a) { return sse(a, pick); }, 0.0, 5.0, 30);
    }, 20);
    c.values.push_back({"contention.l2_interference", units::Dim::Ratio, alpha, sd,
                        std::sqrt(sse(alpha, all) / (2.0 * static_cast<double>(fit.size()))),
                        static_cast<int>(2 * fit.size()),
                        "green-context co-runs (SM partitions sharing DRAM and L2): least squares of slowdowns"});
  }
  return c;
}

int fit_command(const std::string& raw_path, const std::string& out_path, const std::string& gpu_override,
                const std::string& gpu_benches_dir) {
  const RawFile raw = read_raw_reporting_warnings(raw_path);
  Calibration c = fit_calibration(raw, raw_catalog_gpu(raw, gpu_override));
  if (!gpu_benches_dir.empty()) {
    const std::vector<Calibration> published = fit_gpu_benches(gpu_benches_dir);
    const auto it = std::find_if(published.begin(), published.end(),
                                 [&](const Calibration& p) { return p.gpu == c.gpu; });
    if (it == published.end())
      throw InputError(fmt::format("{}: gpu-benches has no table of {} to add", gpu_benches_dir, c.gpu));
    add_published(c, *it);
  }
  fmt::print("fitted {} ({}) from {}\n\n{:<34} {:>14} {:>14} {:>10} {:>7}  from\n", c.gpu, c.device, raw_path,
             "parameter", "value", "uncertainty", "residual", "points");
  for (const FittedValue& v : c.values)
    fmt::print("{:<34} {:>14} {:>14} {:>9.2f}% {:>7}  {}\n", v.name, units::format(v.value, v.dim),
               units::format(v.uncertainty, v.dim), 100 * v.residual, v.points, v.from);
  for (const CalibrationFact& f : c.facts)
    fmt::print("{:<34} {:>14} {:>14} {:>10} {:>7}  {}\n", "fact " + f.name, units::format(f.value, f.dim), "", "", "",
               f.from);
  for (const std::string& m : raw.not_measured) fmt::print("not measured: {}\n", m);
  if (!out_path.empty()) {
    write_file_atomically(out_path, calibration_yaml(c));
    fmt::print("\nwrote {}\n", out_path);
  }
  return 0;
}

namespace {

struct CorunCheck {
  const CorunExperiment* experiment = nullptr;
  CorunPrediction predicted;
  double error = 0;  // mean absolute relative error of the two slowdowns
  bool fitted = false;
};

struct CorunChecks {
  std::vector<CorunCheck> rows;
  double mape_validate = NAN, mape_fit = NAN;
  int n_validate = 0, n_fit = 0;
};

CorunChecks check_coruns(const RawFile& raw, const GpuSpec& spec, const ParamOverrides& params) {
  CorunChecks out;
  double ape_validate = 0, ape_fit = 0;
  for (const CorunExperiment& e : raw.coruns) {
    CorunCheck c;
    c.experiment = &e;
    c.predicted = predict_corun(e, spec, params);
    c.error = (std::fabs(relative_error(c.predicted.slowdown_a, e.slowdown_a)) +
               std::fabs(relative_error(c.predicted.slowdown_b, e.slowdown_b))) /
              2;
    c.fitted = fit_set(e);
    (c.fitted ? ape_fit : ape_validate) += c.error;
    ++(c.fitted ? out.n_fit : out.n_validate);
    out.rows.push_back(c);
  }
  if (out.n_validate) out.mape_validate = ape_validate / out.n_validate;
  if (out.n_fit) out.mape_fit = ape_fit / out.n_fit;
  return out;
}

std::string percent_or_dash(double x) { return std::isfinite(x) ? fmt::format("{:.2f}%", 100 * x) : "-"; }

// The page docs/validation/hwcal-*.md: every co-run, measured against predicted with the calibration and with the
// models' defaults, and the summary of both.
std::string hwcal_validation_markdown(const RawFile& raw, const std::string& raw_path, const Calibration& c,
                                      const std::string& calibration_path, const CorunChecks& calibrated,
                                      const CorunChecks& defaults) {
  const bool held_out =
      std::filesystem::path(c.raw).lexically_normal() != std::filesystem::path(raw_path).lexically_normal();
  std::string md = fmt::format(
      "<!-- generated by `vgpusim validate {} --calibration {} --docs DIR` (tools/update-docs.sh); checked by a "
      "test -->\n# Validation: hwcal co-runs on {}, {}\n\n",
      raw_path, calibration_path, raw.device.name, raw.device.date);
  md += fmt::format(
      "Measured: `{}` (driver {}). Calibration: `{}`, fitted on `{}`{}.\n\n"
      "Slowdown = co-run time over the time alone in the same form (sim/studies/calibration/corun_replay.cpp maps "
      "each form to a model: streams and MPS to `mps`, processes to `timeslice`, green contexts to `mps` capped at "
      "each partition's SMs). The **fit** rows (green contexts) fixed `contention.l2_interference`; the **check** "
      "rows were used by no fit. Error = mean of the two slowdowns' absolute relative errors.\n\n",
      raw_path, raw.device.driver, calibration_path, c.raw,
      held_out ? ", another run: every row here is held out from the fit"
               : ", this run: only the check rows are held out");
  md += "| set | calibrated MAPE | models' defaults MAPE | co-runs |\n|---|---|---|---|\n";
  md += fmt::format("| check (streams, processes, MPS) | {} | {} | {} |\n", percent_or_dash(calibrated.mape_validate),
                    percent_or_dash(defaults.mape_validate), calibrated.n_validate);
  md += fmt::format("| fit (green contexts) | {} | {} | {} |\n\n", percent_or_dash(calibrated.mape_fit),
                    percent_or_dash(defaults.mape_fit), calibrated.n_fit);
  md += "| co-run experiment | set | measured a | predicted a | measured b | predicted b | error | error with "
        "defaults |\n|---|---|---|---|---|---|---|---|\n";
  for (size_t i = 0; i < calibrated.rows.size(); ++i) {
    const CorunCheck& r = calibrated.rows[i];
    md += fmt::format("| {} | {} | {:.3f} | {:.3f} | {:.3f} | {:.3f} | {:.1f}% | {:.1f}% |\n", r.experiment->name,
                      r.fitted ? "fit" : "check", r.experiment->slowdown_a, r.predicted.slowdown_a,
                      r.experiment->slowdown_b, r.predicted.slowdown_b, 100 * r.error, 100 * defaults.rows[i].error);
  }
  md += "\nFitted values (`vgpusim fit`):\n\n| parameter | value | uncertainty | residual | points | from |\n"
        "|---|---|---|---|---|---|\n";
  for (const FittedValue& v : c.values)
    md += fmt::format("| `{}` | {} | {} | {:.2f}% | {} | {} |\n", v.name, units::format(v.value, v.dim),
                      units::format(v.uncertainty, v.dim), 100 * v.residual, v.points, v.from);
  return md;
}

}  // namespace

int validate_command(const std::string& raw_path, const std::string& calibration_path, const std::string& json_path,
                     const std::string& gpu_override, const std::string& docs_dir) {
  const RawFile raw = read_raw_reporting_warnings(raw_path);
  ParamOverrides params;
  std::string gpu;
  Calibration calibration;
  if (!calibration_path.empty()) {
    calibration = read_calibration_file(calibration_path);
    params = calibration.overrides();
    gpu = gpu_override.empty() ? calibration.gpu : gpu_override;
  } else {
    if (!docs_dir.empty()) throw InputError("validate: --docs with a raw file needs --calibration");
    gpu = raw_catalog_gpu(raw, gpu_override);
  }
  const GpuSpec spec = measured_spec(raw, gpu);
  const CorunChecks checks = check_coruns(raw, spec, params);
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  fmt::print("{:<44} {:<5} {:>9} {:>9} {:>9} {:>9} {:>8}\n", "co-run experiment", "set", "meas. a", "pred. a",
             "meas. b", "pred. b", "error");
  for (const CorunCheck& r : checks.rows) {
    const CorunExperiment& e = *r.experiment;
    fmt::print("{:<44} {:<5} {:>9.3f} {:>9.3f} {:>9.3f} {:>9.3f} {:>7.1f}%\n", e.name, r.fitted ? "fit" : "check",
               e.slowdown_a, r.predicted.slowdown_a, e.slowdown_b, r.predicted.slowdown_b, 100 * r.error);
    rows.push_back({{"experiment", e.name},
                    {"form", e.form},
                    {"partition", e.partition},
                    {"set", r.fitted ? "fit" : "validation"},
                    {"model", r.predicted.model},
                    {"measured_slowdown", {e.slowdown_a, e.slowdown_b}},
                    {"predicted_slowdown", {r.predicted.slowdown_a, r.predicted.slowdown_b}},
                    {"absolute_percentage_error", r.error}});
  }
  fmt::print("\nMAPE on the validation co-runs (streams, processes, MPS; not used by the fit): {:.2f}% over {}\n",
             100 * checks.mape_validate, checks.n_validate);
  fmt::print("MAPE on the fit co-runs (green contexts, fitted l2_interference): {:.2f}% over {}\n",
             100 * checks.mape_fit, checks.n_fit);
  // timeslice.paced: the light process's normalized speed beside a busy one, against the utilization rule.
  nlohmann::ordered_json paced_rows = nlohmann::ordered_json::array();
  if (raw.paced) {
    fmt::print("\n{:<34} {:>9} {:>9} {:>9} {:>9} {:>9}\n", "timeslice.paced point", "util", "measured",
               "predicted", "util rule", "error");
    double ape = 0, ape_rule = 0;
    for (const PacedPoint& pt : raw.paced->points) {
      const PacedPrediction pred = predict_paced(*raw.paced, pt, spec, params);
      const double rule = 1.0 / (1.0 + pt.gpu_share_alone);
      const double error = std::fabs(pred.speed - pt.speed) / pt.speed;
      ape += error;
      ape_rule += std::fabs(rule - pt.speed) / pt.speed;
      const std::string label =
          fmt::format("gap {}, {}", units::format(pt.gap_s, units::Dim::Time),
                      pt.sync_every > 0 ? fmt::format("sync every {}", pt.sync_every) : std::string("sync at the end"));
      fmt::print("{:<34} {:>8.1f}% {:>9.3f} {:>9.3f} {:>9.3f} {:>8.1f}%\n", label, 100 * pt.gpu_share_alone, pt.speed,
                 pred.speed, rule, 100 * error);
      paced_rows.push_back({{"host_gap_s", pt.gap_s},
                            {"sync_every", pt.sync_every},
                            {"gpu_share_alone", pt.gpu_share_alone},
                            {"measured_speed", pt.speed},
                            {"predicted_speed", pred.speed},
                            {"util_rule", rule},
                            {"absolute_percentage_error", error}});
    }
    const double n = static_cast<double>(raw.paced->points.size());
    fmt::print("MAPE of the light process's speed beside a busy one: {:.2f}% (utilization rule 1 / (1 + u): "
               "{:.2f}%) over {}\n",
               100 * ape / n, 100 * ape_rule / n, raw.paced->points.size());
  }
  if (!json_path.empty()) {
    nlohmann::ordered_json j;
    j["schema"] = "vgpusim.validation/1";
    j["raw"] = raw_path;
    j["calibration"] = calibration_path;
    j["gpu"] = gpu;
    j["fit_set"] = "corun green_ctx experiments";
    j["validation_set"] = "every other corun experiment";
    j["mape_validation"] =
        std::isfinite(checks.mape_validate) ? nlohmann::ordered_json(checks.mape_validate) : nullptr;
    j["mape_fit"] = std::isfinite(checks.mape_fit) ? nlohmann::ordered_json(checks.mape_fit) : nullptr;
    j["experiments"] = rows;
    if (raw.paced) j["paced"] = paced_rows;
    write_file_atomically(json_path, j.dump(2) + "\n");
  }
  if (!docs_dir.empty()) {
    const CorunChecks defaults = check_coruns(raw, spec, {});
    std::string stem = std::filesystem::path(raw_path).stem().string();
    if (stem.starts_with("raw-")) stem = stem.substr(4);
    std::string gpu_name = calibration_file_name(gpu);  // "h200.yaml"
    gpu_name.resize(gpu_name.size() - std::string_view(".yaml").size());
    const std::string name = "hwcal-" + gpu_name + "-" + stem + ".md";
    write_atomically(docs_dir, name,
                     hwcal_validation_markdown(raw, raw_path, calibration, calibration_path, checks, defaults));
    fmt::print("wrote {}/{}\n", docs_dir, name);
  }
  return 0;
}

std::string synthetic_raw(const std::string& gpu, const SyntheticTruth& truth, double noise, uint64_t seed) {
  using nlohmann::ordered_json;
  const GpuSpec& ds = datasheet(gpu);
  Rng rng(seed);
  auto noisy = [&](double x) { return x * (1 + noise * (2 * rng.uniform() - 1)); };
  auto stats = [&](double median, int n) {
    return ordered_json{{"n", n}, {"min", median * (1 - noise)}, {"p10", median * (1 - noise / 2)}, {"median", median},
                        {"p90", median * (1 + noise / 2)}, {"max", median * (1 + noise)}, {"mean", median}};
  };
  auto experiment = [](const std::string& name, const std::string& kind, ordered_json params, ordered_json summary) {
    return ordered_json{{"name", name},   {"kind", kind},           {"truncated", false}, {"error", nullptr},
                        {"skipped", nullptr}, {"wall_time_s", 0.1}, {"params", params},  {"repeats", ordered_json::array()},
                        {"summary", summary}};
  };
  ordered_json ex = ordered_json::array();
  const double bw = ds.memory_bandwidth * truth.memory_efficiency;
  ex.push_back(experiment("bandwidth.copy", "bandwidth", {{"kernel", "copy"}},
                          {{"bytes_per_s", stats(noisy(bw * 0.99), 20)}}));
  ex.push_back(experiment("bandwidth.triad", "bandwidth", {{"kernel", "triad"}}, {{"bytes_per_s", stats(noisy(bw), 20)}}));
  ordered_json points = ordered_json::array();
  for (double sms = 1; sms < ds.compute_units; sms *= 2)
    points.push_back({{"blocks", sms}, {"distinct_sms", sms},
                      {"bytes_per_s", stats(noisy(bw * std::min(1.0, sms / ds.compute_units / truth.bw_saturation_fraction)), 3)}});
  points.push_back({{"blocks", ds.compute_units}, {"distinct_sms", ds.compute_units}, {"bytes_per_s", stats(noisy(bw), 3)}});
  ex.push_back(experiment("bandwidth_sm_scaling.triad", "bandwidth_sm_scaling", {{"kernel", "triad"}},
                          {{"points", points}}));
  ex.push_back(experiment("compute.fp32_fma", "compute", {{"kernel", "fma"}},
                          {{"flops_per_s", stats(noisy(ds.fp32 * truth.compute_efficiency), 10)}}));
  ex.push_back(experiment("gemm.bf16", "gemm", {{"m", 8192}},
                          {{"flops_per_s", stats(noisy(ds.fp16_tensor * truth.compute_efficiency), 20)}}));
  ex.push_back(experiment("timeslice.probe", "timeslice", {{"blocks", ds.compute_units}},
                          {{"pair", {{"slice_s", stats(noisy(truth.slice), 200)},
                                     {"switch_s", stats(noisy(truth.switch_cost), 200)}}}}));
  // The handoff sweep (hwcal's gaps): kept below the grace, lost above it, so the crossing is the truth when it lies
  // halfway between two points.
  ex.push_back(experiment("timeslice.handoff", "timeslice", {{"blocks", ds.compute_units}},
                          {{"handoff_s", stats(noisy(truth.idle_grace + truth.idle_switch_cost), 20)},
                           {"grace_crossing_s", truth.idle_grace}}));
  // NVML's utilization.gpu over runs whose kernels hold a known share (hwcal's three kernel lengths and duties).
  ordered_json duty_points = ordered_json::array();
  for (double kernel_s : {20e-6, 200e-6, 2e-3})
    for (double duty : {0.25, 0.5, 0.8}) {
      const double busy = noisy(duty);
      const double util = std::min(1.0, busy / truth.busy_per_util);
      duty_points.push_back({{"kernel_s", kernel_s}, {"duty_target", duty}, {"busy_share", busy},
                             {"nvml_gpu_util", util}, {"busy_per_util", busy / util}});
    }
  ex.push_back(experiment("telemetry.util_duty", "telemetry", {{"blocks", ds.compute_units}},
                          {{"points", duty_points}, {"busy_per_util", truth.busy_per_util}}));
  // Co-runs, re-simulated with the true parameters, then measured with noise.
  ParamOverrides p{{"roofline.compute_efficiency", truth.compute_efficiency},
                   {"roofline.memory_efficiency", truth.memory_efficiency},
                   {"contention.bw_saturation_fraction", truth.bw_saturation_fraction},
                   {"contention.l2_interference", truth.l2_interference},
                   {"timeslice.slice", truth.slice}, {"timeslice.switch_cost", truth.switch_cost},
                   {"timeslice.idle_grace", truth.idle_grace}, {"timeslice.idle_switch_cost", truth.idle_switch_cost}};
  const double solo = 0.06;  // s alone on the whole GPU, as hwcal sizes them
  auto kernel = [&](const std::string& kind) {
    CorunKernel k;
    k.kind = kind;
    k.launches = 20;
    k.blocks_per_launch = ds.compute_units * 32;
    if (kind != "memory") k.flops = solo * ds.fp32 * truth.compute_efficiency;
    if (kind != "compute") k.bytes = solo * bw;
    return k;
  };
  const std::vector<std::pair<std::string, std::string>> pairs = {
      {"compute", "compute"}, {"memory", "memory"}, {"mixed", "mixed"},
      {"compute", "memory"},  {"compute", "mixed"}, {"mixed", "memory"}};
  struct Form {
    std::string form, label;
    double a_sms, b_sms, a_cap, b_cap;
  };
  const double n = ds.compute_units;
  const std::vector<Form> forms = {{"streams", "", 0, 0, 1, 1},          {"processes", "", 0, 0, 1, 1},
                                   {"green_ctx", "64+64", 64, 64, 1, 1}, {"green_ctx", "16+116", 16, n - 16, 1, 1},
                                   {"green_ctx", "32+96", 32, n - 32, 1, 1}, {"mps", "uncapped", 0, 0, 1, 1},
                                   {"mps", "50+50", 0, 0, 0.5, 0.5}};
  for (const Form& f : forms)
    for (const auto& [a, b] : pairs) {
      CorunExperiment e;
      e.name = fmt::format("corun.{}{}.{}+{}", f.form, f.label.empty() ? "" : "." + f.label, a, b);
      e.form = f.form;
      e.partition = f.label;
      e.a_sms = f.a_sms;
      e.b_sms = f.b_sms;
      e.a_cap = f.a_cap;
      e.b_cap = f.b_cap;
      e.a = kernel(a);
      e.b = kernel(b);
      const CorunPrediction truth_p = predict_corun(e, ds, p);
      auto kjson = [](const CorunKernel& k) {
        return ordered_json{{"kind", k.kind}, {"launches", k.launches}, {"blocks_per_launch", k.blocks_per_launch},
                            {"flops", k.flops}, {"bytes", k.bytes}};
      };
      ordered_json partition = {{"a_sms", f.a_sms > 0 ? ordered_json(f.a_sms) : ordered_json(nullptr)},
                                {"b_sms", f.b_sms > 0 ? ordered_json(f.b_sms) : ordered_json(nullptr)},
                                {"a_active_thread_percentage", f.form == "mps" ? ordered_json(100 * f.a_cap) : ordered_json(nullptr)},
                                {"b_active_thread_percentage", f.form == "mps" ? ordered_json(100 * f.b_cap) : ordered_json(nullptr)}};
      ex.push_back(experiment(e.name, "corun",
                              {{"form", f.form}, {"partition_label", f.label.empty() ? ordered_json(nullptr) : ordered_json(f.label)},
                               {"partition", partition}, {"kernel_a", kjson(e.a)}, {"kernel_b", kjson(e.b)}},
                              {{"slowdown_a", noisy(truth_p.slowdown_a)}, {"slowdown_b", noisy(truth_p.slowdown_b)}}));
    }
  ordered_json root;
  root["schema"] = "vgpusim.hwcal.raw/1";
  root["tool"] = {{"name", "vgpusim synth-raw"}, {"note", "synthetic: made by the simulator from known parameters"}};
  root["complete"] = true;
  root["environment"] = {{"date_utc", "synthetic"},
                         {"device", {{"name", "synthetic " + gpu}, {"sm_count", ds.compute_units},
                                     {"total_memory_bytes", ds.memory}}},
                         {"nvml", {{"driver_version", "synthetic"}}}};
  root["experiments"] = ex;
  return root.dump(1) + "\n";
}

int synth_raw_command(const std::string& gpu, const std::string& out_path, double noise, uint64_t seed) {
  // Relative noise: 0 (none) to 0.5 (every measurement off by up to half); NaN and infinities are refused.
  if (!(noise >= 0 && noise <= 0.5))
    throw InputError(fmt::format("--noise {}: expected a relative noise from 0 to 0.5", noise));
  write_file_atomically(out_path, synthetic_raw(gpu, SyntheticTruth{}, noise, seed));
  return 0;
}

}  // namespace vgpusim
