// Reading LLM request traces (llm_trace.hpp).
#include "sim/io/llm_trace.hpp"

#include <fmt/format.h>

#include "sim/core/errors.hpp"
#include "sim/io/text_fields.hpp"

namespace vgpusim {

std::vector<LlmRequest> read_llm_trace(const std::string& path) {
  std::vector<LlmRequest> out;
  read_csv(path, {"arrived_at", "num_prefill_tokens", "num_decode_tokens"}, [&](const CsvRow& c) {
    LlmRequest r;
    r.arrival = c.number("arrived_at");
    r.prompt = c.integer("num_prefill_tokens");
    r.output = c.integer("num_decode_tokens");
    if (r.prompt < 1)
      throw InputError(fmt::format("{}:{}: num_prefill_tokens: a request needs a prompt", path, c.line));
    if (r.output < 1)
      throw InputError(fmt::format("{}:{}: num_decode_tokens: a request generates at least one token", path, c.line));
    if (!out.empty() && r.arrival < out.back().arrival)
      throw InputError(fmt::format("{}:{}: arrived_at: {} s is before the request above ({} s): arrivals must be "
                                   "sorted",
                                   path, c.line, c["arrived_at"], out.back().arrival));
    out.push_back(r);
  });
  if (out.empty()) throw InputError(fmt::format("{}: no requests", path));
  return out;
}

}  // namespace vgpusim
