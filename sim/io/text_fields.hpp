// Fields of the text tables the importers read (CSV and whitespace columns): splitting a line and reading a cell
// as a number, with errors that name FILE:LINE and the column; and the CSV reader of the importers of published
// data and traces (header checked by name, cells by column, RFC 4180 quotes where a format has them).
#pragma once

#include <fmt/format.h>

#include <cstddef>
#include <fstream>
#include <string>
#include <string_view>
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

// How a CSV line is cut into fields: at every comma (`none`), or with RFC 4180's quotes (`rfc4180`: a field in
// double quotes may hold commas, and "" inside it is one quote; no line breaks inside a field).
enum class CsvQuotes { none, rfc4180 };
std::vector<std::string> csv_fields(const std::string& line, CsvQuotes quotes);

// The header line of a CSV file being read: its column names, looked up by name.
struct CsvHeader {
  std::string path;
  size_t line = 0;  // 0 until the header is read
  std::string text;
  std::vector<std::string> names;
  // The column's position; throws InputError "PATH:LINE: the header lacks the column 'NAME' (found 'TEXT')".
  size_t index(std::string_view name) const;
  bool has(std::string_view name) const;
};

// One data line of a CSV file: its cells in the header's order.
struct CsvRow {
  const CsvHeader& header;
  const std::vector<std::string>& cells;
  size_t line;
  const std::string& operator[](size_t i) const { return cells[i]; }
  // The cell of a named column (InputError as CsvHeader::index when the header lacks it).
  const std::string& operator[](std::string_view name) const { return cells[header.index(name)]; }
  bool has(std::string_view name) const { return header.has(name); }
  // The named cell read by field_number / field_integer (errors name the file, line and column).
  double number(std::string_view name) const;
  int integer(std::string_view name) const;
};

// Reads a CSV file: `on_header(const CsvHeader&)` for its first line (the comment and blank lines for_each_line
// leaves out are skipped), which may throw to refuse it, then `on_row(const CsvRow&)` for each data line, which must
// have as many fields as the header ("PATH:LINE: expected N columns, found M"). A file with no header line is
// refused ("PATH: no header line").
template <typename HeaderFn, typename RowFn>
void read_csv(const std::string& path, CsvQuotes quotes, HeaderFn on_header, RowFn on_row) {
  CsvHeader header{path, 0, {}, {}};
  std::vector<std::string> cells;
  for_each_line(path, [&](const std::string& line, size_t n) {
    if (header.line == 0) {
      header.line = n;
      header.text = line;
      header.names = csv_fields(line, quotes);
      on_header(static_cast<const CsvHeader&>(header));
      return;
    }
    cells = csv_fields(line, quotes);
    if (cells.size() != header.names.size())
      throw InputError(fmt::format("{}:{}: expected {} columns, found {}", path, n, header.names.size(), cells.size()));
    on_row(CsvRow{header, cells, n});
  });
  if (header.line == 0) throw InputError(fmt::format("{}: no header line", path));
}

// The same for a header that names at least the `required` columns, in any order and among others.
template <typename RowFn>
void read_csv(const std::string& path, const std::vector<std::string>& required, RowFn on_row,
              CsvQuotes quotes = CsvQuotes::none) {
  read_csv(
      path, quotes,
      [&](const CsvHeader& h) {
        for (const std::string& r : required) h.index(r);
      },
      on_row);
}

}  // namespace vgpusim
