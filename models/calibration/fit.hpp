// Fitting: model parameters from hwcal measurements, each with its residual and uncertainty. The numeric pieces
// (1-D least squares, bootstrap) are generic; what is fitted to what is stated beside each fit.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "models/calibration/raw.hpp"
#include "models/gpu_spec.hpp"
#include "sim/units.hpp"

namespace vgpusim {

struct FittedValue {
  std::string name;         // the model parameter it sets, e.g. "memory_efficiency"
  units::Dim dim = units::Dim::Ratio;
  double value = 0;         // SI
  double uncertainty = 0;   // one standard error, SI; 0 when not estimable
  double residual = 0;      // RMS relative error of the fit over its data; 0 for a direct measurement
  int points = 0;           // data points used
  std::string from;         // which experiments
};

// Minimizes f on [lo, hi] by golden-section search (f unimodal there).
double minimize_1d(const std::function<double(double)>& f, double lo, double hi, int iterations = 60);

// Standard deviation of `estimate` over `resamples` bootstrap resamples of n items (deterministic seed).
double bootstrap_sd(size_t n, const std::function<double(const std::vector<size_t>&)>& estimate, int resamples = 40);

// The direct ones: efficiencies against the datasheet, DRAM saturation against SMs, slice and switch cost.
std::vector<FittedValue> fit_direct(const RawFile& raw, const GpuSpec& datasheet);

}  // namespace vgpusim
