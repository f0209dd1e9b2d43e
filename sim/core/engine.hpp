// The event core: one event heap, GPUs whose SharingModel turns the set of busy contexts into rates, and
// activities (kernels) that carry remaining work. A GPU's rates are recomputed only when its active set changes
// or its model's timer fires. The engine also serves the idle holds that fluid models of time-slicing ask for
// (SharingModel::idle_hold); that mechanism lives here and nowhere else.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <queue>
#include <span>
#include <vector>

#include "sim/core/sharing_model.hpp"
#include "sim/core/event_queue.hpp"

namespace vgpusim {

// Whoever owns contexts and timers (a tenant's workload driver) hears about them through this.
class EngineClient {
 public:
  virtual ~EngineClient() = default;
  virtual void on_activity_done(uint64_t tag) = 0;
  virtual void on_timer(uint64_t tag) = 0;
  // An idle hold of one of its contexts was served; the activities that waited for it have started now.
  virtual void on_idle_hold_served() {}
};

// Time-binned integral of the rate a GPU delivers (solo-seconds of work per second).
struct UtilizationSeries {
  double interval = 0;         // s; 0 = not recorded
  std::vector<double> work;    // solo-seconds delivered in each bin
};

// Where a context's time went while it had work on the GPU (s, all time): `running` its work at solo speed (a
// context at rate r for dt runs r dt); `slowed` the rest of dt at a reduced rate while another context's work ran
// (SMs or memory bandwidth shared); `waiting` queued at rate 0 while another context's work ran; `withheld` the
// rest of dt, at a reduced rate or none, while no other context's work ran (context switches, scheduler or
// limiter gaps, virtualization overhead, a neighbour's idle hold). The rest of its time it had no work on the GPU.
struct ContextTimes {
  double running = 0, slowed = 0, waiting = 0, withheld = 0;
};

struct GpuStats {
  double delivered = 0;  // solo-seconds of work done (∫ Σ rates dt)
  double busy_time = 0;  // s with at least one context holding work
  UtilizationSeries series;
};

class EngineObserver;

class Engine {
 public:
  using GpuIndex = uint32_t;
  using ContextIndex = uint32_t;
  using ClientIndex = uint32_t;
  static constexpr double kInfinity = std::numeric_limits<double>::infinity();

  explicit Engine(double utilization_interval = 0) : utilization_interval_(utilization_interval) {}

  GpuIndex add_gpu(std::unique_ptr<SharingModel> model);
  ClientIndex add_client(EngineClient* client);
  // A context is one client's process on one GPU; its in-flight activities share the context's rate equally.
  ContextIndex add_context(GpuIndex gpu, ClientIndex client);

  // Starts an activity needing `solo_seconds` of the GPU alone; the client hears `tag` when it completes. While
  // the context serves an idle hold, the activity waits and starts when the hold is served: then this returns false.
  bool start_activity(ContextIndex context, double solo_seconds, uint64_t tag, const ActivityDemand& demand = {});
  // Withdraws the activities waiting for the context's idle hold (they will not start) and returns their tags, in
  // the order they were started. A client whose partition stops running takes them back.
  std::vector<uint64_t> take_deferred(ContextIndex context);
  // Drops every in-flight activity of the context without completing it, and every later idle hold (a fatal
  // fault: the client launches nothing more).
  void cancel_context(ContextIndex context);
  // Calls the client's on_timer(tag) at absolute time `at` (>= now).
  void set_timer(ClientIndex client, double at, uint64_t tag);
  // The same for a timer after which the client launches work (a workload's host time): an idle hold takes the
  // client's earliest pending one as its context's next launch.
  void set_launch_timer(ClientIndex client, double at, uint64_t tag);
  // Whether the context may start idle holds (default true). A client turns them off when it will launch nothing
  // more (its workload finished) or may not launch now (its partition is being reconfigured).
  void allow_idle_holds(ContextIndex context, bool allowed);

  // Runs until no event is left or the next one lies after `until`; then advances the clock to `until` if finite.
  // With `max_events`, stops after that many more events instead (the clock then stays at the last one); returns
  // whether it stopped for that reason.
  bool run(double until = kInfinity, uint64_t max_events = UINT64_MAX);

  // Hears every rate change of every GPU (for timelines); nullptr for none.
  void set_observer(EngineObserver* observer) { observer_ = observer; }

  double now() const { return now_; }
  uint64_t events_processed() const { return events_; }
  const GpuStats& gpu_stats(GpuIndex gpu) const { return gpus_[gpu].stats; }
  const SharingModel& model(GpuIndex gpu) const { return *gpus_[gpu].model; }
  size_t in_flight(ContextIndex context) const { return contexts_[context].heap.size(); }
  double context_work_done(ContextIndex context) const { return contexts_[context].work_done; }
  const ContextTimes& context_times(ContextIndex context) const { return contexts_[context].times; }

 private:
  enum EventKind : uint8_t { kGpuWake = 0, kTimer = 1, kLaunchTimer = 2 };

  struct Member {
    double finish_v;  // virtual progress at which the activity completes
    uint64_t seq;
    uint64_t tag;
    ActivityDemand demand;
    bool hold;  // an idle hold: progresses, does no work
  };
  struct MemberLater {
    bool operator()(const Member& a, const Member& b) const {
      if (a.finish_v != b.finish_v) return a.finish_v > b.finish_v;
      return a.seq > b.seq;
    }
  };
  struct Context {
    GpuIndex gpu;
    ClientIndex client;
    double v = 0;            // solo-seconds each in-flight member has progressed since the context was last empty
    double share = 0;        // context rate from the model
    double member_rate = 0;  // share / members
    double work_done = 0;    // solo-seconds delivered, all time
    ContextTimes times;
    size_t holds = 0;        // in-flight members that are idle holds
    double work_ended_at = -kInfinity;  // when its last member that does work left
    ActivityDemand demand_sum{0, 0, 0, 0, 0, 0, 0, 0};  // sums over the in-flight members
    long long launches = 0;                 // members that do work started, all time
    double launched_blocks = 0;             // their thread blocks
    std::vector<Member> heap;
    // Idle holds: whether one may start, and the activities started while one is served (they wait for its end).
    bool holds_allowed = true;
    struct Deferred {
      double solo_seconds;
      uint64_t tag;
      ActivityDemand demand;
    };
    std::vector<Deferred> deferred;
  };
  struct Client {
    EngineClient* handler = nullptr;
    bool tracks_launches = false;  // it has a context on a GPU whose model may hold
    std::priority_queue<double, std::vector<double>, std::greater<>> launch_timers;  // pending, s
  };
  struct Gpu {
    std::unique_ptr<SharingModel> model;
    bool may_hold = false;  // model->keeps_idle_grace()
    std::vector<ContextIndex> contexts;
    std::vector<ContextLoad> loads;
    ShareDecision decision;
    double last_update = 0;
    double total_rate = 0;
    bool busy = false;
    bool dirty = false;
    uint64_t version = 0;
    double wake_time = kInfinity;
    GpuStats stats;
  };

  void advance(Gpu& gpu, double t);
  void recompute(GpuIndex index);
  void handle_wake(GpuIndex index);
  void mark_dirty(GpuIndex index);
  void flush_dirty();
  void deliver_completions();
  void pop_member(Context& c);
  // `solo_seconds` was checked by the caller (check_work).
  void push_member(ContextIndex context, double solo_seconds, uint64_t tag, const ActivityDemand& demand, bool hold);
  // Idle holds: whether another context on the same GPU has something in flight (work or a hold) or had work until
  // this instant (completions of one instant are all taken before any client hears of them); starting a hold when
  // a context has just run out of work; starting what waited when it is served.
  bool others_active(ContextIndex context) const;
  void consider_idle_hold(ContextIndex context);
  void end_idle_hold(ContextIndex context);
  // The fraction of a context's share that does work (members that are not holds).
  static double working_fraction(const Context& c) {
    if (c.holds == 0) return 1.0;
    return 1.0 - static_cast<double>(c.holds) / static_cast<double>(c.heap.size());
  }

  EngineObserver* observer_ = nullptr;
  std::vector<double> observed_rates_;
  double utilization_interval_;
  double now_ = 0;
  uint64_t events_ = 0;
  uint64_t member_seq_ = 0;
  EventQueue queue_;
  std::vector<Gpu> gpus_;
  std::vector<Context> contexts_;
  std::vector<Client> clients_;
  std::vector<GpuIndex> dirty_;
  std::vector<GpuIndex> dirty_batch_;  // flush_dirty's batch being recomputed
  struct Completion {
    ContextIndex context;
    uint64_t tag;
    bool hold;  // an idle hold was served
  };
  std::vector<Completion> completions_;
};

// Hears the engine's rate changes; timelines are built from these.
class EngineObserver {
 public:
  virtual ~EngineObserver() = default;
  // After a GPU's rates were recomputed at `now`: its contexts and their rates (0 for those without work);
  // `busy` when some context holds work.
  virtual void on_rates(Engine::GpuIndex gpu, double now, std::span<const Engine::ContextIndex> contexts,
                        std::span<const double> rates, bool busy) = 0;
};

}  // namespace vgpusim
