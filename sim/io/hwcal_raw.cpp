// Reads a hwcal raw file. Unknown experiments are ignored (the format may grow); experiments that were skipped or
// failed are listed so that `fit` can say what it had to do without; values the fits need that are not numbers (a
// run cut short) leave their experiment or point out with a warning, not the whole file.
#include "sim/io/hwcal_raw.hpp"

#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "sim/core/errors.hpp"
#include "sim/io/files.hpp"

namespace vgpusim {
namespace {

using nlohmann::json;

double number(const json& j, const char* key, const std::string& where) {
  if (!j.contains(key) || !j[key].is_number())
    throw RawFormatError(fmt::format("{}: expected a number at '{}'", where, key));
  return j[key].get<double>();
}

// A value the fits use that may be missing or null in a file hwcal cut short: nothing, and a warning saying what
// was left out, instead of rejecting the whole file.
std::optional<double> optional_number(const json& j, const char* key, const std::string& where, const char* left_out,
                                      std::vector<std::string>& warnings) {
  if (j.is_object() && j.contains(key) && j[key].is_number()) return j[key].get<double>();
  const std::string found = j.is_object() && j.contains(key) ? j[key].dump() : "nothing";
  warnings.push_back(fmt::format("{}: expected a number at '{}', found {}: {} left out", where, key, found, left_out));
  return std::nullopt;
}

double number_or(const json& j, const char* key, double fallback) {
  return j.is_object() && j.contains(key) && j[key].is_number() ? j[key].get<double>() : fallback;
}

// j[key], or null when j has no such key.
const json& member(const json& j, const char* key) {
  static const json null_value;
  return j.is_object() && j.contains(key) ? j[key] : null_value;
}

// j[key] when it is an object, else an empty object (a null or absent summary reads as one without values).
const json& object_at(const json& j, const char* key) {
  static const json empty = json::object();
  if (!j.is_object() || !j.contains(key) || !j[key].is_object()) return empty;
  return j[key];
}

// A summary's statistics; nothing when its median is missing, and nothing with a warning when a value is out of
// range (a count no int holds).
std::optional<RawStats> stats(const json& j, const std::string& where, std::vector<std::string>& warnings) {
  if (!j.is_object() || !j.contains("median") || !j["median"].is_number()) return std::nullopt;
  RawStats s;
  s.median = j["median"].get<double>();
  s.p10 = number_or(j, "p10", s.median);
  s.p90 = number_or(j, "p90", s.median);
  const double n = number_or(j, "n", 1);
  if (!std::isfinite(s.median) || !std::isfinite(s.p10) || !std::isfinite(s.p90) || !(n >= 0 && n <= 1e9)) {
    warnings.push_back(fmt::format("{}: statistics out of range (median {:g}, n {:g}): left out", where, s.median, n));
    return std::nullopt;
  }
  s.n = static_cast<int>(n);
  return s;
}

std::optional<CorunKernel> kernel(const json& k, const std::string& where, std::vector<std::string>& warnings) {
  CorunKernel out;
  out.kind = k.is_object() && k.contains("kind") && k["kind"].is_string() ? k["kind"].get<std::string>() : "";
  out.flops = number_or(k, "flops", 0.0);
  out.bytes = number_or(k, "bytes", 0.0);
  const auto blocks = optional_number(k, "blocks_per_launch", where, "experiment", warnings);
  const auto launches = optional_number(k, "launches", where, "experiment", warnings);
  if (!blocks || !launches) return std::nullopt;
  if (!(*launches >= 1 && *launches <= 1e9) || !(*blocks >= 0 && *blocks <= 1e12) || !std::isfinite(out.flops) ||
      !std::isfinite(out.bytes)) {
    warnings.push_back(fmt::format("{}: launches {:g}, blocks_per_launch {:g}, flops {:g} or bytes {:g} out of range: "
                                   "experiment left out",
                                   where, *launches, *blocks, out.flops, out.bytes));
    return std::nullopt;
  }
  out.blocks_per_launch = *blocks;
  out.launches = static_cast<int>(*launches);
  return out;
}

}  // namespace

namespace {
RawFile parse_raw_json(const json& root, const std::string& file);
}  // namespace

RawFile parse_raw(const std::string& text, const std::string& file) {
  json root;
  try {
    root = json::parse(text);
  } catch (const json::exception& e) {  // a syntax error, or a number no double holds (1e400)
    throw RawFormatError(fmt::format("{}: not JSON: {}", file, e.what()));
  }
  // A value of the wrong JSON type where the reader expects one (a string schema, an object) is bad input too.
  try {
    return parse_raw_json(root, file);
  } catch (const json::exception& e) {
    throw RawFormatError(fmt::format("{}: unexpected JSON: {}", file, e.what()));
  }
}

namespace {
// timeslice.paced (`e`, its summary `summary`): its params and points into raw.paced; a point or a whole experiment
// out of range is left out with a warning.
void read_paced(const json& e, const json& summary, const std::string& where, RawFile& raw) {
  const json& params = object_at(e, "params");
  PacedExperiment x;
  x.light_kernel_s = number_or(params, "light_kernel_s", 0.0);
  x.busy_kernel_s = number_or(params, "busy_kernel_s", 0.0);
  x.busy_lead_s = number_or(params, "busy_lead_s", 0.0);
  const double busy_launches = number_or(params, "busy_launches", 0.0);
  if (!(x.light_kernel_s > 0 && x.light_kernel_s < 1) || !(x.busy_kernel_s > 0 && x.busy_kernel_s < 1) ||
      !(x.busy_lead_s >= 0 && x.busy_lead_s < 10) || !(busy_launches >= 1 && busy_launches <= kMaxPacedLaunches)) {
    raw.warnings.push_back(fmt::format("{}: params light_kernel_s, busy_kernel_s, busy_lead_s or busy_launches "
                                       "missing or out of range: left out",
                                       where));
    return;
  }
  if (busy_launches * x.busy_kernel_s > kMaxPacedRun_s) {
    raw.warnings.push_back(fmt::format("{}: a busy run of {:g} s (hwcal's: 0.5 s): left out", where,
                                       busy_launches * x.busy_kernel_s));
    return;
  }
  x.busy_launches = static_cast<int>(busy_launches);
  const json& points = summary.contains("points") && summary["points"].is_array() ? summary["points"]
                                                                                  : json::array();
  if (points.size() > kMaxPacedPoints) {
    raw.warnings.push_back(fmt::format("{}: {} points; hwcal writes 6, at most {} are read: left out", where,
                                       points.size(), kMaxPacedPoints));
    return;
  }
  for (const json& p : points) {
    const auto speed = stats(p.is_object() ? p.value("speed", json()) : json(), where, raw.warnings);
    const auto share = stats(p.is_object() ? p.value("gpu_share_alone", json()) : json(), where, raw.warnings);
    const double gap = number_or(p, "host_gap_s", -1), sync = number_or(p, "sync_every", -1),
                 launches = number_or(p, "launches", 0);
    if (!speed || !share || !(gap >= 0 && gap < 1) || !(sync >= 0 && sync <= 1e7) ||
        !(launches >= 1 && launches <= kMaxPacedLaunches) || !(speed->median > 0) ||
        !(share->median >= 0 && share->median <= 1)) {
      raw.warnings.push_back(fmt::format("{}: a point without its speed, utilization, gap, sync or launches: "
                                         "left out",
                                         where));
      continue;
    }
    if (launches * (gap + x.light_kernel_s) > kMaxPacedRun_s) {
      raw.warnings.push_back(fmt::format("{}: a light run of {:g} s (hwcal's: 0.1 s): left out", where,
                                         launches * (gap + x.light_kernel_s)));
      continue;
    }
    x.points.push_back({gap, static_cast<int>(sync), static_cast<int>(launches), speed->median, share->median});
  }
  if (!x.points.empty()) raw.paced = x;
}

RawFile parse_raw_json(const json& root, const std::string& file) {
  if (!root.is_object()) throw RawFormatError(fmt::format("{}: expected a JSON object at the top level", file));
  if (root.value("schema", "") != "vgpusim.hwcal.raw/1")
    throw RawFormatError(fmt::format("{}: expected schema vgpusim.hwcal.raw/1, found '{}'", file,
                                     root.contains("schema") ? root["schema"].dump() : "nothing"));
  RawFile raw;
  raw.file = file;
  const json& env = root.value("environment", json::object());
  const json& dev = env.value("device", json::object());
  raw.device.name = dev.value("name", "");
  raw.device.sm_count = number(dev, "sm_count", file + ": environment.device");
  raw.device.memory = number_or(dev, "total_memory_bytes", 0.0);
  const json& nvml = env.value("nvml", json::object());
  if (nvml.contains("driver_version") && nvml["driver_version"].is_string()) raw.device.driver = nvml["driver_version"];
  raw.device.date = env.value("date_utc", "");

  const json& experiments = root.contains("experiments") ? root["experiments"] : json::array();
  if (!experiments.is_array()) throw RawFormatError(fmt::format("{}: 'experiments' is not a list", file));
  // A hwcal run writes 62 experiments; refitting thousands of co-runs would take hours for nothing.
  if (experiments.size() > kMaxRawExperiments)
    throw RawFormatError(fmt::format("{}: {} experiments; a hwcal raw file holds at most {} (a run writes about 60)",
                                     file, experiments.size(), kMaxRawExperiments));
  for (const json& e : experiments) {
    if (!e.is_object()) throw RawFormatError(fmt::format("{}: an experiment is not an object", file));
    const std::string name = e.contains("name") && e["name"].is_string() ? e["name"].get<std::string>() : "";
    const std::string kind = e.contains("kind") && e["kind"].is_string() ? e["kind"].get<std::string>() : "";
    const std::string where = fmt::format("{}: experiment {}", file, name);
    if (e.contains("skipped") && e["skipped"].is_string()) {
      raw.not_measured.push_back(name + ": skipped: " + e["skipped"].get<std::string>());
      continue;
    }
    if (e.contains("error") && e["error"].is_string()) {
      raw.not_measured.push_back(name + ": error: " + e["error"].get<std::string>());
      continue;
    }
    const json& summary = object_at(e, "summary");
    if (kind == "bandwidth") {
      const auto s = stats(summary.value("bytes_per_s", json()), where, raw.warnings);
      if (!s) continue;
      if (name == "bandwidth.copy") raw.copy_bytes_per_s = s;
      if (name == "bandwidth.triad") raw.triad_bytes_per_s = s;
    } else if (kind == "bandwidth_sm_scaling") {
      const json& points = summary.contains("points") && summary["points"].is_array() ? summary["points"]
                                                                                      : json::array();
      for (const json& p : points) {
        const auto s = stats(p.is_object() ? p.value("bytes_per_s", json()) : json(), where, raw.warnings);
        if (!s) continue;
        const auto sms = optional_number(p, "distinct_sms", where + ".summary.points", "point", raw.warnings);
        if (sms) raw.bandwidth_vs_sms.push_back({*sms, s->median});
      }
    } else if (kind == "compute" && name == "compute.fp32_fma") {
      raw.fp32_flops_per_s = stats(summary.value("flops_per_s", json()), where, raw.warnings);
    } else if (kind == "gemm") {
      raw.gemm_flops_per_s = stats(summary.value("flops_per_s", json()), where, raw.warnings);
    } else if (kind == "timeslice" && name == "timeslice.probe") {
      const json& pair = object_at(summary, "pair");
      raw.slice = stats(pair.value("slice_s", json()), where, raw.warnings);
      raw.switch_cost = stats(pair.value("switch_s", json()), where, raw.warnings);
    } else if (kind == "timeslice" && name == "timeslice.handoff") {
      // hwcal writes a null crossing when its sweep did not bracket one (cut short, every gap kept, or held to the
      // end of the slice): then neither idle value can be fitted.
      raw.handoff = stats(summary.value("handoff_s", json()), where, raw.warnings);
      const json crossing = summary.value("grace_crossing_s", json());
      if (raw.handoff && crossing.is_number() && std::isfinite(crossing.get<double>()) && crossing.get<double>() >= 0) {
        raw.grace_crossing = crossing.get<double>();
      } else {
        raw.handoff.reset();
        raw.not_measured.push_back(name + ": no grace crossing (the sweep did not bracket one)");
      }
    } else if (kind == "timeslice" && name == "timeslice.paced") {
      read_paced(e, summary, where, raw);
    } else if (kind == "telemetry" && name == "telemetry.util_duty") {
      // Points whose NVML reads failed (null) or that fall outside 0-1 are left out with a warning.
      const json& points = summary.contains("points") && summary["points"].is_array() ? summary["points"]
                                                                                      : json::array();
      for (const json& p : points) {
        const auto busy = optional_number(p, "busy_share", where + ".summary.points", "point", raw.warnings);
        const auto util = optional_number(p, "nvml_gpu_util", where + ".summary.points", "point", raw.warnings);
        if (!busy || !util) continue;
        if (!(*busy >= 0 && *busy <= 1.05 && *util >= 0 && *util <= 1)) {
          raw.warnings.push_back(fmt::format("{}: a point with busy share {:g} and utilization {:g}: left out", where,
                                             *busy, *util));
          continue;
        }
        raw.util_duty.push_back({*busy, *util});
      }
    } else if (kind == "corun") {
      const json& params = object_at(e, "params");
      if (!params.contains("kernel_a") || !summary.contains("slowdown_a")) continue;
      CorunExperiment c;
      c.name = name;
      c.form = params.contains("form") && params["form"].is_string() ? params["form"].get<std::string>() : "";
      c.partition = params.contains("partition_label") && params["partition_label"].is_string()
                        ? params["partition_label"].get<std::string>()
                        : "";
      const json& part = object_at(params, "partition");
      c.a_sms = number_or(part, "a_sms", 0);
      c.b_sms = number_or(part, "b_sms", 0);
      c.a_cap = number_or(part, "a_active_thread_percentage", 100) / 100.0;
      c.b_cap = number_or(part, "b_active_thread_percentage", 100) / 100.0;
      if (c.form != "processes" && c.form != "streams" && c.form != "mps" && c.form != "green_ctx") {
        raw.warnings.push_back(fmt::format("{}: unknown co-run form '{}': left out", where, c.form));
        continue;
      }
      const bool caps_ok = c.a_cap > 0 && c.a_cap <= 1 && c.b_cap > 0 && c.b_cap <= 1;
      const bool sms_ok = c.a_sms >= 1 && c.b_sms >= 1 && c.a_sms < 1e6 && c.b_sms < 1e6;
      if ((c.form == "mps" && !caps_ok) || (c.form == "green_ctx" && !sms_ok)) {
        raw.warnings.push_back(fmt::format("{}: partition out of range (active threads {:g}% and {:g}%, SMs {:g} and "
                                           "{:g}): left out",
                                           where, 100 * c.a_cap, 100 * c.b_cap, c.a_sms, c.b_sms));
        continue;
      }
      // A pair cut before its first repeat (older hwcal) has null slowdowns: leave it out, keep the file.
      const auto a = kernel(member(params, "kernel_a"), where + ".kernel_a", raw.warnings);
      const auto b = kernel(member(params, "kernel_b"), where + ".kernel_b", raw.warnings);
      const auto slowdown_a = optional_number(summary, "slowdown_a", where + ".summary", "experiment", raw.warnings);
      const auto slowdown_b = optional_number(summary, "slowdown_b", where + ".summary", "experiment", raw.warnings);
      if (!a || !b || !slowdown_a || !slowdown_b) continue;
      c.a = *a;
      c.b = *b;
      c.slowdown_a = *slowdown_a;
      c.slowdown_b = *slowdown_b;
      for (auto [key, field] : {std::pair{"solo_full_a_s", &c.solo_full_a}, std::pair{"solo_full_b_s", &c.solo_full_b}}) {
        const json solo = summary.value(key, json());
        if (solo.is_object() && solo.contains("median") && solo["median"].is_number() &&
            std::isfinite(solo["median"].get<double>()) && solo["median"].get<double>() > 0)
          *field = solo["median"].get<double>();
      }
      raw.coruns.push_back(c);
    }
  }
  return raw;
}
}  // namespace

RawFile read_raw_file(const std::string& path) {
  std::string text;
  try {
    text = read_text_file(path, "raw measurement file");
  } catch (const InputError& e) {
    throw RawFormatError(e.what());
  }
  return parse_raw(text, path);
}

}  // namespace vgpusim
