// Each recorded kernel's work from its trace's evidence (see trace_kernels.hpp and docs/trace-replay.md).
#include "models/workload/trace_kernels.hpp"

#include "models/workload/fx_graph.hpp"
#include "sim/core/text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <boost/algorithm/string/case_conv.hpp>

namespace vgpusim {
namespace {

using K = OpKernelClass;

// FLOPs or bytes no real op comes near (a zettabyte): shapes beyond it are not evidence.
constexpr double kMaxWork = 1e21;

// The aten name without its namespace and in-place underscore: "aten::add_" -> "add".
std::string base_name(const std::string& name) {
  std::string n = name.rfind("aten::", 0) == 0 ? name.substr(6) : name;
  if (n.size() > 1 && n.back() == '_' && n[n.size() - 2] != '_') n.pop_back();
  return n;
}

// Bytes per element of a Kineto `Input type`; 0 for what is not a tensor ("Scalar", "", lists of scalars).
double type_bytes(const std::string& type) {
  if (type == "float" || type == "int" || type == "unsigned int") return 4;
  if (type == "c10::Half" || type == "c10::BFloat16" || type == "short int" || type == "short") return 2;
  if (type == "double" || type == "long int" || type == "long" || type == "c10::complex<float>") return 8;
  if (type == "bool" || type == "unsigned char" || type == "signed char" || type == "c10::Float8_e4m3fn" ||
      type == "c10::Float8_e5m2")
    return 1;
  return 0;
}

// The GEMM dtype: half types on the tensor cores; FP32 data on the tensor cores when the kernel's name says so (TF32
// tiles: cuBLAS/CUTLASS name them tf32 or, for FP32 in and out on tensor ops, tensorop_s / s1688 / s16816); none
// for other types (FP64 GEMMs are outside the model).
std::optional<OpDtype> gemm_dtype(const std::string& type, const std::string& kernel) {
  if (type == "c10::Half" || type == "c10::BFloat16") return OpDtype::Fp16;
  if (type != "float") return std::nullopt;
  const std::string n = boost::algorithm::to_lower_copy(kernel);
  for (const char* tf32 : {"tf32", "tensorop_s", "s1688", "s16816", "s884"})
    if (contains(n, tf32)) return OpDtype::Tf32;
  return OpDtype::Fp32;
}

// The memory-bound ops the model knows, by class.
std::optional<K> memory_class(const std::string& n) {
  static const std::map<std::string, K> named = [] {
    std::map<std::string, K> m;
    const auto add = [&](K c, std::initializer_list<const char*> names) {
      for (const char* s : names) m.emplace(s, c);
    };
    add(K::Copy, {"copy", "clone", "contiguous", "to", "_to_copy", "cat", "stack", "index_select", "gather",
                  "index", "repeat", "flip", "roll", "narrow_copy", "_unsafe_view"});
    add(K::Fill, {"fill", "zero", "zeros", "ones", "full", "zeros_like", "ones_like", "full_like", "arange"});
    add(K::Reduce, {"sum", "mean", "max", "min", "amax", "amin", "argmax", "argmin", "norm", "linalg_vector_norm",
                    "_foreach_norm", "var", "std", "prod", "all", "any", "cumsum"});
    add(K::Softmax, {"softmax", "_softmax", "log_softmax", "_log_softmax"});
    add(K::SoftmaxBackward, {"_softmax_backward_data", "_log_softmax_backward_data"});
    add(K::Norm, {"layer_norm", "native_layer_norm", "rms_norm", "_fused_rms_norm", "native_batch_norm",
                  "cudnn_batch_norm", "group_norm", "native_group_norm"});
    add(K::NormBackward, {"native_layer_norm_backward", "native_batch_norm_backward", "cudnn_batch_norm_backward",
                          "native_group_norm_backward"});
    add(K::Activation, {"gelu", "silu", "gelu_backward", "silu_backward", "tanh", "sigmoid", "tanh_backward",
                        "sigmoid_backward", "softplus", "elu", "hardswish"});
    add(K::Embedding, {"embedding"});
    add(K::EmbeddingBackward, {"embedding_dense_backward", "embedding_backward"});
    add(K::Dropout, {"dropout", "native_dropout", "bernoulli"});
    add(K::DropoutBackward, {"native_dropout_backward"});
    add(K::Eltwise, {"add", "sub", "mul", "div", "rsub", "addcmul", "addcdiv", "where", "masked_fill", "relu",
                     "threshold_backward", "pow", "sqrt", "rsqrt", "exp", "log", "neg", "abs", "clamp", "clamp_min",
                     "clamp_max", "lerp", "maximum", "minimum", "eq", "ne", "lt", "le", "gt", "ge", "logical_not",
                     "logical_and", "logical_or", "reciprocal", "sign", "_foreach_add", "_foreach_mul",
                     "_foreach_addcmul", "_foreach_addcdiv", "_foreach_div", "_foreach_sqrt", "_foreach_lerp",
                     "_foreach_mul_", "binary_cross_entropy_with_logits", "mse_loss", "nll_loss",
                     "nll_loss_forward", "nll_loss_backward", "leaky_relu", "hardtanh", "remainder", "floor", "ceil",
                     "round", "trunc", "isnan", "isinf", "nan_to_num", "square"});
    return m;
  }();
  const auto it = named.find(n);
  if (it == named.end()) return std::nullopt;
  return it->second;
}

}  // namespace

const char* kernel_evidence_name(KernelEvidence e) {
  switch (e) {
    case KernelEvidence::Shapes: return "shapes";
    case KernelEvidence::Launch: return "launch";
    case KernelEvidence::Name: return "name";
    case KernelEvidence::Recorded: return "recorded";
    case KernelEvidence::Copy: return "copy";
  }
  return "name";
}

std::optional<OpKernel> op_kernel_from_shapes(const KinetoCpuOp& op, const KinetoOp& kernel) {
  const std::string n = base_name(op.name);
  const auto& d = op.dims;
  const auto type = [&](size_t i) { return i < op.types.size() ? op.types[i] : std::string(); };
  const auto rank = [&](size_t i, size_t r) { return i < d.size() && d[i].size() == r; };
  const auto gemm = [&](K cls, double batch, double m, double cols, double k,
                        const std::string& t) -> std::optional<OpKernel> {
    const std::optional<OpDtype> dt = gemm_dtype(t, kernel.name);
    if (!dt || batch < 1 || m < 1 || cols < 1 || k < 1) return std::nullopt;
    const OpKernel g = OpKernel::gemm(cls, batch, m, cols, k, *dt);
    if (!(g.flops() < kMaxWork && g.gemm_bytes() < kMaxWork)) return std::nullopt;
    return g;
  };
  // Matrix products: A[m, k] x B[k, n] (batched: [b, m, k] x [b, k, n]).
  if (n == "mm" && rank(0, 2) && rank(1, 2))
    return gemm(K::Linear, 1, static_cast<double>(d[0][0]), static_cast<double>(d[1][1]), static_cast<double>(d[0][1]),
                type(0));
  if (n == "addmm" && rank(1, 2) && rank(2, 2))
    return gemm(K::Linear, 1, static_cast<double>(d[1][0]), static_cast<double>(d[2][1]), static_cast<double>(d[1][1]),
                type(1));
  if (n == "bmm" && rank(0, 3) && rank(1, 3))
    return gemm(K::Bmm, static_cast<double>(d[0][0]), static_cast<double>(d[0][1]), static_cast<double>(d[1][2]),
                static_cast<double>(d[0][2]), type(0));
  if (n == "baddbmm" && rank(1, 3) && rank(2, 3))
    return gemm(K::Bmm, static_cast<double>(d[1][0]), static_cast<double>(d[1][1]), static_cast<double>(d[2][2]),
                static_cast<double>(d[1][2]), type(1));
  // linear(x[..., k], W[n, k]) when it launches its product itself.
  if (n == "linear" && d.size() >= 2 && !d[0].empty() && rank(1, 2)) {
    const double k = static_cast<double>(d[0].back());
    return gemm(K::Linear, 1, shape_elements(d[0]) / std::max(1.0, k), static_cast<double>(d[1][0]), k, type(0));
  }
  const std::optional<K> cls = memory_class(n);
  if (!cls) return std::nullopt;
  // Memory-bound: the tensor inputs are read and a result the size of the largest is written; a copy writes its
  // destination (its first input), a fill only writes.
  double read = 0, largest = 0, fallback_bytes = 0;
  for (size_t i = 0; i < d.size(); ++i) {
    const double b = type_bytes(type(i));
    if (b > 0) fallback_bytes = b;
  }
  for (size_t i = 0; i < d.size(); ++i) {
    double b = type_bytes(type(i));
    if (b == 0 && type(i) == "TensorList") b = fallback_bytes > 0 ? fallback_bytes : 4;
    if (b == 0 || d[i].empty()) continue;
    const double bytes = b * shape_elements(d[i]);
    read += bytes;
    largest = std::max(largest, bytes);
    if (*cls == K::Fill) break;  // the destination only
  }
  if (!(read > 0 && read < kMaxWork)) return std::nullopt;
  const double bytes = *cls == K::Fill || n == "copy" ? read : read + largest;
  return OpKernel::memory(*cls, bytes);
}

TraceKernels::TraceKernels(const KinetoTrace& trace, const GpuSpec& source, const RooflineParams& perf, bool shapes)
    : trace_(trace), source_(source), perf_(perf), shapes_(shapes), device_(op_device(source, perf)) {}

KernelSpec TraceKernels::work(size_t i, double solo) {
  const KinetoOp& op = trace_.ops[i];
  const auto counted = [&](KernelEvidence e) { ++counts_[static_cast<size_t>(e)]; };
  if (op.kind != KinetoOp::Kind::Kernel) {
    counted(KernelEvidence::Copy);
    return kernel_from_duration(solo, source_, op_bound(op), 0, perf_);
  }
  if (is_collective(op)) {
    // A collective's kernel waits for the network and its peers: its recorded time, on any GPU.
    counted(KernelEvidence::Recorded);
    KernelSpec k;
    k.blocks = op.blocks();
    k.fixed_time = solo;
    return k;
  }
  if (shapes_ && op.cpu_op >= 0 && static_cast<size_t>(op.cpu_op) < trace_.cpu_ops.size()) {
    const std::optional<OpKernel> shaped = op_kernel_from_shapes(trace_.cpu_ops[static_cast<size_t>(op.cpu_op)], op);
    if (shaped) {
      auto [it, added] = graphs_.try_emplace(*shaped);
      if (added) {
        it->second.first = std::make_shared<const OpGraph>(std::vector<std::pair<OpKernel, double>>{{*shaped, 1.0}});
        it->second.second = it->second.first->times(device_).total();
      }
      // A model time that overflows (sizes far beyond any real tensor) gives no ratio: the name rule instead.
      if (it->second.second > 0 && std::isfinite(it->second.second)) {
        counted(KernelEvidence::Shapes);
        KernelSpec k;
        k.graph = it->second.first;
        // Calibrated on the source: there it takes its recorded solo time; elsewhere the model's ratio of the two.
        k.graph_scale = solo / it->second.second;
        return k;
      }
    }
  }
  counted(op.blocks() > 0 ? KernelEvidence::Launch : KernelEvidence::Name);
  return kernel_from_duration(solo, source_, op_bound(op), op.blocks(), perf_);
}

std::vector<std::pair<std::string, double>> TraceKernels::facts() const {
  std::vector<std::pair<std::string, double>> out;
  for (size_t e = 0; e < kKernelEvidenceKinds; ++e)
    out.emplace_back(fmt::format("ops_from_{}", kernel_evidence_name(static_cast<KernelEvidence>(e))),
                     static_cast<double>(counts_[e]));
  return out;
}

}  // namespace vgpusim
