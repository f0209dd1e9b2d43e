// Runs a Scenario on the engine: builds one engine GPU per scenario GPU with its sharing model, one context per
// tenant, drives each tenant's workload, and records raw measurements. Also runs each tenant's baseline (the same
// workload alone on the same GPU, bare metal) that the vGPU loss is measured against.
#pragma once

#include <limits>
#include <string>
#include <vector>

#include "sim/core/engine.hpp"
#include "sim/scenario/scenario.hpp"

namespace vgpusim {

struct Failure {
  std::string kind;  // "out_of_memory"
  double time = 0;   // s
  std::string message;
};

// Raw measurements of one tenant in one run.
struct TenantRecord {
  double start = 0;                                           // s, when the tenant started
  double finish = std::numeric_limits<double>::quiet_NaN();   // s, when its workload ended; NaN if it did not
  long long units = 0;                                        // completed iterations / requests / frames / kernels
  std::vector<double> unit_times;                             // s per completed unit (latency for requests)
  std::vector<std::pair<std::string, double>> unit_parts;     // s per named part, summed over the units that said
  std::vector<std::pair<std::string, std::vector<double>>> samples;  // named per-request figures (WorkloadPort::sample)
  std::vector<std::pair<std::string, double>> counts;          // named amounts, summed (WorkloadPort::count)
  double gpu_work = 0;                                        // solo-seconds of GPU work done
  ContextTimes gpu_times;                                     // where its time went while it had work on the GPU
  std::vector<Failure> failures;
};

struct RunRecord {
  double end = 0;  // s, simulated end
  uint64_t events = 0;
  bool truncated = false;  // a pilot that stopped at its event budget before the end
  double host_stretch = 1;  // the factor the tenants' host time took on the server's oversubscribed CPU (`host`)
  std::vector<TenantRecord> tenants;  // scenario order
  std::vector<GpuStats> gpus;         // scenario order
};

// Observer of progress, for a progress bar; called every few thousand events.
using ProgressFn = void (*)(double simulated_now, double simulated_end, uint64_t events);

// Hears a run as it happens: the engine's rate changes, and what the tenants do. The timeline recorder
// (sim/report/timeline.hpp) is one.
class RunObserver : public EngineObserver {
 public:
  // Names: one process per engine GPU (a whole GPU or a partition), one tenant per context, in engine order.
  virtual void add_process(Engine::GpuIndex gpu, const std::string& name) = 0;
  virtual void add_tenant(Engine::ContextIndex context, Engine::GpuIndex gpu, const std::string& name) = 0;
  // A kernel of the tenant on `context` ran from `start` to `end` (s); `note` says what it was (its name is set).
  virtual void kernel(Engine::ContextIndex context, double start, double end, const KernelNote& note) = 0;
  // A host thread of the tenant on `context` made a runtime call from `start` to `end` (s); a non-zero `flow` is
  // the note's flow of the kernel it launched.
  virtual void host_call(Engine::ContextIndex context, uint32_t thread, const std::string& thread_name, double start,
                         double end, const std::string& name, uint64_t flow) {
    (void)context, (void)thread, (void)thread_name, (void)start, (void)end, (void)name, (void)flow;
  }
  // The device memory allocated on `gpu` is now `bytes_used`.
  virtual void memory(Engine::GpuIndex gpu, double now, double bytes_used) = 0;
  // The run ended at `end` (s).
  virtual void finish(double end) = 0;
};

// `observer`, when given, hears the run (e.g. to record a timeline).
RunRecord simulate(const Scenario& scenario, ProgressFn progress = nullptr, RunObserver* observer = nullptr);

// The start of the shared run, stopped after `max_events` events (or at its end if that comes first): what a run
// would cost is estimated from it (sim/run/estimate.hpp).
RunRecord simulate_pilot(const Scenario& scenario, uint64_t max_events);

// The same workload as tenant `t`, alone on its GPU with no virtualization overhead, for the same duration; a pilot
// of it stops after `max_events`.
RunRecord simulate_baseline(const Scenario& scenario, size_t t, uint64_t max_events = UINT64_MAX);

// Per tenant, the first tenant whose baseline run is the same as its own (itself if none before it is): the same
// workload spec on the same GPU with the same memory and start, and the same random stream where the workload draws
// from it. Such tenants share one simulated baseline.
std::vector<size_t> baseline_sources(const Scenario& scenario);

}  // namespace vgpusim
