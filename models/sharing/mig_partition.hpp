// A MIG partition as a GPU of its own: what the `mig` mode gives each partition's sharing model.
#pragma once

#include "models/gpu/gpu_spec.hpp"
#include "models/sharing/mig_profiles.hpp"

namespace vgpusim {

// SM-bound rates scale with the profile's SMs, memory-side resources (bandwidth, L2) with its memory slices.
GpuSpec mig_partition_spec(const GpuSpec& gpu, const MigGpuTable& table, const MigProfile& profile);

}  // namespace vgpusim
