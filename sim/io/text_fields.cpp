#include "sim/io/text_fields.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <sstream>

#include "sim/core/errors.hpp"

namespace vgpusim {

std::vector<std::string> split_fields(const std::string& line, char sep) {
  std::vector<std::string> out;
  std::string cell;
  std::istringstream in(line);
  while (std::getline(in, cell, sep)) out.push_back(cell);
  if (!line.empty() && line.back() == sep) out.emplace_back();
  return out;
}

double field_number(const std::string& path, size_t line, const std::string& column, const std::string& text) {
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || !(v >= 0) || !std::isfinite(v))
    throw InputError(fmt::format("{}:{}: {}: expected a number >= 0, found '{}'", path, line, column, text));
  return v;
}

int field_integer(const std::string& path, size_t line, const std::string& column, const std::string& text) {
  const double v = field_number(path, line, column, text);
  if (v > 1e9 || v != static_cast<double>(static_cast<int>(v)))
    throw InputError(fmt::format("{}:{}: {}: expected a whole number, found '{}'", path, line, column, text));
  return static_cast<int>(v);
}

}  // namespace vgpusim
