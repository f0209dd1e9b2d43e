// Fields of the text tables the importers read (CSV and whitespace columns): splitting a line and reading a cell
// as a number, with errors that name FILE:LINE and the column.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace vgpusim {

// `line` cut at every `sep`; a trailing separator gives a last empty field.
std::vector<std::string> split_fields(const std::string& line, char sep);
// `text` as a number >= 0; throws InputError "PATH:LINE: COLUMN: expected a number >= 0, found 'TEXT'".
double field_number(const std::string& path, size_t line, const std::string& column, const std::string& text);
// The same as a whole number up to 1e9.
int field_integer(const std::string& path, size_t line, const std::string& column, const std::string& text);

}  // namespace vgpusim
