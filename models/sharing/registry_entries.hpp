// One declaration per built-in sharing mode: each file in models/sharing defines its `*_model_info()`.
#pragma once

#include "models/sharing/sharing_mode.hpp"

namespace vgpusim {

SharingModelInfo passthrough_model_info();
SharingModelInfo timeslice_model_info();
SharingModelInfo mps_model_info();
SharingModelInfo mig_model_info();
SharingModelInfo vgpu_model_info();
SharingModelInfo sriov_model_info();
SharingModelInfo software_model_info();

// Round-robin time-slicing among contexts with work (slice, then a switch to the next one); shared by `timeslice`
// and the vGPU best-effort scheduler.
std::unique_ptr<SharingModel> make_timeslice_model(double slice_s, double switch_cost_s, double idle_grace_s,
                                                   Fidelity fidelity);

// How long a context without work keeps the GPU before a switch, and the one public observation of it.
inline constexpr double kIdleGrace = 800e-6;
inline constexpr const char* kIdleGraceSource =
    "NVIDIA developer forum, 'How does the GPU decide when to switch-out a CUDA context?' (2021): Nsight Systems "
    "showed an idle context kept on the GPU for ~800 us before being switched out (Jetson); uncertain for other "
    "GPUs, to be measured";

// The time lost per switch between two CUDA contexts, and where that number comes from.
inline constexpr double kContextSwitchCost = 40e-6;
inline constexpr const char* kContextSwitchCostSource =
    "not published by NVIDIA; estimate: saving and restoring the register files and shared memory of an H100 "
    "(132 SMs x (256 KiB + 228 KiB) = 65 MB each way) at 3.35 TB/s takes ~39 us. Replace with the hwcal time-slice "
    "probe";

// Default passthrough overhead and its source (shared with docs and the seed scenarios).
// Walters, Younge et al., "GPU Passthrough Performance: A Comparison of KVM, Xen, VMWare ESXi, and LXC for CUDA and
// OpenCL Applications", IEEE CLOUD 2014 (doi:10.1109/CLOUD.2014.90): KVM 98-100%, Xen and ESXi 96-99% of bare
// metal. 2% is the middle of the 96-100% span.
inline constexpr double kPassthroughOverhead = 0.02;
inline constexpr const char* kPassthroughOverheadSource =
    "Walters, Younge et al., GPU Passthrough Performance: KVM, Xen, VMware ESXi and LXC for CUDA and OpenCL, IEEE "
    "CLOUD 2014 (doi:10.1109/CLOUD.2014.90): 96-100% of bare metal; 2% is the middle of that span";

}  // namespace vgpusim
