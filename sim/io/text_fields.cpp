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

std::vector<std::string> csv_fields(const std::string& line, CsvQuotes quotes) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quotes == CsvQuotes::none) {
      if (c == ',')
        out.emplace_back();
      else
        out.back() += c;
    } else if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        out.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        out.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  return out;
}

size_t CsvHeader::index(std::string_view name) const {
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return i;
  throw InputError(fmt::format("{}:{}: the header lacks the column '{}' (found '{}')", path, line, name, text));
}

bool CsvHeader::has(std::string_view name) const {
  for (const std::string& n : names)
    if (n == name) return true;
  return false;
}

double CsvRow::number(std::string_view name) const {
  return field_number(header.path, line, std::string(name), (*this)[name]);
}

int CsvRow::integer(std::string_view name) const {
  return field_integer(header.path, line, std::string(name), (*this)[name]);
}

}  // namespace vgpusim
