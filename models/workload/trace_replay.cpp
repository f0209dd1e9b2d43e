// Trace replay: each GPU op's work inferred on its source GPU from its recorded duration, and the per-stream replay
// state machine (one pass = one iteration). Method and limits: docs/trace-replay.md. Reading the file is
// sim/io/kineto_reader.
#include "models/workload/trace_replay.hpp"

#include "models/workload/trace_graph.hpp"
#include "models/workload/trace_kernels.hpp"
#include "sim/core/text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <boost/algorithm/string/case_conv.hpp>

namespace vgpusim {
namespace {

// Fluid fidelity merges a stream's consecutive ops into one phase when the host gap between them is at most this:
// gaps of launch-latency scale (1-5 us in the shipped traces) are the GPU draining its queue, not the host holding
// it back, and moving them to the phase's start changes no per-stream total. Longer gaps keep their place.
constexpr double kFluidMergeGap = 20e-6;  // s

std::string lower(const std::string& s) { return boost::algorithm::to_lower_copy(s); }

}  // namespace

const KinetoDevice* KinetoTrace::device_properties() const {
  for (const KinetoDevice& d : properties)
    if (d.id == device) return &d;
  return nullptr;
}

KernelBound op_bound(const KinetoOp& op) {
  // Host copies really move over PCIe / the copy engines; they are treated as device-memory traffic (a stated
  // limitation, docs/trace-replay.md).
  if (op.kind != KinetoOp::Kind::Kernel) return KernelBound::Memory;
  const std::string n = lower(op.name);
  const bool matrix = contains(n, "gemm") || contains(n, "cutlass") || contains(n, "xmma") || contains(n, "wgrad") ||
                      contains(n, "dgrad") || contains(n, "matmul") || (contains(n, "conv") && !contains(n, "convert"));
  if (!matrix) return KernelBound::Memory;
  // Tensor-core kernels say so in their names: half types (f16, bf16, h884/h1688/h16816 tiles), TF32 and the
  // tensor-op tiles (1688, 16816, tensorop). Every tensor-core kernel is charged at the FP16 tensor rate.
  for (const char* tensor : {"f16", "bf16", "half", "hgemm", "1688", "16816", "884", "tf32", "tensorop", "hmma"})
    if (contains(n, tensor)) return KernelBound::FP16;
  return KernelBound::FP32;
}

bool is_collective(const KinetoOp& op) { return op.kind == KinetoOp::Kind::Kernel && contains(lower(op.name), "nccl"); }

double busy_time(const std::vector<KinetoOp>& ops) {
  std::vector<std::pair<double, double>> iv;
  iv.reserve(ops.size());
  for (const KinetoOp& op : ops) iv.emplace_back(op.start, op.end());
  return busy_time(std::move(iv));
}

double busy_time(std::vector<std::pair<double, double>> iv) {
  std::sort(iv.begin(), iv.end());
  double busy = 0, from = 0, to = -1;
  for (const auto& [s, e] : iv) {
    if (s > to) {
      busy += std::max(0.0, to - from);
      from = s;
      to = e;
    } else {
      to = std::max(to, e);
    }
  }
  return busy + std::max(0.0, to - from);
}

double span(const std::vector<KinetoOp>& ops) {
  if (ops.empty()) return 0;
  double first = ops.front().start, last = ops.front().end();
  for (const KinetoOp& op : ops) {
    first = std::min(first, op.start);
    last = std::max(last, op.end());
  }
  return last - first;
}

std::vector<double> solo_durations(const std::vector<KinetoOp>& ops) {
  struct Edge {
    double time;
    bool starts;
    size_t op;
  };
  std::vector<Edge> edges;
  edges.reserve(2 * ops.size());
  for (size_t i = 0; i < ops.size(); ++i) {
    if (ops[i].duration <= 0) continue;  // takes no time, shares none
    edges.push_back({ops[i].start, true, i});
    edges.push_back({ops[i].end(), false, i});
  }
  // Ends before starts at the same instant: back-to-back ops do not share.
  std::sort(edges.begin(), edges.end(), [](const Edge& a, const Edge& b) {
    return a.time != b.time ? a.time < b.time : !a.starts && b.starts;
  });
  std::vector<double> solo(ops.size(), 0.0);
  std::vector<size_t> running;  // at most a few: ops of one stream do not overlap
  double last = 0;
  for (const Edge& e : edges) {
    if (!running.empty() && e.time > last) {
      const double share = (e.time - last) / static_cast<double>(running.size());
      for (size_t i : running) solo[i] += share;
    }
    last = e.time;
    if (e.starts)
      running.push_back(e.op);
    else
      running.erase(std::find(running.begin(), running.end(), e.op));
  }
  return solo;
}

TraceReplay make_trace_replay(const KinetoTrace& trace, const GpuSpec& source, const RooflineParams& perf,
                              const TraceWindow& window, bool shapes) {
  const std::vector<double> solo = solo_durations(trace.ops);  // over every op: sharing with cut-off ops counts
  TraceKernels work(trace, source, perf, shapes);
  TraceReplay replay;
  replay.file = trace.file;
  std::map<long long, size_t> index;  // stream id -> position in replay.streams
  std::vector<double> stream_end;     // s since `from`: where each stream's previous op ended
  for (size_t i = 0; i < trace.ops.size(); ++i) {
    const KinetoOp& op = trace.ops[i];
    if (op.start < window.from || op.start >= window.to) continue;
    auto [it, added] = index.try_emplace(op.stream, replay.streams.size());
    if (added) {
      replay.streams.push_back({op.stream, {}});
      stream_end.push_back(0);
    }
    const size_t s = it->second;
    const double start = op.start - window.from, end = op.end() - window.from;
    TraceReplay::Op r;
    r.think = std::max(0.0, start - stream_end[s]);
    r.bound = op_bound(op);
    r.kernel = work.work(i, solo[i]);
    replay.streams[s].ops.push_back(r);
    stream_end[s] = std::max(stream_end[s], end);
    replay.span = std::max(replay.span, end);
    ++replay.ops;
  }
  if (replay.ops == 0)
    throw TraceError(fmt::format("no GPU op of trace '{}' (device {}) starts in the window", trace.file, trace.device));
  std::sort(replay.streams.begin(), replay.streams.end(),
            [](const TraceReplay::Stream& a, const TraceReplay::Stream& b) { return a.id < b.id; });
  replay.evidence = work.facts();
  return replay;
}

namespace {

// Fluid phases: a stream's consecutive ops merge while the gap before the next is at most kFluidMergeGap and both
// are limited by the same thing (memory; or compute at the same precision with the same grid, since SM fill
// scales compute time per kernel). The merged work has the summed solo time on every GPU; the gaps move to the
// phase's start. A memory phase keeps the grid of its largest op (its SM fill matters only to spatial sharing).
std::vector<TraceReplay::Stream> fluid_phases(const std::vector<TraceReplay::Stream>& streams) {
  std::vector<TraceReplay::Stream> phases;
  for (const TraceReplay::Stream& s : streams) {
    TraceReplay::Stream merged{s.id, {}};
    double largest = 0;  // bytes of the current phase's largest op
    for (const TraceReplay::Op& op : s.ops) {
      TraceReplay::Op* last = merged.ops.empty() ? nullptr : &merged.ops.back();
      // Ops timed by the operator model keep their own kernels (their times are not sums of work).
      const bool joins = last && !op.kernel.graph && !last->kernel.graph && op.think <= kFluidMergeGap &&
                         op.bound == last->bound &&
                         (op.bound == KernelBound::Memory || op.kernel.blocks == last->kernel.blocks);
      if (!joins) {
        merged.ops.push_back(op);
        largest = op.kernel.bytes;
        continue;
      }
      last->think += op.think;
      KernelSpec& k = last->kernel;
      k.flops_fp16 += op.kernel.flops_fp16;
      k.flops_fp32 += op.kernel.flops_fp32;
      k.flops_fp64 += op.kernel.flops_fp64;
      k.bytes += op.kernel.bytes;
      // The phase's overhead is its ops' together.
      const double overhead = k.kernels * k.overhead_share + op.kernel.kernels * op.kernel.overhead_share;
      k.kernels += op.kernel.kernels;
      k.overhead_share = overhead / k.kernels;
      if (op.kernel.bytes > largest) {
        largest = op.kernel.bytes;
        k.blocks = op.kernel.blocks;
      }
    }
    phases.push_back(std::move(merged));
  }
  return phases;
}

// One iteration = every stream plays its ops in order (think, then launch and wait); streams run concurrently
// and the iteration ends when the last stream is done. A stream's index is the tag of its launches and timers.
class TraceReplayWorkload final : public Workload {
 public:
  TraceReplayWorkload(std::shared_ptr<const std::vector<TraceReplay::Stream>> streams, long long iterations)
      : streams_(std::move(streams)), remaining_(iterations) {}

  void start(WorkloadPort& port) override { begin_iteration(port); }

  void on_timer(WorkloadPort& port, uint64_t tag) override { port.launch(op(tag).kernel, tag); }

  void on_kernel_done(WorkloadPort& port, uint64_t tag) override {
    if (++next_[tag] < (*streams_)[tag].ops.size()) {
      play(port, tag);
      return;
    }
    if (--streams_running_ > 0) return;
    port.unit_done(iteration_start_);
    if (remaining_ > 0) --remaining_;
    begin_iteration(port);
  }

 private:
  const TraceReplay::Op& op(uint64_t stream) const { return (*streams_)[stream].ops[next_[stream]]; }

  void begin_iteration(WorkloadPort& port) {
    if (remaining_ == 0 || streams_->empty()) {
      port.finished();
      return;
    }
    iteration_start_ = port.now();
    streams_running_ = streams_->size();
    next_.assign(streams_->size(), 0);
    for (uint64_t s = 0; s < streams_->size(); ++s) play(port, s);
  }

  void play(WorkloadPort& port, uint64_t stream) {
    const TraceReplay::Op& o = op(stream);
    if (o.think > 0)
      port.wake_at(port.now() + o.think, stream);
    else
      port.launch(o.kernel, stream);
  }

  std::shared_ptr<const std::vector<TraceReplay::Stream>> streams_;
  long long remaining_;  // iterations left; -1 = unbounded
  std::vector<size_t> next_;  // per stream: the op it plays now
  size_t streams_running_ = 0;
  double iteration_start_ = 0;
};

}  // namespace

std::vector<std::pair<std::string, double>> TraceWorkload::facts() const {
  if (graph) return graph->evidence;
  return trace ? trace->evidence : std::vector<std::pair<std::string, double>>{};
}

std::unique_ptr<Workload> TraceWorkload::play(Fidelity fidelity, uint64_t) const {
  if (graph) return play_trace_graph(graph, iterations);
  if (!trace) throw std::invalid_argument("trace workload without a trace");
  std::shared_ptr<const std::vector<TraceReplay::Stream>> streams =
      fidelity == Fidelity::Fluid
          ? std::make_shared<const std::vector<TraceReplay::Stream>>(fluid_phases(trace->streams))
          : std::shared_ptr<const std::vector<TraceReplay::Stream>>(trace, &trace->streams);
  return std::make_unique<TraceReplayWorkload>(std::move(streams), iterations);
}

}  // namespace vgpusim
