// Plain data of a job-level cluster study: nodes with GPUs, CPU and memory, and jobs that ask for a share of
// them for a while. GPU capacity is counted in integer units so that fractional shares add up exactly.
#pragma once

#include <string>
#include <vector>

namespace vgpusim {

// One whole GPU in capacity units. 7000 = 7 x 1000, so that a milli-GPU (the openb trace's unit) is 7 units and
// a MIG compute slice (1/7 of an A100/H100, see models/sharing/mig_profiles.hpp) is 1000 units, both exact.
inline constexpr int kGpuUnits = 7000;
inline constexpr int kUnitsPerMilliGpu = kGpuUnits / 1000;

struct ClusterNode {
  std::string name;
  std::string gpu_model;   // free text ("T4", "G2", "A100"); jobs may restrict the models they accept
  int gpus = 0;            // physical GPUs
  double cpu_milli = 0;    // CPU capacity, milli-cores
  double memory_mib = 0;   // host memory, MiB
  double price_per_s = 0;  // US dollars per second while the node exists (0: no cost reported)
  bool spot = false;       // may be preempted by the preemption process
};

struct ClusterJob {
  std::string name;
  double cpu_milli = 0;                 // milli-cores
  double memory_mib = 0;                // MiB
  int num_gpu = 0;                      // GPUs the job needs (0: CPU only)
  int gpu_units = 0;                    // capacity units per GPU it needs (kGpuUnits: whole GPUs)
  std::vector<std::string> gpu_models;  // accepted GPU models; empty: any
  double arrival_s = 0;                 // submission time, s
  double duration_s = 0;                // run time on dedicated GPUs, s (infinite: never leaves)
};

}  // namespace vgpusim
