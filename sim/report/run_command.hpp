// `vgpusim run` on a scenario: load it, simulate it with every tenant's baseline, write the outputs asked for (all
// rendered before any is written) and print the table. The options are shared with the cluster and plan commands.
#pragma once

#include <fmt/format.h>

#include <filesystem>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "sim/core/errors.hpp"
#include "sim/core/names.hpp"
#include "sim/report/output_format.hpp"
#include "sim/run/estimate.hpp"
#include "sim/scenario/document.hpp"
#include "sim/scenario/loader.hpp"

namespace vgpusim {

struct RunOptions {
  std::string out_dir;  // --out: every format that has a file there
  // --write FORMAT=FILE, --timeline FILE, --report FILE: these formats to these files, in this order.
  std::vector<std::pair<std::string, std::string>> writes;
  std::vector<Override> overrides;  // --set, --seed, --fidelity; scenarios only
  bool quiet = false;               // print nothing on success (warnings still go to stderr)
  bool json = false;                // --json: print the `json` format (results.json) instead of the table
  unsigned threads = 0;             // --threads: a scenario's replications and baselines on this many (0: all cores)
  std::vector<std::string> fail_on;  // --fail-on: "failure", "oom", "slo", "warning" (scenarios): exit 3 when the run shows one
  bool progress = true;             // a progress bar on stderr when it is a terminal and the run is slow
  RunLimits limits;                 // --max-events, --max-memory (scenarios)
  // --timeline-window: the timeline keeps only [first, second] s of simulated time
  std::pair<double, double> timeline_window{-std::numeric_limits<double>::infinity(),
                                            std::numeric_limits<double>::infinity()};
};

// The outputs `options` asks for among `formats`: the --out ones, then the --write ones. Throws InputError for an
// unknown format name.
template <typename Result, typename Formats>
std::vector<std::pair<const OutputFormat<Result>*, std::string>> select_outputs(const Formats& formats,
                                                                                const RunOptions& options) {
  std::vector<std::pair<const OutputFormat<Result>*, std::string>> outputs;
  if (!options.out_dir.empty()) outputs = out_dir_outputs<Result>(formats, options.out_dir);
  for (const auto& [name, path] : options.writes) {
    const OutputFormat<Result>* found = nullptr;
    std::vector<std::string> names;
    for (const OutputFormat<Result>& f : formats) {
      names.push_back(f.name);
      if (f.name == name) found = &f;
    }
    if (!found) {
      std::string known;
      for (const std::string& n : names) known += (known.empty() ? "" : ", ") + n;
      throw InputError("--write " + name + "=" + path + ": no output format '" + name + "'" +
                       did_you_mean_suffix(name, names) + " (formats: " + known + ")");
    }
    outputs.emplace_back(found, path);
  }
  // Two outputs to one file would leave only one of them (and no way to tell which).
  for (size_t i = 0; i < outputs.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (std::filesystem::path(outputs[i].second).lexically_normal() ==
          std::filesystem::path(outputs[j].second).lexically_normal())
        throw InputError(fmt::format("{}: two outputs ({} and {}) would be written to this file", outputs[i].second,
                                     outputs[j].first->name, outputs[i].first->name));
  return outputs;
}

// The exit status --fail-on asks for when a scenario run shows a problem.
inline constexpr int kExitFailOn = 3;

// Runs a scenario; returns 0, or kExitFailOn when a problem --fail-on names showed. Tenant failures and missed SLOs
// are printed to stderr as warnings in every case.
int run_scenario_command(ScenarioDocument doc, const RunOptions& options);

}  // namespace vgpusim
