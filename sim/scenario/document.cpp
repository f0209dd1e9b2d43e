// Reads a scenario-like file once and tells its kind from its top-level `kind` key.
#include "sim/scenario/document.hpp"

#include <fmt/format.h>

#include <cstdint>

#include "sim/io/files.hpp"
#include "sim/io/yaml_reader.hpp"

namespace vgpusim {

std::string text_fingerprint(const std::string& text) {
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return fmt::format("fnv1a64:{:016x}", h);
}

ScenarioDocument parse_scenario_document(const std::string& text, const std::string& file) {
  ScenarioDocument doc{file, parse_yaml(text, file), "scenario", text_fingerprint(text)};
  const YAML::Node& root = doc.root;
  if (root.IsMap() && root["kind"] && root["kind"].IsScalar()) {
    const std::string kind = root["kind"].Scalar();
    // Any other value is left to the scenario loader, which refuses `kind` as an unknown key.
    if (kind == "plan" || kind == "cluster") doc.kind = kind;
  }
  return doc;
}

ScenarioDocument read_scenario_document(const std::string& path, const std::string& what) {
  return parse_scenario_document(read_text_file(path, what), path);
}

}  // namespace vgpusim
