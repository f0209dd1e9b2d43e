// The operator model (docs/models/op-model.md).
#include "models/gpu/op_model.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace vgpusim {

namespace {
// The fit every default below comes from.
constexpr const char* kFit =
    "the joint fit of `vgpusim validate --published neusight scenarios/measurements/neusight` on the per-op times of "
    "its six GPUs (NeuSight's FP32 BERT, GPT-2/3 and OPT graphs; each leave-one-GPU-out fold refits it without the "
    "GPU it predicts)";

std::string fit_source(const std::string& extra) { return extra.empty() ? kFit : std::string(kFit) + "; " + extra; }
}  // namespace

const char* op_kernel_class_name(OpKernelClass c) {
  switch (c) {
    case OpKernelClass::Linear: return "linear";
    case OpKernelClass::Bmm: return "bmm";
    case OpKernelClass::Eltwise: return "eltwise";
    case OpKernelClass::Activation: return "activation";
    case OpKernelClass::Softmax: return "softmax";
    case OpKernelClass::SoftmaxBackward: return "softmax_backward";
    case OpKernelClass::Norm: return "norm";
    case OpKernelClass::NormBackward: return "norm_backward";
    case OpKernelClass::Reduce: return "reduce";
    case OpKernelClass::Embedding: return "embedding";
    case OpKernelClass::EmbeddingBackward: return "embedding_backward";
    case OpKernelClass::Dropout: return "dropout";
    case OpKernelClass::DropoutBackward: return "dropout_backward";
    case OpKernelClass::Copy: return "copy";
    case OpKernelClass::Fill: return "fill";
    case OpKernelClass::Accumulate: return "accumulate";
  }
  return "eltwise";
}

bool is_gemm(OpKernelClass c) { return c == OpKernelClass::Linear || c == OpKernelClass::Bmm; }

double dtype_bytes(OpDtype d) { return d == OpDtype::Fp16 ? 2.0 : 4.0; }

OpKernel OpKernel::gemm(OpKernelClass cls, double batch, double m, double n, double k, OpDtype dtype) {
  OpKernel o;
  o.cls = cls;
  o.dtype = dtype;
  o.batch = batch;
  o.m = m;
  o.n = n;
  o.k = k;
  return o;
}

OpKernel OpKernel::memory(OpKernelClass cls, double bytes) {
  OpKernel o;
  o.cls = cls;
  o.bytes = bytes;
  return o;
}

double OpKernel::flops() const { return is_gemm(cls) ? 2.0 * batch * m * n * k : 0.0; }

double OpKernel::gemm_bytes() const { return dtype_bytes(dtype) * batch * (m * k + k * n + m * n); }

OpDevice op_device(const GpuSpec& gpu) {
  OpDevice d;
  d.sms = gpu.compute_units;
  d.fp32 = gpu.fp32;
  // AMD CDNA and CDNA2 run FP32 GEMMs on their matrix cores at twice the FP32 vector rate the catalog gives (the
  // datasheets' FP32 matrix / vector TFLOPS: MI100 46.1 / 23.1, MI210 45.3 / 22.6, MI250 90.5 / 45.3); rocBLAS's
  // SGEMM kernels use them (an MI210 ran 37.9 TFLOP/s, above the vector peak: the source of power_efficiency_cdna).
  // On CDNA3 the vector rate is already the matrix one (MI300X 163.4 / 163.4).
  const bool cdna = gpu.vendor == "AMD" && gpu.architecture.starts_with("CDNA");
  if (cdna && (gpu.architecture == "CDNA" || gpu.architecture == "CDNA2")) d.fp32 = 2 * gpu.fp32;
  d.fp16_tensor = gpu.fp16_tensor;
  d.bandwidth = gpu.memory_bandwidth;
  d.tdp = gpu.tdp;
  const bool nvidia = gpu.vendor == "NVIDIA";
  const bool ada = gpu.architecture.find("Lovelace") != std::string::npos;
  const bool hopper = gpu.architecture == "Hopper" || gpu.architecture == "Blackwell";
  d.wide_sm = nvidia && (gpu.architecture == "Ampere" || ada || hopper) && gpu.compute_units > 0 &&
              gpu.boost_clock > 0 && gpu.fp32 / (2 * gpu.compute_units * gpu.boost_clock) > 96;
  if (nvidia && ada) d.power_group = OpPowerGroup::Ada;
  else if (nvidia && hopper) d.power_group = OpPowerGroup::Hopper;
  else if (d.wide_sm) d.power_group = OpPowerGroup::Ga10x;  // Ampere with wide SMs
  else if (cdna) d.power_group = OpPowerGroup::Cdna;
  else if (nvidia && gpu.architecture == "Pascal") d.power_group = OpPowerGroup::Pascal;
  d.pre_volta = gpu.vendor == "NVIDIA" && (gpu.architecture == "Pascal" || gpu.architecture == "Maxwell" ||
                                           gpu.architecture == "Kepler");
  // The dense TF32 tensor rate is half the dense FP16 one (FP32 accumulate) on every NVIDIA part since Ampere: A100
  // 156 / 312, H100 SXM 495 / 989, L4 60 / 121, RTX 3090 35.6 / 71 TFLOPS (the datasheets and whitepapers the
  // catalog cites). Volta and Turing have none.
  const bool tf32 = gpu.vendor == "NVIDIA" &&
                    (gpu.architecture == "Ampere" || gpu.architecture == "Hopper" || gpu.architecture == "Blackwell" ||
                     gpu.architecture.find("Lovelace") != std::string::npos);
  d.tf32_tensor = tf32 ? gpu.fp16_tensor / 2 : 0;
  return d;
}

const ParamTable<OpModelParams>& OpModelParams::table() {
  static const ParamTable<OpModelParams> table = [] {
    using units::Dim;
    ParamTable<OpModelParams> t;
    t.add(&OpModelParams::power_efficiency,
          number_param("ops", "power_efficiency", Dim::Count, 64.3e9, 5e9, 1e12,
                       "FLOP per joule of the board's TDP that FP32 GEMMs sustain on Volta, Turing and Ampere GA100 "
                       "boards (and older ones than Pascal): the FP32 rate is min(datasheet peak, power_efficiency x "
                       "TDP) (binds on low-power boards: a 70 W T4 sustains 4.5 of its 8.1 TFLOP/s); Pascal, GA10x, "
                       "Ada, Hopper and Blackwell, and AMD CDNA have their own below; on a GPU whose calibration sets "
                       "roofline.fp32_efficiency, that measured rate instead",
                       fit_source("on Volta, Turing and Ampere GA100 boards, the architectures of its GPUs besides "
                                  "Pascal; DeepBench's FP32 GEMMs on a 70 W T4 (results/train, CUDA 10.1: median of "
                                  "its ten fastest 4.46 TFLOP/s, 63.7 GFLOP/J) agree within 1%")))
        .add(&OpModelParams::power_efficiency_pascal,
             number_param("ops", "power_efficiency_pascal", Dim::Count, 43.9e9, 5e9, 1e12,
                          "power_efficiency on Pascal boards (P4, P40, P100, GTX 10x0, Titan X/Xp): their FP32 rate "
                          "is min(datasheet peak, power_efficiency_pascal x TDP)",
                          "DeepBench's FP32 GEMMs (baidu-research/DeepBench da81ba7, results/train, CUDA 8) on three "
                          "250 W GP102 boards: the median of each board's ten fastest shapes, GTX 1080 Ti 11.50, "
                          "Titan Xp 10.82, Titan X (Pascal) 10.59 TFLOP/s (1.41-1.60 GHz, about their rated boost "
                          "clocks of 1.53-1.58 GHz: taken as held by the power limit), their mean over 250 W. Its "
                          "Tesla P100 (PCIe, 250 W) ran 9.03 of 9.34: below this cap, as the model has it; not "
                          "fitted on NeuSight"))
        .add(&OpModelParams::power_efficiency_ga10x,
             number_param("ops", "power_efficiency_ga10x", Dim::Count, 76.4e9, 5e9, 1e12,
                          "power_efficiency on Ampere GA10x boards (wide SMs: A10, A10G, A40, RTX 3090): their FP32 "
                          "rate is min(wide-SM rate, power_efficiency_ga10x x TDP)",
                          "gpu-benches gpu-roofline (te42kyfo/gpu-benches 1c36d50, alex_a40.txt): the median FLOP/s "
                          "per watt of the 264 rows of at least 64 FLOP/B on an A40 at its 300 W limit (clocks "
                          "1665-1725 MHz, boost 1740 MHz); not fitted on NeuSight, whose Ampere boards are GA100"))
        .add(&OpModelParams::power_efficiency_ada,
             number_param("ops", "power_efficiency_ada", Dim::Count, 131e9, 5e9, 1e12,
                          "power_efficiency on Ada Lovelace boards (L4, L40, L40S, RTX 4090): their FP32 rate is "
                          "min(datasheet peak, power_efficiency_ada x TDP)",
                          "gpu-benches gpu-roofline (te42kyfo/gpu-benches 1c36d50, genoa_l40.txt): the median "
                          "FLOP/s per watt of the 66 rows of at least 64 FLOP/B on two L40 boards, both at their "
                          "power limit (clocks 1515-1740 MHz at ~305 W, ~121 GFLOP/J; 2115-2220 MHz at ~355 W, ~140; "
                          "boost 2490 MHz); not fitted on NeuSight, whose GPUs are all older"))
        .add(&OpModelParams::power_efficiency_hopper,
             number_param("ops", "power_efficiency_hopper", Dim::Count, 102e9, 5e9, 1e12,
                          "power_efficiency on Hopper and Blackwell boards: their FP32 rate is min(datasheet peak, "
                          "power_efficiency_hopper x TDP)",
                          "gpu-benches gpu-roofline (te42kyfo/gpu-benches 1c36d50, h200.txt): the median FLOP/s per "
                          "watt of the 20 rows of at least 64 FLOP/B on an H200, 396-428 W at its full 1980 MHz: its "
                          "700 W limit did not bind, so a lower bound (a board whose cap binds is predicted too "
                          "slow, not too fast); not fitted on NeuSight, whose GPUs are all older"))
        .add(&OpModelParams::power_efficiency_cdna,
             number_param("ops", "power_efficiency_cdna", Dim::Count, 118e9, 5e9, 1e12,
                          "power_efficiency on AMD CDNA boards (MI100, MI210, MI250, MI250X, MI300X), whose FP32 "
                          "GEMMs run on the matrix cores: their FP32 rate is min(matrix peak, power_efficiency_cdna x "
                          "TDP)",
                          "two FP32 GEMMs of 8192^3 on an MI210 at its 300 W limit: rocBLAS 37.9 TFLOP/s at 299 W and "
                          "1635-1700 MHz of 1700 (rocblas-bench; github.com/ROCm/rocm-libraries issue 9453) and "
                          "PyTorch torch.matmul 33.0 TFLOP/s (ROCm 7.2; github.com/zzc0721/torch-performance-test-data "
                          "issue 195): their mean over 300 W. On CDNA3 a lower bound: an MI325X's torch.matmul FP32 "
                          "ran 130.6 TFLOP/s under its 1000 W limit (github.com/ROCm/gpu-operator issue 419), where "
                          "this figure allows 118; not fitted on NeuSight, none of whose GPUs is AMD"))
        .add(&OpModelParams::pre_volta_efficiency,
             number_param("ops", "pre_volta_efficiency", Dim::Count, 0.815, 0.3, 1.5,
                          "GEMM efficiency factor on Pascal and older GPUs (in the profiles it is fitted on their FP32 "
                          "GEMMs reach less of the peak than Volta's and later GPUs')",
                          fit_source("learned from the Pascal GPUs only (a fold that holds one out learns it from "
                                     "the other): expect +-30% on a new architecture")))
        .add(&OpModelParams::wide_sm_efficiency,
             number_param("ops", "wide_sm_efficiency", Dim::Ratio, 0.80, 0.3, 1.0,
                          "FP32 GEMM efficiency factor on SMs of 128 FP32 lanes that issue one warp instruction per "
                          "clock per quarter (Ampere GA10x, Ada, Hopper, Blackwell): the GEMM's shared-memory loads "
                          "take issue slots its FMAs need, where 64-lane SMs (GA100, Volta, Turing) have them spare; "
                          "applies to a calibration's measured FMA rate too",
                          "FP32 matmuls measured where neither the power limit nor memory binds: an H100 SXM "
                          "(PyTorch 2.7 torch.matmul FP32, 4096^2 and 8192^2: 51.9 and 51.8 of 67 TFLOP/s, 0.775; "
                          "github.com/zzc0721/torch-performance-test-data issue 79) and an RTX 4070 Ti (cuBLAS SGEMM "
                          "5120 x 4096 x 4096: 29.17 of 35.48, 0.822; github.com/Yinghan-Li/YHs_Sample issue 4, where "
                          "an A100 80GB PCIe, 64 lanes per SM, ran 18.88 of 19.49, 0.969): their mean; not fitted on "
                          "NeuSight, none of whose GPUs has such SMs (the Pascal P4's 128-lane SMs dispatch two "
                          "instructions per clock per quarter)"))
        .add(&OpModelParams::gemm_efficiency,
             number_param("ops", "gemm_efficiency", Dim::Ratio, 1.0, 0.05, 1.0,
                          "fraction of the sustained rate a GEMM tile's FLOPs reach once its K overhead is counted",
                          fit_source("at its upper bound: the tiles, waves and K overhead carry the losses")))
        .add(&OpModelParams::bmm_factor,
             number_param("ops", "bmm_factor", Dim::Count, 1.091, 0.2, 1.5,
                          "batched GEMMs' efficiency relative to linears' (attention's 64-wide head products fill "
                          "half of a 128-wide tile)",
                          fit_source("")))
        .add(&OpModelParams::tile_k_overhead,
             number_param("ops", "tile_k_overhead", Dim::Count, 35.6, 0, 1024,
                          "fixed cost of a GEMM tile (prologue and epilogue), in K elements: a tile costs K + "
                          "tile_k_overhead multiply-adds per output",
                          fit_source("")))
        .add(&OpModelParams::gemm_memory_efficiency,
             number_param("ops", "gemm_memory_efficiency", Dim::Ratio, 0.367, 0.05, 1.0,
                          "fraction of the DRAM bandwidth a GEMM's operands (read once) and result (written once) "
                          "stream at; binds on attention products on low-bandwidth GPUs",
                          fit_source("")))
        .add(&OpModelParams::gemm_floor,
             number_param("ops", "gemm_floor", Dim::Time, 5e-6, 0.5e-6, 5e-6,
                          "GPU time of a GEMM kernel beyond its tiles (ramp-up and tail)",
                          fit_source("at its upper bound")))
        .add(&OpModelParams::memory_floor,
             number_param("ops", "memory_floor", Dim::Time, 3.60e-6, 0.5e-6, 5e-6,
                          "GPU time of a memory-bound kernel beyond its bytes", fit_source("")));
    // The memory classes' bandwidth efficiencies, in class order.
    const std::array<double, kOpKernelClasses> fitted = {0,     0,     0.758, 0.819, 0.735, 0.435, 0.553, 0.440,
                                                         1.5,   0.192, 0.100, 0.757, 0.281, 0.735, 0.906, 1.138};
    for (size_t i = 0; i < kOpKernelClasses; ++i) {
      const auto c = static_cast<OpKernelClass>(i);
      if (is_gemm(c)) continue;
      const std::string name = op_kernel_class_name(c);
      t.add(&OpModelParams::bandwidth_efficiency, i,
            number_param("ops", name + "_bandwidth", Dim::Count, fitted[i], 0.01, 1.5,
                         fmt::format("fraction of the DRAM bandwidth {} kernels move their bytes at (above 1: part of "
                                     "them is served from L2)",
                                     name),
                         fit_source("")));
    }
    return t;
  }();
  return table;
}

std::vector<ParamSpec> op_model_params() { return OpModelParams::table().specs(); }

std::string op_model_description() {
  return "the GPU time of a framework op's kernels from their shapes: GEMMs as 128 x 128 output tiles over the SMs "
         "(the busiest SM's tiles; a tail SM with fewer tiles runs them at full throughput) at the FP32 peak capped "
         "by the board's power, or on the tensor cores; memory-bound kernels at a bandwidth efficiency per class; "
         "one parameter set for every GPU, fitted jointly over several";
}

double sustained_fp32(const OpDevice& d, const OpModelParams& p) {
  const double issue = d.wide_sm ? p.wide_sm_efficiency : 1.0;
  if (d.fp32_measured > 0) return issue * d.fp32_measured;
  const double per_joule = d.power_group == OpPowerGroup::Pascal   ? p.power_efficiency_pascal
                           : d.power_group == OpPowerGroup::Ga10x  ? p.power_efficiency_ga10x
                           : d.power_group == OpPowerGroup::Ada    ? p.power_efficiency_ada
                           : d.power_group == OpPowerGroup::Hopper ? p.power_efficiency_hopper
                           : d.power_group == OpPowerGroup::Cdna   ? p.power_efficiency_cdna
                                                                   : p.power_efficiency;
  return d.tdp > 0 ? std::min(issue * d.fp32, per_joule * d.tdp) : issue * d.fp32;
}

OpKernelTimes op_kernel_times(const OpKernel& k, const OpDevice& d, const OpModelParams& p) {
  OpKernelTimes t;
  if (!is_gemm(k.cls)) {
    t.floor = p.memory_floor;
    t.memory = k.bytes / (p.bandwidth_efficiency[static_cast<size_t>(k.cls)] * d.bandwidth);
    return t;
  }
  t.floor = p.gemm_floor;
  const double sms = std::max(1.0, d.sms);
  t.tiles = k.batch * std::ceil(k.m / kOpTile) * std::ceil(k.n / kOpTile);
  // Split-K: an output of fewer tiles than SMs has its reduction cut into `splits` parts on as many SMs, each part
  // at least a tile deep (kOpTile), the partial results written and summed (a weight gradient, a reduction over
  // every token or pixel, is such a product).
  t.splits = t.tiles < sms ? std::max(1.0, std::min(std::floor(sms / t.tiles), std::floor(k.k / kOpTile))) : 1.0;
  t.tiles_per_sm = std::ceil(t.tiles * t.splits / sms);
  const double rate = k.dtype == OpDtype::Fp16                        ? d.fp16_tensor
                      : k.dtype == OpDtype::Tf32 && d.tf32_tensor > 0 ? d.tf32_tensor
                                                                      : sustained_fp32(d, p);
  const double efficiency = p.gemm_efficiency * (d.pre_volta ? p.pre_volta_efficiency : 1.0) *
                            (k.cls == OpKernelClass::Bmm ? p.bmm_factor : 1.0);
  const double tile_time =
      2.0 * kOpTile * kOpTile * (k.k / t.splits + p.tile_k_overhead) / (rate / sms * efficiency);
  t.compute = t.tiles_per_sm * tile_time;
  const double partials = t.splits > 1 ? 2 * t.splits * dtype_bytes(k.dtype) * k.batch * k.m * k.n : 0;
  t.memory = (k.gemm_bytes() + partials) / (p.gemm_memory_efficiency * d.bandwidth);
  return t;
}

double op_kernel_time(const OpKernel& k, const OpDevice& d, const OpModelParams& p) {
  return op_kernel_times(k, d, p).total();
}

double OpGraph::launches() const {
  double n = 0;
  for (const auto& [kernel, count] : kernels_) n += count;
  return n;
}

OpGraph::Times OpGraph::times(const OpDevice& d) const {
  static const OpModelParams params = OpModelParams::table().defaults();
  const std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& [device, t] : memo_)
    if (device == d) return t;
  Times t;
  double filled = 0;
  for (const auto& [kernel, n] : kernels_) {
    const OpKernelTimes o = op_kernel_times(kernel, d, params);
    t.floor += n * o.floor;
    (o.compute >= o.memory ? t.compute : t.memory) += n * std::max(o.compute, o.memory);
    const double fill = is_gemm(kernel.cls) && d.sms > 0 ? std::min(1.0, o.tiles * o.splits / d.sms) : 1.0;
    filled += fill * n * o.total();
  }
  t.sm_fill = t.total() > 0 ? filled / t.total() : 1;
  memo_.emplace_back(d, t);
  return t;
}

}  // namespace vgpusim
