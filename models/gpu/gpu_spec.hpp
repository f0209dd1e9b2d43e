// A GPU (or the CPU software-rendering device) as the models see it: datasheet rates in SI units.
// Filled from models/catalog/gpus.yaml plus scenario overrides; models never read the YAML themselves.
#pragma once

#include <string>

namespace vgpusim {

struct GpuSpec {
  std::string name;          // catalog name, e.g. "H100-SXM"
  std::string vendor;        // NVIDIA, AMD, Mesa
  std::string kind = "gpu";  // gpu | cpu
  std::string architecture;
  double compute_units = 0;     // SMs (NVIDIA), CUs (AMD), cores (cpu)
  double boost_clock = 0;       // Hz
  double fp64 = 0;              // FLOP/s, non-tensor
  double fp32 = 0;              // FLOP/s
  double fp16_tensor = 0;       // FLOP/s, dense matrix rate
  double memory = 0;            // bytes
  double memory_bandwidth = 0;  // bytes/s
  double l2_cache = 0;          // bytes
  double host_link = 0;         // bytes/s per direction
  double tdp = 0;               // W
  bool mig = false;
  // Resident threads per SM (NVIDIA, by compute capability); 0 = unknown: kernels' occupancy is not modelled.
  double threads_per_sm = 0;
  double blocks_per_sm = 0;  // resident thread blocks per SM at most (by compute capability); 0 = unknown: no cap

  bool operator==(const GpuSpec&) const = default;
};

}  // namespace vgpusim
