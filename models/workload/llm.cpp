// LLM serving (models/workload/llm.hpp): the server's scheduler as a state machine over the engine.
#include "models/workload/llm.hpp"
#include "models/workload/llm_scheduler.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <list>
#include <stdexcept>

#include <fmt/format.h>

#include "models/gpu/ring_allreduce.hpp"
#include "sim/core/units.hpp"

namespace vgpusim {

const ParamTable<LlmServerParams>& LlmServerParams::table() {
  static const ParamTable<LlmServerParams> table =
      ParamTable<LlmServerParams>()
          .add(&LlmServerParams::max_seqs,
               whole_param("llm", "max_seqs", 256, 1, 1 << 20, "most sequences in a batch (vLLM max_num_seqs)",
                           "vLLM EngineArgs default max_num_seqs = 256 (vllm-project/vllm vllm/engine/arg_utils.py)"))
          .add(&LlmServerParams::max_batched_tokens,
               whole_param("llm", "max_batched_tokens", 2048, 1, 1 << 24,
                           "token budget of an iteration (vLLM max_num_batched_tokens)",
                           "vLLM V1 with chunked prefill: default max_num_batched_tokens 2048 for online serving "
                           "(vllm-project/vllm vllm/engine/arg_utils.py, usage-context defaults)"))
          .add(&LlmServerParams::chunked_prefill,
               flag_param("llm", "chunked_prefill", true,
                          "prompts split into chunks that share iterations with decodes; false: waiting prompts run "
                          "whole, alone",
                          "vLLM V1 enables chunked prefill by default (docs.vllm.ai, Optimization and Tuning: "
                          "chunked prefill)"))
          .add(&LlmServerParams::block_size,
               whole_param("llm", "block_size", 16, 1, 1 << 16, "tokens per KV-cache block",
                           "vLLM CacheConfig default block_size = 16 on CUDA (vllm-project/vllm vllm/config)"))
          .add(&LlmServerParams::memory_fraction,
               number_param("llm", "memory_fraction", units::Dim::Ratio, 0.9, 1e-3, 1.0,
                            "share of the memory it sees that the server takes (vLLM gpu_memory_utilization)",
                            "vLLM default gpu_memory_utilization = 0.9 (vllm-project/vllm vllm/engine/arg_utils.py)"))
          .add(&LlmServerParams::tensor_parallel,
               whole_param("llm", "tensor_parallel", 1, 1, 64,
                           "GPUs the model is split over; the tenant plays one shard, the others assumed to run "
                           "alike in step",
                           "vLLM default tensor_parallel_size = 1"))
          .add(&LlmServerParams::cpu_per_iteration,
               number_param("llm", "cpu_per_iteration", units::Dim::Time, 2.02e-3, 0, 10.0,
                            "CPU time of an iteration (scheduling, inputs, sampling, outputs) besides the "
                            "per-sequence part",
                            "least-squares line through microsoft/vidur data/profiling/a100/cpu_overheads.csv "
                            "(Llama-2-7B, A100, tensor parallel 1, batch 8 to 64; schedule + sampler + prepare "
                            "inputs + process model outputs): intercept 2.02 ms"))
          .add(&LlmServerParams::cpu_per_sequence,
               number_param("llm", "cpu_per_sequence", units::Dim::Time, 0.171e-3, 0, 1.0,
                            "CPU time per sequence in the batch",
                            "the same least-squares line through Vidur's profiled vLLM CPU overheads: slope "
                            "0.171 ms per sequence"))
          .add(&LlmServerParams::link_bandwidth,
               number_param("llm", "link_bandwidth", units::Dim::Bandwidth, 300e9, 1.0, 1e15,
                            "tensor parallelism: per direction, for the all-reduces",
                            "A100 NVLink 3: 600 GB/s per GPU both directions together (NVIDIA A100 datasheet)"))
          .add(&LlmServerParams::link_latency,
               number_param("llm", "link_latency", units::Dim::Time, 3.4e-6, 0, 1.0,
                            "tensor parallelism: per ring step",
                            "NCCL src/graph/tuning.cc hwLat table, Ring/Simple per-step latency over NVLink, 3.4 us, "
                            "NCCL 2.x (github.com/NVIDIA/nccl)"));
  return table;
}

std::vector<ParamSpec> llm_server_params() { return LlmServerParams::table().specs(); }

std::string llm_server_description() {
  return "a vLLM-style server: continuous batching within max_batched_tokens and max_seqs, chunked prefill, a paged "
         "KV cache of block_size tokens in memory_fraction of what its process sees, recompute preemption; each "
         "iteration takes cpu_per_iteration + cpu_per_sequence x sequences on the CPU, then its transformer ops "
         "through the kernel model";
}

double LlmWorkload::weight_bytes() const {
  const double tp = std::max(1, server.tensor_parallel);
  // Layer weights split over the shards; embedding and LM head split over the vocabulary.
  return model.weight_bytes() / tp;
}

double LlmWorkload::activation_bytes() const {
  const double tp = std::max(1, server.tensor_parallel), n = server.max_batched_tokens, e = model.dtype_bytes;
  const double widest = std::max((model.heads + 2 * model.kv_heads) * model.head_dim() / tp,
                                 (model.gated_mlp ? 2 : 1) * model.intermediate / tp);
  // A layer's live tensors at its widest point: the residual stream and its normed copy, the widest projection's
  // output and the MLP's activation; plus fp32 logits for every sequence.
  return e * n * (2 * model.hidden + widest + model.intermediate / tp) +
         4.0 * server.max_seqs * model.vocab / tp;
}

std::shared_ptr<const WorkloadSpec> LlmWorkload::sized_for(double visible) const {
  auto out = std::make_shared<LlmWorkload>(*this);
  const double budget = server.memory_fraction * visible;
  const double weights = weight_bytes(), activations = activation_bytes();
  const double per_block = model.kv_bytes_per_token(server.tensor_parallel) * server.block_size;
  const double kv = budget - weights - activations;
  const double needed_blocks = std::ceil(max_model_len / server.block_size);
  const long long blocks = kv > 0 ? static_cast<long long>(std::floor(kv / per_block)) : 0;
  if (static_cast<double>(blocks) < needed_blocks) {
    const auto b = [](double x) { return units::format(x, units::Dim::Bytes); };
    throw std::invalid_argument(fmt::format(
        "{} does not fit: {} x {} it sees = {} for the server, of which the weights take {} (tensor_parallel {}) and "
        "activations {}, leaving {} for the KV cache; one sequence of max_model_len {} tokens needs {} ({} per "
        "token)",
        model.name.empty() ? "the model" : model.name, server.memory_fraction, b(visible), b(budget), b(weights),
        server.tensor_parallel, b(activations), b(std::max(0.0, kv)), max_model_len,
        b(needed_blocks * per_block), b(model.kv_bytes_per_token(server.tensor_parallel))));
  }
  out->allocated = budget;
  out->kv_blocks = blocks;
  return out;
}

std::vector<KernelSpec> llm_iteration(const LlmShape& s, const LlmServerParams& e, const LlmBatch& b,
                                      std::vector<const char*>* names) {
  const double n = b.prefill_tokens + b.decodes;
  const int tp = std::max(1, e.tensor_parallel);
  const double layers = s.layers;
  std::vector<KernelSpec> out;
  if (n <= 0) return out;
  auto once = [&](const char* name, const KernelSpec& k) {
    out.push_back(k);
    if (names) names->push_back(name);
  };
  // `per_layer` kernels of one op per layer, merged over the layers.
  auto add = [&](const char* name, KernelSpec k, double per_layer) {
    const double count = per_layer * layers;
    k = k.scaled(count);
    k.kernels = count;
    once(name, k);
  };
  auto op = [&](LlmOp o) { return llm_op_kernel(o, s, n, tp); };
  once("emb", op(LlmOp::Embedding));
  add("input_layernorm", op(LlmOp::InputNorm), 1);
  add("attn_pre_proj", op(LlmOp::QkvProj), 1);
  add("attn_rope", op(LlmOp::Rotary), 1);
  if (b.prefill_tokens > 0)
    add("attn_prefill", attention_prefill_kernel(s, b.prefill_tokens, b.attended, b.cached, tp), 1);
  if (b.decodes > 0) add("attn_decode", attention_decode_kernel(s, b.decodes, b.context, tp), 1);
  add("attn_post_proj", op(LlmOp::OutProj), 1);
  KernelSpec allreduce;
  if (tp > 1) {
    // Ring all-reduce of the layer's output activations, after attention and after the MLP.
    const double bytes = n * s.hidden * s.dtype_bytes;
    allreduce.fixed_time = ring_allreduce_analytic(tp, bytes, e.link_bandwidth, e.link_latency);
    allreduce.blocks = 1;  // NCCL's ring holds a few SMs, not the GPU
    add("all_reduce", allreduce, 1);
  }
  add("post_attention_layernorm", op(LlmOp::PostNorm), 1);
  add("mlp_up_proj", op(LlmOp::MlpUp), 1);
  add("mlp_act", op(LlmOp::MlpAct), 1);
  add("mlp_down_proj", op(LlmOp::MlpDown), 1);
  if (tp > 1) add("all_reduce", allreduce, 1);
  add("add", op(LlmOp::Add), 2);
  if (b.sampled > 0) {
    once("final_norm", llm_op_kernel(LlmOp::InputNorm, s, b.sampled, tp));
    once("lm_head", lm_head_kernel(s, b.sampled, tp));
  }
  return out;
}

namespace {

// The server: requests from a RequestSource become sequences for the scheduler; one iteration at a time, its CPU
// time, then its kernels; per-request figures and SLO bookkeeping as sequences finish.
class LlmServer final : public Workload {
 public:
  LlmServer(const LlmWorkload& s, uint64_t seed)
      : s_(s), rng_(seed), source_(s.arrivals, rng_), cache_(static_cast<double>(s.kv_blocks), s.server.block_size),
        scheduler_(s.server, cache_) {}

  void start(WorkloadPort& port) override {
    // Every count from 0, so that a quiet run reports none rather than leaving them out.
    for (const char* name : {"output_tokens", "iterations", "preemptions", "rejected", "kv_cache_busy_s"})
      port.count(name, 0);
    if (!s_.targets.empty()) port.count("good_requests", 0);
    source_.start(port);
    finish_if_done(port);
  }

  void on_timer(WorkloadPort& port, uint64_t tag) override {
    if (tag == kTimerCpu) {
      launch_next(port);
      return;
    }
    if (RequestSource::owns(tag)) source_.on_timer(port, tag, [&](const Arrival& a) { arrive(port, a); });
    if (!busy_) iterate(port);
  }

  KernelNote note(uint64_t tag) const override {
    KernelNote n;
    if (tag < names_.size()) n.name = names_[tag];
    n.args = batch_text_;
    return n;
  }

  void on_kernel_done(WorkloadPort& port, uint64_t /*tag*/) override {
    if (next_kernel_ < kernels_.size()) {
      launch_next(port);
      return;
    }
    complete_iteration(port);
  }

 private:
  static constexpr uint64_t kTimerCpu = 2;

  void arrive(WorkloadPort& port, const Arrival& a) {
    LlmSequence q;
    q.arrival = port.now();
    q.client = a.client;
    if (s_.trace) {
      const LlmRequest& r = (*s_.trace)[a.index];
      q.prompt = r.prompt;
      q.output = r.output;
    } else {
      q.prompt = std::max(1.0, std::round(s_.prompt_tokens.sample(rng_)));
      q.output = std::max(1.0, std::round(s_.output_tokens.sample(rng_)));
    }
    // A prompt the model cannot hold is refused, as the server does; the output stops at the model's length.
    if (q.prompt >= s_.max_model_len) {
      port.count("rejected", 1);
      source_.answered(port, a.client);
      return;
    }
    q.output = std::min(q.output, s_.max_model_len - q.prompt);
    q.length = q.prompt;
    scheduler_.add(q);
  }

  // Builds the next batch and starts it: its CPU time, then its kernels. Idle when nothing is to be done.
  void iterate(WorkloadPort& port) {
    if (busy_) return;
    long long preemptions = 0;
    const double tokens = scheduler_.build_batch(preemptions);
    if (preemptions > 0) port.count("preemptions", static_cast<double>(preemptions));
    if (tokens <= 0) {
      finish_if_done(port);
      return;
    }
    busy_ = true;
    port.count("iterations", 1);
    double seqs = 0;
    const LlmBatch batch = scheduler_.batch(seqs);
    names_.clear();
    kernels_ = llm_iteration(s_.model, s_.server, batch, port.recording() ? &names_ : nullptr);
    batch_text_ = port.recording() ? fmt::format("\"prefill_tokens\": {}, \"decodes\": {}, \"iteration\": {}",
                                                 batch.prefill_tokens, batch.decodes, iteration_number_)
                                   : std::string();
    ++iteration_number_;
    next_kernel_ = 0;
    iteration_start_ = port.now();
    const double cpu = s_.server.cpu_per_iteration + s_.server.cpu_per_sequence * seqs;
    if (cpu > 0)
      port.wake_at(port.now() + cpu, kTimerCpu);
    else
      launch_next(port);
  }

  void launch_next(WorkloadPort& port) {
    const KernelSpec& k = kernels_[next_kernel_];
    port.launch(k, next_kernel_);
    ++next_kernel_;
  }

  void complete_iteration(WorkloadPort& port) {
    const double now = port.now();
    const double used = scheduler_.complete(
        now, [&](const LlmSequence& q) { port.sample("ttft", now - q.arrival); },
        [&](const LlmSequence& q) { finish(port, q, now); });
    if (s_.kv_blocks > 0)
      port.count("kv_cache_busy_s", (now - iteration_start_) * used / static_cast<double>(s_.kv_blocks));
    busy_ = false;
    iterate(port);
  }

  void finish(WorkloadPort& port, const LlmSequence& q, double now) {
    port.count("output_tokens", q.generated);
    if (q.generated > 1) port.sample("tpot", (now - q.first_token) / (q.generated - 1));
    bool good = true;
    for (const SloTarget& t : s_.targets) {
      if (t.metric == "ttft" && q.first_token - q.arrival > t.latency) good = false;
      if (t.metric == "tpot" && q.generated > 1 && (now - q.first_token) / (q.generated - 1) > t.latency) good = false;
      if (t.metric.empty() && now - q.arrival > t.latency) good = false;
    }
    if (!s_.targets.empty() && good) port.count("good_requests", 1);
    port.unit_done(q.arrival);
    source_.answered(port, q.client);
  }

  void finish_if_done(WorkloadPort& port) {
    if (done_ || busy_) return;
    if (source_.done() && scheduler_.empty()) {
      done_ = true;
      port.finished();
    }
  }

  LlmWorkload s_;
  Rng rng_;
  RequestSource source_;
  KvCache cache_;
  LlmScheduler scheduler_;
  std::vector<KernelSpec> kernels_;
  std::vector<const char*> names_;  // the kernels' op names, while a timeline is recorded
  std::string batch_text_;          // the iteration's batch, for the timeline
  long long iteration_number_ = 0;
  size_t next_kernel_ = 0;
  double iteration_start_ = 0;
  bool busy_ = false;
  bool done_ = false;
};

}  // namespace

std::unique_ptr<Workload> LlmWorkload::play(Fidelity, uint64_t seed) const {
  if (kv_blocks <= 0) throw std::logic_error("an llm workload plays only once sized for its memory (sized_for)");
  return std::make_unique<LlmServer>(*this, seed);
}

}  // namespace vgpusim
