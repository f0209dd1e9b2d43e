// Fitting the operator model (models/gpu/op_model.hpp) jointly over several GPUs from ops measured one at a time
// (NeuSight's per-op profiles): every parameter is shared by all the GPUs, so a GPU left out of the fit is predicted
// from its catalog figures alone.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "models/gpu/op_model.hpp"

namespace vgpusim {

// Which pass of an op a measurement times.
enum class OpPhase : uint8_t { Forward, Backward, Accumulate };

// One measured op on one of the fit's devices.
struct OpObservation {
  size_t device = 0;  // index into the devices given to the fit
  std::vector<OpKernel> kernels;
  double measured = 0;  // s
  double weight = 0;    // its share of the loss (each case's observations sum to the same)
  OpPhase phase = OpPhase::Forward;
  bool linear = false;  // a forward linear (its isolated timing pays a larger dispatch cost)
};

// What an op timed alone pays beyond its kernels (CPU dispatch the isolated timing includes, hidden behind GPU work
// in a real run): forward, forward linear, backward, accumulation. Fitted with the model, never added to a
// prediction of a whole pass.
using MeasurementOverheads = std::array<double, 4>;
double measurement_overhead(const MeasurementOverheads& d, OpPhase phase, bool linear);
// NeuSight's profiler's, from the fit on all six GPUs that gives the operator model's defaults (a unit test refits
// and compares): what a prediction from its profiles with the shipped defaults takes out of each measured op.
inline constexpr MeasurementOverheads kNeusightOverheads = {14.2e-6, 67.3e-6, 7.87e-6, 20.8e-6};

struct OpModelFit {
  OpModelParams params;
  MeasurementOverheads overheads{};
  double loss = 0;
  size_t observations = 0;
};

// The observations' weighted squared log error, minimized one parameter at a time within its declared bounds: a
// 24-point grid, then multiplicative steps of 2, 1.4, 1.15, 1.05 and 1.02, the whole repeated twice. Parameters no
// observation depends on keep their starting value (pre_volta_efficiency without a pre-Volta GPU). Starts from a
// fixed neutral point (not the shipped defaults, so that a fold never starts from values fitted with the GPU it leaves
// out).
OpModelFit fit_op_model(const std::vector<OpDevice>& devices, const std::vector<OpObservation>& observations);
// Whether the fit fits the parameter `name` (of OpModelParams::table()); the others keep their shipped defaults.
bool op_model_param_fitted(const std::string& name);

}  // namespace vgpusim
