// The bridge between scenarios, workloads and the engine: tenant drivers, memory allocation, baselines.
#include "sim/simulation.hpp"

#include <fmt/format.h>

#include <cmath>
#include <memory>

#include "models/kernel_perf.hpp"
#include "models/workload/rng.hpp"
#include "sim/units.hpp"

namespace vgpusim {
namespace {

constexpr uint64_t kStartTag = ~0ULL;  // the tenant's own start timer

struct GpuMemory {
  double capacity = 0;  // bytes
  double used = 0;
  std::vector<std::pair<std::string, double>> residents;
};

class TenantDriver final : public EngineClient, public WorkloadPort {
 public:
  TenantDriver(Engine& engine, const TenantSpec& spec, const GpuInstance& gpu, GpuMemory& memory, Fidelity fidelity,
               uint64_t seed, TenantRecord& record)
      : engine_(engine), spec_(spec), gpu_(gpu), memory_(memory), record_(record) {
    workload_ = make_workload(spec.workload, fidelity, stream_seed(seed, spec.name));
    client_ = engine_.add_client(this);
  }

  void attach(Engine::GpuIndex gpu) {
    context_ = engine_.add_context(gpu, client_);
    engine_.set_timer(client_, spec_.start, kStartTag);
  }

  // EngineClient
  void on_activity_done(uint64_t tag) override { workload_->on_kernel_done(*this, tag); }
  void on_timer(uint64_t tag) override {
    if (tag == kStartTag)
      begin();
    else
      workload_->on_timer(*this, tag);
  }

  // WorkloadPort
  double now() const override { return engine_.now(); }
  void launch(const KernelSpec& kernel, uint64_t tag) override {
    engine_.start_activity(context_, solo_time(kernel, gpu_.spec, gpu_.performance), tag);
  }
  void wake_at(double time, uint64_t tag) override { engine_.set_timer(client_, time, tag); }
  void unit_done(double started) override {
    ++record_.units;
    record_.unit_times.push_back(engine_.now() - started);
  }
  void finished() override {
    record_.finish = engine_.now();
    release_memory();
  }

  void collect() { record_.gpu_work = engine_.context_work_done(context_); }

 private:
  void begin() {
    record_.start = engine_.now();
    if (spec_.memory > 0) {
      const double free = memory_.capacity - memory_.used;
      if (spec_.memory > free) {
        std::string residents;
        for (const auto& [name, bytes] : memory_.residents)
          residents += fmt::format("{}{} {}", residents.empty() ? "" : ", ", name, units::format(bytes, units::Dim::Bytes));
        record_.failures.push_back(
            {"out_of_memory", engine_.now(),
             fmt::format("out of memory on {}: requested {}, {} of {} free{}", gpu_.id,
                         units::format(spec_.memory, units::Dim::Bytes), units::format(free, units::Dim::Bytes),
                         units::format(memory_.capacity, units::Dim::Bytes),
                         residents.empty() ? "" : " (in use: " + residents + ")")});
        return;
      }
      memory_.used += spec_.memory;
      memory_.residents.emplace_back(spec_.name, spec_.memory);
      holds_memory_ = true;
    }
    workload_->start(*this);
  }

  void release_memory() {
    if (!holds_memory_) return;
    holds_memory_ = false;
    memory_.used -= spec_.memory;
    for (auto it = memory_.residents.begin(); it != memory_.residents.end(); ++it)
      if (it->first == spec_.name) {
        memory_.residents.erase(it);
        break;
      }
  }

  Engine& engine_;
  const TenantSpec& spec_;
  const GpuInstance& gpu_;
  GpuMemory& memory_;
  TenantRecord& record_;
  std::unique_ptr<Workload> workload_;
  Engine::ClientIndex client_ = 0;
  Engine::ContextIndex context_ = 0;
  bool holds_memory_ = false;
};

RunRecord run(const Scenario& sc, std::vector<std::unique_ptr<SharingModel>> models, const std::vector<size_t>& tenant_ids,
              ProgressFn progress) {
  Engine engine(sc.metrics_interval);
  std::vector<Engine::GpuIndex> gpu_index;
  for (auto& m : models) gpu_index.push_back(engine.add_gpu(std::move(m)));
  std::vector<GpuMemory> memory(sc.gpus.size());
  for (size_t g = 0; g < sc.gpus.size(); ++g) memory[g].capacity = sc.gpus[g].spec.memory;

  RunRecord rec;
  rec.tenants.resize(tenant_ids.size());
  std::vector<std::unique_ptr<TenantDriver>> drivers;
  for (size_t i = 0; i < tenant_ids.size(); ++i) {
    const TenantSpec& t = sc.tenants[tenant_ids[i]];
    drivers.push_back(std::make_unique<TenantDriver>(engine, t, sc.gpus[t.gpu], memory[t.gpu], sc.fidelity, sc.seed,
                                                     rec.tenants[i]));
    drivers.back()->attach(gpu_index[t.gpu]);
  }
  if (progress && std::isfinite(sc.duration)) {
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
  rec.end = engine.now();
  rec.events = engine.events_processed();
  for (size_t g = 0; g < sc.gpus.size(); ++g) rec.gpus.push_back(engine.gpu_stats(gpu_index[g]));
  return rec;
}

}  // namespace

RunRecord simulate(const Scenario& sc, ProgressFn progress) {
  std::vector<std::unique_ptr<SharingModel>> models;
  for (const SharingConfig& cfg : sc.sharing) models.push_back(find_sharing_model(cfg.mode)->create(cfg.params, sc.fidelity));
  std::vector<size_t> ids(sc.tenants.size());
  for (size_t i = 0; i < ids.size(); ++i) ids[i] = i;
  return run(sc, std::move(models), ids, progress);
}

RunRecord simulate_baseline(const Scenario& sc, size_t t) {
  std::vector<std::unique_ptr<SharingModel>> models;
  for (size_t g = 0; g < sc.gpus.size(); ++g) models.push_back(make_bare_metal_model());
  return run(sc, std::move(models), {t}, nullptr);
}

}  // namespace vgpusim
