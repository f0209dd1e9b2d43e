// Roofline kernel model. Efficiencies are fractions of datasheet peaks reached by well-shaped kernels; their
// defaults come from measurements on a real H200 (docs/sources/team-measurements.md) until `vgpusim fit` replaces
// them.
#include "models/gpu/roofline.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

namespace vgpusim {

namespace {
constexpr OpClass kElementwise[] = {OpClass::Embedding, OpClass::Norm, OpClass::Rotary, OpClass::Activation,
                                    OpClass::Residual};
constexpr const char* kVidurFit =
    "uncalibrated: 1 (the plain roofline); fitted per GPU by `vgpusim fit --vidur` on microsoft/vidur's profiled "
    "PyTorch ops (A100-80GB and A40 in their shipped calibrations)";
}  // namespace

const char* op_class_name(OpClass c) {
  switch (c) {
    case OpClass::Generic: return "generic";
    case OpClass::Gemm: return "gemm";
    case OpClass::Embedding: return "embedding";
    case OpClass::Norm: return "norm";
    case OpClass::Rotary: return "rotary";
    case OpClass::Activation: return "activation";
    case OpClass::Residual: return "residual";
  }
  return "generic";
}

const ParamTable<RooflineParams>& RooflineParams::table() {
  static const ParamTable<RooflineParams> table = [] {
    ParamTable<RooflineParams> t;
    t.add(&RooflineParams::compute_efficiency, number_param("roofline", "compute_efficiency", units::Dim::Ratio, 0.79, 0.01, 1.0,
                   "fraction of the datasheet FLOP rate a full-GPU kernel reaches",
                   "H200 bf16 8192^3 cuBLAS GEMM measured at 769-798 TFLOP/s of 989 dense (docs/sources/"
                   "team-measurements.md, Nov 2026): 784/989 = 0.79; applied to every precision until calibrated"))
      .add(&RooflineParams::memory_efficiency, number_param("roofline", "memory_efficiency", units::Dim::Ratio, 0.9, 0.01, 1.0,
                   "fraction of the datasheet memory bandwidth a streaming kernel reaches",
                   "H200 device-to-device copy measured at ~4.3 TB/s of 4.8 TB/s (docs/sources/team-measurements.md, Nov 2026): 0.90"))
      .add(&RooflineParams::fp32_efficiency, number_param("roofline", "fp32_efficiency", units::Dim::Ratio, 0, 0, 1.0,
                   "fraction of the datasheet FP32 rate that FP32 (non-tensor) work reaches; 0 = compute_efficiency",
                   "uncalibrated: 0 (FP32 work at compute_efficiency); hwcal's compute.fp32_fma fits it (H200: "
                   "95.8%, the shipped H200 calibration)"))
      .add(&RooflineParams::overlap, number_param("roofline", "overlap", units::Dim::Ratio, 1.0, 0, 1.0,
                   "share of a kernel's shorter side (compute or memory) hidden under its longer one: solo time = "
                   "longer + (1 - overlap) x shorter",
                   "uncalibrated: 100% (the classic roofline's max); hwcal's mixed kernel (a triad plus an FMA "
                   "chain) fits it from its solo time (the shipped H200 calibration)"))
      .add(&RooflineParams::launch_overhead, number_param("roofline", "launch_overhead", units::Dim::Time, 2.48e-6, 0.0, 1e-3,
                   "time each kernel takes beyond its roofline time, launched back to back (launch, ramp-up and "
                   "tail); a kernel given as a measured duration includes it",
                   "te42kyfo/gpu-benches gpu-small-kernels, H200: intercept of time per launch against volume over "
                   "the L2-resident rows, 2.48 us (A100-80GB 2.73, A40 2.00, L40 1.67 us: their shipped "
                   "calibrations)"))
      .add(&RooflineParams::graph_launch_overhead, number_param("roofline", "graph_launch_overhead", units::Dim::Time, 1.30e-6, 0.0, 1e-3,
                   "time each kernel node of an instantiated CUDA graph takes beyond its roofline time (the graph's "
                   "kernels back to back; `launch: graph`)",
                   "te42kyfo/gpu-benches gpu-small-kernels, H200 launched as one CUDA graph: time per launch beyond "
                   "the roofline's time, least squares of relative errors over the rows up to L2/4, 1.30 us "
                   "(A100-80GB 1.58, A40 1.14, L40 1.06 us: their shipped calibrations)"))
      .add(&RooflineParams::grid_sync_overhead, number_param("roofline", "grid_sync_overhead", units::Dim::Time, 1.35e-6, 0.0, 1e-3,
                   "time each iteration of a persistent kernel takes at its grid-wide barrier beyond its roofline time "
                   "(`launch: persistent`: one kernel whose iterations replace launches)",
                   "te42kyfo/gpu-benches gpu-small-kernels, H200 persistent kernel with a cooperative-groups grid "
                   "sync per iteration: time per iteration beyond the roofline's time, least squares of relative "
                   "errors over the rows up to L2/4, 1.35 us (A100-80GB 1.36, L40 1.12 us: their shipped "
                   "calibrations; the A40 has no such table)"))
      .add(&RooflineParams::occupancy_saturation, number_param("roofline", "occupancy_saturation", units::Dim::Ratio, 0, 0, 1.0,
                   "share of the GPU's resident-thread slots (SMs x threads per SM) a kernel's blocks must hold to "
                   "reach its full DRAM bandwidth; below it the bandwidth falls in proportion (bytes in flight); 0 = "
                   "not modelled. Applies to kernels that declare `threads` on GPUs whose threads per SM are known",
                   "uncalibrated: 0 (off); fitted per GPU on te42kyfo/gpu-benches gpu-stream, scale and triad against "
                   "occupancy with memory_efficiency (the fit that gives contention.bw_saturation_fraction, which "
                   "reads an MPS partition of k% of the SMs as k% of the slots): A100-40GB 30.0%, A100-80GB 38.0%, "
                   "A40 17.8%, L40 10.5%, V100 22.8% in their shipped calibrations"))
      .add(&RooflineParams::l2_bandwidth, number_param("roofline", "l2_bandwidth", units::Dim::Bandwidth, 0, 0, 1e15,
                   "bandwidth at which a kernel whose working set stays in L2 moves its bytes (used where it beats the "
                   "DRAM bandwidth); 0 = no L2 level: every byte streams from DRAM",
                   "uncalibrated: 0 (off); fitted per GPU from te42kyfo/gpu-benches gpu-small-kernels (1 / slope of "
                   "time per launch against volume over the plain rows up to L2/4, with launch_overhead): "
                   "A100-80GB 1.36 (below its DRAM: no effect), A40 2.25, H200 4.59, L40 4.03 TB/s in their shipped "
                   "calibrations"))
      .add(&RooflineParams::l2_capacity_fraction, number_param("roofline", "l2_capacity_fraction", units::Dim::Ratio, 1.0, 0.05, 2.0,
                   "how much of the catalog L2 size a working set may fill and still be served from L2",
                   "uncalibrated: 100%; fitted per GPU from gpu-benches gpu-l2-cache (the data set where the "
                   "bandwidth falls half way from the L2 plateau to DRAM)"))
      .add(&RooflineParams::gemm_efficiency, number_param("roofline", "gemm_efficiency", units::Dim::Ratio, 0, 0, 1.0,
                   "fraction of the datasheet tensor rate a framework's GEMM kernels (op class gemm) reach over their "
                   "output tiles (spread over the SMs); 0 = compute_efficiency",
                   "uncalibrated: 0 (compute_efficiency); fitted per GPU by `vgpusim fit --vidur` on microsoft/vidur's "
                   "profiled projection and MLP GEMMs (A100-80GB and A40 in their shipped calibrations)"))
      .add(&RooflineParams::gemm_memory_efficiency, number_param("roofline", "gemm_memory_efficiency", units::Dim::Ratio, 0, 0, 1.0,
                   "fraction of the datasheet memory bandwidth a GEMM that streams its weights (few tokens) reaches; "
                   "0 = memory_efficiency",
                   "uncalibrated: 0 (memory_efficiency); fitted with gemm_efficiency"))
  ;
    for (OpClass c : kElementwise) {
      const std::string name = op_class_name(c);
      const std::string a = std::string("aeiou").find(name[0]) != std::string::npos ? "an" : "a";
      const auto i = static_cast<size_t>(c);
      t.add(&RooflineParams::traffic, i,
            number_param("roofline", name + "_traffic", units::Dim::Ratio, 1.0, 0.1, 20.0,
                         fmt::format("bytes {} {} kernel moves per byte its work declares (extra passes, "
                                     "bandwidth it does not reach)",
                                     a, name),
                         kVidurFit));
      t.add(&RooflineParams::class_overhead, i,
            number_param("roofline", name + "_overhead", units::Dim::Ratio, 1.0, 0.0, 10.0,
                         fmt::format("time {} {} kernel takes beyond its bytes, in launch overheads", a, name),
                         kVidurFit));
    }
    return t;
  }();
  return table;
}

std::vector<ParamSpec> roofline_params() { return RooflineParams::table().specs(); }

std::string roofline_description() {
  return "kernel solo time = the overhead of its launch kind (launch_overhead on a stream, graph_launch_overhead in a "
         "CUDA graph, grid_sync_overhead per persistent-kernel iteration) + longer + (1 - overlap) x shorter of sum "
         "of FLOP / (peak x efficiency x SM fill) (fp32_efficiency for FP32 when set, else compute_efficiency) and "
         "bytes / (bandwidth x memory_efficiency x min(1, occupancy / occupancy_saturation)); SM fill = min(1, blocks / SMs), the "
         "busiest SM's blocks when their size (`threads`) is known; a working set within "
         "l2_capacity_fraction x L2 moves its bytes at l2_bandwidth where that is faster than DRAM; kernels of a known "
         "op class take that class's fitted efficiencies (a GEMM's tiles spread over the SMs)";
}

namespace {
double fill_fraction(double blocks, const GpuSpec& gpu) {
  if (blocks <= 0 || gpu.compute_units <= 0) return 1.0;
  return std::min(1.0, blocks / gpu.compute_units);
}
// The efficiency of work limited by `b` (FP32 may have its own).
double efficiency(const RooflineParams& p, KernelBound b, OpClass op = OpClass::Generic) {
  if (op == OpClass::Gemm && b == KernelBound::FP16 && p.gemm_efficiency > 0) return p.gemm_efficiency;
  if (b == KernelBound::FP32 && p.fp32_efficiency > 0) return p.fp32_efficiency;
  return p.compute_efficiency;
}
double peak(const GpuSpec& gpu, KernelBound b) {
  switch (b) {
    case KernelBound::FP16: return gpu.fp16_tensor;
    case KernelBound::FP32: return gpu.fp32;
    case KernelBound::FP64: return gpu.fp64;
    case KernelBound::Memory: return gpu.memory_bandwidth;
  }
  return 0;
}
}  // namespace

const char* launch_kind_name(LaunchKind k) {
  switch (k) {
    case LaunchKind::Stream: return "stream";
    case LaunchKind::Graph: return "graph";
    case LaunchKind::Persistent: return "persistent";
  }
  return "stream";
}

double launch_overhead(const RooflineParams& p, LaunchKind launch) {
  switch (launch) {
    case LaunchKind::Stream: break;
    case LaunchKind::Graph: return p.graph_launch_overhead;
    case LaunchKind::Persistent: return p.grid_sync_overhead;
  }
  return p.launch_overhead;
}

namespace {
// A model's kernels on `gpu` by the operator model: their floors are the overhead, their compute and memory sides add
// up kernel by kernel (solo() then sums them: overlap 0), and the SM fill is the share their tiles cover. A pass's
// times are linear in its scale: the graph computes them once per device.
KernelTimes graph_times(const KernelSpec& k, const GpuSpec& gpu, const RooflineParams& p) {
  const OpGraph::Times g = k.graph->times(op_device(gpu, p));
  KernelTimes t;
  t.overlap = 0;
  t.overhead = k.graph_scale * g.floor;
  t.compute = k.graph_scale * g.compute;
  t.memory = k.graph_scale * g.memory;
  t.sm_fill = g.sm_fill;
  return t;
}
}  // namespace

OpDevice op_device(const GpuSpec& gpu, const RooflineParams& p) {
  OpDevice d = op_device(gpu);
  // The measured share of the FP32 peak, of the peak FP32 GEMMs run at (AMD CDNA and CDNA2: the matrix cores').
  if (p.fp32_efficiency > 0) d.fp32_measured = p.fp32_efficiency * d.fp32;
  return d;
}

KernelTimes kernel_times(const KernelSpec& k, const GpuSpec& gpu, const RooflineParams& p) {
  if (k.graph) return graph_times(k, gpu, p);
  KernelTimes t;
  t.sm_fill = fill_fraction(k.blocks, gpu);
  // The SMs' share the compute runs at. A GEMM's output tiles and the blocks of a kernel of known block size spread
  // over the SMs, and the kernel lasts as long as its busiest SM: ceil(blocks / SMs) blocks, each SM running its
  // blocks at its full throughput however few it holds (a tail is not a whole wave: NeuSight's per-op times prefer
  // this SM-level tail over whole waves, docs/models/op-model.md). Its SM demand stays its first wave's.
  double compute_fill = t.sm_fill;
  const auto busiest_sm = [&](double blocks) {
    return blocks / (std::ceil(blocks / gpu.compute_units) * gpu.compute_units);
  };
  if (k.op == OpClass::Gemm && k.blocks > gpu.compute_units && gpu.compute_units > 0)
    compute_fill = busiest_sm(k.blocks);
  // A declared block size: an SM holds floor(threads per SM / threads) blocks (threads in whole warps of 32; at most
  // the GPU's resident blocks per SM), a wave is that on every SM; the blocks of its first wave hold `occupancy` of
  // the thread slots. Unknown blocks: one full wave.
  if (k.threads > 0 && gpu.threads_per_sm > 0 && gpu.compute_units > 0 && k.op != OpClass::Gemm) {
    const double threads = std::min(std::ceil(k.threads / 32) * 32, gpu.threads_per_sm);
    double per_sm = std::max(1.0, std::floor(gpu.threads_per_sm / threads));
    if (gpu.blocks_per_sm > 0) per_sm = std::min(per_sm, gpu.blocks_per_sm);
    const double wave = gpu.compute_units * per_sm;
    const double blocks = k.blocks > 0 ? k.blocks : wave;
    t.occupancy = std::min(1.0, std::min(blocks, wave) * threads / (gpu.compute_units * gpu.threads_per_sm));
    t.occupancy_known = true;
    if (blocks > gpu.compute_units) compute_fill = busiest_sm(blocks);
  }
  t.overlap = p.overlap;
  if (k.fixed_time > 0) {  // on the SMs it occupies, for as long as it takes anywhere
    t.compute = k.fixed_time;
    return t;
  }
  const struct {
    double flops;
    KernelBound bound;
  } parts[] = {{k.flops_fp64, KernelBound::FP64}, {k.flops_fp32, KernelBound::FP32}, {k.flops_fp16, KernelBound::FP16}};
  for (const auto& part : parts) {
    if (part.flops <= 0) continue;
    const double rate = peak(gpu, part.bound);
    if (rate <= 0) throw std::invalid_argument(gpu.name + " has no rate for this precision");
    t.compute += part.flops / (rate * efficiency(p, part.bound, k.op) * compute_fill);
  }
  const double l2_bandwidth = p.l2_bandwidth;
  // Each of the kernels it stands for touches its share of the working set (fluid fidelity merges them).
  const double per_kernel = k.working_set / std::max(1.0, k.kernels);
  const bool in_l2 =
      per_kernel > 0 && l2_bandwidth > 0 && per_kernel <= p.l2_capacity_fraction * gpu.l2_cache;
  const bool gemm_bw = k.op == OpClass::Gemm && p.gemm_memory_efficiency > 0;
  const double dram = gpu.memory_bandwidth * (gemm_bw ? p.gemm_memory_efficiency : p.memory_efficiency);
  // Bytes in flight set the bandwidth: a kernel holding less than occupancy_saturation of the slots reaches that
  // share of it, from DRAM or from L2.
  if (t.occupancy_known && p.occupancy_saturation > 0) t.reach = std::min(1.0, t.occupancy / p.occupancy_saturation);
  double bytes = k.bytes, overhead = launch_overhead(p, k.launch);
  if (k.op != OpClass::Generic && k.op != OpClass::Gemm) {
    bytes *= p.traffic[static_cast<size_t>(k.op)];
    overhead *= p.class_overhead[static_cast<size_t>(k.op)];
  }
  // Data that stay in L2 move at its bandwidth, but no slower than they would stream from DRAM.
  if (bytes > 0 && in_l2 && l2_bandwidth > dram)
    t.cache = bytes / (l2_bandwidth * t.reach);
  else if (bytes > 0)
    t.memory = bytes / (dram * t.reach);
  t.overhead = overhead * std::max(1.0, k.kernels) * std::clamp(k.overhead_share, 0.0, 1.0);
  return t;
}

double kernel_work_time(double duration, double kernels, const RooflineParams& p, LaunchKind launch) {
  return std::max(0.0, duration - launch_overhead(p, launch) * std::max(1.0, kernels));
}

ActivityDemand activity_demand(const KernelSpec& k, const KernelTimes& t, const GpuSpec& gpu) {
  ActivityDemand d;
  const double kernels = std::max(1.0, k.kernels);
  d.blocks = (k.blocks > 0 ? k.blocks : gpu.compute_units) * kernels;
  d.stream_launched = k.launch == LaunchKind::Stream ? 1.0 : 0.0;
  const double solo = t.solo();
  if (!(solo > 0)) return d;
  d.compute_fraction = t.sm_side() / solo;
  d.memory_fraction = t.memory / solo;
  d.sm_fill = t.sm_fill;
  d.kernel_time = solo / kernels;
  d.bandwidth_reach = t.reach;
  d.occupancy = t.occupancy_known ? t.occupancy : 0.0;
  d.overhead_fraction = t.overhead / solo;
  return d;
}

double solo_time(const KernelSpec& k, const GpuSpec& gpu, const RooflineParams& p) {
  return kernel_times(k, gpu, p).solo();
}

KernelSpec kernel_from_duration(double duration_with_overhead, const GpuSpec& reference, KernelBound bound,
                                double blocks, const RooflineParams& p, double kernels, LaunchKind launch) {
  KernelSpec k;
  k.blocks = blocks;
  k.kernels = std::max(1.0, kernels);
  k.launch = launch;
  // A duration shorter than its kernels' launch overhead is all overhead: they take only that much of it, so the
  // duration comes back on the reference GPU.
  const double overhead = launch_overhead(p, launch) * k.kernels;
  if (overhead > 0) k.overhead_share = std::clamp(duration_with_overhead / overhead, 0.0, 1.0);
  const double duration = kernel_work_time(duration_with_overhead, k.kernels, p, launch);
  const double fill = fill_fraction(blocks, reference);
  switch (bound) {
    case KernelBound::Memory: k.bytes = duration * reference.memory_bandwidth * p.memory_efficiency; break;
    case KernelBound::FP16: k.flops_fp16 = duration * reference.fp16_tensor * p.compute_efficiency * fill; break;
    case KernelBound::FP32: k.flops_fp32 = duration * reference.fp32 * efficiency(p, bound) * fill; break;
    case KernelBound::FP64: k.flops_fp64 = duration * reference.fp64 * p.compute_efficiency * fill; break;
  }
  return k;
}

}  // namespace vgpusim
