// NVIDIA time-sliced vGPU types per GPU (framebuffer sizes and how many fit), and RmPVMRL decoding.
#pragma once

#include <string>
#include <variant>
#include <vector>

namespace vgpusim {

struct VgpuProfile {
  std::string name;    // e.g. "T4-4C"
  char series = 'C';   // C (compute), Q (workstation), B (business), A (apps)
  double framebuffer;  // bytes
  int max_count;       // vGPUs of this type per physical GPU
};

struct VgpuGpuTable {
  std::string gpu;                   // catalog name
  std::vector<std::string> prefixes;  // type-name prefixes NVIDIA uses for it, e.g. {"A100D", "A100"}
  std::vector<double> c_sizes;       // GiB of the C-series types
  std::vector<double> qba_sizes;     // GiB of the Q/B/A-series types (empty: none listed)
  bool best_effort_only = false;     // Maxwell: no equal or fixed share
  std::string source;
  bool hbm = false;                  // HBM memory (ECC costs no framebuffer)
};

const std::vector<VgpuGpuTable>& vgpu_tables();
const VgpuGpuTable* vgpu_table(const std::string& gpu);

// Resolves a type name such as "T4-4C" for the GPU, or says what is wrong and lists the valid types.
std::variant<VgpuProfile, std::string> find_vgpu_profile(const VgpuGpuTable& table, double gpu_memory,
                                                         const std::string& name);

// Framebuffer the hypervisor reserves out of a vGPU of `profile` (its usable memory is the type's size less this),
// by NVIDIA's formula: size / 16 + 16 MiB + page retirement (128 MiB / max vGPUs of the type per GPU; 4 MiB on
// Maxwell) + ECC (size / 16, with ECC on and without HBM) + compression (T4 types of 16 GB: 28 MiB).
double vgpu_reserved_framebuffer(const VgpuGpuTable& table, const VgpuProfile& profile, bool ecc);
inline constexpr const char* kVgpuReservationSource =
    "NVIDIA Virtual GPU Software / AI Enterprise documentation, 'Total Frame Buffer for vGPUs is Less Than the Total "
    "Frame Buffer on the Physical GPU': max-reserved-fb = profile size / 16 + 16 MB + ECC adjustment + page "
    "retirement allocation + compression adjustment; a P40-4Q host log shows 3776 MiB framebuffer + 320 MiB "
    "reservation = 4096 MiB (DualCoder/vgpu_unlock issue 70)";

// The scheduler settings an RmPVMRL registry value stands for (NVIDIA open-gpu-kernel-modules nvrm_registry.h):
// bit 0 enables the policy bits, bit 1 selects legacy (non-strict) round robin, bits 7:4 the policy (0 equal
// share, 1 fixed share), bits 21:12 the scheduling frequency in Hz (strict), bits 23:16 the time slice in ms
// (legacy), bits 31:24 the averaging factor.
struct RmPvmrl {
  std::string scheduler;        // best_effort | equal_share | fixed_share
  double slice = 0;             // s; 0 = the type's default
  double frequency = 0;         // Hz; 0 = unset
  double averaging_factor = 0;  // 0 = default
};
std::variant<RmPvmrl, std::string> decode_rmpvmrl(unsigned long long value);

}  // namespace vgpusim
