// Reads the GPU catalog with the strict reader, so a mistake in the data file gets FILE:LINE:COL too.
#include "sim/io/gpu_catalog.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "sim/io/yaml_reader.hpp"

namespace vgpusim {

extern const char* const kBuiltinCatalogText;  // generated from models/catalog/gpus.yaml at build time

const std::vector<GpuField>& gpu_fields() {
  using units::Dim;
  static const std::vector<GpuField> fields = {
      {"compute_units", static_cast<int>(Dim::Count), &GpuSpec::compute_units, "SMs (NVIDIA), CUs (AMD), cores (cpu)"},
      {"boost_clock", static_cast<int>(Dim::Frequency), &GpuSpec::boost_clock, "boost clock"},
      {"fp64", static_cast<int>(Dim::FlopRate), &GpuSpec::fp64, "FP64 rate (non-tensor)"},
      {"fp32", static_cast<int>(Dim::FlopRate), &GpuSpec::fp32, "FP32 rate"},
      {"fp16_tensor", static_cast<int>(Dim::FlopRate), &GpuSpec::fp16_tensor, "dense FP16/BF16 matrix rate"},
      {"memory", static_cast<int>(Dim::Bytes), &GpuSpec::memory, "device memory capacity"},
      {"memory_bandwidth", static_cast<int>(Dim::Bandwidth), &GpuSpec::memory_bandwidth, "device memory bandwidth"},
      {"l2_cache", static_cast<int>(Dim::Bytes), &GpuSpec::l2_cache, "L2 cache size"},
      {"host_link", static_cast<int>(Dim::Bandwidth), &GpuSpec::host_link, "host link bandwidth per direction"},
      {"tdp", static_cast<int>(Dim::Power), &GpuSpec::tdp, "thermal design power"},
  };
  return fields;
}

const CatalogEntry* Catalog::find(const std::string& name) const {
  for (const CatalogEntry& e : gpus)
    if (e.spec.name == name) return &e;
  return nullptr;
}

std::vector<std::string> Catalog::names() const {
  std::vector<std::string> v;
  for (const CatalogEntry& e : gpus) v.push_back(e.spec.name);
  return v;
}

namespace {

const Section& catalog_top() {
  static const Section s{"(catalog)", "GPU catalog file", {{"version", "integer", true, "", "1"},
                                                           {"sources", "mapping", true, "", "source key -> citation"},
                                                           {"gpus", "list", true, "", "devices"}}};
  return s;
}

const Section& catalog_gpu() {
  static const Section s = [] {
    Section sec{"gpus[]", "one device", {}};
    sec.keys = {{"name", "string", true, "", ""},         {"vendor", "string", true, "", ""},
                {"kind", "gpu|cpu", true, "", ""},        {"architecture", "string", true, "", ""},
                {"notes", "string", false, "", ""},       {"mig", "sourced bool", true, "", ""},
                {"threads_per_sm", "sourced value", false, "",
                 "resident threads per SM (NVIDIA); without it kernels' occupancy is not modelled"},
                {"blocks_per_sm", "sourced value", false, "",
                 "resident thread blocks per SM at most (NVIDIA); without it the thread count alone sets them"}};
    for (const GpuField& f : gpu_fields()) sec.keys.push_back({f.name, "sourced value", true, "", f.help});
    return sec;
  }();
  return s;
}

const Section& gpu_sourced_value() {
  static const Section s{"value", "a value with its source",
                         {{"value", "value", true, "", ""},
                          {"source", "string", true, "", ""},
                          {"uncertain", "string", false, "", ""}}};
  return s;
}

}  // namespace

Catalog parse_catalog(const std::string& text, const std::string& file) {
  YAML::Node root = parse_yaml(text, file);
  Catalog cat;
  MapReader top(file, root, "", catalog_top());
  top.finish();
  if (top.integer("version", 1, 1) != 1) fail_at(file, top.node("version"), "version", "expected 1");
  cat.sources = read_sources(file, top.node("sources"));

  const YAML::Node gpus = top.node("gpus");
  if (!gpus.IsSequence()) fail_at(file, gpus, "gpus", "expected a list of devices");
  for (size_t i = 0; i < gpus.size(); ++i) {
    const std::string path = fmt::format("gpus[{}]", i);
    MapReader g(file, gpus[i], path, catalog_gpu());
    g.finish();
    CatalogEntry e;
    e.spec.name = g.string("name");
    if (cat.find(e.spec.name)) fail_at(file, g.node("name"), path + ".name", "duplicate device '" + e.spec.name + "'");
    e.spec.vendor = g.string("vendor");
    e.spec.kind = g.choice("kind", {"gpu", "cpu"});
    e.spec.architecture = g.string("architecture");
    e.notes = g.has("notes") ? g.string("notes") : "";
    auto read_sourced = [&](const std::string& key) -> MapReader {
      MapReader v(file, g.node(key), g.child_path(key), gpu_sourced_value());
      v.finish();
      const std::string src = v.string("source");
      if (!cat.sources.count(src))
        fail_at(file, v.node("source"), v.child_path("source"), "unknown source key '" + src + "'");
      e.source[key] = src;
      if (v.has("uncertain")) e.uncertain[key] = v.string("uncertain");
      return v;
    };
    for (const GpuField& f : gpu_fields()) {
      MapReader v = read_sourced(f.name);
      e.spec.*f.member = v.quantity("value", static_cast<units::Dim>(f.dim));
      if (!(e.spec.*f.member > 0)) fail_at(file, v.node("value"), v.child_path("value"), "expected a positive value");
    }
    e.spec.mig = read_sourced("mig").boolean("value");
    if (g.has("threads_per_sm")) {
      MapReader v = read_sourced("threads_per_sm");
      e.spec.threads_per_sm = static_cast<double>(v.integer("value", 32, 65536));
    }
    if (g.has("blocks_per_sm")) {
      MapReader v = read_sourced("blocks_per_sm");
      e.spec.blocks_per_sm = static_cast<double>(v.integer("value", 1, 1024));
    }
    cat.gpus.push_back(std::move(e));
  }
  return cat;
}

const Catalog& builtin_catalog() {
  static const Catalog cat = parse_catalog(kBuiltinCatalogText, "models/catalog/gpus.yaml");
  return cat;
}

}  // namespace vgpusim
