// Numbers for people in tables and reports: fixed precision, with a mark for values that are not numbers.
#pragma once

#include <fmt/format.h>

#include <cmath>
#include <string>

namespace vgpusim {

// `v` with `digits` decimals, or `missing` when it is NaN or infinite.
inline std::string fixed(double v, int digits, const char* missing = "-") {
  return std::isfinite(v) ? fmt::format("{:.{}f}", v, digits) : std::string(missing);
}

}  // namespace vgpusim
