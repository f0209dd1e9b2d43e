// Reads a scenario-like file once and tells its kind from its top-level `kind` key.
#include "sim/scenario/document.hpp"

#include "sim/io/files.hpp"
#include "sim/io/yaml_reader.hpp"

namespace vgpusim {

ScenarioDocument parse_scenario_document(const std::string& text, const std::string& file) {
  ScenarioDocument doc{file, parse_yaml(text, file), "scenario"};
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
