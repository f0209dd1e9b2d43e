// The generated parts of the docs, from the tables the code enforces: key references (docs/scenario-reference.md,
// docs/cluster.md) from Sections, and parameter tables (docs/models/*.md) from ParamSpecs. Tests check that the
// docs hold exactly what these print (tools/update-docs.sh rewrites them).
#pragma once

#include <string>
#include <vector>

#include "models/descriptions/model_descriptions.hpp"
#include "sim/io/yaml_reader.hpp"

namespace vgpusim {

// One heading and key table per section; `heading` is the Markdown heading mark ("##", "###"), `top_level` names
// the section with the empty path.
std::string keys_markdown(const std::vector<Section>& sections, const std::string& heading,
                          const std::string& top_level);

// A table of parameters: qualified name, type, default, range, per tenant, meaning, source.
std::string parameters_markdown(const std::vector<ParamSpec>& params);

// The block of docs/models/<page> that lists `model`'s parameters, between markers that name it (tools/update-docs.sh
// finds them).
std::string model_parameters_block(const ModelDescription& model);

}  // namespace vgpusim
