// Order statistics of repeated measurements (n, min, p10, median, p90, max, mean) and their JSON form.
// Non-finite values are dropped before summarizing: a failed sample must not poison a median.
#include "hwcal/stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace vgpusim::hwcal {

double percentile_of_sorted(const std::vector<double>& sorted, double q) {
  const double rank = q * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(rank));
  const std::size_t above = std::min(below + 1, sorted.size() - 1);
  const double weight = rank - static_cast<double>(below);
  return sorted[below] + (sorted[above] - sorted[below]) * weight;
}

Summary summarize(std::vector<double> values) {
  std::erase_if(values, [](double v) { return !std::isfinite(v); });
  Summary out;
  out.n = values.size();
  if (values.empty()) return out;
  std::sort(values.begin(), values.end());
  out.min = values.front();
  out.max = values.back();
  out.p10 = percentile_of_sorted(values, 0.10);
  out.median = percentile_of_sorted(values, 0.50);
  out.p90 = percentile_of_sorted(values, 0.90);
  out.mean = std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
  return out;
}

double median_of(std::vector<double> values) {
  const Summary s = summarize(std::move(values));
  return s.n == 0 ? std::numeric_limits<double>::quiet_NaN() : s.median;
}

Json summary_json(const std::vector<double>& values) {
  const Summary s = summarize(values);
  if (s.n == 0) return Json();
  Json out = Json::object();
  out["n"] = s.n;
  out["min"] = s.min;
  out["p10"] = s.p10;
  out["median"] = s.median;
  out["p90"] = s.p90;
  out["max"] = s.max;
  out["mean"] = s.mean;
  return out;
}

}  // namespace vgpusim::hwcal
