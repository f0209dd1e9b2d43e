// `timeslice`: process time-slicing of one GPU (several CUDA contexts, no virtualization). The GPU runs one
// context at a time for a slice, then pays a context-switch cost and moves round robin to the next context that
// has work. Preempting a context with work in flight costs `switch_cost`; every other switch (the context switched
// out ran out of work, or the GPU was idle) costs `idle_switch_cost`. Exact fidelity plays every slice and switch; fluid fidelity plays the first slice of each contention
// episode the same way and averages the rest into rates.
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "models/sharing/mode_registry.hpp"
#include "models/sharing/timeslice.hpp"

namespace vgpusim {
namespace {

// Whether context `i` has work: kernels in flight besides idle holds (only the fluid model's contexts hold).
bool has_work(std::span<const ContextLoad> contexts, int i) {
  return i >= 0 && contexts[static_cast<size_t>(i)].active > contexts[static_cast<size_t>(i)].holds;
}

// Round robin: the next context after `from` (`from` itself excluded; a negative `from` starts the scan at
// context 0) that has work, or -1.
int next_with_work(std::span<const ContextLoad> contexts, int from) {
  const int n = static_cast<int>(contexts.size());
  const int origin = from < 0 ? n - 1 : from;
  for (int k = 1; k <= n; ++k) {
    const int i = (origin + k) % n;
    if (i != from && has_work(contexts, i)) return i;
  }
  return -1;
}

// Exact fidelity: a state machine over Idle / Run / Switch.
class TimeSliceScheduler final : public SharingModel {
 public:
  explicit TimeSliceScheduler(const TimeSliceTimes& t)
      : slice_(t.slice),
        switch_cost_(t.switch_cost),
        idle_switch_cost_(t.idle_switch_cost),
        idle_grace_(t.idle_grace) {}

  void decide(double now, std::span<const ContextLoad> contexts, ShareDecision& out) override {
    loads_ = contexts;
    step(now);
    for (double& r : out.rate) r = 0.0;
    out.wake_at = std::numeric_limits<double>::infinity();
    if (phase_ == Phase::Run) {
      out.rate[static_cast<size_t>(current_)] = 1.0;
      // Alone, the context keeps its slices without switching; a slice boundary matters only with competitors.
      if (next_other_with_work(current_) >= 0) out.wake_at = slice_start_ + slice_;
    } else if (phase_ == Phase::Switch || phase_ == Phase::Grace) {
      out.wake_at = phase_end_;
    }
  }

 private:
  enum class Phase { Idle, Run, Grace, Switch };

  bool has_work(int i) const { return vgpusim::has_work(loads_, i); }
  int next_other_with_work(int from) const { return next_with_work(loads_, from); }

  // A switch to `target`; `preempting`: the context switched out still has work in flight (its slice ended), so
  // its state on the SMs is saved; otherwise it has none and the switch costs the idle switch cost.
  void begin_switch(int target, double now, bool preempting) {
    phase_ = Phase::Switch;
    target_ = target;
    phase_end_ = now + (preempting ? switch_cost_ : idle_switch_cost_);
  }

  void begin_run(int who, double now) {
    phase_ = Phase::Run;
    current_ = who;
    slice_start_ = now;
  }

  // Moves the state machine through every transition due at `now`.
  void step(double now) {
    for (int guard = 0; guard < 4 * static_cast<int>(loads_.size()) + 8; ++guard) {
      switch (phase_) {
        case Phase::Switch: {
          if (now < phase_end_) return;
          current_ = target_;  // the target's state is loaded now, whether or not it still has work
          const int who = has_work(target_) ? target_ : next_other_with_work(target_);
          if (who < 0) {
            phase_ = Phase::Idle;
            return;
          }
          if (who == target_)
            begin_run(who, now);
          else
            begin_switch(who, now, false);  // the target, loaded, has no work
          continue;
        }
        case Phase::Run: {
          if (!has_work(current_)) {
            const int who = next_other_with_work(current_);
            if (who < 0) {
              phase_ = Phase::Idle;
              return;
            }
            // A context that runs out of work keeps the GPU a little while (its next launch is often microseconds
            // away), but not past its slice.
            const double slice_end = slice_start_ + slice_;
            const double grace_end = std::min(now + idle_grace_, slice_end > now ? slice_end : now);
            if (grace_end > now) {
              phase_ = Phase::Grace;
              phase_end_ = grace_end;
              return;
            }
            begin_switch(who, now, false);
            continue;
          }
          if (now < slice_start_ + slice_) return;
          if (now > slice_start_ + slice_) {
            // Slices went by while the context was alone (nobody needed a wake-up): find the slice of the same
            // grid that holds `now`, as the hardware timer would have. A competitor that arrived mid-slice waits
            // for that slice's end.
            slice_start_ += slice_ * std::floor((now - slice_start_) / slice_);
            if (slice_start_ + slice_ <= now) slice_start_ += slice_;
            if (now > slice_start_) return;
          }
          const int who = next_other_with_work(current_);
          if (who >= 0) {
            begin_switch(who, now, true);  // the slice ended with work in flight: preemption
            continue;
          }
          slice_start_ = now;  // alone at a boundary: a new slice
          return;
        }
        case Phase::Grace: {
          if (has_work(current_)) {  // more work arrived in time: the slice goes on
            phase_ = Phase::Run;
            continue;
          }
          if (now < phase_end_) return;
          const int who = next_other_with_work(current_);
          if (who < 0) {
            phase_ = Phase::Idle;
            return;
          }
          begin_switch(who, now, false);
          continue;
        }
        case Phase::Idle: {
          if (has_work(current_)) {  // its state is still loaded: no switch
            begin_run(current_, now);
            continue;
          }
          const int who = next_other_with_work(current_);
          if (who < 0) return;
          if (current_ < 0)
            begin_run(who, now);  // the first context on an empty GPU has nothing to switch out
          else
            begin_switch(who, now, false);  // an idle GPU: the loaded context has nothing on the SMs
          continue;
        }
      }
    }
    throw std::logic_error("time-slice scheduler did not settle");
  }

  double slice_;             // s
  double switch_cost_;       // s
  double idle_switch_cost_;  // s
  double idle_grace_;        // s
  std::span<const ContextLoad> loads_;
  Phase phase_ = Phase::Idle;
  int current_ = -1;  // the context whose state is on the GPU
  int target_ = -1;   // during a switch: the context being loaded
  double slice_start_ = 0;
  double phase_end_ = 0;
};

// Fluid fidelity: the first slice of each contention episode is played as in exact fidelity, the rest is averaged.
//  - A context alone runs at full speed. One that finds another context's state on the GPU pays the idle switch
//    cost first (that context has no work in flight; the first context on the GPU has nothing to switch out).
//  - When others get work while a context runs, it keeps the GPU to the end of its current slice (on the grid from
//    when it started running), and while others wait it keeps it through host gaps up to the idle grace (not past
//    the slice's end): the head of the episode. Two tenants that start together thus go one after the other, as in
//    exact fidelity, instead of staying in lockstep; bursts shorter than a slice are served first come first served.
//  - Past the head, with n > 1 busy contexts each gets (1/n) q/(q+s'), s' the expected cost of a switch at a slice's
//    end: s when the context has work in flight, the idle switch cost when it is in a hold (weighted by how many
//    of the n have work). The idle grace becomes an expected hold: a
//    context that runs out of work at a uniformly random point r ~ U(0, q) of its slice while another waits keeps
//    the GPU for min(gap, grace, r), the time until its next launch, the grace or the slice's end, whichever comes
//    first. With c = min(gap, grace), E[min(c, r)] = c - c^2/(2q) for c <= q and q/2 beyond. The engine serves the
//    hold at the context's share, so a gap inside a slice costs the context its slice time as in exact fidelity.
//    When one context is left it pays the
//    idle switch cost (the leaver's state was on the GPU, with no work in flight); a hold still running then keeps
//    nothing and runs out at full speed.
class TimeSliceFluid final : public SharingModel {
 public:
  explicit TimeSliceFluid(const TimeSliceTimes& t)
      : slice_(t.slice), switch_cost_(t.switch_cost), idle_switch_cost_(t.idle_switch_cost), idle_grace_(t.idle_grace) {}

  void decide(double now, std::span<const ContextLoad> contexts, ShareDecision& out) override {
    int busy = 0;     // contexts with anything in flight, idle holds included
    int working = 0;  // contexts with work
    for (size_t i = 0; i < contexts.size(); ++i) {
      out.rate[i] = 0.0;
      if (contexts[i].active > 0) ++busy;
      if (has_work(contexts, static_cast<int>(i))) ++working;
    }
    if (shared_) {
      if (busy > 1) {  // a hold keeps its share in the averaged part
        share_among(busy, working, contexts, out);
        return;
      }
      shared_ = false;
      loaded_ = kMixed;
    }
    // Outside the averaged part the grace is played here: a hold left over from it is no work and keeps nothing;
    // it runs out at full speed (it does no work, so it takes nothing from the others).
    for (size_t i = 0; i < contexts.size(); ++i)
      if (contexts[i].active > 0 && contexts[i].active == contexts[i].holds) out.rate[i] = 1.0;
    if (working == 0) {
      end_run();
      return;
    }
    for (int guard = 0; guard < 4; ++guard) {
      if (switch_to_ >= 0) {
        if (now < switch_end_) {
          out.wake_at = switch_end_;
          return;
        }
        loaded_ = switch_to_;  // its state is loaded now, whether or not it still has work
        switch_to_ = -1;
      }
      if (has_work(contexts, loaded_)) {
        if (!running_) {
          running_ = true;
          run_start_ = now;
        }
        grace_end_ = -kInf;
        if (working == 1) {
          head_end_ = kInf;  // alone: slices go by without a switch
        } else {
          if (head_end_ == kInf) {
            // Others got work: the running context keeps the GPU to the end of the slice that holds `now`; on a
            // boundary (after the first slice) that slice has just ended.
            const double boundary = run_start_ + slice_ * std::floor((now - run_start_) / slice_);
            head_end_ = now > run_start_ && boundary == now ? now : boundary + slice_;
            if (head_end_ < now) head_end_ += slice_;  // rounding of the floor
          }
          if (now >= head_end_) {  // the head is over: the rest of the episode is averaged
            shared_ = true;
            end_run();
            share_among(busy, working, contexts, out);
            return;
          }
          out.wake_at = head_end_;
        }
        out.rate[static_cast<size_t>(loaded_)] = 1.0;
        return;
      }
      // The loaded context has no work and others have. Within the head it keeps the GPU for the idle grace.
      if (running_ && head_end_ < kInf) {
        if (grace_end_ == -kInf) grace_end_ = std::min(now + idle_grace_, head_end_);
        if (now < grace_end_) {
          out.wake_at = grace_end_;
          return;
        }
      }
      const int who = next_with_work(contexts, loaded_);  // loaded_ has no work: someone else has
      end_run();
      if (loaded_ == kNone) {
        loaded_ = who;  // the first context on the GPU has nothing to switch out
        continue;
      }
      switch_to_ = who;
      switch_end_ = now + idle_switch_cost_;  // the context switched out has no work in flight
    }
    throw std::logic_error("fluid time-slice model did not settle");
  }

  bool keeps_idle_grace() const override { return idle_grace_ > 0; }
  double idle_hold(double gap) const override {
    if (!shared_) return 0;  // outside the averaged part of an episode the grace is played in decide
    const double c = std::min(gap, idle_grace_);
    if (!(c > 0)) return 0;
    return c <= slice_ ? c - c * c / (2 * slice_) : slice_ / 2;
  }

 private:
  static constexpr double kInf = std::numeric_limits<double>::infinity();
  static constexpr int kNone = -2;   // loaded_: no context has run on the GPU yet
  static constexpr int kMixed = -1;  // loaded_: several shared the GPU, the state on it is not a waiting one's

  // The averaged part of an episode: each of the `busy` contexts with anything in flight (work or an idle hold)
  // gets (1/busy) q/(q + s'), where s' is a switch's expected cost: a slice ends on a context with work in flight
  // (a preemption, s) or in its hold (idle, s_idle), weighted by how many (`working`) of the busy contexts have work.
  void share_among(int busy, int working, std::span<const ContextLoad> contexts, ShareDecision& out) const {
    const double p = static_cast<double>(working) / busy;
    const double expected_switch = p * switch_cost_ + (1 - p) * idle_switch_cost_;
    const double share = slice_ / (slice_ + expected_switch) / busy;
    for (size_t i = 0; i < contexts.size(); ++i) out.rate[i] = contexts[i].active > 0 ? share : 0.0;
  }
  void end_run() {
    running_ = false;
    head_end_ = kInf;
    grace_end_ = -kInf;
  }

  double slice_;
  double switch_cost_;
  double idle_switch_cost_;
  double idle_grace_;
  int loaded_ = kNone;   // the context whose state is on the GPU
  int switch_to_ = -1;   // the context being switched to, until switch_end_; -1: no switch under way
  double switch_end_ = 0;
  bool shared_ = false;  // past the head of a contention episode: rates are averaged
  bool running_ = false;  // loaded_ runs (or keeps its grace) since run_start_
  double run_start_ = 0;
  double head_end_ = kInf;    // with others waiting: the end of loaded_'s slice; kInf: none waits
  double grace_end_ = -kInf;  // within the head, loaded_ out of work: when its grace ends
};

}  // namespace

std::unique_ptr<SharingModel> make_timeslice_model(const TimeSliceTimes& times, Fidelity fidelity) {
  if (fidelity == Fidelity::Exact) return std::make_unique<TimeSliceScheduler>(times);
  return std::make_unique<TimeSliceFluid>(times);
}

const ParamTable<TimeSliceTimes>& timeslice_table() {
  static const ParamTable<TimeSliceTimes> table =
      ParamTable<TimeSliceTimes>()
          .add(&TimeSliceTimes::slice,
               number_param("timeslice", "slice", units::Dim::Time, 1024e-6, 1e-6, 10.0,
                            "time a context runs before the GPU switches to the next one with work",
                            "NVIDIA open-gpu-kernel-modules: default TSG timeslice 1024 us (src/nvidia/src/kernel/gpu/"
                            "fifo/arch/volta/kernel_fifo_gv100.c)"))
          .add(&TimeSliceTimes::switch_cost,
               number_param("timeslice", "switch_cost", units::Dim::Time, kContextSwitchCost, 0.0, 1.0,
                            "time lost when a context with work in flight is preempted at its slice's end, during "
                            "which no context runs",
                            kContextSwitchCostSource))
          .add(&TimeSliceTimes::idle_switch_cost,
               number_param("timeslice", "idle_switch_cost", units::Dim::Time, kIdleSwitchCost, 0.0, 1.0,
                            "time lost by any other switch: away from a context with no work in flight (it ran out, "
                            "or the GPU was idle)",
                            kIdleSwitchCostSource))
          .add(&TimeSliceTimes::idle_grace,
               number_param("timeslice", "idle_grace", units::Dim::Time, kIdleGrace, 0.0, 1.0,
                            "how long a context that runs out of work keeps the GPU (within its slice) before the "
                            "scheduler switches to another with work; fluid fidelity holds its expected value",
                            kIdleGraceSource));
  return table;
}

std::vector<ParamSpec> timeslice_params() { return timeslice_table().specs(); }

TimeSliceTimes timeslice_times(const ParamValues& p) { return timeslice_table().read(p); }

SharingModeInfo timeslice_sharing_mode() {
  SharingModeInfo info;
  info.name = "timeslice";
  info.description =
      "process time-slicing: one context at a time for a slice, round robin over contexts with work, a switch cost "
      "between contexts; no memory isolation";
  info.citation = "NVIDIA open GPU kernel modules, channel-group (TSG) timeslice scheduling (kernel_fifo_gv100.c)";
  info.doc = "timeslice.md";
  info.params = timeslice_params();
  info.max_contexts = 0;
  info.memory_isolation = false;
  info.create = [](const ModelSetup& s) -> std::unique_ptr<SharingModel> {
    return make_timeslice_model(timeslice_times(s.params), s.fidelity);
  };
  return info;
}

}  // namespace vgpusim
