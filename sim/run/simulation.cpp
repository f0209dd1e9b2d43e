// The bridge between scenarios, workloads and the engine: tenant drivers, memory allocation, fault injection,
// baselines. Each target (a whole GPU or a partition) is one engine GPU.
#include "sim/run/simulation.hpp"

#include <fmt/format.h>

#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <tuple>
#include <unordered_map>

#include "models/gpu/roofline.hpp"
#include "sim/core/rng.hpp"
#include "sim/core/units.hpp"

namespace vgpusim {
namespace {

constexpr uint64_t kStartTag = ~0ULL;      // the tenant's own start timer
constexpr uint64_t kFaultTag = ~0ULL - 1;  // an injected fault

// Device memory a tenant allocates from: the target's one pool, or its own partition (vGPU framebuffer).
struct MemoryPool {
  std::string where;
  double capacity = 0;  // bytes
  double used = 0;
  std::vector<std::pair<std::string, double>> residents;
};

class TenantDriver;

// A target's state during the run: its current resources, and whether it runs, drains for a layout change, is
// being reconfigured, or does not exist (yet or any more).
struct TargetState {
  enum class Phase { Running, Draining, Down, Absent };
  GpuSpec spec;  // rewritten only before set_phase (its drivers forget what their kernels took on the old one)
  Phase phase = Phase::Running;
  std::vector<TenantDriver*> drivers;
  std::function<void()> on_drain_progress;  // called after a completion while draining

  void set_phase(Phase p);  // and tells its drivers
};

class TenantDriver final : public EngineClient, public WorkloadPort {
 public:
  TenantDriver(Engine& engine, const TenantSpec& spec, TargetState& target, const RooflineParams& performance,
               MemoryPool& memory, Fidelity fidelity, uint64_t seed, TenantRecord& record, double host_stretch = 1)
      : engine_(engine), spec_(spec), target_(target), performance_(performance), memory_(memory), record_(record) {
    // The server's CPU oversubscribed (Scenario::host): the workload's host time stretched, where it has one.
    WorkloadRef stretched = host_stretch > 1 ? spec.workload->with_host_scale(host_stretch) : nullptr;
    workload_ = (stretched ? stretched : spec.workload)->play(fidelity, stream_seed(seed, spec.stream));
    client_ = engine_.add_client(this);
  }

  void attach(Engine::GpuIndex gpu, RunObserver* observer) {
    context_ = engine_.add_context(gpu, client_);
    engine_.set_timer(client_, spec_.start, kStartTag);
    gpu_ = gpu;
    observer_ = observer;
    on_target_phase();
    if (observer_) observer_->add_tenant(context_, gpu, spec_.name);
  }
  void schedule_fault(double at) { engine_.set_timer(client_, at, kFaultTag); }
  // Ends the tenant now: its kernels are dropped and it does no more work.
  void abort(const std::string& kind, const std::string& message) {
    if (stopped_) return;
    stopped_ = true;
    engine_.cancel_context(context_);
    held_.clear();
    deferred_.clear();
    record_.failures.push_back({kind, engine_.now(), message});
    release_memory();
  }
  std::function<void(TenantDriver&)> on_fault;  // set by the runner: who else the fault takes down
  const TenantSpec& spec() const { return spec_; }
  bool idle_on_device() const { return engine_.in_flight(context_) == 0; }
  // The target's phase changed: idle holds only while it runs, and not once the workload is done. Launches still
  // waiting for an idle hold when it stops running are taken back: they start when it runs again, with its new
  // resources, like every launch made while it does not run.
  void on_target_phase() {
    memo_.reset();  // a layout change rewrites the target's GpuSpec, then sets its phase
    const bool running = target_.phase == TargetState::Phase::Running;
    engine_.allow_idle_holds(context_, running && !stopped_);
    if (running || deferred_.empty()) return;
    engine_.take_deferred(context_);
    held_.insert(held_.begin(), deferred_.begin(), deferred_.end());
    deferred_.clear();
  }
  // The target runs again: launch what was held back meanwhile.
  void release_held() {
    std::vector<std::pair<KernelSpec, uint64_t>> held;
    held.swap(held_);
    for (const auto& [kernel, tag] : held) launch(kernel, tag);
  }

  // EngineClient
  void on_activity_done(uint64_t tag) override {
    if (observer_) {
      auto it = launched_at_.find(tag);
      if (it != launched_at_.end()) {
        KernelNote note = workload_->note(tag);
        if (note.name.empty()) note.name = kernel_label_;
        if (note.flow) note.flow = flow_id(note.flow);
        observer_->kernel(context_, it->second, engine_.now(), note);
        launched_at_.erase(it);
      }
    }
    if (!stopped_) workload_->on_kernel_done(*this, tag);
    drain_progress();
  }
  void on_idle_hold_served() override {
    if (observer_)
      for (const auto& [kernel, tag] : deferred_) launched_at_[tag] = engine_.now();  // they start now
    deferred_.clear();
    drain_progress();
  }
  void on_timer(uint64_t tag) override {
    if (tag == kStartTag) {
      if (!stopped_) begin();
    } else if (tag == kFaultTag) {
      if (on_fault && !stopped_) on_fault(*this);
    } else if (!stopped_) {
      workload_->on_timer(*this, tag);
    }
  }

  // WorkloadPort
  double now() const override { return engine_.now(); }
  void launch(const KernelSpec& kernel, uint64_t tag) override {
    if (target_.phase != TargetState::Phase::Running) {
      held_.emplace_back(kernel, tag);
      return;
    }
    // A workload launches the same kernel again and again (a step's kernels are often all alike): its times on the
    // target are worked out once, until the kernel or the target's phase changes.
    if (!memo_ || memo_->kernel != kernel) {
      const KernelTimes t = kernel_times(kernel, target_.spec, performance_);
      memo_ = LaunchMemo{kernel, t.solo(), activity_demand(kernel, t, target_.spec)};
    }
    if (!engine_.start_activity(context_, memo_->solo, tag, memo_->demand)) {
      deferred_.emplace_back(kernel, tag);  // it waits for an idle hold
      return;
    }
    if (observer_) launched_at_[tag] = engine_.now();
  }
  void wake_at(double time, uint64_t tag) override { engine_.set_launch_timer(client_, time, tag); }
  void unit_done(double started) override {
    ++record_.units;
    record_.unit_times.push_back(engine_.now() - started);
  }
  void unit_parts(const std::vector<std::string>& names, const std::vector<double>& seconds) override {
    auto& parts = record_.unit_parts;
    if (parts.empty())
      for (const std::string& n : names) parts.emplace_back(n, 0.0);
    for (size_t i = 0; i < names.size() && i < seconds.size() && i < parts.size(); ++i) parts[i].second += seconds[i];
  }
  void sample(const std::string& metric, double value) override {
    auto& s = record_.samples;
    auto it = std::find_if(s.begin(), s.end(), [&](const auto& e) { return e.first == metric; });
    if (it == s.end()) it = s.insert(s.end(), {metric, {}});
    it->second.push_back(value);
  }
  void count(const std::string& metric, double amount) override {
    auto& c = record_.counts;
    auto it = std::find_if(c.begin(), c.end(), [&](const auto& e) { return e.first == metric; });
    if (it == c.end()) it = c.insert(c.end(), {metric, 0.0});
    it->second += amount;
  }
  bool recording() const override { return observer_ != nullptr; }
  void host_call(uint32_t thread, const std::string& thread_name, double start, double end, const std::string& name,
                 uint64_t flow) override {
    if (observer_) observer_->host_call(context_, thread, thread_name, start, end, name, flow ? flow_id(flow) : 0);
  }
  void finished() override {
    record_.finish = engine_.now();
    stopped_ = true;
    engine_.allow_idle_holds(context_, false);
    release_memory();
  }

  void collect() {
    record_.gpu_work = engine_.context_work_done(context_);
    record_.gpu_times = engine_.context_times(context_);
  }

 private:
  void begin() {
    record_.start = engine_.now();
    if (spec_.memory > 0) {
      const double free = memory_.capacity - memory_.used;
      if (spec_.memory > free) {
        std::string residents;
        for (const auto& [name, bytes] : memory_.residents)
          residents += fmt::format("{}{} {}", residents.empty() ? "" : ", ", name, units::format(bytes, units::Dim::Bytes));
        stopped_ = true;
        record_.failures.push_back(
            {"out_of_memory", engine_.now(),
             fmt::format("out of memory on {}: requested {}, {} of {} free{}", memory_.where,
                         units::format(spec_.memory, units::Dim::Bytes), units::format(free, units::Dim::Bytes),
                         units::format(memory_.capacity, units::Dim::Bytes),
                         residents.empty() ? "" : " (in use: " + residents + ")")});
        return;
      }
      memory_.used += spec_.memory;
      memory_.residents.emplace_back(spec_.name, spec_.memory);
      holds_memory_ = true;
      if (observer_) observer_->memory(gpu_, engine_.now(), memory_.used);
    }
    workload_->start(*this);
  }

  // A workload's flow id made unique across tenants: the context in the top bits.
  uint64_t flow_id(uint64_t flow) const { return (static_cast<uint64_t>(context_ + 1) << 44) | (flow & ((uint64_t{1} << 44) - 1)); }

  void drain_progress() {
    if (target_.phase == TargetState::Phase::Draining && target_.on_drain_progress) target_.on_drain_progress();
  }

  void release_memory() {
    if (!holds_memory_) return;
    holds_memory_ = false;
    memory_.used -= spec_.memory;
    if (observer_) observer_->memory(gpu_, engine_.now(), memory_.used);
    for (auto it = memory_.residents.begin(); it != memory_.residents.end(); ++it)
      if (it->first == spec_.name) {
        memory_.residents.erase(it);
        break;
      }
  }

  Engine& engine_;
  const TenantSpec& spec_;
  TargetState& target_;
  std::vector<std::pair<KernelSpec, uint64_t>> held_;      // launches while the target is not running
  std::vector<std::pair<KernelSpec, uint64_t>> deferred_;  // launches the engine keeps waiting for an idle hold
  const RooflineParams& performance_;
  MemoryPool& memory_;
  TenantRecord& record_;
  std::unique_ptr<Workload> workload_;
  Engine::ClientIndex client_ = 0;
  Engine::ContextIndex context_ = 0;
  bool holds_memory_ = false;
  bool stopped_ = false;
  Engine::GpuIndex gpu_ = 0;
  RunObserver* observer_ = nullptr;
  std::unordered_map<uint64_t, double> launched_at_;  // tag -> launch time, while recording a timeline
  // The last kernel launched on the target and what it takes there (launch()).
  struct LaunchMemo {
    KernelSpec kernel;
    double solo = 0;
    ActivityDemand demand;
  };
  std::optional<LaunchMemo> memo_;
  std::string kernel_label_ = spec_.workload->kind() + " kernel";
};

void TargetState::set_phase(Phase p) {
  phase = p;
  for (TenantDriver* d : drivers) d->on_target_phase();
}

// Plays the scenario's layout changes: drain the affected partitions, reconfigure, bring them back.
class LayoutController final : public EngineClient {
 public:
  LayoutController(Engine& engine, const std::vector<LayoutChange>& changes, std::vector<TargetState>& states)
      : engine_(engine), changes_(changes), states_(states) {
    client_ = engine_.add_client(this);
    for (size_t i = 0; i < changes_.size(); ++i) engine_.set_timer(client_, changes_[i].at, 2 * i);
  }
  void on_activity_done(uint64_t) override {}
  void on_timer(uint64_t tag) override {
    const size_t i = tag / 2;
    if (tag % 2 == 0) {
      begin_drain(i);
    } else {
      finish(i);
    }
  }

 private:
  void begin_drain(size_t i) {
    draining_ = i;
    for (const LayoutChange::Change& c : changes_[i].changes) {
      TargetState& t = states_[c.target];
      if (t.phase == TargetState::Phase::Running) t.set_phase(TargetState::Phase::Draining);
      t.on_drain_progress = [this] { check_drained(); };
    }
    check_drained();
  }
  void check_drained() {
    if (draining_ < 0) return;
    const auto i = static_cast<size_t>(draining_);
    for (const LayoutChange::Change& c : changes_[i].changes)
      for (const TenantDriver* d : states_[c.target].drivers)
        if (!d->idle_on_device()) return;
    draining_ = -1;
    for (const LayoutChange::Change& c : changes_[i].changes) {
      TargetState& t = states_[c.target];
      t.on_drain_progress = nullptr;
      t.set_phase(c.removed ? TargetState::Phase::Absent : TargetState::Phase::Down);
      if (c.removed)
        for (TenantDriver* d : t.drivers)
          d->abort("partition_removed", fmt::format("its MIG partition was removed by the layout change at {} s",
                                                   changes_[i].at));
    }
    engine_.set_timer(client_, engine_.now() + changes_[i].reconfiguration_time, 2 * i + 1);
  }
  void finish(size_t i) {
    for (const LayoutChange::Change& c : changes_[i].changes) {
      if (c.removed) continue;
      TargetState& t = states_[c.target];
      t.spec = c.spec;
      t.set_phase(TargetState::Phase::Running);
      for (TenantDriver* d : t.drivers) d->release_held();
    }
  }

  Engine& engine_;
  const std::vector<LayoutChange>& changes_;
  std::vector<TargetState>& states_;
  Engine::ClientIndex client_ = 0;
  long draining_ = -1;
};

// What one run simulates (the scenario itself, or one tenant's baseline): targets with their models, which
// tenants run on which target, memory partitions.
struct RunSetup {
  std::vector<Target> targets;
  std::vector<std::string> modes;                     // per target: its sharing mode's name
  std::vector<std::unique_ptr<SharingModel>> models;  // one per target
  std::vector<size_t> tenants;                        // scenario tenant indices
  std::vector<size_t> target_of;                      // per entry of `tenants`: index into `targets`
  std::vector<std::vector<double>> partitions;        // per target: each tenant's memory (empty: one pool)
  std::vector<std::string> partition_notes;           // per target: what its partitions are made of ("" or absent: nothing)
  bool faults = false;
  bool layout_changes = false;
  uint64_t max_events = UINT64_MAX;  // a pilot stops after this many events
};

RunRecord run(const Scenario& sc, RunSetup run_setup, ProgressFn progress, RunObserver* observer) {
  const std::vector<Target>& targets = run_setup.targets;
  const std::vector<size_t>& tenant_ids = run_setup.tenants;
  Engine engine(sc.metrics_interval);
  std::vector<Engine::GpuIndex> gpu_index;
  for (auto& m : run_setup.models) gpu_index.push_back(engine.add_gpu(std::move(m)));
  if (observer) {
    engine.set_observer(observer);
    for (size_t k = 0; k < targets.size(); ++k)
      observer->add_process(gpu_index[k], fmt::format("{} ({}{}, {})", targets[k].id, targets[k].spec.name,
                                                      targets[k].partition.empty() ? "" : " " + targets[k].partition,
                                                      run_setup.modes[k]));
  }

  // Memory: one pool per target, unless its mode gives each tenant a partition of its own.
  std::vector<std::unique_ptr<MemoryPool>> pools;
  std::vector<MemoryPool*> pool_of(tenant_ids.size(), nullptr);
  for (size_t k = 0; k < targets.size(); ++k) {
    const std::vector<double>& parts = run_setup.partitions[k];
    size_t nth = 0;
    MemoryPool* shared = nullptr;
    for (size_t i = 0; i < tenant_ids.size(); ++i) {
      if (run_setup.target_of[i] != k) continue;
      if (!parts.empty()) {
        const std::string note = k < run_setup.partition_notes.size() ? run_setup.partition_notes[k] : "";
        const std::string where = fmt::format("{} (partition of {}{})", targets[k].id, sc.tenants[tenant_ids[i]].name,
                                              note.empty() ? "" : "; " + note);
        pools.push_back(std::make_unique<MemoryPool>(MemoryPool{where, parts[nth], 0, {}}));
        pool_of[i] = pools.back().get();
      } else {
        if (!shared) {
          pools.push_back(std::make_unique<MemoryPool>(MemoryPool{targets[k].id, targets[k].spec.memory, 0, {}}));
          shared = pools.back().get();
        }
        pool_of[i] = shared;
      }
      ++nth;
    }
  }

  std::vector<TargetState> states(targets.size());
  for (size_t k = 0; k < targets.size(); ++k) {
    states[k].spec = targets[k].spec;
    if (!targets[k].present_at_start) states[k].phase = TargetState::Phase::Absent;
  }

  RunRecord rec;
  rec.tenants.resize(tenant_ids.size());
  std::vector<std::unique_ptr<TenantDriver>> drivers;
  // The server's CPU: the threads of this run's tenants (a baseline's one alone) and the background's.
  double threads = 0;
  for (size_t id : tenant_ids) threads += sc.tenants[id].host_threads;
  rec.host_stretch = sc.host.stretch(threads);
  for (size_t i = 0; i < tenant_ids.size(); ++i) {
    const TenantSpec& t = sc.tenants[tenant_ids[i]];
    const size_t k = run_setup.target_of[i];
    drivers.push_back(std::make_unique<TenantDriver>(engine, t, states[k], sc.gpus[t.gpu].performance, *pool_of[i],
                                                     sc.fidelity, sc.seed, rec.tenants[i], rec.host_stretch));
    drivers.back()->attach(gpu_index[k], observer);
    states[k].drivers.push_back(drivers.back().get());
  }
  std::unique_ptr<LayoutController> layout;
  if (run_setup.layout_changes && !sc.layout_changes.empty())
    layout = std::make_unique<LayoutController>(engine, sc.layout_changes, states);
  if (run_setup.faults) {
    for (size_t i = 0; i < drivers.size(); ++i) {
      const size_t target = sc.tenants[tenant_ids[i]].target;
      const bool whole_gpu = sc.targets[target].sharing.mode->fault_takes_down_gpu;
      drivers[i]->on_fault = [&drivers, &sc, target, whole_gpu](TenantDriver& who) {
        who.abort("fatal_fault", "fatal fault injected");
        if (!whole_gpu) return;
        for (auto& other : drivers)
          if (other.get() != &who && other->spec().target == target)
            other->abort("fault_of_other_client",
                         fmt::format("ended by the fatal fault of {} on {} (mode {} has no fault isolation)",
                                     who.spec().name, sc.targets[target].id, sc.targets[target].sharing.mode_name()));
      };
    }
    for (const FaultSpec& f : sc.faults) drivers[f.tenant]->schedule_fault(f.time);
  }
  if (run_setup.max_events != UINT64_MAX) {
    rec.truncated = engine.run(sc.duration, run_setup.max_events);
  } else if (progress && std::isfinite(sc.duration)) {
    // Run in slices so that a progress bar can be drawn between them.
    const int steps = 100;
    for (int s = 1; s <= steps; ++s) {
      engine.run(sc.duration * s / steps);
      progress(engine.now(), sc.duration, engine.events_processed());
    }
  } else {
    engine.run(sc.duration);
  }
  for (auto& d : drivers) d->collect();
  if (observer) observer->finish(engine.now());
  rec.end = engine.now();
  rec.events = engine.events_processed();
  for (size_t g = 0; g < targets.size(); ++g) rec.gpus.push_back(engine.gpu_stats(gpu_index[g]));
  return rec;
}

}  // namespace

namespace {

RunSetup shared_setup(const Scenario& sc) {
  RunSetup run_setup;
  run_setup.targets = sc.targets;
  for (size_t k = 0; k < sc.targets.size(); ++k) {
    const SharingModeInfo* info = sc.targets[k].sharing.mode;
    const ModelSetup& setup = sc.targets[k].setup;
    run_setup.modes.push_back(info->name);
    run_setup.models.push_back(info->create(setup));
    run_setup.partitions.push_back(info->memory_partitions ? info->memory_partitions(setup) : std::vector<double>{});
    run_setup.partition_notes.push_back(info->memory_partition_note ? info->memory_partition_note(setup) : "");
  }
  for (size_t i = 0; i < sc.tenants.size(); ++i) {
    run_setup.tenants.push_back(i);
    run_setup.target_of.push_back(sc.tenants[i].target);
  }
  run_setup.faults = true;
  run_setup.layout_changes = true;
  return run_setup;
}

}  // namespace

RunRecord simulate(const Scenario& sc, ProgressFn progress, RunObserver* observer) {
  return run(sc, shared_setup(sc), progress, observer);
}

RunRecord simulate_pilot(const Scenario& sc, uint64_t max_events) {
  RunSetup run_setup = shared_setup(sc);
  run_setup.max_events = max_events;
  return run(sc, std::move(run_setup), nullptr, nullptr);
}

RunRecord simulate_baseline(const Scenario& sc, size_t t, uint64_t max_events) {
  // Alone on the whole physical GPU, bare metal, with the tenant's memory in the GPU's full pool.
  const size_t g = sc.tenants[t].gpu;
  RunSetup run_setup;
  Target whole;
  whole.id = sc.gpus[g].id;
  whole.gpu = g;
  whole.spec = sc.gpus[g].spec;
  run_setup.targets.push_back(whole);
  run_setup.modes.push_back("bare-metal");
  run_setup.models.push_back(make_bare_metal_model());
  run_setup.partitions.emplace_back();
  run_setup.tenants = {t};
  run_setup.target_of = {0};
  run_setup.max_events = max_events;
  return run(sc, std::move(run_setup), nullptr, nullptr);
}

std::vector<size_t> baseline_sources(const Scenario& sc) {
  // What simulate_baseline reads of the tenant; the rest of the scenario is the same for all.
  using Key = std::tuple<const WorkloadSpec*, size_t, double, double, uint64_t, double>;
  std::map<Key, size_t> first;
  std::vector<size_t> source;
  for (size_t t = 0; t < sc.tenants.size(); ++t) {
    const TenantSpec& x = sc.tenants[t];
    const uint64_t stream = x.workload->seeded() ? stream_seed(sc.seed, x.stream) : 0;
    source.push_back(
        first.try_emplace(Key{x.workload.get(), x.gpu, x.memory, x.start, stream, x.host_threads}, t).first->second);
  }
  return source;
}

}  // namespace vgpusim
