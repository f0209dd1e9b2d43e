// Calibration files (CAL.yaml): what `vgpusim fit` writes and scenarios name (`gpus[].calibration`): fitted model
// parameters for one GPU model, each with its uncertainty, residual and the experiments behind it.
#pragma once

#include <string>
#include <vector>

#include "models/calibration/fit.hpp"
#include "sim/corun_replay.hpp"

namespace vgpusim {

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
