// A file given to `vgpusim run`, read and parsed once: a GPU-level scenario, a plan (top-level `kind: plan`) or a
// cluster study (`kind: cluster`). The loaders of all three take it, so that a file is parsed once however it is
// dispatched.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>

namespace vgpusim {

struct ScenarioDocument {
  std::string file;
  YAML::Node root;
  std::string kind;  // "scenario", "plan" or "cluster"
  std::string hash;  // of the text it was parsed from: "fnv1a64:" and 16 hex digits
};

// A short fingerprint of a text (FNV-1a, 64 bits) as "fnv1a64:<16 hex digits>": tells two results files whether
// they came from the same scenario text. Not a cryptographic hash.
std::string text_fingerprint(const std::string& text);

// Throws InputError when the file cannot be read ("PATH: cannot open the WHAT") or is not YAML
// ("FILE:LINE:COL: YAML syntax error: ...").
ScenarioDocument read_scenario_document(const std::string& path, const std::string& what = "scenario file");
ScenarioDocument parse_scenario_document(const std::string& text, const std::string& file);

}  // namespace vgpusim
