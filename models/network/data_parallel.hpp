// Data-parallel training on N GPUs: per-iteration time = compute on one GPU (roofline) + the gradients' ring
// all-reduce (SimGrid) - the part of it hidden behind the backward pass; speedup and parallel efficiency.
#pragma once

#include <string>
#include <vector>

#include "models/gpu/gpu_spec.hpp"
#include "models/gpu/roofline.hpp"
#include "sim/core/params.hpp"
#include "models/network/collectives.hpp"

namespace vgpusim {

// One training step of one replica (per-GPU batch fixed: weak scaling, as Horovod and DDP benchmarks report).
struct TrainingStep {
  std::string name;           // e.g. "ResNet-50, batch 256 per GPU"
  KernelSpec compute;         // work of forward + backward on one GPU
  double parameters = 0;      // count
  double bytes_per_gradient = 4;  // bytes (fp32 gradients)
};

// The data-parallel model's parameters (registered as model "data_parallel").
struct DataParallelParams {
  double overlap;            // of the all-reduce hidden behind backward
  double backward_fraction;  // of a step's compute

  static const ParamTable<DataParallelParams>& table();
};
std::vector<ParamSpec> data_parallel_params();
std::string data_parallel_description();

struct DataParallelResult {
  int gpus = 1;
  double compute_s = 0;      // s, one GPU's forward + backward
  double allreduce_s = 0;    // s, gradients' ring all-reduce
  double hidden_s = 0;       // s, all-reduce time overlapped with backward
  double iteration_s = 0;    // s, compute + all-reduce - hidden
  double speedup = 1;        // throughput on N GPUs / throughput on one
  double efficiency = 1;     // speedup / N
};

DataParallelResult data_parallel(const TrainingStep& step, const GpuSpec& gpu, const ClusterTopology& topo,
                                 int gpus, const DataParallelParams& p, const RooflineParams& roofline);

}  // namespace vgpusim
