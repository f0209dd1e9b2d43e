// Synthetic workloads: what a tenant runs, as plain specs, and the state machines that play them against the
// engine through a WorkloadPort. Workloads know nothing of GPUs or sharing: they launch kernels and wait.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "models/gpu/roofline.hpp"
#include "sim/core/sharing_model.hpp"

namespace vgpusim {

struct KernelMixEntry {
  std::string name;
  double weight = 1;
  KernelSpec kernel;
};

// A kernel mix with think time: draw a kernel by weight, run it, think, repeat.
struct KernelsWorkload {
  std::vector<KernelMixEntry> mix;
  long long count = -1;           // kernels to run; -1 = until the scenario ends
  double think = 0;               // s between kernels (mean when exponential)
  bool think_exponential = false;
};

// Training: iterations of one step each, with host time (data loading, optimizer on CPU) before each step.
struct TrainingWorkload {
  long long iterations = -1;
  KernelSpec step;
  int kernels_per_step = 1;  // exact fidelity splits a step into this many equal kernels
  double host_time = 0;      // s per iteration during which the GPU is not used
};

struct SloTarget {
  double percentile;  // e.g. 99
  double latency;     // s
};

// Online inference: Poisson arrivals, served one at a time in arrival order.
struct InferenceWorkload {
  double rate = 0;  // requests per second
  KernelSpec request;
  int kernels_per_request = 1;
  long long requests = -1;  // arrivals; -1 = until the scenario ends
  std::vector<SloTarget> slo;
};

// Rendering: frames of CPU time then GPU work, optionally capped at a frame rate.
struct RenderWorkload {
  long long frames = -1;
  KernelSpec frame;
  int kernels_per_frame = 1;
  double cpu_time = 0;  // s per frame before its GPU work
  double fps_cap = 0;   // frames per second; 0 = uncapped
};

struct TraceReplay;  // models/workload/kineto.hpp

// Replay of a recorded PyTorch profiler trace: its GPU ops per stream, with the host gaps between them.
struct TraceWorkload {
  std::shared_ptr<const TraceReplay> trace;  // shared: a spec is copied per tenant and run, a trace can be large
  long long iterations = 1;                  // passes through the trace
};

using WorkloadSpec =
    std::variant<KernelsWorkload, TrainingWorkload, InferenceWorkload, RenderWorkload, TraceWorkload>;

// "kernels", "training", "inference", "render", "trace".
std::string workload_kind(const WorkloadSpec& spec);
// What one unit of work is called in results: "kernels", "iterations", "requests", "frames", "iterations".
std::string workload_unit(const WorkloadSpec& spec);
// True when the workload stops by itself (a count is given).
bool workload_is_bounded(const WorkloadSpec& spec);

class WorkloadPort {
 public:
  virtual ~WorkloadPort() = default;
  virtual double now() const = 0;
  virtual void launch(const KernelSpec& kernel, uint64_t tag) = 0;
  virtual void wake_at(double time, uint64_t tag) = 0;
  // One unit (iteration, request, frame, kernel) completed; `started` is when it arrived or began.
  virtual void unit_done(double started) = 0;
  // The workload has no more work.
  virtual void finished() = 0;
};

class Workload {
 public:
  virtual ~Workload() = default;
  virtual void start(WorkloadPort& port) = 0;
  virtual void on_kernel_done(WorkloadPort& port, uint64_t tag) = 0;
  virtual void on_timer(WorkloadPort& port, uint64_t tag) = 0;
};

std::unique_ptr<Workload> make_workload(const WorkloadSpec& spec, Fidelity fidelity, uint64_t seed);

}  // namespace vgpusim
