// The analytic ring all-reduce: what the LLM workload's tensor parallelism charges per all-reduce, and the formula the
// network model (models/network, optional) cross-checks its SimGrid simulation against.
#pragma once

namespace vgpusim {

// Time (s) of a ring all-reduce over `gpus` GPUs of `bytes` per GPU, on links of `bandwidth` (bytes/s per direction)
// and `latency` (s per step): 2(N-1)/N x bytes/bandwidth + 2(N-1) x latency; 0 for one GPU.
inline double ring_allreduce_analytic(int gpus, double bytes, double bandwidth, double latency) {
  if (gpus <= 1) return 0;
  const double n = gpus;
  return 2 * (n - 1) / n * bytes / bandwidth + 2 * (n - 1) * latency;
}

}  // namespace vgpusim
