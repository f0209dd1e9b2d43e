// Kineto trace import (gzip streamed through zlib, parsed once with nlohmann::json, non-GPU events dropped while
// parsing), work inference on the source GPU, and the per-stream replay state machine.
#include "models/workload/kineto.hpp"

#include <fmt/format.h>
#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <istream>
#include <nlohmann/json.hpp>

namespace vgpusim {
namespace {

using json = nlohmann::json;

// Fluid fidelity merges a stream's consecutive ops into one phase when the host gap between them is at most this:
// gaps of launch-latency scale (1-5 us in the shipped traces) are the GPU draining its queue, not the host holding
// it back, and moving them to the phase's start changes no per-stream total. Longer gaps keep their place.
constexpr double kFluidMergeGap = 20e-6;  // s
constexpr double kMicroseconds = 1e-6;    // s per trace time unit (Chrome trace `ts`, `dur`)

// A std::streambuf over zlib's gzFile: reads .json.gz and, transparently, plain .json in 64 KiB chunks.
class GzipStreamBuf final : public std::streambuf {
 public:
  explicit GzipStreamBuf(const std::string& path) : file_(gzopen(path.c_str(), "rb")) {}
  ~GzipStreamBuf() override {
    if (file_) gzclose(file_);
  }
  GzipStreamBuf(const GzipStreamBuf&) = delete;
  GzipStreamBuf& operator=(const GzipStreamBuf&) = delete;
  bool is_open() const { return file_ != nullptr; }
  // zlib's complaint (corrupt or truncated gzip), or "".
  std::string error() const {
    int code = Z_OK;
    const char* text = file_ ? gzerror(file_, &code) : "cannot open";
    return code == Z_OK || code == Z_STREAM_END ? std::string() : std::string(text);
  }

 protected:
  int_type underflow() override {
    if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
    const int n = gzread(file_, buffer_.data(), static_cast<unsigned>(buffer_.size()));
    if (n <= 0) return traits_type::eof();
    setg(buffer_.data(), buffer_.data(), buffer_.data() + n);
    return traits_type::to_int_type(*gptr());
  }

 private:
  gzFile file_;
  std::array<char, 1 << 16> buffer_{};
};

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

double number(const json& object, const char* key, double fallback) {
  if (!object.is_object()) return fallback;
  const auto it = object.find(key);
  return it != object.end() && it->is_number() ? it->get<double>() : fallback;
}

std::array<long long, 3> dims(const json& args, const char* key) {
  std::array<long long, 3> d{1, 1, 1};
  const auto it = args.is_object() ? args.find(key) : args.end();
  if (it == args.end() || !it->is_array()) return {0, 0, 0};
  for (size_t i = 0; i < 3 && i < it->size(); ++i)
    if ((*it)[i].is_number()) d[i] = (*it)[i].get<long long>();
  return d;
}

// An op as read, before a device is chosen: absolute `ts` in us and the device it ran on.
struct RawOp {
  KinetoOp op;
  double ts = 0;  // us
  int device = 0;
};

// Converts one Chrome-trace event into an op; false for events that are not GPU kernels, copies or sets.
bool gpu_op(const json& event, RawOp& out) {
  const auto cat = event.find("cat");
  if (cat == event.end() || !cat->is_string()) return false;
  const std::string c = lower(cat->get<std::string>());
  KinetoOp& op = out.op;
  if (c == "kernel")
    op.kind = KinetoOp::Kind::Kernel;
  else if (c == "gpu_memcpy" || c == "memcpy")
    op.kind = KinetoOp::Kind::Memcpy;
  else if (c == "gpu_memset" || c == "memset")
    op.kind = KinetoOp::Kind::Memset;
  else
    return false;
  const auto ph = event.find("ph");
  if (ph != event.end() && (!ph->is_string() || ph->get<std::string>() != "X")) return false;  // complete events only
  const auto ts = event.find("ts");
  if (ts == event.end() || !ts->is_number()) return false;
  const auto name = event.find("name");
  if (name != event.end() && name->is_string()) op.name = name->get<std::string>();
  const json empty = json::object();
  const auto a = event.find("args");
  const json& args = a != event.end() && a->is_object() ? *a : empty;
  out.ts = ts->get<double>();
  op.duration = std::max(0.0, number(event, "dur", 0)) * kMicroseconds;
  out.device = static_cast<int>(number(args, "device", number(event, "pid", 0)));
  op.stream = static_cast<long long>(number(args, "stream", number(event, "tid", 0)));
  op.grid = dims(args, "grid");
  op.block = dims(args, "block");
  op.registers_per_thread = number(args, "registers per thread", 0);
  op.shared_memory = number(args, "shared memory", 0);
  op.occupancy = number(args, "est. achieved occupancy %", 0) / 100;
  op.bytes = number(args, "bytes", 0);
  return true;
}

bool contains(const std::string& text, const char* part) { return text.find(part) != std::string::npos; }

}  // namespace

const KinetoDevice* KinetoTrace::device_properties() const {
  for (const KinetoDevice& d : properties)
    if (d.id == device) return &d;
  return nullptr;
}

KinetoTrace read_kineto_trace(const std::string& path, std::optional<int> device) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) throw TraceError(fmt::format("no trace file '{}'", path));
  GzipStreamBuf buffer(path);
  if (!buffer.is_open()) throw TraceError(fmt::format("cannot open the trace file '{}'", path));
  std::istream in(&buffer);

  // Events are dropped as soon as they are parsed (GPU ops converted first), so memory stays bounded by the ops.
  std::vector<RawOp> raw;
  bool top_is_object = true;
  std::string top_key;
  const json::parser_callback_t keep = [&](int depth, json::parse_event_t event, json& parsed) {
    if (depth == 0 && (event == json::parse_event_t::object_start || event == json::parse_event_t::array_start))
      top_is_object = event == json::parse_event_t::object_start;
    if (event == json::parse_event_t::key && depth == 1 && top_is_object) top_key = parsed.get<std::string>();
    const bool trace_event = top_is_object ? depth == 2 && top_key == "traceEvents" : depth == 1;
    if (event != json::parse_event_t::object_end || !trace_event) return true;
    RawOp op;
    if (gpu_op(parsed, op)) raw.push_back(std::move(op));
    return false;
  };
  json root;
  try {
    root = json::parse(in, keep);
  } catch (const json::parse_error& e) {
    const std::string gz = buffer.error();
    if (!gz.empty()) throw TraceError(fmt::format("trace '{}' is not a readable gzip file: {}", path, gz));
    std::string what = e.what();
    if (const auto close = what.find("] "); what.rfind("[json.exception", 0) == 0 && close != std::string::npos)
      what = what.substr(close + 2);
    throw TraceError(fmt::format("trace '{}' is not valid JSON: {}", path, what));
  }

  KinetoTrace trace;
  trace.file = path;
  if (root.is_object() && root.contains("deviceProperties") && root["deviceProperties"].is_array())
    for (const json& p : root["deviceProperties"]) {
      KinetoDevice d;
      d.id = static_cast<int>(number(p, "id", 0));
      if (p.contains("name") && p["name"].is_string()) d.name = p["name"].get<std::string>();
      d.total_memory = number(p, "totalGlobalMem", 0);
      d.sms = static_cast<int>(number(p, "numSms", 0));
      trace.properties.push_back(d);
    }
  if (raw.empty())
    throw TraceError(fmt::format("trace '{}' holds no GPU kernels, memcpys or memsets (record it with "
                                 "ProfilerActivity.CUDA)", path));
  std::map<int, size_t> ops_per_device;
  for (const RawOp& r : raw) {
    ++ops_per_device[r.device];
    trace.kernels_per_device[r.device] += r.op.kind == KinetoOp::Kind::Kernel ? 1 : 0;
  }
  if (device) {
    if (!ops_per_device.count(*device)) {
      std::string present;
      for (const auto& [d, n] : trace.kernels_per_device)
        present += fmt::format("{}{} ({} kernels)", present.empty() ? "" : ", ", d, n);
      throw TraceError(fmt::format("trace '{}' has no GPU ops on device {}; it has devices {}", path, *device, present));
    }
    trace.device = *device;
  } else {
    size_t most = 0;
    trace.device = ops_per_device.begin()->first;
    for (const auto& [d, n] : trace.kernels_per_device)
      if (n > most) {
        most = n;
        trace.device = d;
      }
  }
  std::stable_sort(raw.begin(), raw.end(), [](const RawOp& a, const RawOp& b) { return a.ts < b.ts; });
  std::optional<double> origin;  // us, the first op's ts
  for (RawOp& r : raw) {
    if (r.device != trace.device) continue;
    if (!origin) origin = r.ts;
    r.op.start = (r.ts - *origin) * kMicroseconds;
    trace.kernels += r.op.kind == KinetoOp::Kind::Kernel ? 1 : 0;
    trace.memcpys += r.op.kind == KinetoOp::Kind::Memcpy ? 1 : 0;
    trace.memsets += r.op.kind == KinetoOp::Kind::Memset ? 1 : 0;
    trace.ops.push_back(std::move(r.op));
  }
  return trace;
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

double busy_time(const std::vector<KinetoOp>& ops) {
  std::vector<std::pair<double, double>> iv;
  iv.reserve(ops.size());
  for (const KinetoOp& op : ops) iv.emplace_back(op.start, op.end());
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

TraceReplay make_trace_replay(const KinetoTrace& trace, const GpuSpec& source, const ParamValues& perf,
                              const TraceWindow& window) {
  const std::vector<double> solo = solo_durations(trace.ops);  // over every op: sharing with cut-off ops counts
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
    r.kernel = kernel_from_duration(solo[i], source, r.bound, op.kind == KinetoOp::Kind::Kernel ? op.blocks() : 0, perf);
    replay.streams[s].ops.push_back(r);
    stream_end[s] = std::max(stream_end[s], end);
    replay.span = std::max(replay.span, end);
    ++replay.ops;
  }
  if (replay.ops == 0)
    throw TraceError(fmt::format("no GPU op of trace '{}' (device {}) starts in the window", trace.file, trace.device));
  std::sort(replay.streams.begin(), replay.streams.end(),
            [](const TraceReplay::Stream& a, const TraceReplay::Stream& b) { return a.id < b.id; });
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
      const bool joins = last && op.think <= kFluidMergeGap && op.bound == last->bound &&
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

std::unique_ptr<Workload> make_trace_workload(const TraceWorkload& spec, Fidelity fidelity) {
  if (!spec.trace) throw std::invalid_argument("trace workload without a trace");
  std::shared_ptr<const std::vector<TraceReplay::Stream>> streams =
      fidelity == Fidelity::Fluid
          ? std::make_shared<const std::vector<TraceReplay::Stream>>(fluid_phases(spec.trace->streams))
          : std::shared_ptr<const std::vector<TraceReplay::Stream>>(spec.trace, &spec.trace->streams);
  return std::make_unique<TraceReplayWorkload>(std::move(streams), spec.iterations);
}

}  // namespace vgpusim
