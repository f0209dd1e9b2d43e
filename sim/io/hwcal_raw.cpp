// Reads a hwcal raw file. Unknown experiments are ignored (the format may grow); experiments that were skipped or
// failed are listed so that `fit` can say what it had to do without.
#include "sim/io/hwcal_raw.hpp"

#include <fmt/format.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace vgpusim {
namespace {

using nlohmann::json;

double number(const json& j, const char* key, const std::string& where) {
  if (!j.contains(key) || !j[key].is_number())
    throw RawFormatError(fmt::format("{}: expected a number at '{}'", where, key));
  return j[key].get<double>();
}

std::optional<RawStats> stats(const json& j) {
  if (!j.is_object() || !j.contains("median") || !j["median"].is_number()) return std::nullopt;
  RawStats s;
  s.median = j["median"].get<double>();
  s.p10 = j.value("p10", s.median);
  s.p90 = j.value("p90", s.median);
  s.n = j.value("n", 1);
  return s;
}

CorunKernel kernel(const json& k, const std::string& where) {
  CorunKernel out;
  out.kind = k.value("kind", "");
  out.flops = k.contains("flops") && k["flops"].is_number() ? k["flops"].get<double>() : 0.0;
  out.bytes = k.contains("bytes") && k["bytes"].is_number() ? k["bytes"].get<double>() : 0.0;
  out.blocks_per_launch = number(k, "blocks_per_launch", where);
  out.launches = static_cast<int>(number(k, "launches", where));
  return out;
}

}  // namespace

RawFile parse_raw(const std::string& text, const std::string& file) {
  json root;
  try {
    root = json::parse(text);
  } catch (const json::parse_error& e) {
    throw RawFormatError(fmt::format("{}: not JSON: {}", file, e.what()));
  }
  if (root.value("schema", "") != "vgpusim.hwcal.raw/1")
    throw RawFormatError(fmt::format("{}: expected schema vgpusim.hwcal.raw/1, found '{}'", file,
                                     root.contains("schema") ? root["schema"].dump() : "nothing"));
  RawFile raw;
  raw.file = file;
  const json& env = root.value("environment", json::object());
  const json& dev = env.value("device", json::object());
  raw.device.name = dev.value("name", "");
  raw.device.sm_count = number(dev, "sm_count", file + ": environment.device");
  raw.device.memory = dev.contains("total_memory_bytes") ? dev["total_memory_bytes"].get<double>() : 0.0;
  const json& nvml = env.value("nvml", json::object());
  if (nvml.contains("driver_version") && nvml["driver_version"].is_string()) raw.device.driver = nvml["driver_version"];
  raw.device.date = env.value("date_utc", "");

  for (const json& e : root.value("experiments", json::array())) {
    const std::string name = e.value("name", "");
    const std::string kind = e.value("kind", "");
    const std::string where = fmt::format("{}: experiment {}", file, name);
    if (e.contains("skipped") && e["skipped"].is_string()) {
      raw.not_measured.push_back(name + ": skipped: " + e["skipped"].get<std::string>());
      continue;
    }
    if (e.contains("error") && e["error"].is_string()) {
      raw.not_measured.push_back(name + ": error: " + e["error"].get<std::string>());
      continue;
    }
    const json& summary = e.value("summary", json::object());
    if (kind == "bandwidth") {
      const auto s = stats(summary.value("bytes_per_s", json()));
      if (!s) continue;
      if (name == "bandwidth.copy") raw.copy_bytes_per_s = s;
      if (name == "bandwidth.triad") raw.triad_bytes_per_s = s;
    } else if (kind == "bandwidth_sm_scaling") {
      for (const json& p : summary.value("points", json::array())) {
        const auto s = stats(p.value("bytes_per_s", json()));
        if (s) raw.bandwidth_vs_sms.push_back({number(p, "distinct_sms", where), s->median});
      }
    } else if (kind == "compute" && name == "compute.fp32_fma") {
      raw.fp32_flops_per_s = stats(summary.value("flops_per_s", json()));
    } else if (kind == "gemm") {
      raw.gemm_flops_per_s = stats(summary.value("flops_per_s", json()));
    } else if (kind == "timeslice") {
      const json& pair = summary.value("pair", json::object());
      raw.slice = stats(pair.value("slice_s", json()));
      raw.switch_cost = stats(pair.value("switch_s", json()));
    } else if (kind == "corun") {
      const json& params = e.value("params", json::object());
      if (!params.contains("kernel_a") || !summary.contains("slowdown_a")) continue;
      CorunExperiment c;
      c.name = name;
      c.form = params.value("form", "");
      c.partition = params.contains("partition_label") && params["partition_label"].is_string()
                        ? params["partition_label"].get<std::string>()
                        : "";
      const json& part = params.value("partition", json::object());
      auto field = [&](const char* key, double fallback) {
        return part.contains(key) && part[key].is_number() ? part[key].get<double>() : fallback;
      };
      c.a_sms = field("a_sms", 0);
      c.b_sms = field("b_sms", 0);
      c.a_cap = field("a_active_thread_percentage", 100) / 100.0;
      c.b_cap = field("b_active_thread_percentage", 100) / 100.0;
      c.a = kernel(params["kernel_a"], where + ".kernel_a");
      c.b = kernel(params["kernel_b"], where + ".kernel_b");
      c.slowdown_a = number(summary, "slowdown_a", where + ".summary");
      c.slowdown_b = number(summary, "slowdown_b", where + ".summary");
      raw.coruns.push_back(c);
    }
  }
  return raw;
}

RawFile read_raw_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw RawFormatError(fmt::format("{}: cannot open the raw measurement file", path));
  std::ostringstream text;
  text << in.rdbuf();
  return parse_raw(text.str(), path);
}

}  // namespace vgpusim
