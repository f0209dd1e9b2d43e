// The one interface of every output vgpusim writes (a run's table, JSON, CSV, HTML report and timeline; a cluster
// study's and a plan's results): a named format that renders a result to text, and the file it goes to in an
// --out directory. write_outputs renders every requested output before it writes any, so that a render that fails
// leaves no partial set.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "sim/io/files.hpp"

namespace vgpusim {

template <typename Result>
struct OutputFormat {
  std::string name;              // e.g. "json"; `--write NAME=FILE` writes it
  std::string file;              // its file in an --out directory, e.g. "results.json"; "" when --out does not write it
  std::string description;       // one line, for --help
  bool needs_recording = false;  // it needs the run recorded as it happens (a timeline)
  std::function<std::string(const Result&)> render;
};

// What a command prints on stdout: its table, or with --json its `json` format (the file --out writes).
template <typename Result, typename Formats, typename Table>
std::string stdout_text(const Formats& formats, const Result& result, bool json, const Table& table) {
  if (json)
    for (const auto& f : formats)
      if (f.name == "json") return f.render(result);
  return table();
}

// Renders every (format, path) pair, writes each to a temporary file beside its path, and only when all are
// written puts them in place: an output that cannot be written leaves none of them (all or nothing).
template <typename Result>
void write_outputs(const std::vector<std::pair<const OutputFormat<Result>*, std::string>>& outputs,
                   const Result& result) {
  std::vector<std::pair<std::string, std::string>> files;
  files.reserve(outputs.size());
  for (const auto& [format, path] : outputs) files.emplace_back(path, format->render(result));
  write_files_atomically(files);
}

// The formats of `formats` that an --out directory gets, each with its path in `dir`.
template <typename Result, typename Formats>
std::vector<std::pair<const OutputFormat<Result>*, std::string>> out_dir_outputs(const Formats& formats,
                                                                                 const std::string& dir) {
  std::vector<std::pair<const OutputFormat<Result>*, std::string>> outputs;
  for (const OutputFormat<Result>& f : formats)
    if (!f.file.empty()) outputs.emplace_back(&f, dir + "/" + f.file);
  return outputs;
}

}  // namespace vgpusim
