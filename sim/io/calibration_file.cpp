// Writes and reads calibration files with the strict reader: unknown keys and unit errors name their place.
#include "sim/io/calibration_file.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>


#include "models/registry/models.hpp"
#include "sim/io/files.hpp"
#include "sim/io/yaml_reader.hpp"

namespace vgpusim {
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
    default: return fmt::format("{:.9g}", si);
  }
}

}  // namespace

ParamOverrides Calibration::overrides() const {
  ParamOverrides o;
  for (const FittedValue& v : values) o[v.name] = v.value;
  return o;
}

std::string calibration_yaml(const Calibration& c) {
  std::string out = fmt::format(
      "# Fitted by `vgpusim fit` from hwcal measurements. A scenario that names this file in gpus[].calibration\n"
      "# uses these values instead of the models' defaults for that GPU (its own explicit values still win).\n"
      "version: 1\ngpu: {}\nmeasured: {{device: {}, driver: {}, date: {}, raw: {}}}\nparameters:\n",
      c.gpu, quoted(c.device), quoted(c.driver), quoted(c.date), quoted(c.raw));
  for (const FittedValue& v : c.values)
    out += fmt::format("  {}: {{value: {}, uncertainty: {}, residual: {:.6g}, points: {}, from: {}}}  # {}\n", v.name,
                       exact(v.value, v.dim), exact(v.uncertainty, v.dim), v.residual, v.points, quoted(v.from),
                       units::format(v.value, v.dim));
  return out;
}

Calibration read_calibration_file(const std::string& path) {
  YAML::Node root = parse_yaml(read_text_file(path, "calibration file"), path);
  static const Section top{"(calibration)", "",
                           {{"version", "", true, "", ""},
                            {"gpu", "", true, "", ""},
                            {"measured", "", false, "", ""},
                            {"parameters", "", true, "", ""}}};
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
    MapReader m(path, r.get("measured"), "measured", measured);
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
  const YAML::Node list = r.get("parameters");
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
    MapReader v(path, p.get(name), p.child_path(name), value);
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
  return c;
}

}  // namespace vgpusim
