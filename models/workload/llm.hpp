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

// The server's limits and costs, the `llm` model's parameters (vLLM's names in comments): a scenario sets them
// under tenants[].workload.llm, a GPU's calibration file as llm.<name>.
struct LlmServerParams {
  int max_seqs;              // max_num_seqs
  int max_batched_tokens;    // max_num_batched_tokens
  bool chunked_prefill;      // enable_chunked_prefill
  int block_size;            // tokens per KV block
  double memory_fraction;    // gpu_memory_utilization: of the memory the process sees
  int tensor_parallel;       // GPUs the model is split over (this tenant plays one of them)
  // CPU time per iteration (scheduling, preparing inputs, sampling, processing outputs): base + per sequence.
  double cpu_per_iteration;  // s
  double cpu_per_sequence;   // s
  // Tensor parallelism: ring all-reduce of each layer's activations (twice per layer) over this link.
  double link_bandwidth;     // bytes/s per direction
  double link_latency;       // s per ring step

  static const ParamTable<LlmServerParams>& table();
};
std::vector<ParamSpec> llm_server_params();
std::string llm_server_description();

struct LlmWorkload final : WorkloadSpec {
  LlmShape model;
  LlmServerParams server = LlmServerParams::table().defaults();
  double max_model_len = 0;  // tokens of prompt and output together (the reader sets the model's max_position)
  // Requests: a trace (its rows' arrival times are `arrivals.trace_times`), open-loop arrivals or clients.
  RequestArrivals arrivals;
  std::shared_ptr<const std::vector<LlmRequest>> trace;
  Distribution prompt_tokens;  // without a trace (the reader sets the declared defaults)
  Distribution output_tokens;
  std::vector<SloTarget> targets;
  // Set by sized_for: the bytes the server allocates and the KV blocks they leave.
  double allocated = 0;
  long long kv_blocks = 0;

  std::string kind() const override { return "llm"; }
  std::string description() const override { return "llm"; }
  std::string unit() const override { return "requests"; }
  bool bounded() const override { return arrivals.bounded(); }
  bool open_loop() const override { return arrivals.open_loop(); }
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
std::vector<KernelSpec> llm_iteration(const LlmShape& s, const LlmServerParams& e, const LlmBatch& batch,
                                      std::vector<const char*>* names = nullptr);

}  // namespace vgpusim
