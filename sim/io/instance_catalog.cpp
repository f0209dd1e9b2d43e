// Reads the instance catalog with the strict reader (FILE:LINE:COL errors, unknown keys refused) and checks every
// GPU model against the GPU catalog.
#include "sim/io/instance_catalog.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "sim/io/gpu_catalog.hpp"
#include "sim/io/yaml_reader.hpp"

namespace vgpusim {

extern const char* const kBuiltinInstancesText;  // generated from models/catalog/instances.yaml at build time

const Instance* InstanceCatalog::find(const std::string& name) const {
  for (const Instance& i : instances)
    if (i.name == name) return &i;
  return nullptr;
}

namespace {

const Section& instance_catalog_section() {
  static const Section s{"(instances)", "instance catalog file",
                         {{"version", "integer", true, "", "1"},
                          {"sources", "mapping", true, "", "source key -> citation"},
                          {"instances", "list", true, "", "instance types"}}};
  return s;
}

const Section& instance_section() {
  static const Section s{"instances[]", "one instance type",
                         {{"name", "string", true, "", ""},
                          {"provider", "aws|gcp|azure", true, "", ""},
                          {"notes", "string", false, "", ""},
                          {"gpu_model", "sourced string", true, "", "GPU catalog name"},
                          {"gpu_count", "sourced count", true, "", "GPUs (fraction for SR-IOV slices)"},
                          {"vcpus", "sourced count", true, "", ""},
                          {"memory", "sourced bytes", true, "", "host RAM"},
                          {"network", "sourced bandwidth", false, "", "instance network bandwidth"},
                          {"region", "sourced string", true, "", "where the price applies"},
                          {"on_demand", "sourced price", true, "", "on-demand price per hour, with date"},
                          {"spot_discount", "sourced range", true, "", "{min, max} fraction off on-demand"}}};
  return s;
}

const Section& instance_sourced_value() {
  static const Section s{"value", "a value with its source",
                         {{"value", "value", true, "", ""},
                          {"source", "string", true, "", ""},
                          {"date", "string", false, "", "when a price was read"},
                          {"uncertain", "string", false, "", ""}}};
  return s;
}

const Section& sourced_range() {
  static const Section s{"range", "a range with its source",
                         {{"min", "ratio", true, "", ""},
                          {"max", "ratio", true, "", ""},
                          {"source", "string", true, "", ""},
                          {"uncertain", "string", false, "", ""}}};
  return s;
}

}  // namespace

InstanceCatalog parse_instance_catalog(const std::string& text, const std::string& file, const Catalog& gpus) {
  YAML::Node root = parse_yaml(text, file);
  InstanceCatalog cat;
  MapReader top(file, root, "", instance_catalog_section());
  top.finish();
  if (top.integer("version", 1, 1) != 1) fail_at(file, top.node("version"), "version", "expected 1");
  cat.sources = read_sources(file, top.node("sources"));

  const YAML::Node list = top.node("instances");
  if (!list.IsSequence()) fail_at(file, list, "instances", "expected a list of instance types");
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string path = fmt::format("instances[{}]", i);
    MapReader r(file, list[i], path, instance_section());
    r.finish();
    Instance inst;
    inst.name = r.string("name");
    if (cat.find(inst.name)) fail_at(file, r.node("name"), path + ".name", "duplicate instance '" + inst.name + "'");
    inst.provider = r.choice("provider", {"aws", "gcp", "azure"});
    inst.notes = r.has("notes") ? r.string("notes") : "";
    auto note_source = [&](const MapReader& v, const std::string& key) {
      const std::string src = v.string("source");
      if (!cat.sources.count(src))
        fail_at(file, v.node("source"), v.child_path("source"), "unknown source key '" + src + "'");
      inst.source[key] = src;
      if (v.has("uncertain")) inst.uncertain[key] = v.string("uncertain");
    };
    auto sourced = [&](const std::string& key, const Section& section) -> MapReader {
      MapReader v(file, r.node(key), r.child_path(key), section);
      v.finish();
      note_source(v, key);
      return v;
    };
    auto positive = [&](const std::string& key, units::Dim dim) {
      MapReader v = sourced(key, instance_sourced_value());
      const double x = v.quantity("value", dim);
      if (!(x > 0)) fail_at(file, v.node("value"), v.child_path("value"), "expected a positive value");
      return x;
    };
    {
      MapReader v = sourced("gpu_model", instance_sourced_value());
      inst.gpu_model = v.string("value");
      if (!gpus.find(inst.gpu_model)) {
        const std::string hint = did_you_mean(inst.gpu_model, gpus.names());
        fail_at(file, v.node("value"), v.child_path("value"),
                "unknown GPU '" + inst.gpu_model + "' (not in the GPU catalog)" +
                    (hint.empty() ? "" : "; did you mean '" + hint + "'?"));
      }
    }
    inst.gpu_count = positive("gpu_count", units::Dim::Count);
    inst.vcpus = positive("vcpus", units::Dim::Count);
    inst.memory = positive("memory", units::Dim::Bytes);
    if (r.has("network")) inst.network = positive("network", units::Dim::Bandwidth);
    inst.region = sourced("region", instance_sourced_value()).string("value");
    {
      MapReader v = sourced("on_demand", instance_sourced_value());
      inst.on_demand = v.quantity("value", units::Dim::MoneyRate);
      if (!(inst.on_demand > 0)) fail_at(file, v.node("value"), v.child_path("value"), "expected a positive price");
      if (!v.has("date")) fail_at(file, v.node(), v.path(), "a price needs `date` (when it was read)");
      inst.price_date = v.string("date");
    }
    {
      MapReader v = sourced("spot_discount", sourced_range());
      inst.spot_discount_min = v.quantity("min", units::Dim::Ratio);
      inst.spot_discount_max = v.quantity("max", units::Dim::Ratio);
      if (!(inst.spot_discount_min >= 0 && inst.spot_discount_min <= inst.spot_discount_max &&
            inst.spot_discount_max < 1))
        fail_at(file, v.node("max"), v.child_path("max"), "expected 0 <= min <= max < 100%");
    }
    cat.instances.push_back(std::move(inst));
  }
  return cat;
}

const InstanceCatalog& builtin_instance_catalog() {
  static const InstanceCatalog cat =
      parse_instance_catalog(kBuiltinInstancesText, "models/catalog/instances.yaml", builtin_catalog());
  return cat;
}

}  // namespace vgpusim
