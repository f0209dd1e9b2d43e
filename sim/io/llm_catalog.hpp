// The LLM catalog (models/catalog/llm_models.yaml, compiled in): transformer shapes an `llm` workload names, each
// with its source. The request traces it replays are sim/io/llm_trace.hpp.
#pragma once

#include <string>
#include <vector>

#include "models/workload/llm.hpp"

namespace vgpusim {

struct LlmModelEntry {
  LlmShape shape;           // name, layers, sizes
  double max_position = 0;  // tokens the model was trained for (max_position_embeddings)
  std::string source;       // where the shape comes from
  std::string vidur;        // its profile in scenarios/measurements/vidur, "" when none
};

// Parses catalog text; `file` names it in messages (FILE:LINE:COL). Throws InputError, also for a shape that is
// not consistent (llm_shape_error).
std::vector<LlmModelEntry> parse_llm_catalog(const std::string& text, const std::string& file);
const std::vector<LlmModelEntry>& builtin_llm_models();
// By name, case-insensitive; nullptr when unknown.
const LlmModelEntry* find_llm_model(const std::string& name);
std::vector<std::string> llm_model_names();

}  // namespace vgpusim
