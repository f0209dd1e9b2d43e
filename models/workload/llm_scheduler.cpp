// vLLM-style batch building, admission and preemption (llm_scheduler.hpp).
#include "models/workload/llm_scheduler.hpp"

#include <algorithm>
#include <cmath>

namespace vgpusim {

bool KvCache::grow(LlmSequence& q, double tokens) {
  const double need = std::ceil(tokens / block_size_) - q.blocks;
  if (need <= 0) return true;
  if (need > free_) return false;
  free_ -= need;
  q.blocks += need;
  return true;
}

void KvCache::release(LlmSequence& q) {
  free_ += q.blocks;
  q.blocks = 0;
}

// Preemption by recompute: the latest admitted running sequence gives back its blocks and waits again, to recompute
// its prompt and what it generated.
void LlmScheduler::preempt_last(long long& preemptions) {
  LlmSequence q = running_.back();
  running_.pop_back();
  cache_.release(q);
  q.computed = 0;
  q.chunk = 0;
  waiting_.push_front(q);
  preempted_ = true;
  ++preemptions;
}

double LlmScheduler::build_batch(long long& preemptions) {
  double budget = p_.max_batched_tokens;
  batch_tokens_ = 0;
  preempted_ = false;
  const bool chunked = p_.chunked_prefill;
  // Without chunked prefill, waiting prompts that can be admitted run alone (prefill first, as vLLM's default
  // scheduler without it does); else the running sequences go first, then new ones take what budget is left.
  if (chunked || waiting_.empty() || !admit_whole_prompts(budget)) {
    for (auto it = running_.begin(); it != running_.end();) {
      LlmSequence& q = *it;
      const double need = q.length - q.computed;
      q.chunk = chunked ? std::min(need, budget) : need;
      if (q.chunk <= 0) break;
      // Growing it may preempt the latest admitted sequences; when it is the latest itself, it waits again.
      bool ok = cache_.grow(q, q.computed + q.chunk);
      while (!ok && &running_.back() != &q) {
        preempt_last(preemptions);
        ok = cache_.grow(q, q.computed + q.chunk);
      }
      if (!ok) {
        preempt_last(preemptions);
        break;
      }
      budget -= q.chunk;
      batch_tokens_ += q.chunk;
      ++it;
    }
    // As vLLM: no new sequence in an iteration that had to preempt (it would take the blocks just freed).
    if (chunked && !preempted_) admit_chunks(budget);
  }
  return batch_tokens_;
}

// Without chunked prefill: whole prompts of waiting sequences, as many as the budget, the sequence limit and the
// blocks allow (the first even over the budget). False when none could be admitted.
bool LlmScheduler::admit_whole_prompts(double& budget) {
  bool any = false;
  while (!waiting_.empty() && static_cast<int>(running_.size()) < p_.max_seqs) {
    LlmSequence& q = waiting_.front();
    const double need = q.length - q.computed;
    if (any && need > budget) break;
    if (!cache_.grow(q, q.length)) break;
    q.chunk = need;
    budget -= need;
    batch_tokens_ += need;
    running_.push_back(q);
    waiting_.pop_front();
    any = true;
  }
  return any;
}

void LlmScheduler::admit_chunks(double& budget) {
  while (budget > 0 && !waiting_.empty() && static_cast<int>(running_.size()) < p_.max_seqs) {
    LlmSequence& q = waiting_.front();
    const double chunk = std::min(q.length - q.computed, budget);
    if (!cache_.grow(q, q.computed + chunk)) break;
    q.chunk = chunk;
    budget -= chunk;
    batch_tokens_ += chunk;
    running_.push_back(q);
    waiting_.pop_front();
  }
}

LlmBatch LlmScheduler::batch(double& sequences) const {
  LlmBatch b;
  sequences = 0;
  for (const LlmSequence& q : running_) {
    if (q.chunk <= 0) continue;
    ++sequences;
    if (q.chunk == 1 && q.generated > 0 && q.computed + 1 == q.length) {
      ++b.decodes;
      b.context += q.length;
    } else {
      b.prefill_tokens += q.chunk;
      b.cached += q.computed;
      b.attended += q.chunk * (q.computed + (q.chunk + 1) / 2);
    }
    if (q.computed + q.chunk >= q.length) ++b.sampled;
  }
  return b;
}

double LlmScheduler::complete(double now, const std::function<void(const LlmSequence&)>& first_token,
                              const std::function<void(const LlmSequence&)>& finished) {
  double used = 0;
  for (auto it = running_.begin(); it != running_.end();) {
    LlmSequence& q = *it;
    if (q.chunk > 0) {
      q.computed += q.chunk;
      q.chunk = 0;
      if (q.computed >= q.length) {  // a token sampled
        const bool first = q.generated == 0;
        q.generated += 1;
        q.length += 1;
        if (first && q.first_token < 0) {
          q.first_token = now;
          first_token(q);
        }
        if (q.generated >= q.output) {
          cache_.release(q);
          finished(q);
          it = running_.erase(it);
          continue;
        }
      }
    }
    used += q.blocks;
    ++it;
  }
  return used;
}

}  // namespace vgpusim
