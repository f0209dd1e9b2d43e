// LLM serving as a workload: a vLLM-style server (continuous batching, chunked prefill, a paged KV cache with
// preemption by recompute) whose every iteration runs its batch's transformer ops (models/workload/llm_ops.hpp)
// through the kernel model, so it plays on any GPU, partition and sharing mode. Reports per request its time to
// first token (ttft), time per output token (tpot) and end-to-end latency (the unit's latency).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "models/workload/llm_ops.hpp"
#include "models/workload/workload.hpp"

namespace vgpusim {

// One request of a trace: when it arrives, its prompt and how many tokens it generates.
struct LlmRequest {
  double arrival = 0;  // s from the tenant's start
  double prompt = 0;   // tokens
  double output = 0;   // tokens, at least 1
};

// The serving engine's limits (vLLM's names in comments).
struct LlmEngine {
  int max_seqs = 256;             // max_num_seqs
  int max_batched_tokens = 2048;  // max_num_batched_tokens
  bool chunked_prefill = true;    // enable_chunked_prefill
  int block_size = 16;            // tokens per KV block
  double memory_fraction = 0.9;   // gpu_memory_utilization: of the memory the process sees
  double max_model_len = 4096;    // tokens of prompt and output together
  int tensor_parallel = 1;        // GPUs the model is split over (this tenant plays one of them)
  // CPU time per iteration (scheduling, preparing inputs, sampling, processing outputs): base + per sequence.
  double cpu_base = 2.02e-3;
  double cpu_per_sequence = 0.171e-3;
  // Tensor parallelism: ring all-reduce of each layer's activations (twice per layer) over this link.
  double link_bandwidth = 300e9;  // bytes/s per direction
  double link_latency = 3.4e-6;   // s per ring step
};

struct LlmWorkload final : WorkloadSpec {
  LlmShape model;
  LlmEngine engine;
  // Requests: a trace, or open-loop arrivals at `rate` (gamma inter-arrival times of coefficient of variation
  // `cv`; 1 = Poisson), or `clients` in a closed loop with `think` between an answer and the next request.
  std::shared_ptr<const std::vector<LlmRequest>> trace;
  double trace_speed = 1;  // arrivals come this many times as fast as the trace says
  double rate = 0;
  double cv = 1;
  long long clients = 0;
  Distribution think;
  Distribution prompt_tokens = Distribution::constant(512);
  Distribution output_tokens = Distribution::constant(128);
  long long requests = -1;  // -1 = until the trace or the scenario ends
  std::vector<SloTarget> targets;
  // Set by sized_for: the bytes the server allocates and the KV blocks they leave.
  double allocated = 0;
  long long kv_blocks = 0;

  std::string kind() const override { return "llm"; }
  std::string unit() const override { return "requests"; }
  bool bounded() const override { return requests >= 0 || trace != nullptr; }
  bool open_loop() const override { return clients == 0; }
  bool reports_latency() const override { return true; }
  std::vector<SloTarget> slo() const override { return targets; }
  double device_memory() const override { return allocated; }
  std::shared_ptr<const WorkloadSpec> sized_for(double visible) const override;
  std::unique_ptr<Workload> play(Fidelity fidelity, uint64_t seed) const override;

  // Bytes of one shard's weights, and of the activations the server sets aside (its largest batch's: a profile
  // run of max_batched_tokens tokens, as vLLM does, plus fp32 logits for max_seqs sequences).
  double weight_bytes() const;
  double activation_bytes() const;
};

// What one iteration's batch holds.
struct LlmBatch {
  double prefill_tokens = 0;  // new prompt tokens (chunks)
  double attended = 0;        // (query, key) pairs their attention covers
  double cached = 0;          // tokens the prefilling sequences already hold in the KV cache (read by attention)
  double decodes = 0;         // sequences generating one token each
  double context = 0;         // tokens those sequences hold in all
  double sampled = 0;         // sequences that take logits (a token is sampled for them)
};
// The GPU work of one iteration on one shard: kernels in launch order, each an op merged over the layers; `names`,
// when given, gets each kernel's op name (Vidur's names, and attn_prefill, attn_decode, all_reduce, lm_head).
std::vector<KernelSpec> llm_iteration(const LlmShape& s, const LlmEngine& e, const LlmBatch& batch,
                                      std::vector<const char*>* names = nullptr);

}  // namespace vgpusim
