// LLM request traces (CSV: arrival s, prompt tokens, output tokens), as an `llm` workload replays them.
#pragma once

#include <string>
#include <vector>

#include "models/workload/llm.hpp"

namespace vgpusim {

// A request trace: a header naming arrived_at, num_prefill_tokens and num_decode_tokens (Vidur's processed Azure
// traces), one request per line, arrivals in s from the start, not decreasing. Throws InputError (FILE:LINE: what)
// for a negative or missing number, a request without prompt or output tokens, or an arrival before the one above.
std::vector<LlmRequest> read_llm_trace(const std::string& path);

}  // namespace vgpusim
