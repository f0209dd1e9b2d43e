// Re-simulates a hwcal co-run experiment (two kernel sequences sharing one GPU as streams, processes, green-context
// partitions or MPS clients) with vgpusim's models, to predict the slowdowns the emulator measured.
#pragma once

#include <map>
#include <string>

#include "models/calibration/raw.hpp"
#include "models/gpu_spec.hpp"
#include "models/params.hpp"

namespace vgpusim {

// Model parameter values by name (roofline, timeslice, contention), e.g. from a calibration; missing ones keep
// their registered defaults.
using ParamOverrides = std::map<std::string, double>;

struct CorunPrediction {
  double slowdown_a = 0, slowdown_b = 0;  // co-run time / solo time in the same form
  std::string model;                      // which vgpusim mode stood for the form
};

CorunPrediction predict_corun(const CorunExperiment& experiment, const GpuSpec& gpu, const ParamOverrides& params);

}  // namespace vgpusim
