// Reads the LLM catalog with the strict reader and request traces (sim/io/llm_catalog.hpp).
#include "sim/io/llm_catalog.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <boost/algorithm/string/predicate.hpp>

#include "sim/core/errors.hpp"
#include "sim/io/text_fields.hpp"
#include "sim/io/yaml_reader.hpp"

namespace vgpusim {

extern const char* const kBuiltinLlmModelsText;  // generated from models/catalog/llm_models.yaml at build time

namespace {

const Section& llm_catalog_section() {
  static const Section s{"(llm models)", "LLM catalog file",
                         {{"version", "integer", true, "", "1"}, {"models", "list", true, "", "models"}}};
  return s;
}

const Section& model_section() {
  static const Section s{"models[]", "one model's shape",
                         {{"name", "string", true, "", ""},
                          {"source", "string", true, "", "where the shape comes from"},
                          {"vidur", "string", false, "", "its profile in the Vidur data"},
                          {"layers", "integer", true, "", "num_hidden_layers"},
                          {"hidden", "integer", true, "", "hidden_size"},
                          {"heads", "integer", true, "", "num_attention_heads"},
                          {"kv_heads", "integer", true, "", "num_key_value_heads"},
                          {"intermediate", "integer", true, "", "intermediate_size"},
                          {"vocab", "integer", true, "", "vocab_size"},
                          {"gated_mlp", "boolean", true, "", "SwiGLU"},
                          {"max_position", "integer", true, "", "max_position_embeddings"}}};
  return s;
}


}  // namespace

std::vector<LlmModelEntry> parse_llm_catalog(const std::string& text, const std::string& file) {
  const YAML::Node root = parse_yaml(text, file);
  MapReader top(file, root, "", llm_catalog_section());
  top.finish();
  if (top.integer("version", 1, 1) != 1) fail_at(file, top.node("version"), "version", "expected 1");
  const YAML::Node list = top.node("models");
  if (!list.IsSequence()) fail_at(file, list, "models", "expected a list of models");
  std::vector<LlmModelEntry> out;
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string path = fmt::format("models[{}]", i);
    MapReader r(file, list[i], path, model_section());
    r.finish();
    LlmModelEntry e;
    e.shape.name = r.string("name");
    for (const LlmModelEntry& other : out)
      if (boost::algorithm::iequals(other.shape.name, e.shape.name))
        fail_at(file, r.node("name"), r.child_path("name"), "duplicate model '" + e.shape.name + "'");
    e.source = r.string("source");
    if (r.has("vidur")) e.vidur = r.string("vidur");
    e.shape.layers = static_cast<int>(r.integer("layers", 1, 1000));
    e.shape.hidden = static_cast<double>(r.integer("hidden", 1, 1 << 20));
    e.shape.heads = static_cast<double>(r.integer("heads", 1, 1 << 16));
    e.shape.kv_heads = static_cast<double>(r.integer("kv_heads", 1, 1 << 16));
    e.shape.intermediate = static_cast<double>(r.integer("intermediate", 1, 1 << 22));
    e.shape.vocab = static_cast<double>(r.integer("vocab", 1, 1 << 24));
    e.shape.gated_mlp = r.boolean("gated_mlp");
    e.max_position = static_cast<double>(r.integer("max_position", 1, 1 << 24));
    const std::string error = llm_shape_error(e.shape, 1);
    if (!error.empty()) fail_at(file, list[i], path, error);
    out.push_back(std::move(e));
  }
  return out;
}

const std::vector<LlmModelEntry>& builtin_llm_models() {
  static const std::vector<LlmModelEntry> models =
      parse_llm_catalog(kBuiltinLlmModelsText, "models/catalog/llm_models.yaml");
  return models;
}

const LlmModelEntry* find_llm_model(const std::string& name) {
  for (const LlmModelEntry& e : builtin_llm_models())
    if (boost::algorithm::iequals(e.shape.name, name)) return &e;
  return nullptr;
}

std::vector<std::string> llm_model_names() {
  std::vector<std::string> out;
  for (const LlmModelEntry& e : builtin_llm_models()) out.push_back(e.shape.name);
  return out;
}

}  // namespace vgpusim
