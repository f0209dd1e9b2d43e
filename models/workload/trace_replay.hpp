// Trace replay: a recorded PyTorch profiler (Kineto) trace as data, each GPU op's work inferred on its source GPU,
// and the per-stream replay used when the trace has no CPU side (one pass = one iteration); the dependency graph
// replay is models/workload/trace_graph.hpp. Method and limits: docs/trace-replay.md. sim/io/kineto_reader reads
// the files.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/gpu/roofline.hpp"
#include "models/workload/workload.hpp"

namespace vgpusim {

// A trace that cannot be read (missing file, corrupt gzip, bad JSON, no GPU ops). what() is the whole message.
class TraceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// One GPU operation of a trace, as recorded.
struct KinetoOp {
  enum class Kind : uint8_t { Kernel, Memcpy, Memset };
  Kind kind = Kind::Kernel;
  std::string name;
  double start = 0;     // s since the trace's origin (the first GPU op of the selected device)
  double duration = 0;  // s, as measured
  long long stream = 0;
  std::array<long long, 3> grid{0, 0, 0};   // kernels: thread blocks per dimension
  std::array<long long, 3> block{0, 0, 0};  // kernels: threads per block per dimension
  double registers_per_thread = 0;
  double shared_memory = 0;  // bytes per block
  double occupancy = 0;      // estimated achieved occupancy, fraction
  double bytes = 0;          // memcpy / memset: bytes moved
  long long correlation = -1;  // links it to the CUDA runtime call that enqueued it; -1 = none
  // The framework op that launched it (index into KinetoTrace::cpu_ops): the innermost `cpu_op` on the launching
  // thread whose interval holds the launch call; -1 = none (no CPU side, or a launch outside every op).
  int cpu_op = -1;

  double blocks() const { return static_cast<double>(grid[0] * grid[1] * grid[2]); }
  double end() const { return start + duration; }
};

// One entry of the trace's `deviceProperties`.
struct KinetoDevice {
  int id = 0;
  std::string name;        // e.g. "NVIDIA A100-PG509-200"
  double total_memory = 0;  // bytes
  int sms = 0;
};

// One CUDA runtime (or driver) call on a CPU thread, as recorded: the calls that enqueue GPU work, synchronise
// with it, or record and wait for events. Other calls are host time like any other.
struct KinetoCall {
  enum class Kind : uint8_t {
    Enqueue,      // a call whose correlation id names a GPU op (kernel launch, memcpy, memset)
    BlockingCopy, // cudaMemcpy and friends without Async: returns when the copy is done
    DeviceSync,   // cudaDeviceSynchronize, cuCtxSynchronize
    StreamSync,   // cudaStreamSynchronize, cuStreamSynchronize
    EventSync,    // cudaEventSynchronize, cuEventSynchronize
    EventRecord,  // cudaEventRecord(WithFlags), cuEventRecord
    StreamWait,   // cudaStreamWaitEvent, cuStreamWaitEvent
  };
  Kind kind = Kind::Enqueue;
  long long thread = 0;
  double start = 0;     // s since the trace's origin
  double duration = 0;  // s
  long long correlation = -1;
};

// What the GPU side says of a synchronising call (`cat: cuda_sync`, newer traces): the stream it waited on and,
// for a stream wait, the stream and event record it waited for.
struct KinetoSync {
  enum class Kind : uint8_t { StreamWait, StreamSync, EventSync, ContextSync };
  Kind kind = Kind::StreamSync;
  long long correlation = -1;         // the runtime call's
  long long stream = -1;              // the stream that waits (StreamWait) or is waited for (StreamSync)
  long long wait_on_stream = -1;      // StreamWait, EventSync: the stream whose event is waited for
  long long record_correlation = -1;  // StreamWait: the cudaEventRecord call's correlation id
};

// A framework op on a CPU thread (`cat: cpu_op`) that launched kernels of the selected device, with the shapes and
// types of its inputs when the trace was recorded with record_shapes (`Input Dims`, `Input type`).
struct KinetoCpuOp {
  std::string name;                        // e.g. "aten::addmm"
  std::vector<std::vector<int64_t>> dims;  // per input: its sizes ([] for a scalar or a non-tensor)
  std::vector<std::string> types;          // per input: "float", "c10::Half", "c10::BFloat16", "long int", "Scalar"
};

struct KinetoTrace {
  std::string file;
  int device = 0;                               // the selected CUDA device
  std::map<int, size_t> kernels_per_device;     // every device of the trace
  std::vector<KinetoDevice> properties;         // empty when the trace has no deviceProperties
  std::vector<KinetoOp> ops;                    // the selected device's ops, by start time
  std::vector<KinetoCall> calls;                // runtime calls that enqueue, synchronise or use events, by start
  std::vector<KinetoSync> syncs;                // GPU-side records of synchronising calls (newer traces)
  std::vector<KinetoCpuOp> cpu_ops;             // the ops that launched the selected device's ops
  size_t kernels = 0, memcpys = 0, memsets = 0;  // on the selected device

  const KinetoDevice* device_properties() const;
};

// What limits a kernel, guessed from its name: GEMM/convolution kernels are compute-bound (tensor-core when the
// name says half precision or a tensor-op tile), everything else memory-bound. Memcpy and memset: memory.
KernelBound op_bound(const KinetoOp& op);
// Whether it is a collective's kernel (NCCL, by name): its time is the network's and its peers', not this GPU's.
bool is_collective(const KinetoOp& op);

// Union of the ops' intervals (s): the time the GPU had at least one op of the trace running.
double busy_time(const std::vector<KinetoOp>& ops);
// The same of (start, end) intervals (s).
double busy_time(std::vector<std::pair<double, double>> intervals);
// First op start to last op end (s).
double span(const std::vector<KinetoOp>& ops);

// Each op's solo time (s): its measured duration, less what it shared with ops of other streams. The engine gives
// the launches in flight in one context equal shares, so an op's solo time is the integral of 1/n over its
// interval, n = ops running then; replayed alone on its source GPU, every op then starts and ends as recorded.
std::vector<double> solo_durations(const std::vector<KinetoOp>& ops);

// Ops starting in [from, to) (s since the origin) are kept; times become relative to `from`.
struct TraceWindow {
  double from = 0;
  double to = std::numeric_limits<double>::infinity();
};

// What the replay workload plays: per stream, its ops in order, each with the host time before it.
struct TraceReplay {
  struct Op {
    double think = 0;  // s the stream waits before launching it (first op: its offset from the origin)
    KernelBound bound = KernelBound::Memory;
    KernelSpec kernel;
  };
  struct Stream {
    long long id = 0;
    std::vector<Op> ops;
  };
  std::string file;
  std::vector<Stream> streams;
  size_t ops = 0;
  double span = 0;  // s of the recorded pass (origin or window start to the last op end)
  std::vector<std::pair<std::string, double>> evidence;  // ops by where their work came from (TraceKernels::facts)
};

// Infers every kept op's work on `source` from its solo time and the trace's evidence (TraceKernels: shapes through
// the operator model, else the roofline parameters `perf` by its name and grid). Throws TraceError when the window keeps no op.
TraceReplay make_trace_replay(const KinetoTrace& trace, const GpuSpec& source, const RooflineParams& perf,
                              const TraceWindow& window = {}, bool shapes = true);

// Replay of a recorded trace: through its dependency graph (models/workload/trace_graph.hpp) when the trace has a
// CPU side; otherwise (or with `model: streams`) its GPU ops per stream with the host gaps between them, where fluid
// fidelity merges runs of a stream's ops into phases (see trace_replay.cpp).
struct TraceGraph;
struct TraceWorkload final : WorkloadSpec {
  std::shared_ptr<const TraceReplay> trace;
  // The dependency graph (models/workload/trace_graph.hpp); when set it is played instead of `trace`.
  std::shared_ptr<const TraceGraph> graph;
  std::vector<std::string> notes;  // warnings()
  long long iterations = 1;  // passes through the trace

  std::string kind() const override { return "trace"; }
  std::string description() const override { return "trace"; }
  std::string unit() const override { return "iterations"; }
  bool bounded() const override { return iterations >= 0; }
  std::vector<std::string> warnings() const override { return notes; }
  std::vector<std::pair<std::string, double>> facts() const override;
  std::unique_ptr<Workload> play(Fidelity fidelity, uint64_t seed) const override;
  bool seeded() const override { return false; }  // a recording replayed as it was
};

}  // namespace vgpusim
