// Re-simulates a hwcal co-run experiment (two kernel sequences sharing one GPU as streams, processes, green-context
// partitions or MPS clients) with vgpusim's models, to predict the slowdowns the emulator measured.
#pragma once

#include <map>
#include <string>

#include "sim/io/hwcal_raw.hpp"
#include "models/gpu/gpu_spec.hpp"
#include "sim/core/params.hpp"
#include "sim/io/calibration_file.hpp"

namespace vgpusim {

struct CorunPrediction {
  double slowdown_a = 0, slowdown_b = 0;  // co-run time / solo time in the same form
  std::string model;                      // which vgpusim mode stood for the form
};

CorunPrediction predict_corun(const CorunExperiment& experiment, const GpuSpec& gpu, const ParamOverrides& params);

}  // namespace vgpusim
