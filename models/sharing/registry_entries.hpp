// One declaration per built-in sharing mode: each file in models/sharing defines its `*_model_info()`.
#pragma once

#include "models/sharing/sharing_model.hpp"

namespace vgpusim {

SharingModelInfo passthrough_model_info();
SharingModelInfo timeslice_model_info();
SharingModelInfo mps_model_info();
SharingModelInfo mig_model_info();

// Default passthrough overhead and its source (shared with docs and the seed scenarios).
// Walters, Younge et al., "GPU Passthrough Performance: A Comparison of KVM, Xen, VMWare ESXi, and LXC for CUDA and
// OpenCL Applications", IEEE CLOUD 2014 (doi:10.1109/CLOUD.2014.90): KVM 98-100%, Xen and ESXi 96-99% of bare
// metal. 2% is the middle of the 96-100% span.
inline constexpr double kPassthroughOverhead = 0.02;
inline constexpr const char* kPassthroughOverheadSource =
    "Walters, Younge et al., GPU Passthrough Performance: KVM, Xen, VMware ESXi and LXC for CUDA and OpenCL, IEEE "
    "CLOUD 2014 (doi:10.1109/CLOUD.2014.90): 96-100% of bare metal; 2% is the middle of that span";

}  // namespace vgpusim
