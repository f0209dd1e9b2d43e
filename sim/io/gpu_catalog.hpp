// The GPU catalog: models/catalog/gpus.yaml (compiled in) or a user's file, read into GpuSpecs with each value's
// source and, where the source is shaky, why.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "models/gpu/gpu_spec.hpp"

namespace vgpusim {

struct CatalogEntry {
  GpuSpec spec;
  std::string notes;
  std::map<std::string, std::string> source;     // field -> source key
  std::map<std::string, std::string> uncertain;  // field -> reason
};

struct Catalog {
  std::map<std::string, std::string> sources;  // key -> citation
  std::vector<CatalogEntry> gpus;              // file order

  const CatalogEntry* find(const std::string& name) const;
  std::vector<std::string> names() const;
};

// Parses catalog text; `file` names it in messages. Throws InputError.
Catalog parse_catalog(const std::string& text, const std::string& file);
// The catalog shipped in models/catalog/gpus.yaml.
const Catalog& builtin_catalog();

// The numeric GpuSpec fields a scenario may override, with their units (for the reader and the docs).
struct GpuField {
  const char* name;
  int dim;  // units::Dim
  double GpuSpec::*member;
  const char* help;
};
const std::vector<GpuField>& gpu_fields();

}  // namespace vgpusim
