// The operator model: the GPU time of a framework op's kernels from their shapes and the GPU's published figures.
// A GEMM is cut into 128 x 128 output tiles spread over the SMs; the busiest SM runs ceil(tiles / SMs) of them, and
// a tail SM with fewer tiles runs them at its full throughput (the tail is not a whole wave). The sustained FP32
// rate is the datasheet peak capped by the board's power, min(peak, power_efficiency x TDP). Memory-bound kernels
// move their bytes at a bandwidth efficiency per kernel class. The parameters are shared by every GPU and fitted
// jointly over several (docs/models/op-model.md), so a GPU with no measurement gets its prediction from its catalog
// entry.
#pragma once

#include <array>
#include <compare>
#include <cstdint>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "models/gpu/gpu_spec.hpp"
#include "sim/core/params.hpp"

namespace vgpusim {

// What a kernel of an op does. The GEMM classes are matrix products; the rest move memory.
enum class OpKernelClass : uint8_t {
  Linear,             // activation x weight (and its two backward products)
  Bmm,                // batched activation x activation (attention scores and values)
  Eltwise,            // element-wise arithmetic, masks, casts' arithmetic
  Activation,         // GELU, SiLU and other transcendental activations
  Softmax,
  SoftmaxBackward,
  Norm,               // layer and RMS norm
  NormBackward,
  Reduce,             // sums, means, bias gradients
  Embedding,          // table gather
  EmbeddingBackward,  // scatter-add into the table's gradient
  Dropout,
  DropoutBackward,
  Copy,               // contiguous copies, concatenation, dtype casts
  Fill,               // constants, ranges, zeroed buffers
  Accumulate,         // gradient accumulation into a parameter's .grad
};
inline constexpr size_t kOpKernelClasses = static_cast<size_t>(OpKernelClass::Accumulate) + 1;
// Its name as parameters and tables say it ("linear", "softmax_backward", ...).
const char* op_kernel_class_name(OpKernelClass c);
bool is_gemm(OpKernelClass c);

// The element type a kernel computes in: FP32 GEMMs run on the SIMT FP32 pipes, FP16/BF16 ones on the tensor cores;
// TF32 is FP32 data multiplied on the tensor cores (cuBLAS with TF32 allowed, Ampere and newer), on the FP32 pipes
// where the GPU has no TF32 rate.
enum class OpDtype : uint8_t { Fp32, Fp16, Tf32 };
double dtype_bytes(OpDtype d);

// One kernel of an op, independent of the GPU.
struct OpKernel {
  OpKernelClass cls = OpKernelClass::Eltwise;
  OpDtype dtype = OpDtype::Fp32;
  // GEMM: C[batch, m, n] = A[batch, m, k] x B[batch, k, n].
  double batch = 1, m = 0, n = 0, k = 0;
  double bytes = 0;  // memory kernel: bytes moved to and from DRAM

  static OpKernel gemm(OpKernelClass cls, double batch, double m, double n, double k, OpDtype dtype = OpDtype::Fp32);
  static OpKernel memory(OpKernelClass cls, double bytes);
  double flops() const;       // 2 batch m n k for a GEMM, 0 otherwise
  double gemm_bytes() const;  // a GEMM's operands read once and its result written once
  bool operator==(const OpKernel&) const = default;
  // An order (by class, dtype, then shape), so that kernels can key a map.
  std::partial_ordering operator<=>(const OpKernel&) const = default;
};

// Which FLOP-per-joule figure caps a board's FP32 rate: the one fitted on NeuSight's GPUs (Volta, Turing, Ampere
// GA100), or the one measured on boards of another architecture (Pascal; Ampere GA10x: wide SMs; Ada Lovelace;
// Hopper, for Hopper and Blackwell; AMD CDNA, its matrix cores).
enum class OpPowerGroup : uint8_t { Fitted, Pascal, Ga10x, Ada, Hopper, Cdna };

// The GPU (or partition) figures the model reads.
struct OpDevice {
  double sms = 0;
  double fp32 = 0;         // FLOP/s, datasheet: FP32 GEMMs' peak (AMD CDNA and CDNA2: the matrix cores' rate)
  double fp16_tensor = 0;  // FLOP/s, dense
  double tf32_tensor = 0;  // FLOP/s, dense; 0 = none (before Ampere, and non-NVIDIA)
  double bandwidth = 0;    // B/s, DRAM
  double tdp = 0;          // W; 0 = unknown: no power cap
  bool pre_volta = false;  // Pascal and older (architecture named in the catalog)
  OpPowerGroup power_group = OpPowerGroup::Fitted;  // from the architecture named in the catalog
  // SMs of 128 FP32 lanes that issue one warp instruction per clock per quarter (Ampere GA10x, Ada, Hopper,
  // Blackwell: FP32 peak / (2 x SMs x boost clock) = 128): a GEMM's loads take issue slots its FMAs need.
  bool wide_sm = false;
  double fp32_measured = 0;  // FLOP/s FP32 work sustains as a calibration measured it; 0 = the power cap's estimate
  bool operator==(const OpDevice&) const = default;
};
OpDevice op_device(const GpuSpec& gpu);

// The model's parameters (registered as model "ops"), shared by every GPU.
struct OpModelParams {
  double power_efficiency;        // FLOP per joule of TDP the FP32 pipes sustain (Volta to GA100: fitted)
  double power_efficiency_pascal;  // the same on Pascal boards (measured, not fitted)
  double power_efficiency_ga10x;  // the same on Ampere GA10x boards (measured, not fitted)
  double power_efficiency_ada;    // the same on Ada Lovelace boards (measured, not fitted)
  double power_efficiency_hopper;  // the same on Hopper and Blackwell boards (measured, not fitted)
  double power_efficiency_cdna;    // the same on AMD CDNA boards (measured, not fitted)
  double pre_volta_efficiency;    // GEMM efficiency factor on Pascal and older
  double wide_sm_efficiency;      // FP32 GEMM efficiency factor on wide SMs (OpDevice::wide_sm; measured, not fitted)
  double gemm_efficiency;         // of the tile's FLOPs at the sustained rate
  double bmm_factor;              // batched GEMMs' efficiency relative to linears'
  double tile_k_overhead;         // fixed cost per tile, in K elements (prologue and epilogue)
  double gemm_memory_efficiency;  // of the DRAM bandwidth a GEMM's operands stream at
  double gemm_floor;              // s, GPU time of the smallest GEMM kernel
  double memory_floor;            // s, GPU time of the smallest memory kernel
  // Per memory-bound class (index: OpKernelClass; the GEMM classes' entries are unused): of the DRAM bandwidth.
  std::array<double, kOpKernelClasses> bandwidth_efficiency;

  static const ParamTable<OpModelParams>& table();
};
std::vector<ParamSpec> op_model_params();
std::string op_model_description();

inline constexpr double kOpTile = 128;  // output tile edge of a GEMM kernel

struct OpKernelTimes {
  double tiles = 0;         // GEMM output tiles
  double splits = 1;        // split-K parts of each tile's reduction (outputs of fewer tiles than SMs)
  double tiles_per_sm = 0;  // tile parts on the busiest SM
  double compute = 0;       // s
  double memory = 0;        // s
  double floor = 0;         // s
  double total() const { return floor + (compute > memory ? compute : memory); }
};
OpKernelTimes op_kernel_times(const OpKernel& k, const OpDevice& d, const OpModelParams& p);
double op_kernel_time(const OpKernel& k, const OpDevice& d, const OpModelParams& p);

// A model's kernels, each with how often one pass runs it, and the pass's times by the shipped parameters on each
// device asked for (a workload asks for the same device at every launch: each device is computed once).
class OpGraph {
 public:
  struct Times {
    double floor = 0;    // s, the kernels' floors
    double compute = 0;  // s, the kernels whose compute is their longer side, at that side
    double memory = 0;   // s, the others, at their memory side
    double sm_fill = 1;  // time-weighted share of the SMs the kernels' tiles cover
    double total() const { return floor + compute + memory; }
  };
  explicit OpGraph(std::vector<std::pair<OpKernel, double>> kernels) : kernels_(std::move(kernels)) {}
  const std::vector<std::pair<OpKernel, double>>& kernels() const { return kernels_; }
  double launches() const;  // kernels one pass launches
  Times times(const OpDevice& d) const;

 private:
  std::vector<std::pair<OpKernel, double>> kernels_;
  mutable std::mutex mutex_;
  mutable std::vector<std::pair<OpDevice, Times>> memo_;
};
// The FP32 rate GEMMs on the SIMT pipes sustain on `d`: the peak, or a calibration's measured FMA rate where one is
// given, times wide_sm_efficiency on wide SMs; without a calibration at most the FLOP per joule of its power group x
// TDP.
double sustained_fp32(const OpDevice& d, const OpModelParams& p);

}  // namespace vgpusim
