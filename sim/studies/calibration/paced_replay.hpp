// Re-simulates hwcal's timeslice.paced experiment (a launch-paced light process alone and beside a busy one, two
// processes time-sliced) with the `timeslice` model, to predict the light process's normalized speed.
#pragma once

#include "models/gpu/gpu_spec.hpp"
#include "sim/core/params.hpp"
#include "sim/io/hwcal_raw.hpp"

namespace vgpusim {

struct PacedPrediction {
  double speed = 0;            // the light process's run alone over its run beside the busy one
  double gpu_share_alone = 0;  // its kernels' time over its run alone
};

// The light process launches point.launches kernels of experiment.light_kernel_s, one host gap apart (the gap
// runs after each launch, or after the wait that follows it), waiting for its kernels every sync_every launches
// and at the end; its kernels run one after another in launch order. Beside it, the busy process's
// busy_launches kernels of busy_kernel_s, all queued at time 0; the light one starts busy_lead_s later. The
// launch calls themselves take no host time.
PacedPrediction predict_paced(const PacedExperiment& experiment, const PacedPoint& point, const GpuSpec& gpu,
                              const ParamOverrides& params);

}  // namespace vgpusim
