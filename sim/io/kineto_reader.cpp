// Kineto trace import: gzip streamed through zlib, parsed once with nlohmann::json, non-GPU events dropped while
// parsing, the selected device's GPU ops kept in start order.
#include "sim/io/kineto_reader.hpp"

#include <fmt/format.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <istream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <boost/algorithm/string/case_conv.hpp>

namespace vgpusim {
namespace {

using json = nlohmann::json;

constexpr double kMicroseconds = 1e-6;    // s per trace time unit (Chrome trace `ts`, `dur`)

// The longest string or number a trace may hold (kernel names with their template arguments run to a few KiB).
constexpr size_t kMaxToken = size_t{1} << 20;

// A std::streambuf over zlib's gzFile: reads .json.gz and, transparently, plain .json in 64 KiB chunks. It keeps
// the parser's memory bounded whatever the input: a run of whitespace between tokens reaches the parser as one
// character (the JSON parser keeps every character of the token it is reading, whitespace before it included), and
// a string or number longer than kMaxToken ends the input.
class GzipStreamBuf final : public std::streambuf {
 public:
  GzipStreamBuf(const std::string& path, size_t max_bytes) : file_(gzopen(path.c_str(), "rb")), max_(max_bytes) {}
  ~GzipStreamBuf() override {
    if (file_) gzclose(file_);
  }
  GzipStreamBuf(const GzipStreamBuf&) = delete;
  GzipStreamBuf& operator=(const GzipStreamBuf&) = delete;
  bool is_open() const { return file_ != nullptr; }
  // Whether reading stopped at the decompressed-size limit (a gzip bomb, or a trace far beyond any real one).
  bool over_limit() const { return over_limit_; }
  // Whether reading stopped at a string or number longer than kMaxToken.
  bool token_too_long() const { return token_too_long_; }
  // zlib's complaint (corrupt or truncated gzip), or "".
  std::string error() const {
    int code = Z_OK;
    const char* text = file_ ? gzerror(file_, &code) : "cannot open";
    return code == Z_OK || code == Z_STREAM_END ? std::string() : std::string(text);
  }

 protected:
  int_type underflow() override {
    if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
    if (read_ >= max_) {
      over_limit_ = true;
      return traits_type::eof();
    }
    size_t kept = 0;
    while (kept == 0) {  // a chunk of whitespace only keeps nothing: read on
      if (read_ >= max_) {
        over_limit_ = true;
        return traits_type::eof();
      }
      const int n = gzread(file_, buffer_.data(), static_cast<unsigned>(buffer_.size()));
      if (n <= 0) return traits_type::eof();
      read_ += static_cast<size_t>(n);
      kept = filter(static_cast<size_t>(n));
      if (token_too_long_) return traits_type::eof();
    }
    setg(buffer_.data(), buffer_.data(), buffer_.data() + kept);
    return traits_type::to_int_type(*gptr());
  }

 private:
  // Compacts the first n bytes of the buffer in place (see the class comment); returns how many it kept.
  size_t filter(size_t n) {
    size_t out = 0;
    for (size_t i = 0; i < n; ++i) {
      const char c = buffer_[i];
      if (in_string_) {
        if (escape_) escape_ = false;
        else if (c == '\\') escape_ = true;
        else if (c == '"') in_string_ = false;
      } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
        token_ = 0;
        if (space_) continue;
        space_ = true;
        buffer_[out++] = c;
        continue;
      } else if (c == '"') {
        in_string_ = true;
        token_ = 0;
      } else if (c == ',' || c == ':' || c == '[' || c == ']' || c == '{' || c == '}') {
        token_ = 0;
      }
      space_ = false;
      if (++token_ > kMaxToken) {
        token_too_long_ = true;
        return out;
      }
      buffer_[out++] = c;
    }
    return out;
  }

  gzFile file_;
  std::array<char, 1 << 16> buffer_{};
  size_t max_;
  size_t read_ = 0;
  bool over_limit_ = false;
  bool token_too_long_ = false;
  bool in_string_ = false, escape_ = false, space_ = false;
  size_t token_ = 0;  // characters of the string or number being read
};

std::string lower(const std::string& s) { return boost::algorithm::to_lower_copy(s); }

double number(const json& object, const char* key, double fallback) {
  if (!object.is_object()) return fallback;
  const auto it = object.find(key);
  return it != object.end() && it->is_number() ? it->get<double>() : fallback;
}

// Problems in one event's numbers: what is out of range, for the message (empty: none).
struct EventCheck {
  std::string problem;
  void number_in(const char* what, double v, double lo, double hi, const char* unit = "") {
    if (!problem.empty()) return;
    if (!std::isfinite(v) || v < lo || v > hi)
      problem = fmt::format("`{}` {:g}{} is outside {:g} to {:g}", what, v, unit, lo, hi);
  }
};

// Largest magnitudes accepted: Kineto's ts are microseconds since the Unix epoch (~1.8e15 in 2026), so 1e17 us
// (~3000 years) leaves room; a duration up to 1e12 us (~11.6 days); ids and grid sizes within what an int holds,
// streams within 1e15.
constexpr double kMaxTs = 1e17, kMaxDur = 1e12, kMaxId = 1e15, kMaxDim = 2147483647.0;

std::array<long long, 3> dims(const json& args, const char* key, EventCheck& check) {
  std::array<long long, 3> d{1, 1, 1};
  const auto it = args.is_object() ? args.find(key) : args.end();
  if (it == args.end() || !it->is_array()) return {0, 0, 0};
  for (size_t i = 0; i < 3 && i < it->size(); ++i)
    if ((*it)[i].is_number()) {
      const double v = (*it)[i].get<double>();
      check.number_in(key, v, 0, kMaxDim);
      if (check.problem.empty()) d[i] = static_cast<long long>(v);
    }
  return d;
}

// An op as read, before a device is chosen: absolute `ts` in us and the device it ran on.
struct RawOp {
  KinetoOp op;
  double ts = 0;  // us
  int device = 0;
};

// Converts one Chrome-trace event into an op; false for events that are not GPU kernels, copies or sets. A GPU op
// whose numbers are out of range (a timestamp of 1e300, a negative duration, an id no integer holds) sets
// `problem` instead.
bool gpu_op(const json& event, RawOp& out, std::string& problem) {
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
  EventCheck check;
  out.ts = ts->get<double>();
  check.number_in("ts", out.ts, -kMaxTs, kMaxTs, " us");
  const double dur = number(event, "dur", 0);
  check.number_in("dur", dur, 0, kMaxDur, " us");
  const double device = number(args, "device", number(event, "pid", 0));
  check.number_in("device", device, -kMaxDim, kMaxDim);
  const double stream = number(args, "stream", number(event, "tid", 0));
  check.number_in("stream", stream, -kMaxId, kMaxId);
  op.grid = dims(args, "grid", check);
  op.block = dims(args, "block", check);
  op.registers_per_thread = number(args, "registers per thread", 0);
  op.shared_memory = number(args, "shared memory", 0);
  op.occupancy = number(args, "est. achieved occupancy %", 0) / 100;
  op.bytes = number(args, "bytes", 0);
  check.number_in("bytes", op.bytes, 0, 1e18, " B");
  const double correlation = number(args, "correlation", -1);
  check.number_in("correlation", correlation, -1, kMaxId);
  for (const auto& [what, v] : {std::pair{"registers per thread", op.registers_per_thread},
                                {"shared memory", op.shared_memory}, {"est. achieved occupancy %", op.occupancy * 100}})
    check.number_in(what, v, 0, kMaxDim);
  if (!check.problem.empty()) {
    problem = fmt::format("{} '{}': {}", c, op.name, check.problem);
    return false;
  }
  op.duration = dur * kMicroseconds;
  out.device = static_cast<int>(device);
  op.stream = static_cast<long long>(stream);
  op.correlation = static_cast<long long>(correlation);
  return true;
}

KinetoCall::Kind call_kind(const std::string& name) {
  using K = KinetoCall::Kind;
  static const std::map<std::string, K> named = {
      {"cudaDeviceSynchronize", K::DeviceSync}, {"cuCtxSynchronize", K::DeviceSync},
      {"cudaStreamSynchronize", K::StreamSync}, {"cuStreamSynchronize", K::StreamSync},
      {"cudaEventSynchronize", K::EventSync},   {"cuEventSynchronize", K::EventSync},
      {"cudaEventRecord", K::EventRecord},      {"cudaEventRecordWithFlags", K::EventRecord},
      {"cuEventRecord", K::EventRecord},        {"cuEventRecordWithFlags", K::EventRecord},
      {"cudaStreamWaitEvent", K::StreamWait},   {"cuStreamWaitEvent", K::StreamWait}};
  if (const auto it = named.find(name); it != named.end()) return it->second;
  // Synchronous copies (CUDA runtime API docs, "API synchronization behavior"): cudaMemcpy, cudaMemcpy2D, ... and
  // the driver's cuMemcpy* without Async.
  if ((name.rfind("cudaMemcpy", 0) == 0 || name.rfind("cuMemcpy", 0) == 0) && name.find("Async") == std::string::npos)
    return K::BlockingCopy;
  return K::Enqueue;  // kept only when its correlation names a GPU op
}

// A CPU-side CUDA runtime or driver call (`cat: cuda_runtime`, `cuda_driver`; older traces `Runtime`). `ts` stays in
// us until the origin is known. False for other events; out-of-range numbers set `problem`.
bool runtime_call(const json& event, KinetoCall& out, double& ts_us, std::string& problem) {
  const auto cat = event.find("cat");
  if (cat == event.end() || !cat->is_string()) return false;
  const std::string c = lower(cat->get<std::string>());
  if (c != "cuda_runtime" && c != "cuda_driver" && c != "runtime") return false;
  const auto ph = event.find("ph");
  if (ph != event.end() && (!ph->is_string() || ph->get<std::string>() != "X")) return false;
  const auto ts = event.find("ts");
  const auto name = event.find("name");
  if (ts == event.end() || !ts->is_number() || name == event.end() || !name->is_string()) return false;
  const std::string n = name->get<std::string>();
  const auto kind = call_kind(n);
  const json empty = json::object();
  const auto a = event.find("args");
  const json& args = a != event.end() && a->is_object() ? *a : empty;
  EventCheck check;
  ts_us = ts->get<double>();
  check.number_in("ts", ts_us, -kMaxTs, kMaxTs, " us");
  const double dur = number(event, "dur", 0);
  check.number_in("dur", dur, 0, kMaxDur, " us");
  const double correlation = number(args, "correlation", -1);
  check.number_in("correlation", correlation, -1, kMaxId);
  const double thread = number(event, "tid", 0);
  check.number_in("tid", thread, -kMaxId, kMaxId);
  if (!check.problem.empty()) {
    problem = fmt::format("{} '{}': {}", c, n, check.problem);
    return false;
  }
  out.kind = kind;
  out.duration = dur * kMicroseconds;
  out.correlation = static_cast<long long>(correlation);
  out.thread = static_cast<long long>(thread);
  return out.kind != KinetoCall::Kind::Enqueue || out.correlation >= 0;
}

// The GPU side of a synchronising call (`cat: cuda_sync`). False for other events.
bool sync_record(const json& event, KinetoSync& out, std::string& problem) {
  const auto cat = event.find("cat");
  if (cat == event.end() || !cat->is_string() || lower(cat->get<std::string>()) != "cuda_sync") return false;
  const json empty = json::object();
  const auto a = event.find("args");
  const json& args = a != event.end() && a->is_object() ? *a : empty;
  const auto k = args.find("cuda_sync_kind");
  const std::string kind = k != args.end() && k->is_string() ? k->get<std::string>() : "";
  using K = KinetoSync::Kind;
  if (kind == "Stream Wait Event") out.kind = K::StreamWait;
  else if (kind == "Stream Sync") out.kind = K::StreamSync;
  else if (kind == "Event Sync") out.kind = K::EventSync;
  else if (kind == "Context Sync") out.kind = K::ContextSync;
  else return false;
  EventCheck check;
  const double correlation = number(args, "correlation", -1), stream = number(args, "stream", -1),
               on = number(args, "wait_on_stream", -1), record = number(args, "wait_on_cuda_event_record_corr_id", -1);
  check.number_in("correlation", correlation, -1, kMaxId);
  check.number_in("stream", stream, -1, 1e10);  // Context Sync names stream 4294967295
  check.number_in("wait_on_stream", on, -1, 1e10);
  check.number_in("wait_on_cuda_event_record_corr_id", record, -1, kMaxId);
  if (!check.problem.empty()) {
    problem = fmt::format("cuda_sync '{}': {}", kind, check.problem);
    return false;
  }
  out.correlation = static_cast<long long>(correlation);
  out.stream = static_cast<long long>(stream);
  out.wait_on_stream = static_cast<long long>(on);
  out.record_correlation = static_cast<long long>(record);
  return out.correlation >= 0;
}

// A framework op on a CPU thread (`cat: cpu_op`), with its interval in trace time (us) for linking launches to it.
struct RawCpuOp {
  KinetoCpuOp op;
  long long thread = 0;
  double ts = 0, end = 0;  // us
};

// One input's sizes from `Input Dims`: a tensor's list of sizes, or (a tensor list, e.g. cat's) one entry per
// tensor. Sizes that are not whole numbers from 0 to kMaxId leave the entry without sizes.
std::vector<int64_t> tensor_sizes(const json& tensor) {
  std::vector<int64_t> sizes;
  if (!tensor.is_array()) return sizes;
  for (const json& v : tensor) {
    if (!v.is_number() || !(v.get<double>() >= 0 && v.get<double>() <= kMaxId)) return {};
    sizes.push_back(static_cast<int64_t>(v.get<double>()));
  }
  return sizes;
}

void input_dims(const json& input, std::vector<std::vector<int64_t>>& out) {
  if (input.is_array() && !input.empty() && input.front().is_array()) {  // a tensor list: one level, no deeper
    for (const json& tensor : input) out.push_back(tensor_sizes(tensor));
    return;
  }
  out.push_back(tensor_sizes(input));
}

// Converts a `cpu_op` complete event; false for other events. Out-of-range times set `problem`.
bool cpu_op(const json& event, RawCpuOp& out, std::string& problem) {
  const auto cat = event.find("cat");
  if (cat == event.end() || !cat->is_string() || lower(cat->get<std::string>()) != "cpu_op") return false;
  const auto ph = event.find("ph");
  if (ph != event.end() && (!ph->is_string() || ph->get<std::string>() != "X")) return false;
  const auto ts = event.find("ts");
  const auto name = event.find("name");
  if (ts == event.end() || !ts->is_number() || name == event.end() || !name->is_string()) return false;
  EventCheck check;
  out.ts = ts->get<double>();
  check.number_in("ts", out.ts, -kMaxTs, kMaxTs, " us");
  const double dur = number(event, "dur", 0);
  check.number_in("dur", dur, 0, kMaxDur, " us");
  const double thread = number(event, "tid", 0);
  check.number_in("tid", thread, -kMaxId, kMaxId);
  if (!check.problem.empty()) {
    problem = fmt::format("cpu_op '{}': {}", name->get<std::string>(), check.problem);
    return false;
  }
  out.end = out.ts + dur;
  out.thread = static_cast<long long>(thread);
  out.op.name = name->get<std::string>();
  const auto a = event.find("args");
  if (a == event.end() || !a->is_object()) return true;
  std::vector<std::string> types;
  if (const auto t = a->find("Input type"); t != a->end() && t->is_array())
    for (const json& type : *t) types.push_back(type.is_string() ? type.get<std::string>() : "");
  // One entry per tensor: a tensor list's sizes become one entry per tensor, each with the list's type.
  if (const auto d = a->find("Input Dims"); d != a->end() && d->is_array())
    for (size_t j = 0; j < d->size(); ++j) {
      const size_t before = out.op.dims.size();
      input_dims((*d)[j], out.op.dims);
      if (out.op.dims.size() == before) out.op.dims.emplace_back();  // an empty tensor list
      out.op.types.resize(out.op.dims.size(), j < types.size() ? types[j] : "");
    }
  return true;
}

// Links each kept launch call to the innermost CPU op on its thread whose interval holds the call's start: a sweep
// per thread over the ops in start order (an op that starts with another and lasts longer encloses it) with a
// stack of the ops still open. Returns per call (same order as `calls`) the index into `ops`, or -1.
std::vector<long long> enclosing_ops(const std::vector<RawCpuOp>& ops,
                                     const std::vector<std::pair<long long, double>>& calls) {
  std::map<long long, std::vector<size_t>> op_by_thread, call_by_thread;
  for (size_t i = 0; i < ops.size(); ++i) op_by_thread[ops[i].thread].push_back(i);
  for (size_t i = 0; i < calls.size(); ++i) call_by_thread[calls[i].first].push_back(i);
  std::vector<long long> linked(calls.size(), -1);
  for (auto& [thread, call_ids] : call_by_thread) {
    const auto it = op_by_thread.find(thread);
    if (it == op_by_thread.end()) continue;
    std::vector<size_t>& op_ids = it->second;
    std::stable_sort(op_ids.begin(), op_ids.end(), [&](size_t a, size_t b) {
      return ops[a].ts != ops[b].ts ? ops[a].ts < ops[b].ts : ops[a].end > ops[b].end;
    });
    std::stable_sort(call_ids.begin(), call_ids.end(),
                     [&](size_t a, size_t b) { return calls[a].second < calls[b].second; });
    std::vector<size_t> open;
    size_t next = 0;
    for (size_t c : call_ids) {
      const double t = calls[c].second;
      for (; next < op_ids.size() && ops[op_ids[next]].ts <= t; ++next) {
        while (!open.empty() && ops[open.back()].end < ops[op_ids[next]].ts) open.pop_back();
        open.push_back(op_ids[next]);
      }
      while (!open.empty() && ops[open.back()].end < t) open.pop_back();
      if (!open.empty()) linked[c] = static_cast<long long>(open.back());
    }
  }
  return linked;
}

}  // namespace

KinetoTrace read_kineto_trace(const std::string& path, std::optional<int> device, size_t max_bytes) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) throw TraceError(fmt::format("no trace file '{}'", path));
  GzipStreamBuf buffer(path, max_bytes);
  if (!buffer.is_open()) throw TraceError(fmt::format("cannot open the trace file '{}'", path));
  std::istream in(&buffer);

  // Events are dropped as soon as they are parsed (GPU ops converted first), so memory stays bounded by the ops.
  std::vector<RawOp> raw;
  std::vector<std::pair<KinetoCall, double>> calls;  // with ts in us
  std::vector<KinetoSync> syncs;
  std::vector<RawCpuOp> cpu_ops;
  bool top_is_object = true;
  std::string top_key;
  std::string problem;  // the first out-of-range GPU op, with its place among the trace events
  size_t events = 0;
  const json::parser_callback_t keep = [&](int depth, json::parse_event_t event, json& parsed) {
    if (depth == 0 && (event == json::parse_event_t::object_start || event == json::parse_event_t::array_start))
      top_is_object = event == json::parse_event_t::object_start;
    if (event == json::parse_event_t::key && depth == 1 && top_is_object) top_key = parsed.get<std::string>();
    const bool trace_event = top_is_object ? depth == 2 && top_key == "traceEvents" : depth == 1;
    if (event != json::parse_event_t::object_end || !trace_event) return true;
    ++events;
    RawOp op;
    std::string bad;
    KinetoCall call;
    KinetoSync sync;
    RawCpuOp framework_op;
    double call_ts = 0;
    if (gpu_op(parsed, op, bad)) raw.push_back(std::move(op));
    else if (bad.empty() && runtime_call(parsed, call, call_ts, bad)) calls.emplace_back(call, call_ts);
    else if (bad.empty() && sync_record(parsed, sync, bad)) syncs.push_back(sync);
    else if (bad.empty() && cpu_op(parsed, framework_op, bad)) cpu_ops.push_back(std::move(framework_op));
    if (!bad.empty() && problem.empty()) problem = fmt::format("trace event {}: {}", events, bad);
    return false;
  };
  json root;
  try {
    root = json::parse(in, keep);
  } catch (const json::exception& e) {  // a syntax error, or a number no double holds (1e400)
    if (buffer.over_limit())
      throw TraceError(fmt::format("trace '{}' holds more than {} MiB once decompressed (a real trace is tens to "
                                   "hundreds); cut it to the steps to replay",
                                   path, max_bytes >> 20));
    if (buffer.token_too_long())
      throw TraceError(fmt::format("trace '{}' holds a string or number longer than {} MiB: not a profiler trace",
                                   path, kMaxToken >> 20));
    const std::string gz = buffer.error();
    if (!gz.empty()) throw TraceError(fmt::format("trace '{}' is not a readable gzip file: {}", path, gz));
    std::string what = e.what();
    if (const auto close = what.find("] "); what.rfind("[json.exception", 0) == 0 && close != std::string::npos)
      what = what.substr(close + 2);
    throw TraceError(fmt::format("trace '{}' is not valid JSON: {}", path, what));
  }

  if (!problem.empty()) throw TraceError(fmt::format("trace '{}', {}", path, problem));
  KinetoTrace trace;
  trace.file = path;
  if (root.is_object() && root.contains("deviceProperties") && root["deviceProperties"].is_array())
    for (const json& p : root["deviceProperties"]) {
      EventCheck check;
      const double id = number(p, "id", 0), sms = number(p, "numSms", 0);
      check.number_in("id", id, -kMaxDim, kMaxDim);
      check.number_in("numSms", sms, 0, 1e6);
      if (!check.problem.empty()) throw TraceError(fmt::format("trace '{}', deviceProperties: {}", path, check.problem));
      KinetoDevice d;
      d.id = static_cast<int>(id);
      if (p.contains("name") && p["name"].is_string()) d.name = p["name"].get<std::string>();
      d.total_memory = number(p, "totalGlobalMem", 0);
      d.sms = static_cast<int>(sms);
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
  // Runtime calls: every synchronising or event call, and the enqueueing calls of the selected device's ops.
  std::unordered_set<long long> correlations;
  for (const KinetoOp& op : trace.ops)
    if (op.correlation >= 0) correlations.insert(op.correlation);
  std::vector<std::pair<long long, double>> launches;  // the kept enqueueing calls: thread, ts in us
  for (auto& [call, ts] : calls) {
    if (call.kind == KinetoCall::Kind::Enqueue && !correlations.count(call.correlation)) continue;
    call.start = (ts - *origin) * kMicroseconds;
    trace.calls.push_back(call);
    if (call.kind == KinetoCall::Kind::Enqueue) launches.emplace_back(call.thread, ts);
  }
  // Each op's framework op: the CPU op that encloses its launch call (kept in the trace only when it launched one).
  if (!cpu_ops.empty() && !launches.empty()) {
    const std::vector<long long> enclosing = enclosing_ops(cpu_ops, launches);
    std::unordered_map<long long, int> op_of_correlation, kept;  // correlation -> cpu_ops index; raw -> kept index
    size_t l = 0;
    for (const KinetoCall& call : trace.calls) {
      if (call.kind != KinetoCall::Kind::Enqueue) continue;
      const long long raw_op = enclosing[l++];
      if (raw_op < 0) continue;
      auto [at, added] = kept.try_emplace(raw_op, static_cast<int>(trace.cpu_ops.size()));
      if (added) trace.cpu_ops.push_back(std::move(cpu_ops[static_cast<size_t>(raw_op)].op));
      op_of_correlation[call.correlation] = at->second;
    }
    for (KinetoOp& op : trace.ops)
      if (const auto it = op_of_correlation.find(op.correlation); it != op_of_correlation.end()) op.cpu_op = it->second;
  }
  std::stable_sort(trace.calls.begin(), trace.calls.end(),
                   [](const KinetoCall& a, const KinetoCall& b) { return a.start < b.start; });
  trace.syncs = std::move(syncs);
  return trace;
}

}  // namespace vgpusim
