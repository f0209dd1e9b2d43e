// telemetry.util_duty's arithmetic (hwcal/telemetry_analysis.hpp).
#include "hwcal/telemetry_analysis.hpp"

#include <cmath>
#include <limits>

#include "hwcal/stats.hpp"

namespace vgpusim::hwcal {

UtilDutyOutcome util_duty_outcome(double launches, double kernel_s, double wall_s,
                                  const std::vector<UtilSample>& samples, double settle_s) {
  constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
  UtilDutyOutcome o;
  o.busy_share = wall_s > 0 ? launches * kernel_s / wall_s : 0.0;
  double gpu = 0, memory = 0;
  for (const UtilSample& s : samples) {
    if (s.t_s < settle_s) continue;
    gpu += s.gpu;
    memory += s.memory;
    ++o.samples;
  }
  const double n = static_cast<double>(o.samples);
  o.nvml_gpu = o.samples > 0 ? gpu / n : kNan;
  o.nvml_memory = o.samples > 0 ? memory / n : kNan;
  o.busy_per_util = o.samples > 0 && o.nvml_gpu > 0 ? o.busy_share / o.nvml_gpu : kNan;
  return o;
}

double busy_per_util_of(const std::vector<UtilDutyOutcome>& points) {
  std::vector<double> ratios;
  for (const UtilDutyOutcome& p : points)
    if (std::isfinite(p.busy_per_util) && p.nvml_gpu >= 0.05 && p.nvml_gpu <= 0.95) ratios.push_back(p.busy_per_util);
  return median_of(ratios);
}

}  // namespace vgpusim::hwcal
