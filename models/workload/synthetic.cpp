// The synthetic workloads' state machines. Closed-loop kinds (kernels, training, render) run one unit at a time:
// a host-side delay, then the unit's kernels one after another. Inference is open-loop: Poisson arrivals queue
// and are served in order. In fluid fidelity a unit's kernels are merged into one activity (a phase).
#include <algorithm>
#include <deque>
#include <map>
#include <stdexcept>

#include "sim/core/rng.hpp"
#include "models/workload/workload.hpp"

namespace vgpusim {
namespace {

constexpr uint64_t kTimerDelayDone = 1;
constexpr uint64_t kTimerLaunch = 3;
constexpr uint64_t kTimerHostPhase = 4;

// One unit = a delay on the host, then `parts` equal kernels of `unit_kernel` on one stream. The host launches
// them one after another, `launch_cost` apart (its own time per launch: the framework's dispatch), and runs ahead of
// the GPU until `launch_queue` launches are outstanding; the stream runs them in order. With no launch cost every
// kernel is launched at once and they run back to back. The unit ends when its last kernel does (the host
// synchronises before the next unit's host time). With `overlap` (a share of the host time), that share of each
// segment's host time runs after the segment's launches, while the GPU still works on them (a data loader
// preparing the next batch), and the synchronisation waits for both; the rest runs before the launches.
class ClosedLoop : public Workload {
 public:
  // `kernels`: the real kernels of one unit (parts of it launched as one activity stand for kernels / parts).
  ClosedLoop(long long units, int parts, int kernels = 1, double launch_cost = 0, int launch_queue = 1024,
             int syncs = 1)
      : remaining_(units),
        parts_(parts),
        kernels_per_part_(std::max(1.0, static_cast<double>(kernels) / parts)),
        launch_cost_(launch_cost),
        launch_queue_(std::max(1, launch_queue)),
        segment_(std::max(1, (parts + std::max(1, syncs) - 1) / std::max(1, syncs))),
        syncs_((parts + segment_ - 1) / segment_) {}

  void start(WorkloadPort& port) override { begin_unit(port); }

  void on_timer(WorkloadPort& port, uint64_t tag) override {
    if (tag == kTimerHostPhase) {
      phase_running_ = false;
      if (launched_ == parts_) {
        if (done_ == parts_) finish_unit(port);  // the GPU drained during the phase
        return;
      }
      host_launches(port);
    } else if (tag == kTimerDelayDone || tag == kTimerLaunch) {
      host_launches(port);
    }
  }

  void on_kernel_done(WorkloadPort& port, uint64_t /*tag*/) override {
    ++done_;
    in_flight_ = false;
    if (done_ == parts_) {
      if (!phase_running_) finish_unit(port);  // else the host phase's end finishes it
      return;
    }
    run_next(port);
    if (host_blocked_) {  // the launch waiting for a slot returns now
      host_blocked_ = false;
      host_launches(port);
    } else if (host_syncing_ && done_ == launched_) {  // the synchronisation returns: the next segment's host time
      host_syncing_ = false;
      const double delay = before_segment_ + next_launch_cost();
      if (delay > 0)
        port.wake_at(port.now() + delay, kTimerDelayDone);
      else
        host_launches(port);
    }
  }

 protected:
  // Host time before the unit's kernels, and the unit's kernel (whole; split into parts here).
  virtual double delay_before(WorkloadPort& port) = 0;
  virtual KernelSpec next_unit_kernel() = 0;
  virtual void after_unit(WorkloadPort& /*port*/) {}
  // The host time of the next launch (a kind may draw it around launch_cost).
  virtual double next_launch_cost() { return launch_cost_; }
  double launch_cost() const { return launch_cost_; }
  // The share of each segment's host time that runs after its launches (0 to 1).
  void set_overlap(double share) { overlap_ = std::clamp(share, 0.0, 1.0); }

 private:
  void begin_unit(WorkloadPort& port) {
    if (remaining_ == 0) {
      port.finished();
      return;
    }
    launched_ = done_ = 0;
    unit_start_ = port.now();
    kernel_ = next_unit_kernel().scaled(1.0 / parts_);
    kernel_.kernels = kernels_per_part_;
    // The unit's host time is spread over its segments (each begins with its share, after the synchronisation
    // that ends the one before); the first launch takes its cost too.
    const double host = delay_before(port);
    segment_delay_ = host / syncs_;
    after_segment_ = overlap_ * segment_delay_;
    before_segment_ = segment_delay_ - after_segment_;
    const double delay = before_segment_ + next_launch_cost();
    if (delay > 0)
      port.wake_at(port.now() + delay, kTimerDelayDone);
    else
      host_launches(port);
  }
  // The host launches what it can now: with no launch cost every part up to the queue's bound, else one (the next
  // after its cost), blocking while the queue is full.
  void host_launches(WorkloadPort& port) {
    while (launched_ < parts_) {
      if (syncs_ > 1 && launched_ > 0 && launched_ % segment_ == 0 && !segment_open_) {
        // A segment's launches are done: the host synchronises (waits for them) before the next segment.
        segment_open_ = true;
        if (done_ < launched_) {
          host_syncing_ = true;
          return;
        }
        const double delay = before_segment_ + next_launch_cost();
        if (delay > 0) {
          port.wake_at(port.now() + delay, kTimerDelayDone);
          return;
        }
      }
      if (launched_ - done_ >= launch_queue_) {
        host_blocked_ = true;
        return;
      }
      segment_open_ = false;
      ++launched_;
      run_next(port);
      if (after_segment_ > 0 && (launched_ % segment_ == 0 || launched_ == parts_)) {
        // The segment's launches are done: the host's phase after them, while the GPU works on them.
        phase_running_ = true;
        port.wake_at(port.now() + after_segment_, kTimerHostPhase);
        return;
      }
      if (launch_cost_ > 0) {
        if (launched_ < parts_) port.wake_at(port.now() + next_launch_cost(), kTimerLaunch);
        return;
      }
    }
  }
  void finish_unit(WorkloadPort& port) {
    port.unit_done(unit_start_);
    if (remaining_ > 0) --remaining_;
    after_unit(port);
    begin_unit(port);
  }
  // The stream starts its next launched kernel when it has none in flight.
  void run_next(WorkloadPort& port) {
    if (in_flight_ || done_ >= launched_) return;
    in_flight_ = true;
    port.launch(kernel_, static_cast<uint64_t>(done_));
  }

  long long remaining_;  // -1 = unbounded
  int parts_;
  double kernels_per_part_;
  double launch_cost_;  // s of host time per launch
  int launch_queue_;    // launches outstanding before the host blocks
  int segment_;       // launches per segment (between the host's synchronisations)
  int syncs_;         // segments per unit
  double segment_delay_ = 0;  // s of host time per segment
  double overlap_ = 0;        // its share after the segment's launches
  double before_segment_ = 0, after_segment_ = 0;  // s of it before and after the launches
  bool phase_running_ = false;
  int launched_ = 0, done_ = 0;
  bool in_flight_ = false, host_blocked_ = false, host_syncing_ = false, segment_open_ = false;
  double unit_start_ = 0;
  KernelSpec kernel_;
};

int parts_for(Fidelity f, int kernels) { return f == Fidelity::Fluid ? 1 : std::max(1, kernels); }

class Training final : public ClosedLoop {
 public:
  Training(const TrainingWorkload& s, Fidelity f, uint64_t seed)
      : ClosedLoop(s.iterations, parts_for(f, s.kernels_per_step), s.kernels_per_step,
                   f == Fidelity::Fluid ? 0.0 : s.launch_cost, s.launch_queue,
                   f == Fidelity::Fluid ? 1 : s.syncs_per_step),
        s_(s),
        rng_(seed),
        fluid_(f == Fidelity::Fluid) {
    set_overlap(s.host_overlap);
  }

 protected:
  double delay_before(WorkloadPort&) override {
    if (fluid_ && s_.fluid_host_time >= 0) return s_.fluid_host_time;
    return s_.host_time.sample(rng_);
  }
  double next_launch_cost() override {
    const double spread = launch_cost() - s_.launch_floor;
    if (!(s_.launch_jitter > 0) || !(spread > 0)) return launch_cost();
    return s_.launch_floor + Distribution{Distribution::Kind::Gamma, spread, s_.launch_jitter}.sample(rng_);
  }
  KernelSpec next_unit_kernel() override { return s_.step; }

 private:
  TrainingWorkload s_;
  Rng rng_;
  bool fluid_;
};

class Render final : public ClosedLoop {
 public:
  Render(const RenderWorkload& s, Fidelity f, uint64_t seed)
      : ClosedLoop(s.frames, parts_for(f, s.kernels_per_frame), s.kernels_per_frame), s_(s), rng_(seed) {}

 protected:
  double delay_before(WorkloadPort& port) override {
    // A frame-rate cap holds a frame until one frame period after the previous frame began.
    double wait = 0;
    if (s_.fps_cap > 0 && started_any_) wait = std::max(0.0, last_start_ + 1.0 / s_.fps_cap - port.now());
    last_start_ = port.now() + wait;
    started_any_ = true;
    return wait + s_.cpu_time.sample(rng_);
  }
  KernelSpec next_unit_kernel() override { return s_.frame; }

 private:
  RenderWorkload s_;
  Rng rng_;
  double last_start_ = 0;
  bool started_any_ = false;
};

class KernelMix final : public ClosedLoop {
 public:
  KernelMix(const KernelsWorkload& s, uint64_t seed) : ClosedLoop(s.count, 1), s_(s), rng_(seed) {
    for (const KernelMixEntry& e : s_.mix) total_weight_ += e.weight;
    if (s_.mix.empty() || !(total_weight_ > 0)) throw std::invalid_argument("kernel mix needs a positive weight");
  }

 protected:
  double delay_before(WorkloadPort&) override {
    // Think time sits between kernels: none before the first.
    if (!started_) {
      started_ = true;
      return 0;
    }
    return s_.think.sample(rng_);
  }
  KernelSpec next_unit_kernel() override {
    if (s_.mix.size() == 1) return s_.mix.front().kernel;
    double x = rng_.uniform() * total_weight_;
    for (const KernelMixEntry& e : s_.mix) {
      if (x < e.weight) return e.kernel;
      x -= e.weight;
    }
    return s_.mix.back().kernel;
  }

 private:
  KernelsWorkload s_;
  Rng rng_;
  double total_weight_ = 0;
  bool started_ = false;
};

// Requests from a RequestSource (open or closed loop). A request spends its host time (parallel CPU workers) and
// then queues for the GPU, served one at a time in order (or in batches); its latency runs from its arrival to its
// last kernel's end.
class Inference final : public Workload {
 public:
  Inference(const InferenceWorkload& s, Fidelity f, uint64_t seed)
      : s_(s), parts_(parts_for(f, s.kernels_per_request)), rng_(seed), source_(s.arrivals, rng_) {}

  void start(WorkloadPort& port) override {
    source_.start(port);
    finish_if_done(port);  // `requests: 0`
  }

  void on_timer(WorkloadPort& port, uint64_t tag) override {
    if (RequestSource::owns(tag)) {
      source_.on_timer(port, tag, [&](const Arrival& a) { arrive(port, a.client); });
    } else if (tag >= kTimerHostBase) {
      const auto it = in_host_.find(tag);
      if (it == in_host_.end()) return;
      enqueue(port, it->second);
      in_host_.erase(it);
    } else if (tag >= kTimerBatchBase) {
      // A batch's wait ran out: serve what is queued (unless a full batch went already).
      if (tag == kTimerBatchBase + batch_generation_ && !serving_ && !queue_.empty()) serve_next(port, true);
    }
  }

  void on_kernel_done(WorkloadPort& port, uint64_t /*tag*/) override {
    if (++part_ < parts_) {
      port.launch(kernel_, static_cast<uint64_t>(part_));
      return;
    }
    serving_ = false;
    for (size_t i = 0; i < in_batch_; ++i) {
      const Request done = queue_.front();
      port.unit_done(done.arrival);
      queue_.pop_front();
      source_.answered(port, done.client);
    }
    in_batch_ = 0;
    if (!queue_.empty())
      serve_next(port);
    else
      finish_if_done(port);
  }

 private:
  struct Request {
    double arrival = 0;
    double size = 1;
    long long client = -1;  // closed loop: who waits for it
    double queued = 0;      // when it joined the GPU queue (after its host time)
  };
  static constexpr uint64_t kTimerBatchBase = 1ULL << 20;  // + batch generation, which wraps below the host tags
  static constexpr uint64_t kTimerHostBase = 1ULL << 48;   // + request number
  static constexpr uint64_t kBatchGenerations = kTimerHostBase - kTimerBatchBase;

  // A request arrives: the size is drawn now, so its work does not depend on when it is served.
  void arrive(WorkloadPort& port, long long client) {
    Request r{port.now(), s_.size.sample(rng_), client};
    const double host = s_.host_time.sample(rng_);
    if (host > 0) {
      const uint64_t tag = kTimerHostBase + next_request_++;
      in_host_.emplace(tag, r);
      port.wake_at(port.now() + host, tag);
      return;
    }
    enqueue(port, r);
  }
  void enqueue(WorkloadPort& port, Request r) {
    r.queued = port.now();
    queue_.push_back(r);
    if (!serving_) serve_next(port);
  }
  // Serves the head of the queue: up to batch_max requests at once. With fewer queued, a batch waits until its
  // oldest request has waited batch_wait (`expired`: that wait is over).
  void serve_next(WorkloadPort& port, bool expired = false) {
    const size_t max = static_cast<size_t>(std::max(1, s_.batch_max));
    if (queue_.size() < max && !expired) {
      const double due = queue_.front().queued + s_.batch_wait;
      if (due > port.now()) {
        if (!batch_timer_ || batch_due_ != due) {
          batch_generation_ = (batch_generation_ + 1) % kBatchGenerations;
          batch_due_ = due;
          batch_timer_ = true;
          port.wake_at(due, kTimerBatchBase + batch_generation_);
        }
        return;
      }
    }
    batch_timer_ = false;
    batch_generation_ = (batch_generation_ + 1) % kBatchGenerations;  // a timer still pending is stale now
    serving_ = true;
    part_ = 0;
    in_batch_ = std::min(max, queue_.size());
    double sizes = 0;
    for (size_t i = 0; i < in_batch_; ++i) sizes += queue_[i].size;
    // The batch's work: every request's, except the shared bytes (weights), read once per batch.
    KernelSpec k = s_.request.scaled(sizes);
    if (k.blocks > 0) k.blocks *= static_cast<double>(in_batch_);  // each request adds its blocks to the grid
    const double shared = std::min(s_.shared_bytes, s_.request.bytes);
    k.bytes = shared + (s_.request.bytes - shared) * sizes;
    kernel_ = k.scaled(1.0 / parts_);
    kernel_.kernels = std::max(1.0, static_cast<double>(s_.kernels_per_request) / parts_);
    port.launch(kernel_, 0);
  }
  void finish_if_done(WorkloadPort& port) {
    if (source_.done() && in_host_.empty() && queue_.empty()) port.finished();
  }

  InferenceWorkload s_;
  int parts_;
  Rng rng_;
  RequestSource source_;
  KernelSpec kernel_;
  std::deque<Request> queue_;  // the head is in service
  std::map<uint64_t, Request> in_host_;  // requests in their host time, by timer tag
  uint64_t next_request_ = 0;
  size_t in_batch_ = 0;     // requests at the head of the queue being served
  uint64_t batch_generation_ = 0;
  double batch_due_ = 0;
  bool batch_timer_ = false;
  bool serving_ = false;
  int part_ = 0;
};

}  // namespace

std::shared_ptr<const WorkloadSpec> KernelsWorkload::with_host_scale(double factor) const {
  auto w = std::make_shared<KernelsWorkload>(*this);
  w->think = think.scaled(factor);
  return w;
}
std::shared_ptr<const WorkloadSpec> TrainingWorkload::with_host_scale(double factor) const {
  auto w = std::make_shared<TrainingWorkload>(*this);
  w->host_time = host_time.scaled(factor);
  w->launch_cost *= factor;
  w->launch_floor *= factor;
  w->launch_jitter *= factor;
  if (fluid_host_time >= 0) w->fluid_host_time *= factor;
  return w;
}
std::shared_ptr<const WorkloadSpec> InferenceWorkload::with_host_scale(double factor) const {
  auto w = std::make_shared<InferenceWorkload>(*this);
  w->host_time = host_time.scaled(factor);
  return w;
}

std::unique_ptr<Workload> KernelsWorkload::play(Fidelity, uint64_t seed) const {
  return std::make_unique<KernelMix>(*this, seed);
}
std::unique_ptr<Workload> TrainingWorkload::play(Fidelity fidelity, uint64_t seed) const {
  return std::make_unique<Training>(*this, fidelity, seed);
}
std::unique_ptr<Workload> InferenceWorkload::play(Fidelity fidelity, uint64_t seed) const {
  return std::make_unique<Inference>(*this, fidelity, seed);
}
std::unique_ptr<Workload> RenderWorkload::play(Fidelity fidelity, uint64_t seed) const {
  return std::make_unique<Render>(*this, fidelity, seed);
}

}  // namespace vgpusim
