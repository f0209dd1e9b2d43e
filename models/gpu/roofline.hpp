// Kernel performance model: a unit of GPU work and its solo time on a GPU, a roofline with declared efficiencies.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <memory>
#include <utility>

#include "models/gpu/gpu_spec.hpp"
#include "models/gpu/op_model.hpp"
#include "sim/core/params.hpp"
#include "sim/core/sharing_model.hpp"

namespace vgpusim {

// What kind of kernel a unit of work is, when it is one the roofline has measured efficiencies for (per GPU, fitted
// by `vgpusim fit --vidur` from a framework's own kernels: models/workload/llm_ops.hpp builds them). Generic work
// takes the roofline's plain efficiencies.
enum class OpClass : uint8_t { Generic, Gemm, Embedding, Norm, Rotary, Activation, Residual };
// The class's name as parameters and docs say it ("gemm", "norm", ...).
const char* op_class_name(OpClass c);

// How a kernel's runs follow one another, which sets what each pays beyond its roofline time: launched on a stream
// one after another (launch_overhead), as kernel nodes of an instantiated CUDA graph (graph_launch_overhead), or as
// iterations of one persistent kernel separated by a grid-wide barrier (grid_sync_overhead).
enum class LaunchKind : uint8_t { Stream, Graph, Persistent };
// Its name as scenarios say it ("stream", "graph", "persistent").
const char* launch_kind_name(LaunchKind k);

// A unit of GPU work, independent of the GPU it runs on.
struct KernelSpec {
  double flops_fp64 = 0;  // FLOP on the FP64 pipes
  double flops_fp32 = 0;  // FLOP on the FP32 pipes
  double flops_fp16 = 0;  // FLOP on FP16/BF16 tensor cores
  double bytes = 0;       // bytes moved to and from device memory
  double blocks = 0;      // thread blocks it launches; 0 = enough to fill every SM
  double kernels = 1;     // kernels it stands for, one after another (fluid fidelity merges a unit's kernels)
  double overhead_share = 1;  // of its launch kind's overhead each of its kernels takes (measured shorter: less)
  // Distinct bytes its kernels touch that the kernel before them left in L2 (a kernel run again on the same
  // buffers); 0 = unknown: its bytes stream from DRAM. Split among kernels like its bytes.
  double working_set = 0;
  // s it takes on any GPU, launch overhead included, when its time is not the GPU's to decide (a collective's
  // kernel, which waits for the network and its peers: its recorded time); 0 = from the work above.
  double fixed_time = 0;
  // Gemm: its blocks are output tiles spread over the SMs (it lasts as long as the SM with the most), at
  // gemm_efficiency; the elementwise classes move <class>_traffic x bytes and take <class>_overhead x
  // their launch kind's overhead per kernel (the factors were fitted on stream launches).
  OpClass op = OpClass::Generic;
  LaunchKind launch = LaunchKind::Stream;  // what each of its kernels pays beyond its roofline time
  // Threads per block; 0 = unknown. With the GPU's resident threads per SM it sets how many blocks an SM holds, and
  // so the occupancy that limits its DRAM bandwidth (occupancy_saturation); its blocks then spread over the SMs (it
  // lasts as long as the SM with the most).
  double threads = 0;

  // A framework model's kernels by their shapes (the `graph` workload kind), each with how many times it runs: its
  // time on whatever GPU or partition runs it comes from the operator model (models/gpu/op_model.hpp), times
  // `graph_scale`; the fields above are then unused. Shared: a spec is copied per kernel split and per replica.
  std::shared_ptr<const OpGraph> graph;
  double graph_scale = 1;

  // Every field alike (the graph by identity): the same kernel, so the same times on a GPU.
  bool operator==(const KernelSpec&) const = default;

  KernelSpec scaled(double factor) const {
    KernelSpec k = *this;
    k.graph_scale *= factor;
    k.fixed_time *= factor;
    k.flops_fp64 *= factor;
    k.flops_fp32 *= factor;
    k.flops_fp16 *= factor;
    k.bytes *= factor;
    k.working_set *= factor;
    return k;
  }
};

// What limits a kernel given as a measured duration: it is converted to the work that takes that long.
enum class KernelBound { Memory, FP16, FP32, FP64 };

// The number of op classes (OpClass values).
inline constexpr size_t kOpClasses = static_cast<size_t>(OpClass::Residual) + 1;

// The roofline's parameters (registered as model "roofline"), read once per GPU (ScenarioGpu::performance).
struct RooflineParams {
  double compute_efficiency;      // of the datasheet FLOP rate
  double memory_efficiency;       // of the datasheet DRAM bandwidth
  double fp32_efficiency;         // 0 = compute_efficiency
  double overlap;                 // share of the shorter side hidden under the longer one
  double launch_overhead;         // s per kernel launched on a stream
  double graph_launch_overhead;   // s per kernel node of a CUDA graph
  double grid_sync_overhead;      // s per persistent-kernel iteration
  double occupancy_saturation;    // share of thread slots for the full bandwidth; 0 = not modelled
  double l2_bandwidth;            // B/s; 0 = no L2 level
  double l2_capacity_fraction;    // of the catalog L2 a working set may fill
  double gemm_efficiency;         // 0 = compute_efficiency
  double gemm_memory_efficiency;  // 0 = memory_efficiency
  // Per op class (index: OpClass), for the element-wise classes: bytes moved per declared byte, and the share of a
  // launch overhead each kernel takes.
  std::array<double, kOpClasses> traffic;
  std::array<double, kOpClasses> class_overhead;

  static const ParamTable<RooflineParams>& table();
};
std::vector<ParamSpec> roofline_params();
std::string roofline_description();

struct KernelTimes {
  double compute = 0;   // s, FLOPs at the SM fill the kernel's blocks allow
  double memory = 0;    // s, bytes from DRAM at the bandwidth its bytes in flight reach (bytes not served from L2)
  double cache = 0;     // s, bytes served from L2 (a working set that stays there)
  double overhead = 0;  // s, its launch kind's overhead for each kernel it stands for
  double sm_fill = 1;   // fraction of the SMs its blocks occupy (a Gemm's: its first wave's)
  double overlap = 1;   // share of the shorter side hidden under the longer one (1: the classic roofline's max)
  double occupancy = 1;  // share of the GPU's resident-thread slots its blocks hold (1 when its block size is unknown)
  bool occupancy_known = false;
  double reach = 1;  // share of the bandwidth (DRAM or L2) its bytes in flight reach: min(1, occupancy / saturation)
  // What the SMs do (FLOPs and L2 traffic): the side that does not draw DRAM bandwidth.
  double sm_side() const { return compute > cache ? compute : cache; }
  double solo() const {
    const double a = sm_side(), b = memory;
    const double longer = a > b ? a : b, shorter = a > b ? b : a;
    return overhead + longer + (1 - overlap) * shorter;
  }
};

// The roofline's two sides for `k` on `gpu`.
KernelTimes kernel_times(const KernelSpec& k, const GpuSpec& gpu, const RooflineParams& p);
// The operator model's view of `gpu` under these parameters: its catalog figures, and the FP32 rate a calibration
// measured (fp32_efficiency x the FP32 peak) in place of the power cap's estimate where fp32_efficiency is set.
OpDevice op_device(const GpuSpec& gpu, const RooflineParams& p);
// What the work `k`, whose times on `gpu` are `t`, asks of the device (the sharing models' view of it).
ActivityDemand activity_demand(const KernelSpec& k, const KernelTimes& t, const GpuSpec& gpu);
// Solo time (s) of `k` on `gpu`: its kernels' launch overhead + the longer of its SM side (compute or L2 time) and
// its memory time + the part of the shorter one that `overlap` does not hide.
double solo_time(const KernelSpec& k, const GpuSpec& gpu, const RooflineParams& p);

// The work that takes `duration` on `reference` when limited by `bound`, as `kernels` kernels (inverse of
// solo_time: their launch overhead is taken out first; a duration shorter than that holds no work).
KernelSpec kernel_from_duration(double duration, const GpuSpec& reference, KernelBound bound, double blocks,
                                const RooflineParams& p, double kernels = 1, LaunchKind launch = LaunchKind::Stream);
// What of `duration` (s) is work rather than the launch overhead of `kernels` kernels.
double kernel_work_time(double duration, double kernels, const RooflineParams& p,
                        LaunchKind launch = LaunchKind::Stream);
// What each kernel launched as `launch` pays beyond its roofline time (s).
double launch_overhead(const RooflineParams& p, LaunchKind launch);

}  // namespace vgpusim
