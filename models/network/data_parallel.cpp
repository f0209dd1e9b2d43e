// Data-parallel training time per iteration from the roofline (compute) and the simulated ring all-reduce
// (gradients), with a declared overlap of communication and backward.
#include "models/network/data_parallel.hpp"

#include <algorithm>
#include <stdexcept>

namespace vgpusim {

const ParamTable<DataParallelParams>& DataParallelParams::table() {
  static const ParamTable<DataParallelParams> table = ParamTable<DataParallelParams>()
      .add(&DataParallelParams::overlap, number_param("data_parallel", "overlap", units::Dim::Ratio, 0.0, 0.0, 1.0,
                   "fraction of the gradient all-reduce hidden behind the backward pass (bucketed all-reduce); at "
                   "most the backward time",
                   "0 = no overlap, a conservative default: PyTorch DDP and Horovod overlap bucketed all-reduce with "
                   "backward (Li et al., PyTorch Distributed, VLDB 2020; Sergeev & Del Balso, Horovod, "
                   "arXiv:1802.05799) but publish no general fraction; set it per job"))
      .add(&DataParallelParams::backward_fraction, number_param("data_parallel", "backward_fraction", units::Dim::Ratio, 2.0 / 3.0, 0.0, 1.0,
                   "share of one step's compute spent in the backward pass",
                   "backward ~ 2x forward FLOPs (training ~ 6N FLOPs per token, forward 2N: Kaplan et al., "
                   "Scaling Laws, arXiv:2001.08361)"));
  return table;
}

std::vector<ParamSpec> data_parallel_params() { return DataParallelParams::table().specs(); }

std::string data_parallel_description() {
  return "data-parallel training: iteration = roofline compute + ring all-reduce of the gradients - overlap; "
         "speedup = N x T1 / TN (per-GPU batch fixed)";
}

DataParallelResult data_parallel(const TrainingStep& step, const GpuSpec& gpu, const ClusterTopology& topo,
                                 int gpus, const DataParallelParams& p, const RooflineParams& roofline) {
  if (gpus < 1) throw std::invalid_argument("data_parallel: gpus must be >= 1");
  DataParallelResult r;
  r.gpus = gpus;
  r.compute_s = solo_time(step.compute, gpu, roofline);
  const double gradient_bytes = step.parameters * step.bytes_per_gradient;
  r.allreduce_s = gpus > 1 ? ring_allreduce_time(topo, gpus, gradient_bytes) : 0.0;
  const double backward_s = p.backward_fraction * r.compute_s;
  r.hidden_s = p.overlap * std::min(r.allreduce_s, backward_s);
  r.iteration_s = r.compute_s + r.allreduce_s - r.hidden_s;
  r.efficiency = r.compute_s / r.iteration_s;
  r.speedup = gpus * r.efficiency;
  return r;
}

}  // namespace vgpusim
