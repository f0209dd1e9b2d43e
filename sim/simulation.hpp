// Runs a Scenario on the engine: builds one engine GPU per scenario GPU with its sharing model, one context per
// tenant, drives each tenant's workload, and records raw measurements. Also runs each tenant's baseline (the same
// workload alone on the same GPU, bare metal) that the vGPU loss is measured against.
#pragma once

#include <limits>
#include <string>
#include <vector>

#include "sim/engine.hpp"
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
  double gpu_work = 0;                                        // solo-seconds of GPU work done
  std::vector<Failure> failures;
};

struct RunRecord {
  double end = 0;  // s, simulated end
  uint64_t events = 0;
  std::vector<TenantRecord> tenants;  // scenario order
  std::vector<GpuStats> gpus;         // scenario order
};

// Observer of progress, for a progress bar; called every few thousand events.
using ProgressFn = void (*)(double simulated_now, double simulated_end, uint64_t events);

class Timeline;
// `timeline`, when given, records the run (sim/timeline.hpp).
RunRecord simulate(const Scenario& scenario, ProgressFn progress = nullptr, Timeline* timeline = nullptr);

// The same workload as tenant `t`, alone on its GPU with no virtualization overhead, for the same duration.
RunRecord simulate_baseline(const Scenario& scenario, size_t t);

}  // namespace vgpusim
