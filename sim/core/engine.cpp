// The event core. Each context keeps a virtual clock `v`: all of its in-flight activities progress at the same
// member rate, so an activity is a (finish_v) entry in a per-context heap and a rate change costs O(contexts on
// the GPU), not O(activities).
#include "sim/core/engine.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace vgpusim {
namespace {
// An activity whose remaining work would take less than this at its current rate is complete. It absorbs the
// rounding of (time, rate) products; 1 ns is far below any kernel duration the models produce.
constexpr double kCompletionSlack = 1e-9;  // s
// A rate a model may return above 1 (a context's solo speed) before it is reported as a bug (rounding).
constexpr double kCapacitySlack = 1e-9;

void check_work(double solo_seconds) {
  if (!(solo_seconds >= 0) || !std::isfinite(solo_seconds))
    throw std::invalid_argument("activity work must be finite and >= 0, got " + std::to_string(solo_seconds));
}
}  // namespace

Engine::GpuIndex Engine::add_gpu(std::unique_ptr<SharingModel> model) {
  Gpu gpu;
  gpu.model = std::move(model);
  gpu.may_hold = gpu.model->keeps_idle_grace();
  gpu.last_update = now_;
  gpu.stats.series.interval = utilization_interval_;
  gpus_.push_back(std::move(gpu));
  return static_cast<GpuIndex>(gpus_.size() - 1);
}

Engine::ClientIndex Engine::add_client(EngineClient* client) {
  clients_.push_back(Client{client, false, {}});
  return static_cast<ClientIndex>(clients_.size() - 1);
}

Engine::ContextIndex Engine::add_context(GpuIndex gpu, ClientIndex client) {
  Context c;
  c.gpu = gpu;
  c.client = client;
  contexts_.push_back(std::move(c));
  const auto index = static_cast<ContextIndex>(contexts_.size() - 1);
  gpus_[gpu].contexts.push_back(index);
  gpus_[gpu].loads.emplace_back();
  gpus_[gpu].decision.rate.push_back(0);
  if (gpus_[gpu].may_hold) clients_[client].tracks_launches = true;
  return index;
}

bool Engine::start_activity(ContextIndex context, double solo_seconds, uint64_t tag, const ActivityDemand& demand) {
  check_work(solo_seconds);
  Context& c = contexts_[context];
  if (c.holds > 0) {  // its next launch waits until the hold is served
    c.deferred.push_back({solo_seconds, tag, demand});
    return false;
  }
  push_member(context, solo_seconds, tag, demand, false);
  return true;
}

std::vector<uint64_t> Engine::take_deferred(ContextIndex context) {
  std::vector<uint64_t> tags;
  for (const Context::Deferred& d : contexts_[context].deferred) tags.push_back(d.tag);
  contexts_[context].deferred.clear();
  return tags;
}

void Engine::push_member(ContextIndex context, double solo_seconds, uint64_t tag, const ActivityDemand& demand,
                         bool hold) {
  Context& c = contexts_[context];
  advance(gpus_[c.gpu], now_);
  if (c.heap.empty()) {
    c.v = 0;  // rebase the virtual clock: keeps finish_v small and precise
    c.demand_sum = {0, 0, 0, 0, 0, 0, 0, 0};
    c.holds = 0;
  }
  c.heap.push_back(Member{c.v + solo_seconds, member_seq_++, tag, demand, hold});
  if (hold) {
    ++c.holds;
  } else {
    ++c.launches;
    c.launched_blocks += demand.blocks;
  }
  c.demand_sum.compute_fraction += demand.compute_fraction;
  c.demand_sum.memory_fraction += demand.memory_fraction;
  c.demand_sum.sm_fill += demand.sm_fill;
  c.demand_sum.kernel_time += demand.kernel_time;
  c.demand_sum.stream_launched += demand.stream_launched;
  c.demand_sum.bandwidth_reach += demand.bandwidth_reach;
  c.demand_sum.occupancy += demand.occupancy;
  c.demand_sum.overhead_fraction += demand.overhead_fraction;
  std::push_heap(c.heap.begin(), c.heap.end(), MemberLater{});
  mark_dirty(c.gpu);
}

void Engine::pop_member(Context& c) {
  const ActivityDemand& d = c.heap.front().demand;
  c.demand_sum.compute_fraction -= d.compute_fraction;
  c.demand_sum.memory_fraction -= d.memory_fraction;
  c.demand_sum.sm_fill -= d.sm_fill;
  c.demand_sum.kernel_time -= d.kernel_time;
  c.demand_sum.stream_launched -= d.stream_launched;
  c.demand_sum.bandwidth_reach -= d.bandwidth_reach;
  c.demand_sum.occupancy -= d.occupancy;
  c.demand_sum.overhead_fraction -= d.overhead_fraction;
  const bool hold = c.heap.front().hold;
  if (hold) --c.holds;
  std::pop_heap(c.heap.begin(), c.heap.end(), MemberLater{});
  c.heap.pop_back();
  if (!hold && c.holds == c.heap.size()) c.work_ended_at = now_;
}

void Engine::cancel_context(ContextIndex context) {
  Context& c = contexts_[context];
  advance(gpus_[c.gpu], now_);
  if (c.holds < c.heap.size()) c.work_ended_at = now_;
  c.heap.clear();
  c.holds = 0;
  c.demand_sum = {0, 0, 0};
  c.deferred.clear();
  c.holds_allowed = false;
  mark_dirty(c.gpu);
}

void Engine::set_timer(ClientIndex client, double at, uint64_t tag) {
  if (!(at >= now_)) throw std::invalid_argument("timer set in the past");
  queue_.push(at, kTimer, client, tag);
}

void Engine::set_launch_timer(ClientIndex client, double at, uint64_t tag) {
  if (!(at >= now_)) throw std::invalid_argument("timer set in the past");
  queue_.push(at, kLaunchTimer, client, tag);
  if (clients_[client].tracks_launches) clients_[client].launch_timers.push(at);
}

void Engine::allow_idle_holds(ContextIndex context, bool allowed) { contexts_[context].holds_allowed = allowed; }

// ---- Idle holds ----
// A fluid model of time-slicing averages the slices of a contention episode into rates. In exact fidelity a context
// that runs out of work keeps the GPU for a grace period (its next launch is often microseconds away); the fluid
// model turns that into an expected hold (SharingModel::idle_hold), which the engine serves here: when a context
// has just run out of work (its client heard the completion and launched nothing), may hold, and another context
// on the GPU is active, the model is asked for the hold given the gap to the client's next launch (its earliest
// pending launch timer). The hold is a member that progresses at the context's rate like an activity, so the
// context counts as busy to the model, but does no work (not in delivered work, busy time or utilization); the
// model sees it in ContextLoad::holds. Activities the client starts meanwhile wait and start when it is served.

bool Engine::others_active(ContextIndex context) const {
  const Gpu& gpu = gpus_[contexts_[context].gpu];
  for (ContextIndex ci : gpu.contexts) {
    if (ci == context) continue;
    const Context& o = contexts_[ci];
    if (!o.heap.empty() || o.work_ended_at >= now_) return true;
  }
  return false;
}

void Engine::consider_idle_hold(ContextIndex context) {
  const Context& c = contexts_[context];
  const Gpu& gpu = gpus_[c.gpu];
  if (!gpu.may_hold || !c.holds_allowed || !c.heap.empty() || !others_active(context)) return;
  const auto& timers = clients_[c.client].launch_timers;
  const double gap = timers.empty() ? kInfinity : timers.top() - now_;
  const double hold = gpu.model->idle_hold(gap);
  if (hold <= 0) return;
  check_work(hold);
  push_member(context, hold, 0, ActivityDemand{0, 0, 0, 0}, true);
}

void Engine::end_idle_hold(ContextIndex context) {
  std::vector<Context::Deferred> waiting;
  waiting.swap(contexts_[context].deferred);
  for (const Context::Deferred& d : waiting) push_member(context, d.solo_seconds, d.tag, d.demand, false);
  clients_[contexts_[context].client].handler->on_idle_hold_served();
}

void Engine::advance(Gpu& gpu, double t) {
  const double dt = t - gpu.last_update;
  if (dt <= 0) return;
  for (ContextIndex ci : gpu.contexts) {
    Context& c = contexts_[ci];
    if (c.heap.empty()) continue;
    c.v += c.member_rate * dt;
    const double rate = c.share * working_fraction(c);
    c.work_done += rate * dt;
    if (c.holds == c.heap.size()) continue;  // only its own idle hold: no work on the GPU
    // What it did not get went to another context's work, or to no one's (the mode kept it).
    const bool others_ran = gpu.total_rate - rate > 1e-12;
    if (rate >= 1) {
      c.times.running += dt;
    } else if (rate > 0) {
      c.times.running += rate * dt;
      (others_ran ? c.times.slowed : c.times.withheld) += (1 - rate) * dt;
    } else {
      (others_ran ? c.times.waiting : c.times.withheld) += dt;
    }
  }
  gpu.stats.delivered += gpu.total_rate * dt;
  if (gpu.busy) gpu.stats.busy_time += dt;
  UtilizationSeries& s = gpu.stats.series;
  if (s.interval > 0 && gpu.total_rate > 0) {
    double t0 = gpu.last_update;
    while (t0 < t) {
      const auto bin = static_cast<size_t>(t0 / s.interval);
      const double bin_end = std::min(t, static_cast<double>(bin + 1) * s.interval);
      if (s.work.size() <= bin) s.work.resize(bin + 1, 0.0);
      s.work[bin] += gpu.total_rate * (bin_end - t0);
      if (bin_end <= t0) break;  // guards against a bin edge that rounds onto t0
      t0 = bin_end;
    }
  }
  gpu.last_update = t;
}

void Engine::mark_dirty(GpuIndex index) {
  if (!gpus_[index].dirty) {
    gpus_[index].dirty = true;
    dirty_.push_back(index);
  }
}

void Engine::flush_dirty() {
  // Recomputing may not dirty other GPUs, but a client callback during delivery can; loop until quiet.
  // The two lists swap and keep their capacity: no allocation per event.
  while (!dirty_.empty()) {
    dirty_batch_.swap(dirty_);
    std::sort(dirty_batch_.begin(), dirty_batch_.end());
    for (GpuIndex g : dirty_batch_) {
      gpus_[g].dirty = false;
      recompute(g);
    }
    dirty_batch_.clear();
  }
}

void Engine::recompute(GpuIndex index) {
  Gpu& gpu = gpus_[index];
  advance(gpu, now_);
  const size_t n = gpu.contexts.size();
  for (size_t i = 0; i < n; ++i) {
    const Context& c = contexts_[gpu.contexts[i]];
    ContextLoad& load = gpu.loads[i];
    load.active = static_cast<int>(c.heap.size());
    load.holds = static_cast<int>(c.holds);
    load.launches = c.launches;
    load.launched_blocks = c.launched_blocks;
    if (load.active > 0) {
      const double k = 1.0 / load.active;
      load.compute_fraction = c.demand_sum.compute_fraction * k;
      load.memory_fraction = c.demand_sum.memory_fraction * k;
      load.sm_fill = c.demand_sum.sm_fill * k;
      load.kernel_time = c.demand_sum.kernel_time * k;
      load.stream_launched = c.demand_sum.stream_launched * k;
      load.bandwidth_reach = c.demand_sum.bandwidth_reach * k;
      load.occupancy = c.demand_sum.occupancy * k;
      load.overhead_fraction = c.demand_sum.overhead_fraction * k;
    }
    gpu.decision.rate[i] = 0;
  }
  gpu.decision.wake_at = kInfinity;
  gpu.decision.held_back = false;
  gpu.model->decide(now_, gpu.loads, gpu.decision);

  double total = 0;
  bool busy = false;
  double next = gpu.decision.wake_at;
  if (next < now_) throw std::logic_error("sharing model asked to be woken in the past");
  for (size_t i = 0; i < n; ++i) {
    Context& c = contexts_[gpu.contexts[i]];
    if (c.heap.empty()) {
      c.share = c.member_rate = 0;
      continue;
    }
    if (c.holds < c.heap.size()) busy = true;
    const double r = gpu.decision.rate[i];
    if (!(r >= 0) || !std::isfinite(r)) throw std::logic_error("sharing model gave a negative or non-finite rate");
    if (r > 1 + kCapacitySlack)
      throw std::logic_error("sharing model gave a context rate " + std::to_string(r) + " above its solo speed");
    c.share = r;
    c.member_rate = r / static_cast<double>(c.heap.size());
    total += r * working_fraction(c);
    if (c.member_rate > 0) {
      const double remaining = std::max(0.0, c.heap.front().finish_v - c.v);
      next = std::min(next, now_ + remaining / c.member_rate);
    }
  }
  gpu.total_rate = total;
  gpu.busy = busy && !gpu.decision.held_back;
  if (observer_) {
    observed_rates_.resize(n);
    for (size_t i = 0; i < n; ++i) {
      const Context& c = contexts_[gpu.contexts[i]];
      observed_rates_[i] = c.share * working_fraction(c);
    }
    observer_->on_rates(index, now_, gpu.contexts, observed_rates_, busy);
  }
  if (next < kInfinity && next != gpu.wake_time) {
    gpu.wake_time = next;
    queue_.push(next, kGpuWake, index, ++gpu.version);
  } else if (next == kInfinity) {
    gpu.wake_time = kInfinity;
    ++gpu.version;
  }
}

void Engine::handle_wake(GpuIndex index) {
  Gpu& gpu = gpus_[index];
  gpu.wake_time = kInfinity;
  advance(gpu, now_);
  for (ContextIndex ci : gpu.contexts) {
    Context& c = contexts_[ci];
    if (c.member_rate <= 0) continue;
    const double slack = c.member_rate * kCompletionSlack;
    while (!c.heap.empty() && c.heap.front().finish_v - c.v <= slack) {
      completions_.push_back(Completion{ci, c.heap.front().tag, c.heap.front().hold});
      pop_member(c);
    }
  }
  mark_dirty(index);
}

void Engine::deliver_completions() {
  // Completions may start new activities (which appends nothing here) but never nest. A context whose client
  // launched nothing on hearing of its last activity may start an idle hold.
  for (size_t i = 0; i < completions_.size(); ++i) {
    const Completion c = completions_[i];
    if (c.hold) {
      end_idle_hold(c.context);
      continue;
    }
    clients_[contexts_[c.context].client].handler->on_activity_done(c.tag);
    consider_idle_hold(c.context);
  }
  completions_.clear();
}

bool Engine::run(double until, uint64_t max_events) {
  flush_dirty();
  const uint64_t stop_at = max_events > UINT64_MAX - events_ ? UINT64_MAX : events_ + max_events;
  while (!queue_.empty()) {
    if (queue_.top().time > until) break;
    if (events_ >= stop_at) {
      for (Gpu& gpu : gpus_) advance(gpu, now_);
      return true;
    }
    const Event e = queue_.pop();
    if (e.kind == kGpuWake && e.aux != gpus_[e.target].version) continue;  // superseded
    if (e.time < now_) throw std::logic_error("event queue went backwards in time");
    now_ = e.time;
    ++events_;
    if (e.kind == kGpuWake) {
      handle_wake(e.target);
      deliver_completions();
    } else {
      Client& client = clients_[e.target];
      if (e.kind == kLaunchTimer && client.tracks_launches) client.launch_timers.pop();  // timers fire in time order
      client.handler->on_timer(e.aux);
    }
    flush_dirty();
  }
  if (std::isfinite(until) && until > now_) now_ = until;
  for (Gpu& gpu : gpus_) advance(gpu, now_);
  return false;
}

}  // namespace vgpusim
