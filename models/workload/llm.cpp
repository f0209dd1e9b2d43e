// LLM serving (models/workload/llm.hpp): the server's scheduler as a state machine over the engine.
#include "models/workload/llm.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <list>
#include <stdexcept>

#include <fmt/format.h>

#include "models/gpu/ring_allreduce.hpp"
#include "sim/core/units.hpp"

namespace vgpusim {

double LlmWorkload::weight_bytes() const {
  const double tp = std::max(1, engine.tensor_parallel);
  // Layer weights split over the shards; embedding and LM head split over the vocabulary.
  return model.weight_bytes() / tp;
}

double LlmWorkload::activation_bytes() const {
  const double tp = std::max(1, engine.tensor_parallel), n = engine.max_batched_tokens, e = model.dtype_bytes;
  const double widest = std::max((model.heads + 2 * model.kv_heads) * model.head_dim() / tp,
                                 (model.gated_mlp ? 2 : 1) * model.intermediate / tp);
  // A layer's live tensors at its widest point: the residual stream and its normed copy, the widest projection's
  // output and the MLP's activation; plus fp32 logits for every sequence.
  return e * n * (2 * model.hidden + widest + model.intermediate / tp) +
         4.0 * engine.max_seqs * model.vocab / tp;
}

std::shared_ptr<const WorkloadSpec> LlmWorkload::sized_for(double visible) const {
  auto out = std::make_shared<LlmWorkload>(*this);
  const double budget = engine.memory_fraction * visible;
  const double weights = weight_bytes(), activations = activation_bytes();
  const double per_block = model.kv_bytes_per_token(engine.tensor_parallel) * engine.block_size;
  const double kv = budget - weights - activations;
  const double needed_blocks = std::ceil(engine.max_model_len / engine.block_size);
  const long long blocks = kv > 0 ? static_cast<long long>(std::floor(kv / per_block)) : 0;
  if (static_cast<double>(blocks) < needed_blocks) {
    const auto b = [](double x) { return units::format(x, units::Dim::Bytes); };
    throw std::invalid_argument(fmt::format(
        "{} does not fit: {} x {} it sees = {} for the server, of which the weights take {} (tensor_parallel {}) and "
        "activations {}, leaving {} for the KV cache; one sequence of max_model_len {} tokens needs {} ({} per "
        "token)",
        model.name.empty() ? "the model" : model.name, engine.memory_fraction, b(visible), b(budget), b(weights),
        engine.tensor_parallel, b(activations), b(std::max(0.0, kv)), engine.max_model_len,
        b(needed_blocks * per_block), b(model.kv_bytes_per_token(engine.tensor_parallel))));
  }
  out->allocated = budget;
  out->kv_blocks = blocks;
  return out;
}

std::vector<KernelSpec> llm_iteration(const LlmShape& s, const LlmEngine& e, const LlmBatch& b,
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

// The server: waiting and running sequences, KV blocks, and one iteration at a time (CPU time, then its kernels).
class LlmServer final : public Workload {
 public:
  LlmServer(const LlmWorkload& s, uint64_t seed)
      : s_(s), rng_(seed), free_blocks_(static_cast<double>(s.kv_blocks)), left_(s.requests) {
    if (s_.trace && (left_ < 0 || left_ > static_cast<long long>(s_.trace->size())))
      left_ = static_cast<long long>(s_.trace->size());
  }

  void start(WorkloadPort& port) override {
    // Every count from 0, so that a quiet run reports none rather than leaving them out.
    for (const char* name : {"output_tokens", "iterations", "preemptions", "rejected", "kv_cache_busy_s"})
      port.count(name, 0);
    if (!s_.targets.empty()) port.count("good_requests", 0);
    if (s_.clients > 0)
      for (long long c = 0; c < s_.clients; ++c) client_thinks(port, c);
    else
      schedule_arrival(port);
    finish_if_done(port);
  }

  void on_timer(WorkloadPort& port, uint64_t tag) override {
    if (tag == kTimerCpu) {
      launch_next(port);
      return;
    }
    if (tag == kTimerArrival) {
      arrival_pending_ = false;
      arrive(port, -1);
      schedule_arrival(port);
    } else if (tag >= kTimerClientBase) {
      --thinking_;
      arrive(port, static_cast<long long>(tag - kTimerClientBase));
    }
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
  static constexpr uint64_t kTimerArrival = 1;
  static constexpr uint64_t kTimerCpu = 2;
  static constexpr uint64_t kTimerClientBase = 1ULL << 32;

  struct Seq {
    double arrival = 0, prompt = 0, output = 0;
    long long client = -1;
    double length = 0;     // tokens it holds: prompt and generated
    double computed = 0;   // tokens whose keys and values are in the cache
    double generated = 0;  // output tokens so far
    double blocks = 0;     // KV blocks it holds
    double first_token = -1;
    double chunk = 0;      // tokens it processes in the current iteration
  };
  using SeqList = std::list<Seq>;

  // --- requests ---
  bool take_request() {
    if (left_ == 0) return false;
    if (left_ > 0) --left_;
    return true;
  }
  void schedule_arrival(WorkloadPort& port) {
    if (!take_request()) return;
    arrival_pending_ = true;
    double at;
    if (s_.trace) {
      const double due = start_time(port) + (*s_.trace)[next_trace_].arrival / s_.trace_speed;
      at = std::max(port.now(), due);
    } else {
      const double mean = 1.0 / s_.rate;
      const Distribution gap = s_.cv == 1 ? Distribution{Distribution::Kind::Exponential, mean, 0}
                                          : Distribution{Distribution::Kind::Gamma, mean, s_.cv * mean};
      at = port.now() + gap.sample(rng_);
    }
    port.wake_at(at, kTimerArrival);
  }
  double start_time(WorkloadPort& port) {
    if (start_ < 0) start_ = port.now();
    return start_;
  }
  void client_thinks(WorkloadPort& port, long long client) {
    if (!take_request()) return;
    ++thinking_;
    port.wake_at(port.now() + s_.think.sample(rng_), kTimerClientBase + static_cast<uint64_t>(client));
  }
  void arrive(WorkloadPort& port, long long client) {
    Seq q;
    q.arrival = port.now();
    q.client = client;
    if (s_.trace) {
      const LlmRequest& r = (*s_.trace)[next_trace_++];
      q.prompt = r.prompt;
      q.output = r.output;
    } else {
      q.prompt = std::max(1.0, std::round(s_.prompt_tokens.sample(rng_)));
      q.output = std::max(1.0, std::round(s_.output_tokens.sample(rng_)));
    }
    // A prompt the model cannot hold is refused, as the server does; the output stops at the model's length.
    if (q.prompt >= s_.engine.max_model_len) {
      port.count("rejected", 1);
      if (client >= 0) client_thinks(port, client);
      return;
    }
    q.output = std::min(q.output, s_.engine.max_model_len - q.prompt);
    q.length = q.prompt;
    waiting_.push_back(q);
  }

  // --- KV blocks ---
  double blocks_for(double tokens) const { return std::ceil(tokens / s_.engine.block_size); }
  // Gives `q` blocks for `tokens` cached tokens; false when there are not enough free.
  bool grow(Seq& q, double tokens) {
    const double need = blocks_for(tokens) - q.blocks;
    if (need <= 0) return true;
    if (need > free_blocks_) return false;
    free_blocks_ -= need;
    q.blocks += need;
    return true;
  }
  void release(Seq& q) {
    free_blocks_ += q.blocks;
    q.blocks = 0;
  }
  // Preemption by recompute: the latest admitted running sequence gives back its blocks and waits again, to
  // recompute its prompt and what it generated.
  void preempt_last(WorkloadPort& port) {
    Seq q = running_.back();
    running_.pop_back();
    release(q);
    q.computed = 0;
    q.chunk = 0;
    waiting_.push_front(q);
    preempted_ = true;
    port.count("preemptions", 1);
  }

  // --- iterations ---
  // Builds the next batch and starts it: its CPU time, then its kernels. Idle when nothing is to be done.
  void iterate(WorkloadPort& port) {
    if (busy_) return;
    double budget = s_.engine.max_batched_tokens;
    batch_tokens_ = 0;
    preempted_ = false;
    const bool chunked = s_.engine.chunked_prefill;
    // Without chunked prefill, waiting prompts that can be admitted run alone (prefill first, as vLLM's default
    // scheduler without it does); else the running sequences go first, then new ones take what budget is left.
    if (chunked || waiting_.empty() || !admit_whole_prompts(budget)) {
      for (auto it = running_.begin(); it != running_.end();) {
        Seq& q = *it;
        const double need = q.length - q.computed;
        q.chunk = chunked ? std::min(need, budget) : need;
        if (q.chunk <= 0) break;
        // Growing it may preempt the latest admitted sequences; when it is the latest itself, it waits again.
        bool ok = grow(q, q.computed + q.chunk);
        while (!ok && &running_.back() != &q) {
          preempt_last(port);
          ok = grow(q, q.computed + q.chunk);
        }
        if (!ok) {
          preempt_last(port);
          break;
        }
        budget -= q.chunk;
        batch_tokens_ += q.chunk;
        ++it;
      }
      // As vLLM: no new sequence in an iteration that had to preempt (it would take the blocks just freed).
      if (chunked && !preempted_) admit_chunks(budget);
    }
    if (batch_tokens_ <= 0) {
      finish_if_done(port);
      return;
    }
    busy_ = true;
    port.count("iterations", 1);
    // The batch's work.
    double prefill = 0, attended = 0, cached = 0, decodes = 0, context = 0, sampled = 0, seqs = 0;
    for (const Seq& q : running_) {
      if (q.chunk <= 0) continue;
      ++seqs;
      if (q.chunk == 1 && q.generated > 0 && q.computed + 1 == q.length) {
        ++decodes;
        context += q.length;
      } else {
        prefill += q.chunk;
        cached += q.computed;
        attended += q.chunk * (q.computed + (q.chunk + 1) / 2);
      }
      if (q.computed + q.chunk >= q.length) ++sampled;
    }
    names_.clear();
    kernels_ = llm_iteration(s_.model, s_.engine, {prefill, attended, cached, decodes, context, sampled},
                             port.recording() ? &names_ : nullptr);
    batch_text_ = port.recording() ? fmt::format("\"prefill_tokens\": {}, \"decodes\": {}, \"iteration\": {}",
                                                 prefill, decodes, iteration_number_)
                                   : std::string();
    ++iteration_number_;
    next_kernel_ = 0;
    iteration_start_ = port.now();
    const double cpu = s_.engine.cpu_base + s_.engine.cpu_per_sequence * seqs;
    if (cpu > 0)
      port.wake_at(port.now() + cpu, kTimerCpu);
    else
      launch_next(port);
  }

  // Without chunked prefill: whole prompts of waiting sequences, as many as the budget, the sequence limit and the
  // blocks allow (the first even over the budget). False when none could be admitted.
  bool admit_whole_prompts(double& budget) {
    bool any = false;
    while (!waiting_.empty() && static_cast<int>(running_.size()) < s_.engine.max_seqs) {
      Seq& q = waiting_.front();
      const double need = q.length - q.computed;
      if (any && need > budget) break;
      if (!grow(q, q.length)) break;
      q.chunk = need;
      budget -= need;
      batch_tokens_ += need;
      running_.push_back(q);
      waiting_.pop_front();
      any = true;
    }
    return any;
  }

  void admit_chunks(double& budget) {
    while (budget > 0 && !waiting_.empty() && static_cast<int>(running_.size()) < s_.engine.max_seqs) {
      Seq& q = waiting_.front();
      const double chunk = std::min(q.length - q.computed, budget);
      if (!grow(q, q.computed + chunk)) break;
      q.chunk = chunk;
      budget -= chunk;
      batch_tokens_ += chunk;
      running_.push_back(q);
      waiting_.pop_front();
    }
  }

  void launch_next(WorkloadPort& port) {
    const KernelSpec& k = kernels_[next_kernel_];
    port.launch(k, next_kernel_);
    ++next_kernel_;
  }

  void complete_iteration(WorkloadPort& port) {
    const double now = port.now();
    double used = 0;
    for (auto it = running_.begin(); it != running_.end();) {
      Seq& q = *it;
      if (q.chunk > 0) {
        q.computed += q.chunk;
        q.chunk = 0;
        if (q.computed >= q.length) {  // a token sampled
          const bool first = q.generated == 0;
          q.generated += 1;
          q.length += 1;
          if (first && q.first_token < 0) {
            q.first_token = now;
            port.sample("ttft", now - q.arrival);
          }
          if (q.generated >= q.output) {
            finish(port, q, now);
            it = running_.erase(it);
            continue;
          }
        }
      }
      used += q.blocks;
      ++it;
    }
    if (s_.kv_blocks > 0)
      port.count("kv_cache_busy_s", (now - iteration_start_) * used / static_cast<double>(s_.kv_blocks));
    busy_ = false;
    iterate(port);
  }

  void finish(WorkloadPort& port, Seq& q, double now) {
    release(q);
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
    if (q.client >= 0) client_thinks(port, q.client);
  }

  void finish_if_done(WorkloadPort& port) {
    if (done_ || busy_) return;
    if (left_ == 0 && !arrival_pending_ && thinking_ == 0 && waiting_.empty() && running_.empty()) {
      done_ = true;
      port.finished();
    }
  }

  LlmWorkload s_;
  Rng rng_;
  double free_blocks_;
  long long left_;
  size_t next_trace_ = 0;
  double start_ = -1;
  std::deque<Seq> waiting_;
  SeqList running_;
  std::vector<KernelSpec> kernels_;
  std::vector<const char*> names_;  // the kernels' op names, while a timeline is recorded
  std::string batch_text_;          // the iteration's batch, for the timeline
  long long iteration_number_ = 0;
  size_t next_kernel_ = 0;
  double batch_tokens_ = 0;
  double iteration_start_ = 0;
  long long thinking_ = 0;
  bool arrival_pending_ = false;
  bool busy_ = false;
  bool done_ = false;
  bool preempted_ = false;  // the iteration being built preempted a sequence
};

}  // namespace

std::unique_ptr<Workload> LlmWorkload::play(Fidelity, uint64_t seed) const {
  if (kv_blocks <= 0) throw std::logic_error("an llm workload plays only once sized for its memory (sized_for)");
  return std::make_unique<LlmServer>(*this, seed);
}

}  // namespace vgpusim
