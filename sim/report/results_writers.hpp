// Output writers: results.json (schema vgpusim.results/1, docs/results-schema.md), results.csv and the text
// table for people. They format; they compute nothing.
#pragma once

#include <string>

#include "sim/run/metrics.hpp"

namespace vgpusim {

std::string results_json(const Results& r);
std::string results_csv(const Results& r);
std::string results_table(const Results& r);

}  // namespace vgpusim
