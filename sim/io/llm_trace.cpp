// Reading LLM request traces (llm_trace.hpp).
#include "sim/io/llm_trace.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "sim/core/errors.hpp"
#include "sim/io/text_fields.hpp"

namespace vgpusim {

std::vector<LlmRequest> read_llm_trace(const std::string& path) {
  std::vector<LlmRequest> out;
  std::vector<std::string> header;
  size_t arrival = 0, prompt = 0, output = 0;
  for_each_line(path, [&](const std::string& line, size_t n) {
    const std::vector<std::string> cells = split_fields(line, ',');
    if (header.empty()) {
      header = cells;
      auto column = [&](const char* name) {
        const auto it = std::find(header.begin(), header.end(), name);
        if (it == header.end())
          throw InputError(fmt::format("{}:{}: the header lacks the column '{}' (found '{}')", path, n, name, line));
        return static_cast<size_t>(it - header.begin());
      };
      arrival = column("arrived_at");
      prompt = column("num_prefill_tokens");
      output = column("num_decode_tokens");
      return;
    }
    if (cells.size() != header.size())
      throw InputError(fmt::format("{}:{}: expected {} columns, found {}", path, n, header.size(), cells.size()));
    LlmRequest r;
    r.arrival = field_number(path, n, "arrived_at", cells[arrival]);
    r.prompt = field_integer(path, n, "num_prefill_tokens", cells[prompt]);
    r.output = field_integer(path, n, "num_decode_tokens", cells[output]);
    if (r.prompt < 1) throw InputError(fmt::format("{}:{}: num_prefill_tokens: a request needs a prompt", path, n));
    if (r.output < 1)
      throw InputError(fmt::format("{}:{}: num_decode_tokens: a request generates at least one token", path, n));
    if (!out.empty() && r.arrival < out.back().arrival)
      throw InputError(fmt::format("{}:{}: arrived_at: {} s is before the request above ({} s): arrivals must be "
                                   "sorted",
                                   path, n, cells[arrival], out.back().arrival));
    out.push_back(r);
  });
  if (header.empty()) throw InputError(fmt::format("{}: no header line", path));
  if (out.empty()) throw InputError(fmt::format("{}: no requests", path));
  return out;
}

}  // namespace vgpusim
