// Output writers: results.json (schema vgpusim.results/1, docs/results-schema.md), results.csv and the text
// table for people. They format; they compute nothing.
#pragma once

#include <string>

#include "sim/metrics.hpp"

namespace vgpusim {

std::string results_json(const Results& r);
std::string results_csv(const Results& r);
std::string results_table(const Results& r);

// Writes `content` to `dir/name` through a temporary file and a rename, so a reader never sees half a file.
// Creates `dir` if needed. Throws std::runtime_error on failure.
void write_atomically(const std::string& dir, const std::string& name, const std::string& content);
// The same for a path "dir/name" ("name" alone: the current directory).
void write_file_atomically(const std::string& path, const std::string& content);

}  // namespace vgpusim
