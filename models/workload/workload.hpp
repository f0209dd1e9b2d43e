// Workloads: what a tenant runs, as a spec (WorkloadSpec), and the state machine (Workload) that plays it against the
// engine through a WorkloadPort. Workloads know nothing of GPUs or sharing: they launch kernels and wait. The
// synthetic kinds are here; a trace replay is models/workload/trace_replay.hpp. The scenario format's kinds and
// their readers are registered in sim/scenario/workload_kind.hpp.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "models/gpu/roofline.hpp"
#include "models/workload/distribution.hpp"
#include "models/workload/request_source.hpp"
#include "sim/core/sharing_model.hpp"

namespace vgpusim {

struct SloTarget {
  double percentile;   // e.g. 99
  double latency;      // s
  std::string metric;  // "" = the unit's latency; else a per-request figure the workload samples (e.g. "ttft")
};

class Workload;

// What a tenant runs: one kind of workload with its settings. Specs are immutable and shared (a plan copies one
// per replica; a trace can be large).
class WorkloadSpec {
 public:
  virtual ~WorkloadSpec() = default;
  // Its scenario key, e.g. "training".
  virtual std::string kind() const = 0;
  // What one unit of work is called in results: "iterations", "requests", "frames", "kernels".
  virtual std::string unit() const = 0;
  // How its work was described, for the validated class of its prediction (sim/run/trust.hpp): "telemetry" (solo
  // throughput and utilization), "op-graph" (framework ops from their shapes), "trace" (a recorded run), "llm" (a
  // served transformer), "synthetic" (work given as FLOPs, bytes and kernels).
  virtual std::string description() const { return "synthetic"; }
  // Whether it stops by itself (a count is given); otherwise it runs until the scenario ends.
  virtual bool bounded() const = 0;
  // Whether its units are requests that arrive on their own (open loop): the vGPU loss then compares mean latency
  // rather than throughput.
  virtual bool open_loop() const { return false; }
  // Whether its units are requests whose latency percentiles the results report (open or closed loop).
  virtual bool reports_latency() const { return open_loop(); }
  // Latency targets of an open-loop workload.
  virtual std::vector<SloTarget> slo() const { return {}; }
  // Device memory it is known to use (bytes); 0 when it does not say. A tenant without `memory` allocates this.
  virtual double device_memory() const { return 0; }
  // What makes its results doubtful whatever the run (e.g. a trace replayed without its CPU side); each becomes a
  // warning of every tenant that runs it.
  virtual std::vector<std::string> warnings() const { return {}; }
  // Named figures of how the workload was described (a trace: how many ops got their work from shapes, ...), for
  // results.json; empty when it says nothing.
  virtual std::vector<std::pair<std::string, double>> facts() const { return {}; }
  // A spec that sizes its device memory from what its process sees (an LLM server's KV cache) returns a copy sized
  // for `visible` bytes (a MIG instance's, a vGPU's usable framebuffer, an MPS client's limit, else the GPU's), or
  // throws std::invalid_argument saying why it does not fit; nullptr: it does not size itself.
  virtual std::shared_ptr<const WorkloadSpec> sized_for(double visible) const {
    (void)visible;
    return nullptr;
  }
  // A copy whose host time (host phases, launch dispatch, think time) takes `factor` times longer: its CPU threads
  // get 1 / factor of a core each when a server's cores are oversubscribed (sim/scenario/scenario.hpp, HostCpu).
  // nullptr: it has no host time the model stretches.
  virtual std::shared_ptr<const WorkloadSpec> with_host_scale(double factor) const {
    (void)factor;
    return nullptr;
  }
  // A fresh state machine that plays it (random draws from `seed`).
  virtual std::unique_ptr<Workload> play(Fidelity fidelity, uint64_t seed) const = 0;
  // Whether what it plays depends on the seed: false only where no draw can change it (every distribution a
  // constant), so that tenants with other random streams share one baseline (sim/run/simulation.hpp).
  virtual bool seeded() const { return true; }
};
using WorkloadRef = std::shared_ptr<const WorkloadSpec>;

struct KernelMixEntry {
  std::string name;
  double weight = 1;
  KernelSpec kernel;
};

// A kernel mix with think time: draw a kernel by weight, run it, think, repeat.
struct KernelsWorkload final : WorkloadSpec {
  std::vector<KernelMixEntry> mix;
  long long count = -1;           // kernels to run; -1 = until the scenario ends
  Distribution think;             // s between kernels

  std::string kind() const override { return "kernels"; }
  std::string unit() const override { return "kernels"; }
  bool bounded() const override { return count >= 0; }
  std::shared_ptr<const WorkloadSpec> with_host_scale(double factor) const override;
  std::unique_ptr<Workload> play(Fidelity fidelity, uint64_t seed) const override;
  bool seeded() const override { return mix.size() > 1 || !think.is_constant(); }
};

// Training: iterations of one step each, with host time (data loading, optimizer on CPU) before each step.
struct TrainingWorkload final : WorkloadSpec {
  long long iterations = -1;
  KernelSpec step;
  int kernels_per_step = 1;  // exact fidelity splits a step into this many equal kernels
  Distribution host_time;    // s per iteration before its launches, during which the GPU is not used
  // Exact fidelity: s of host time per kernel launch (the framework's dispatch); the host runs ahead of the GPU
  // until launch_queue launches are outstanding. Fluid fidelity merges the step into one activity and takes no
  // launch cost (a measured workload gives it fluid_host_time instead).
  double launch_cost = 0;
  // A launch's host time may vary: launch_floor plus a gamma-distributed part of mean launch_cost - launch_floor and
  // standard deviation launch_jitter (0: every launch takes launch_cost).
  double launch_floor = 0;   // s
  double launch_jitter = 0;  // s
  int launch_queue = 1024;
  // Exact fidelity: the host synchronises (waits for its launched kernels) this many times per iteration, the
  // last at its end; the iteration's host time is spread over the segments before them.
  int syncs_per_step = 1;
  // s of host time per iteration at fluid fidelity (the launches' gaps merged in); < 0: host_time.
  double fluid_host_time = -1;
  // The share of the host time that runs after a segment's launches, while the GPU works on them (a data loader
  // preparing the next batch); the synchronisation that ends the segment waits for both. 0: all before.
  double host_overlap = 0;

  std::string kind() const override { return "training"; }
  std::string unit() const override { return "iterations"; }
  std::string description() const override { return step.graph ? "op-graph" : "synthetic"; }
  bool bounded() const override { return iterations >= 0; }
  std::shared_ptr<const WorkloadSpec> with_host_scale(double factor) const override;
  std::unique_ptr<Workload> play(Fidelity fidelity, uint64_t seed) const override;
  bool seeded() const override { return !host_time.is_constant() || launch_jitter > 0; }
};

// Online inference: requests from Poisson arrivals (open loop) or from clients that wait for each answer (closed
// loop), each spending host time and then served on the GPU one at a time in arrival order.
struct InferenceWorkload final : WorkloadSpec {
  RequestArrivals arrivals;  // open loop (rate) or closed loop (clients); the requests to issue
  Distribution host_time;  // per request, on the CPU before its GPU work (preprocessing, RPC); in its latency
  int batch_max = 1;        // dynamic batching: at most this many queued requests served as one
  double batch_wait = 0;    // s a batch short of batch_max waits for more, from its oldest request's queueing
  double shared_bytes = 0;  // of request.bytes, read once per batch (weights) rather than per request
  KernelSpec request;
  Distribution size = Distribution::constant(1);  // a request's work is `request` times a draw of this
  int kernels_per_request = 1;
  std::vector<SloTarget> targets;

  std::string kind() const override { return "inference"; }
  std::string unit() const override { return "requests"; }
  std::string description() const override { return request.graph ? "op-graph" : "synthetic"; }
  bool bounded() const override { return arrivals.bounded(); }
  bool open_loop() const override { return arrivals.open_loop(); }
  bool reports_latency() const override { return true; }
  std::vector<SloTarget> slo() const override { return targets; }
  std::shared_ptr<const WorkloadSpec> with_host_scale(double factor) const override;
  std::unique_ptr<Workload> play(Fidelity fidelity, uint64_t seed) const override;
};

// Rendering: frames of CPU time then GPU work, optionally capped at a frame rate.
struct RenderWorkload final : WorkloadSpec {
  long long frames = -1;
  KernelSpec frame;
  int kernels_per_frame = 1;
  Distribution cpu_time;  // s per frame before its GPU work
  double fps_cap = 0;   // frames per second; 0 = uncapped

  std::string kind() const override { return "render"; }
  std::string unit() const override { return "frames"; }
  bool bounded() const override { return frames >= 0; }
  std::unique_ptr<Workload> play(Fidelity fidelity, uint64_t seed) const override;
  bool seeded() const override { return !cpu_time.is_constant(); }
};

// What a timeline shows of one launch (a trace replay's op): its name, its track, its details and the flow arrow
// from the host call that launched it. Asked for only while a timeline is recorded.
struct KernelNote {
  std::string name;       // empty: the workload kind's generic label
  std::string args;       // members of a JSON object, e.g. "\"stream\": 7"; may be empty
  uint32_t lane = 0;      // a track of its own among the tenant's kernels (a stream); 0 = the tenant's track
  std::string lane_name;  // e.g. "stream 7"
  uint64_t flow = 0;      // the host call that launched it (WorkloadPort::host_call); 0 = none
};

class WorkloadPort {
 public:
  virtual ~WorkloadPort() = default;
  virtual double now() const = 0;
  virtual void launch(const KernelSpec& kernel, uint64_t tag) = 0;
  virtual void wake_at(double time, uint64_t tag) = 0;
  // One unit (iteration, request, frame, kernel) completed; `started` is when it arrived or began.
  virtual void unit_done(double started) = 0;
  // Where the unit's time went (s per named part, adding up to its time), reported before its unit_done; a
  // workload that can tell (a trace replay's critical path) calls it for every unit.
  virtual void unit_parts(const std::vector<std::string>& names, const std::vector<double>& seconds) {
    (void)names;
    (void)seconds;
  }
  // A named per-request figure (s), e.g. an LLM server's time to first token: the results give its percentiles, and
  // SLO targets may name it.
  virtual void sample(const std::string& metric, double value) {
    (void)metric;
    (void)value;
  }
  // A named amount (output tokens, preemptions): the results give its total and its rate over the tenant's time.
  virtual void count(const std::string& metric, double amount) {
    (void)metric;
    (void)amount;
  }
  // The workload has no more work.
  virtual void finished() = 0;
  // Whether a timeline is recorded: host_call and Workload::note are then worth their cost.
  virtual bool recording() const { return false; }
  // A host thread's runtime call from `start` to `end` (s), for the timeline; `flow` (non-zero) ties it to the kernel
  // it launched (KernelNote::flow).
  virtual void host_call(uint32_t thread, const std::string& thread_name, double start, double end,
                         const std::string& name, uint64_t flow) {
    (void)thread, (void)thread_name, (void)start, (void)end, (void)name, (void)flow;
  }
};

class Workload {
 public:
  virtual ~Workload() = default;
  virtual void start(WorkloadPort& port) = 0;
  virtual void on_kernel_done(WorkloadPort& port, uint64_t tag) = 0;
  virtual void on_timer(WorkloadPort& port, uint64_t tag) = 0;
  // How the timeline shows the launch `tag` (called before its on_kernel_done, only while recording).
  virtual KernelNote note(uint64_t tag) const {
    (void)tag;
    return {};
  }
};

}  // namespace vgpusim
