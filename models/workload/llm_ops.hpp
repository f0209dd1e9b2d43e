// A decoder-only transformer's ops as units of GPU work: what one iteration of an LLM server runs for a batch of
// tokens, per tensor-parallel shard. The same ops are what `vgpusim validate --published vidur` checks against
// Vidur's profiled PyTorch ops, and what `vgpusim fit --vidur` fits the roofline's op classes on.
#pragma once

#include <string>
#include <vector>

#include "models/gpu/roofline.hpp"

namespace vgpusim {

// A model's shape (Hugging Face config.json names in comments).
struct LlmShape {
  std::string name;
  int layers = 0;             // num_hidden_layers
  double hidden = 0;          // hidden_size
  double heads = 0;           // num_attention_heads
  double kv_heads = 0;        // num_key_value_heads
  double intermediate = 0;    // intermediate_size
  double vocab = 0;           // vocab_size
  bool gated_mlp = true;      // SwiGLU (gate and up projections) rather than one up projection
  double dtype_bytes = 2;     // bytes per weight and activation element (fp16/bf16)
  double head_dim() const { return hidden / heads; }
  // Weights of one layer and of the whole model (bytes), untied embedding and LM head.
  double layer_weight_bytes() const;
  double weight_bytes() const;
  // KV cache bytes per token (all layers, keys and values), per tensor-parallel shard of `tp`.
  double kv_bytes_per_token(int tp) const;
};

// "" when the shape is consistent, else what is wrong (heads not dividing the hidden size, KV heads not dividing the
// heads, a size that is not positive, a tensor-parallel degree that does not divide the heads and KV heads).
std::string llm_shape_error(const LlmShape& s, int tp);

// The non-attention ops of one layer (and the embedding), named as Vidur names them.
enum class LlmOp { Embedding, InputNorm, QkvProj, Rotary, OutProj, PostNorm, MlpUp, MlpAct, MlpDown, Add };
const std::vector<LlmOp>& llm_ops();
const char* llm_op_name(LlmOp op);  // "emb", "input_layernorm", "attn_pre_proj", ...
// The op by Vidur's name; false when it is not one.
bool llm_op_from_name(const std::string& name, LlmOp& op);

// Output tile edge (elements) of a GEMM's blocks: the tile whole waves are counted in. 64 x 64 was the best of
// 64..256 on both GPUs' training splits (docs/models/llm.md).
inline constexpr double kGemmTile = 64;
// A GEMM of `tokens` rows, `in` x `out` weights: padded tile FLOPs on the tensor cores, weights read once,
// activations read and written; its blocks are its output tiles.
KernelSpec gemm_kernel(double tokens, double in, double out, double dtype_bytes);

// One op for `tokens` tokens on one shard of tensor-parallel degree `tp`.
KernelSpec llm_op_kernel(LlmOp op, const LlmShape& s, double tokens, int tp);

// Attention of one iteration on one shard (op class generic: the roofline with its plain efficiencies; not
// validated). Prefill: `tokens` new tokens attending `attended` (query, key) pairs (causal: each new token attends
// to the keys before it; the sum over the batch of new x (earlier + new / 2)), reading the keys and values of the
// `cached` tokens their sequences held before. Decode: one token per sequence reading its whole KV cache; `context`
// is the sum of the sequences' lengths.
KernelSpec attention_prefill_kernel(const LlmShape& s, double tokens, double attended, double cached, int tp);
KernelSpec attention_decode_kernel(const LlmShape& s, double sequences, double context, int tp);
// The LM head (final norm folded in): logits for `rows` tokens (one per sequence that samples).
KernelSpec lm_head_kernel(const LlmShape& s, double rows, int tp);

}  // namespace vgpusim
