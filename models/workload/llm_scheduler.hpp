// An LLM server's scheduler and KV cache (models/workload/llm.hpp plays them): vLLM's continuous batching with
// chunked prefill, admission while the token budget, the sequence limit and the paged KV cache last, and
// preemption by recompute. They know nothing of time or the engine: the server asks for a batch, runs it and
// reports it done.
#pragma once

#include <deque>
#include <functional>
#include <list>

#include "models/workload/llm.hpp"

namespace vgpusim {

// One request as the server holds it.
struct LlmSequence {
  double arrival = 0, prompt = 0, output = 0;  // s; tokens; tokens to generate
  long long client = -1;                       // closed loop: who waits for it
  double length = 0;                           // tokens it holds: prompt and generated
  double computed = 0;                         // tokens whose keys and values are in the cache
  double generated = 0;                        // output tokens so far
  double blocks = 0;                           // KV blocks it holds
  double first_token = -1;                     // s
  double chunk = 0;                            // tokens it processes in the current iteration
};

// The paged KV cache: `blocks` blocks of `block_size` tokens, handed to sequences as they grow.
class KvCache {
 public:
  KvCache(double blocks, int block_size) : free_(blocks), block_size_(block_size) {}
  // Gives `q` the blocks for `tokens` cached tokens; false when there are not enough free.
  bool grow(LlmSequence& q, double tokens);
  void release(LlmSequence& q);

 private:
  double free_;
  int block_size_;
};

class LlmScheduler {
 public:
  LlmScheduler(const LlmServerParams& params, KvCache& cache) : p_(params), cache_(cache) {}

  // A new request waits for admission.
  void add(const LlmSequence& q) { waiting_.push_back(q); }
  // Builds the next iteration's batch (each chosen sequence's `chunk`); returns its tokens (0: nothing to run) and
  // adds the preemptions it made to `preemptions`.
  double build_batch(long long& preemptions);
  // The built batch's work, and how many sequences it holds.
  LlmBatch batch(double& sequences) const;
  // The batch ran at `now`: chunks are cached and every sequence whose prompt is done samples a token;
  // `first_token` is told of each first token, `finished` of each sequence that generated its output (its blocks
  // are released first). Returns the KV blocks the remaining sequences hold.
  double complete(double now, const std::function<void(const LlmSequence&)>& first_token,
                  const std::function<void(const LlmSequence&)>& finished);
  bool empty() const { return waiting_.empty() && running_.empty(); }

 private:
  void preempt_last(long long& preemptions);
  bool admit_whole_prompts(double& budget);
  void admit_chunks(double& budget);

  LlmServerParams p_;
  KvCache& cache_;
  std::deque<LlmSequence> waiting_;
  std::list<LlmSequence> running_;
  double batch_tokens_ = 0;
  bool preempted_ = false;  // the iteration being built preempted a sequence
};

}  // namespace vgpusim
