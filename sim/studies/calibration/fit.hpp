// Fitting: model parameters from hwcal measurements, each with its residual and uncertainty. The numeric pieces
// (1-D least squares, bootstrap) are generic; what is fitted to what is stated beside each fit.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "sim/io/calibration_file.hpp"
#include "sim/io/hwcal_raw.hpp"
#include "models/gpu/gpu_spec.hpp"
#include "sim/core/units.hpp"

namespace vgpusim {

// Minimizes f on [lo, hi] by golden-section search (f unimodal there).
double minimize_1d(const std::function<double(double)>& f, double lo, double hi, int iterations = 60);

// Standard deviation of `estimate` over `resamples` bootstrap resamples of n items (deterministic seed).
double bootstrap_sd(size_t n, const std::function<double(const std::vector<size_t>&)>& estimate, int resamples = 40);

// The direct ones: efficiencies against the datasheet, DRAM saturation against SMs, slice and switch cost.
std::vector<FittedValue> fit_direct(const RawFile& raw, const GpuSpec& datasheet);

}  // namespace vgpusim
