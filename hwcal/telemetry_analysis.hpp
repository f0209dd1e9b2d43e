// telemetry.util_duty's arithmetic (CPU only, checked by the self-test): how much of a run the kernels held, and
// what NVML's utilization.gpu (nvidia-smi's figure) said about the same run.
#pragma once

#include <cstddef>
#include <vector>

namespace vgpusim::hwcal {

// One read of nvmlDeviceGetUtilizationRates: seconds since the point's start, and the two percentages as fractions.
struct UtilSample {
  double t_s = 0;
  double gpu = 0;
  double memory = 0;
};

struct UtilDutyOutcome {
  double busy_share = 0;     // launches x kernel_s / wall_s: the share of the run a kernel was executing
  double nvml_gpu = 0;       // mean utilization.gpu over the samples read at or after settle_s; NaN without one
  double nvml_memory = 0;    // the same for utilization.memory
  std::size_t samples = 0;   // reads used
  double busy_per_util = 0;  // busy_share / nvml_gpu: vgpusim's measured.busy_per_util; NaN where nvml_gpu is 0
};

// The kernels ran one at a time (each waited for before the next), so their times add up.
UtilDutyOutcome util_duty_outcome(double launches, double kernel_s, double wall_s,
                                  const std::vector<UtilSample>& samples, double settle_s);

// The experiment's answer: the median busy_per_util over the points NVML saw between 5% and 95% busy (where a
// ratio is informative); NaN when there is none.
double busy_per_util_of(const std::vector<UtilDutyOutcome>& points);

}  // namespace vgpusim::hwcal
