// Trace replay through the recorded program's dependency graph: CPU threads that run ahead of the GPU (host time,
// runtime calls, synchronisation), GPU streams as FIFOs released by their launches, cross-stream edges from event
// record/wait, and waits between host threads. Built from a Kineto trace's CPU side (sim/io/kineto_reader), played
// as a workload (trace_graph_replay.cpp); each pass reports its critical path. Method, inference rules and limits:
// docs/trace-replay.md.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "models/workload/trace_replay.hpp"

namespace vgpusim {

struct TraceGraph {
  static constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();

  // What an op's time on the critical path counts as.
  enum class OpClass : uint8_t { MainStream, OtherStream, Communication };

  struct Op {
    KernelSpec kernel;
    KernelBound bound = KernelBound::Memory;
    OpClass kind = OpClass::MainStream;
    uint32_t stream = 0;                 // index into streams
    uint32_t stream_prev = kNone;        // the op before it on its stream
    std::vector<uint32_t> deps;          // ops of other streams it waits for (event record -> stream wait)
    double delay = 0;    // s from the moment it may start (launched, stream and deps done) to its start, as recorded
    // s after the pass starts at which an op without a launch call in the graph is released (its recorded start)
    double orphan_release = -1;
    double recorded_start = 0, recorded_end = 0;  // s since the pass start
    std::string name;                             // the kernel's or copy's name, for the timeline
    std::array<long long, 3> grid{0, 0, 0}, block{0, 0, 0};
  };

  struct Step {
    enum class Kind : uint8_t {
      Launch,  // enqueues `op` and returns
      Sync,    // waits until every op of `waits` is done (a blocking copy enqueues `op` first and waits for it)
    };
    Kind kind = Kind::Launch;
    uint32_t op = kNone;
    std::vector<uint32_t> waits;
    // s of host time before the step acts, counted from the later of the previous step's end and `after`'s end
    double cpu = 0;
    double post = 0;  // Sync: s from the moment its waits are done to its return
    uint32_t after = kNone;  // global index of another thread's step it waits for (a hand-off between threads)
    // Launch: the op whose end frees this launch's slot in its stream's queue (the op `launch_queue` launches
    // before it on the stream); while it runs, the launch blocks the host (rule 7). kNone: never blocks.
    uint32_t queue = kNone;
    double recorded_end = 0;  // s since the pass start
  };

  struct Thread {
    long long id = 0;
    std::vector<Step> steps;
  };

  std::string file;
  std::vector<Op> ops;
  std::vector<Thread> threads;
  std::vector<long long> streams;  // stream ids
  uint32_t main_stream = 0;        // the stream with the most recorded op time
  double recorded_pass = 0;        // s: first step or op to the last step or op end, as recorded
  double recorded_busy = 0;        // s of the pass with an op in flight, as recorded
  size_t launch_queue = 1024;      // ops one stream holds launched but not done before a launch blocks

  // What the builder inferred, for the docs and the tests.
  size_t launches = 0, blocked_launches = 0, syncs = 0, blocking_copies = 0;
  size_t explicit_edges = 0, event_edges = 0, timing_edges = 0, resource_edges = 0, dropped_edges = 0, thread_edges = 0;
  // Inferred edges removed because they closed a cycle of waits (replayed, nothing on it could ever start), and
  // what each was; every one is also a warning of the tenants that replay the trace.
  size_t cycle_edges = 0;
  std::vector<std::string> warnings;
  // How many ops got their work from which evidence (TraceKernels::facts: ops_from_shapes, ...).
  std::vector<std::pair<std::string, double>> evidence;
};

struct TraceGraphOptions {
  // A host thread idle at least this long, resumed after another thread's last step before that thread goes idle
  // at least as long, is taken to wait for it (a hand-off: the autograd engine's backward thread and the main
  // thread in the shipped traces).
  double handoff_gap = 1e-3;  // s
  // Ops one stream holds launched but unfinished before a launch blocks the host, in the replay (a what-if) and
  // in the recording (which launches were blocked waiting for a slot); both default to CUDA's ~1000 (rule 7).
  size_t launch_queue = 1024;
  size_t recorded_launch_queue = 1024;
  // Kernels' work from their framework ops' shapes where the trace has them (TraceKernels); false: by name and grid.
  bool shapes = true;
};

// Builds the graph from the trace's CPU runtime calls and GPU ops kept by `window`. Throws TraceError when the window
// keeps no op. Returns nullptr when the trace has no runtime call linked to a kept op (a GPU-only trace): the
// per-stream replay (make_trace_replay) is then the fallback.
std::shared_ptr<const TraceGraph> make_trace_graph(const KinetoTrace& trace, const GpuSpec& source,
                                                   const RooflineParams& perf, const TraceWindow& window = {},
                                                   const TraceGraphOptions& options = {});

// The parts of a pass's critical path, in the order unit_parts reports them; they add up to the pass's time.
inline const std::vector<std::string>& critical_path_parts() {
  static const std::vector<std::string> parts = {"cpu", "launch_latency", "gpu", "other_streams", "communication"};
  return parts;
}

// Plays the graph; one pass = one iteration. The same at every fidelity.
std::unique_ptr<Workload> play_trace_graph(std::shared_ptr<const TraceGraph> graph, long long iterations);

}  // namespace vgpusim
