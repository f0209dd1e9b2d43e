// Writes and reads calibration files with the strict reader: unknown keys and unit errors name their place.
#include "sim/io/calibration_file.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>


#include "models/descriptions/model_descriptions.hpp"
#include "sim/io/embedded.hpp"
#include "sim/io/files.hpp"
#include "sim/io/yaml_reader.hpp"

namespace vgpusim {

extern const EmbeddedFile kBuiltinCalibrations[];  // generated from models/calibration/*.yaml at build time
extern const int kBuiltinCalibrationsCount;

namespace {

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) out += c == '"' || c == '\\' ? std::string("\\") + c : std::string(1, c);
  return out + "\"";
}

// Full precision in the file: the people-facing format rounds to 4 digits.
std::string exact(double si, units::Dim dim) {
  switch (dim) {
    case units::Dim::Time: return fmt::format("{:.9g}s", si);
    case units::Dim::Ratio: return fmt::format("{:.9g}", si);
    case units::Dim::Bandwidth: return fmt::format("{:.9g}B/s", si);
    case units::Dim::Bytes: return fmt::format("{:.9g}B", si);
    default: return fmt::format("{:.9g}", si);
  }
}

}  // namespace

ParamOverrides Calibration::overrides() const {
  ParamOverrides o;
  for (const FittedValue& v : values) o[v.name] = v.value;
  return o;
}

const std::vector<std::pair<std::string, units::Dim>>& calibration_fact_names() {
  static const std::vector<std::pair<std::string, units::Dim>> names = {
      {"launch_overhead", units::Dim::Time}, {"min_kernel_time", units::Dim::Time}, {"l2_knee", units::Dim::Bytes}};
  return names;
}

std::string calibration_yaml(const Calibration& c) {
  std::vector<std::string> measured;  // the fields known (a published source has no driver or date)
  for (const auto& [key, value] : {std::pair{"device", &c.device}, {"driver", &c.driver}, {"date", &c.date},
                                   {"raw", &c.raw}})
    if (!value->empty()) measured.push_back(fmt::format("{}: {}", key, quoted(*value)));
  std::string out = fmt::format(
      "# Fitted by `vgpusim fit` from {}. A scenario on this GPU model uses these values\n"
      "# instead of the models' defaults (its own explicit values still win).\n"
      "version: 1\ngpu: {}\nmeasured: {{{}}}\nparameters:{}\n",
      c.raw.find("gpu-benches") != std::string::npos ? "published measurements"
      : c.facts.empty() ? "hwcal measurements"
                        : "hwcal measurements and published facts",
      c.gpu, fmt::join(measured, ", "), c.values.empty() ? " {}" : "");
  for (const FittedValue& v : c.values)
    out += fmt::format("  {}: {{value: {}, uncertainty: {}, residual: {:.6g}, points: {}, from: {}}}  # {}\n", v.name,
                       exact(v.value, v.dim), exact(v.uncertainty, v.dim), v.residual, v.points, quoted(v.from),
                       units::format(v.value, v.dim));
  if (!c.facts.empty()) {
    out += "# Measured facts no model parameter holds yet.\nfacts:\n";
    for (const CalibrationFact& f : c.facts)
      out += fmt::format("  {}: {{value: {}, from: {}}}  # {}\n", f.name,
                         f.dim == units::Dim::Bytes ? fmt::format("{:.9g}B", f.value) : exact(f.value, f.dim),
                         quoted(f.from), units::format(f.value, f.dim));
  }
  return out;
}

Calibration read_calibration_file(const std::string& path) {
  return read_calibration_text(read_text_file(path, "calibration file"), path);
}

Calibration read_calibration_text(const std::string& text, const std::string& path) {
  YAML::Node root = parse_yaml(text, path);
  static const Section top{"(calibration)", "",
                           {{"version", "", true, "", ""},
                            {"gpu", "", true, "", ""},
                            {"measured", "", false, "", ""},
                            {"parameters", "", true, "", ""},
                            {"facts", "", false, "", ""}}};
  static const Section measured{"measured", "",
                                {{"device", "", false, "", ""},
                                 {"driver", "", false, "", ""},
                                 {"date", "", false, "", ""},
                                 {"raw", "", false, "", ""}}};
  static const Section value{"parameter", "",
                             {{"value", "", true, "", ""},
                              {"uncertainty", "", false, "", ""},
                              {"residual", "", false, "", ""},
                              {"points", "", false, "", ""},
                              {"from", "", false, "", ""}}};
  MapReader r(path, root, "", top);
  r.finish();
  r.integer("version", 1, 1);
  Calibration c;
  c.gpu = r.string("gpu");
  if (r.has("measured")) {
    MapReader m(path, r.node("measured"), "measured", measured);
    m.finish();
    for (const auto& [key, field] : {std::pair{"device", &c.device}, {"driver", &c.driver}, {"date", &c.date},
                                     {"raw", &c.raw}})
      if (m.has(key)) *field = m.string(key);
  }
  // Parameters by their qualified name (timeslice.slice, roofline.memory_efficiency): a bare name would be
  // ambiguous (timeslice, vgpu and sriov each have a slice).
  const std::vector<ParamSpec> known = calibratable_params();
  Section params{"parameters", "", {}};
  for (const ParamSpec& k : known) params.keys.push_back({k.qualified(), "", false, "", ""});
  const YAML::Node list = r.node("parameters");
  if (list.IsMap())
    for (auto it = list.begin(); it != list.end(); ++it) {
      const std::string key = it->first.IsScalar() ? it->first.Scalar() : "";
      if (key.find('.') != std::string::npos) continue;  // unknown qualified names: MapReader::finish says so
      std::vector<std::string> owners;
      for (const ParamSpec& k : known)
        if (k.name == key) owners.push_back(fmt::format("'{}'", k.qualified()));
      fail_at(path, it->first, "parameters." + key,
              owners.empty() ? fmt::format("unknown parameter '{}': parameters are named model.parameter", key)
                             : fmt::format("parameters are named model.parameter: did you mean {}?",
                                           fmt::join(owners, " or ")));
    }
  MapReader p(path, list, "parameters", params);
  p.finish();
  for (const ParamSpec& k : known) {
    const std::string name = k.qualified();
    if (!p.has(name)) continue;
    MapReader v(path, p.node(name), p.child_path(name), value);
    v.finish();
    FittedValue f;
    f.name = name;
    f.dim = k.dim;
    // Not held to the parameter's scenario bounds: a fit may land outside them (an efficiency measured above the
    // datasheet) and says so in its residual and source.
    f.value = v.quantity("value", k.dim);
    f.uncertainty = v.has("uncertainty") ? v.quantity("uncertainty", k.dim) : 0;
    f.residual = v.has("residual") ? v.quantity("residual", units::Dim::Count) : 0;
    f.points = v.has("points") ? static_cast<int>(v.integer("points", 0, 1 << 30)) : 0;
    f.from = v.has("from") ? v.string("from") : "";
    c.values.push_back(f);
  }
  if (r.has("facts")) {
    Section facts{"facts", "", {}};
    for (const auto& [name, dim] : calibration_fact_names()) facts.keys.push_back({name, "", false, "", ""});
    static const Section fact{"fact", "", {{"value", "", true, "", ""}, {"from", "", false, "", ""}}};
    MapReader fr(path, r.node("facts"), "facts", facts);
    fr.finish();
    for (const auto& [name, dim] : calibration_fact_names()) {
      if (!fr.has(name)) continue;
      MapReader v(path, fr.node(name), fr.child_path(name), fact);
      v.finish();
      c.facts.push_back({name, dim, v.quantity("value", dim), v.has("from") ? v.string("from") : ""});
    }
  }
  return c;
}

namespace {
const std::map<std::string, Calibration>& builtin_calibrations() {
  static const std::map<std::string, Calibration> all = [] {
    std::map<std::string, Calibration> m;
    for (int i = 0; i < kBuiltinCalibrationsCount; ++i) {
      Calibration c = read_calibration_text(kBuiltinCalibrations[i].text, kBuiltinCalibrations[i].path);
      c.raw = c.raw.empty() ? kBuiltinCalibrations[i].path : c.raw;
      m[c.gpu] = std::move(c);
    }
    return m;
  }();
  return all;
}
}  // namespace

const Calibration* builtin_calibration(const std::string& gpu) {
  const auto& all = builtin_calibrations();
  const auto it = all.find(gpu);
  return it == all.end() ? nullptr : &it->second;
}

ParamOverrides builtin_overrides(const std::string& gpu) {
  const Calibration* c = builtin_calibration(gpu);
  return c ? c->overrides() : ParamOverrides{};
}

std::vector<std::string> builtin_calibration_gpus() {
  std::vector<std::string> out;
  for (const auto& [gpu, c] : builtin_calibrations()) out.push_back(gpu);
  return out;
}

}  // namespace vgpusim
