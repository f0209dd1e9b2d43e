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

struct Calibration {
  std::string gpu;       // catalog name
  std::string device;    // as CUDA named it
  std::string driver, date, raw;
  std::vector<FittedValue> values;

  ParamOverrides overrides() const;
};

std::string calibration_yaml(const Calibration& c);
// Throws InputError (FILE:LINE:COL) on a bad file.
Calibration read_calibration_file(const std::string& path);

}  // namespace vgpusim
