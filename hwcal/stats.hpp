// Order statistics of repeated measurements (n, min, p10, median, p90, max, mean) and their JSON form.
// Percentiles interpolate linearly between closest ranks, so n = 1 gives that value for every percentile.
#pragma once

#include <cstddef>
#include <vector>

#include "hwcal/json.hpp"

namespace vgpusim::hwcal {

struct Summary {
  std::size_t n = 0;
  double min = 0, p10 = 0, median = 0, p90 = 0, max = 0, mean = 0;
};

Summary summarize(std::vector<double> values);
// q in [0, 1]; `sorted` must be sorted ascending and non-empty.
double percentile_of_sorted(const std::vector<double>& sorted, double q);
// Median, or NaN (written as null) for no values.
double median_of(std::vector<double> values);
// {"n", "min", "p10", "median", "p90", "max", "mean"}; null when there are no values.
Json summary_json(const std::vector<double>& values);

}  // namespace vgpusim::hwcal
