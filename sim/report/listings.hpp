// What `vgpusim list` prints: the GPU and instance catalogs with their sources, every model with its parameters
// (type, unit or allowed words, default, range, per tenant), and the scenario keys.
#pragma once

#include <string>
#include <vector>

#include "sim/io/yaml_reader.hpp"

namespace vgpusim {

std::string gpus_listing(bool sources);
std::string instances_listing(bool sources);
// The LLM catalog (models/catalog/llm_models.yaml): shape, weights and KV cache per token; with `sources`, where
// each shape comes from.
std::string llm_models_listing(bool sources);
std::string models_listing();
// The generated parameter blocks of docs/models/*.md: of one model, or of every model when `model` is "".
// Throws InputError for an unknown model.
std::string models_markdown(const std::string& model);
// Every key of `sections`, one per line (section.key).
std::string keys_listing(const std::vector<Section>& sections);

}  // namespace vgpusim
