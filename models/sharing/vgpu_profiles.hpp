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
};

const std::vector<VgpuGpuTable>& vgpu_tables();
const VgpuGpuTable* vgpu_table(const std::string& gpu);

// Resolves a type name such as "T4-4C" for the GPU, or says what is wrong and lists the valid types.
std::variant<VgpuProfile, std::string> find_vgpu_profile(const VgpuGpuTable& table, double gpu_memory,
                                                         const std::string& name);

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
