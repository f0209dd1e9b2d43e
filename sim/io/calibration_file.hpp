// Calibration files (CAL.yaml): what `vgpusim fit` writes and scenarios name (`gpus[].calibration`): fitted model
// parameters for one GPU model, each with its uncertainty, residual and the experiments behind it.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "sim/core/params.hpp"
#include "sim/core/units.hpp"

namespace vgpusim {

// One fitted parameter as the file holds it.
struct FittedValue {
  std::string name;         // the model parameter it sets, qualified, e.g. "roofline.memory_efficiency"
  units::Dim dim = units::Dim::Ratio;
  double value = 0;         // SI
  double uncertainty = 0;   // one standard error, SI; 0 when not estimable
  double residual = 0;      // RMS relative error of the fit over its data; 0 for a direct measurement
  int points = 0;           // data points used
  std::string from;         // which experiments
};

// A measured fact about the GPU that no model parameter holds yet (kept with its source for the models to come):
// min_kernel_time (time), l2_knee (bytes); launch_overhead (time) is still read from older files, which wrote the
// roofline's launch_overhead parameter as a fact.
struct CalibrationFact {
  std::string name;
  units::Dim dim = units::Dim::Time;
  double value = 0;  // SI
  std::string from;  // source and how it was derived
};

struct Calibration {
  std::string gpu;       // catalog name
  std::string device;    // as CUDA named it
  std::string driver, date, raw;
  std::vector<FittedValue> values;
  std::vector<CalibrationFact> facts;

  ParamOverrides overrides() const;
};

// The facts a calibration file may hold, with their dimensions.
const std::vector<std::pair<std::string, units::Dim>>& calibration_fact_names();

std::string calibration_yaml(const Calibration& c);
// Throws InputError (FILE:LINE:COL) on a bad file.
Calibration read_calibration_file(const std::string& path);
// The same from text (`path` names it in messages).
Calibration read_calibration_text(const std::string& text, const std::string& path);

// The calibration shipped for a catalog GPU (models/calibration/, built in), nullptr when there is none. Scenarios
// use it unless they name another file or `calibration: none`.
const Calibration* builtin_calibration(const std::string& gpu);
// Its values as overrides; empty when the GPU has no shipped calibration.
ParamOverrides builtin_overrides(const std::string& gpu);
// The GPUs with a shipped calibration.
std::vector<std::string> builtin_calibration_gpus();

}  // namespace vgpusim
