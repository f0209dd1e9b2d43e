// Transformer ops as units of GPU work (models/workload/llm_ops.hpp).
#include "models/workload/llm_ops.hpp"

#include <cmath>

#include <fmt/format.h>

namespace vgpusim {

double LlmShape::layer_weight_bytes() const {
  const double hd = head_dim();
  const double attention = hidden * (heads + 2 * kv_heads) * hd + heads * hd * hidden;
  const double mlp = (gated_mlp ? 3 : 2) * hidden * intermediate;
  return dtype_bytes * (attention + mlp + 2 * hidden);
}

double LlmShape::weight_bytes() const {
  return layers * layer_weight_bytes() + dtype_bytes * (2 * vocab * hidden + hidden);
}

double LlmShape::kv_bytes_per_token(int tp) const {
  return dtype_bytes * 2 * layers * kv_heads * head_dim() / std::max(1, tp);
}

std::string llm_shape_error(const LlmShape& s, int tp) {
  if (s.layers <= 0) return "layers must be positive";
  for (const auto& [value, name] : {std::pair{s.hidden, "hidden_size"}, std::pair{s.heads, "heads"},
                                    std::pair{s.kv_heads, "kv_heads"}, std::pair{s.intermediate, "intermediate_size"},
                                    std::pair{s.vocab, "vocab_size"}, std::pair{s.dtype_bytes, "dtype_bytes"}})
    if (!(value > 0) || !std::isfinite(value)) return fmt::format("{} must be positive", name);
  auto divides = [](double a, double b) { return std::fmod(b, a) == 0; };
  if (!divides(s.heads, s.hidden))
    return fmt::format("heads ({}) do not divide hidden_size ({})", s.heads, s.hidden);
  if (!divides(s.kv_heads, s.heads)) return fmt::format("kv_heads ({}) do not divide heads ({})", s.kv_heads, s.heads);
  if (tp < 1) return "tensor_parallel must be at least 1";
  if (!divides(tp, s.heads) || !divides(tp, s.kv_heads))
    return fmt::format("tensor_parallel {} does not divide heads ({}) and kv_heads ({})", tp, s.heads, s.kv_heads);
  return "";
}

const std::vector<LlmOp>& llm_ops() {
  static const std::vector<LlmOp> all = {LlmOp::Embedding, LlmOp::InputNorm, LlmOp::QkvProj, LlmOp::Rotary,
                                         LlmOp::OutProj,   LlmOp::PostNorm,  LlmOp::MlpUp,   LlmOp::MlpAct,
                                         LlmOp::MlpDown,   LlmOp::Add};
  return all;
}

const char* llm_op_name(LlmOp op) {
  switch (op) {
    case LlmOp::Embedding: return "emb";
    case LlmOp::InputNorm: return "input_layernorm";
    case LlmOp::QkvProj: return "attn_pre_proj";
    case LlmOp::Rotary: return "attn_rope";
    case LlmOp::OutProj: return "attn_post_proj";
    case LlmOp::PostNorm: return "post_attention_layernorm";
    case LlmOp::MlpUp: return "mlp_up_proj";
    case LlmOp::MlpAct: return "mlp_act";
    case LlmOp::MlpDown: return "mlp_down_proj";
    case LlmOp::Add: return "add";
  }
  return "";
}

bool llm_op_from_name(const std::string& name, LlmOp& op) {
  for (LlmOp o : llm_ops())
    if (name == llm_op_name(o)) {
      op = o;
      return true;
    }
  return false;
}

KernelSpec gemm_kernel(double tokens, double in, double out, double e) {
  KernelSpec k;
  k.op = OpClass::Gemm;
  const double rows = std::ceil(tokens / kGemmTile), cols = std::ceil(out / kGemmTile);
  k.blocks = rows * cols;
  k.flops_fp16 = 2 * in * rows * kGemmTile * cols * kGemmTile;
  k.bytes = e * (in * out + tokens * in + tokens * out);
  return k;
}

namespace {
KernelSpec elementwise(OpClass op, double bytes, double flops) {
  KernelSpec k;
  k.op = op;
  k.bytes = bytes;
  k.flops_fp32 = flops;
  return k;
}
}  // namespace

KernelSpec llm_op_kernel(LlmOp op, const LlmShape& s, double n, int tp_degree) {
  const double d = s.hidden, t = std::max(1, tp_degree), m = s.intermediate, hd = s.head_dim(), e = s.dtype_bytes;
  switch (op) {
    case LlmOp::Embedding: return elementwise(OpClass::Embedding, e * 2 * n * d, 0);  // gather a row, write it
    case LlmOp::InputNorm:
    case LlmOp::PostNorm: return elementwise(OpClass::Norm, e * 2 * n * d, 5 * n * d);
    case LlmOp::QkvProj: return gemm_kernel(n, d, (s.heads + 2 * s.kv_heads) * hd / t, e);
    case LlmOp::Rotary: {
      const double elements = n * (s.heads + s.kv_heads) * hd / t;
      return elementwise(OpClass::Rotary, e * 2 * elements, 6 * elements);
    }
    case LlmOp::OutProj: return gemm_kernel(n, s.heads * hd / t, d, e);
    case LlmOp::MlpUp: return gemm_kernel(n, d, (s.gated_mlp ? 2 : 1) * m / t, e);
    case LlmOp::MlpAct: {
      const double elements = n * m / t;
      return elementwise(OpClass::Activation, e * elements * (s.gated_mlp ? 3 : 2), 8 * elements);
    }
    case LlmOp::MlpDown: return gemm_kernel(n, m / t, d, e);
    case LlmOp::Add: return elementwise(OpClass::Residual, e * 3 * n * d, n * d);
  }
  return {};
}

KernelSpec attention_prefill_kernel(const LlmShape& s, double tokens, double attended, double cached, int tp) {
  KernelSpec k;
  const double t = std::max(1, tp), hd = s.head_dim(), e = s.dtype_bytes;
  // QK^T and PV: 2 x 2 FLOPs per (query, key) pair and head dimension, over the pairs attended.
  k.flops_fp16 = 4 * attended * hd * s.heads / t;
  // Queries read and outputs written; keys and values of the new tokens written to the cache and read back; those
  // of the tokens cached before read.
  k.bytes = e * hd * (tokens * (2 * s.heads + 4 * s.kv_heads) + cached * 2 * s.kv_heads) / t;
  return k;
}

KernelSpec attention_decode_kernel(const LlmShape& s, double sequences, double context, int tp) {
  KernelSpec k;
  const double t = std::max(1, tp), hd = s.head_dim(), e = s.dtype_bytes;
  k.flops_fp16 = 4 * context * hd * s.heads / t;
  // Every cached key and value of the batch read once; the new token's query, output, key and value.
  k.bytes = e * (2 * context * s.kv_heads * hd + sequences * hd * (2 * s.heads + 2 * s.kv_heads)) / t;
  // One block per sequence and KV head (a decode kernel's usual split), which a small batch leaves SMs idle with.
  k.blocks = sequences * s.kv_heads / t;
  return k;
}

KernelSpec lm_head_kernel(const LlmShape& s, double rows, int tp) {
  return gemm_kernel(rows, s.hidden, s.vocab / std::max(1, tp), s.dtype_bytes);
}

}  // namespace vgpusim
