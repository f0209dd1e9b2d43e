// Scenario loading: YAML text (plus --set overrides) -> validated Scenario, or an InputError naming
// FILE:LINE:COL and the key path. The key tables (sections.cpp, the workload kinds' files) also generate
// docs/scenario-reference.md.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "sim/io/gpu_catalog.hpp"
#include "sim/scenario/document.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/io/yaml_reader.hpp"

namespace vgpusim {

struct Override {
  std::string path;   // e.g. "tenants[0].workload.training.iterations" or "sharing.g0.slice"
  std::string value;  // YAML scalar text
};

// Parses "key.path=value" as given to --set. Throws InputError.
Override parse_override(const std::string& text);

// Applies `overrides` to the document's tree, then loads it. It consumes the document: a copy would share the
// tree (yaml-cpp nodes are references) and see the overrides too.
Scenario load_scenario(ScenarioDocument&& doc, const Catalog& catalog,
                       const std::vector<Override>& overrides = {});
Scenario load_scenario_text(const std::string& text, const std::string& file, const Catalog& catalog,
                            const std::vector<Override>& overrides = {});
Scenario load_scenario_file(const std::string& path, const Catalog& catalog,
                            const std::vector<Override>& overrides = {});

// A documented section by its path (the scenario format's, a plan file's, or a workload kind's).
const Section& section_named(const std::string& path);
// The documented sections of the scenario format, in document order (the workload kinds' from their registry).
std::vector<Section> scenario_sections();
// docs/scenario-reference.md, generated from the sections and the model parameter tables.
std::string scenario_reference_markdown();

}  // namespace vgpusim
