// Fields of the text tables the importers read (CSV and whitespace columns): splitting a line and reading a cell
// as a number, with errors that name FILE:LINE and the column.
#pragma once

#include <fmt/format.h>

#include <cstddef>
#include <fstream>
#include <string>
#include <vector>

#include "sim/core/errors.hpp"

namespace vgpusim {

// Calls fn(line, number) for each line of a text file, without its '\r', numbered from 1; provenance lines ('#')
// and blank lines are left out. Throws InputError when the file cannot be read.
template <typename LineFn>
void for_each_line(const std::string& path, LineFn fn) {
  std::ifstream in(path);
  if (!in) throw InputError(fmt::format("{}: cannot open the file", path));
  std::string line;
  size_t n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    fn(line, n);
  }
}

// `line` cut at every `sep`; a trailing separator gives a last empty field.
std::vector<std::string> split_fields(const std::string& line, char sep);
// `text` as a finite number >= 0; throws InputError "PATH:LINE: COLUMN: expected a number >= 0, found 'TEXT'".
double field_number(const std::string& path, size_t line, const std::string& column, const std::string& text);
// The same as a whole number up to 1e9.
int field_integer(const std::string& path, size_t line, const std::string& column, const std::string& text);

}  // namespace vgpusim
