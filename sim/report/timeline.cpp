// Builds the Chrome trace from engine rate changes and tenant kernel completions, and writes it by hand (it can
// hold millions of events; a JSON library's tree would triple the memory).
#include "sim/report/timeline.hpp"

#include <fmt/format.h>

namespace vgpusim {
namespace {

// Track ids inside a GPU's process: 1 = scheduler; tenant i (in engine context order) has 2 + 2i for its kernels
// and 3 + 2i for the time it holds the GPU.
constexpr uint32_t kSchedulerTid = 1;
uint32_t kernel_tid(size_t i) { return static_cast<uint32_t>(2 + 2 * i); }
uint32_t running_tid(size_t i) { return static_cast<uint32_t>(3 + 2 * i); }
// A tenant's streams and host threads (trace replays), after every tenant's two tracks.
constexpr uint32_t kLanes = 1024;
uint32_t lane_tid(size_t i, uint32_t lane) { return static_cast<uint32_t>(1000000 + kLanes * i + lane % kLanes); }
uint32_t host_tid(size_t i, uint32_t thread) { return static_cast<uint32_t>(2000000 + kLanes * i + thread % kLanes); }

std::string json_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += '\\', out += c;
    else if (static_cast<unsigned char>(c) < 0x20)
      out += fmt::format("\\u{:04x}", static_cast<unsigned>(c));
    else
      out += c;
  }
  return out;
}

}  // namespace

void Timeline::add_process(Engine::GpuIndex gpu, const std::string& name) {
  if (processes_.size() <= gpu) processes_.resize(gpu + 1);
  processes_[gpu].name = name;
}

void Timeline::add_tenant(Engine::ContextIndex context, Engine::GpuIndex gpu, const std::string& name) {
  if (tenants_.size() <= context) tenants_.resize(context + 1);
  tenants_[context].gpu = gpu;
  tenants_[context].name = name;
}

void Timeline::push(Event e) {
  if (e.phase == 'X' ? keeps(e.ts, e.ts + e.dur) : keeps(e.ts, e.ts)) events_.push_back(std::move(e));
}

void Timeline::kernel(Engine::ContextIndex context, double start, double end, const KernelNote& note) {
  const uint32_t pid = tenants_[context].gpu + 1u;
  uint32_t tid = kernel_tid(context);
  if (note.lane > 0) {
    tid = lane_tid(context, note.lane);
    if (!track_names_.count({pid, tid}))
      track_names_[{pid, tid}] = fmt::format("{} {}", tenants_[context].name, note.lane_name);
  }
  if (!keeps(start, end)) return;
  push({'X', pid, tid, start, end - start, 0, note.name, note.args, 0});
  if (note.flow) push({'f', pid, tid, start, 0, 0, "launch", "", note.flow});
}

void Timeline::host_call(Engine::ContextIndex context, uint32_t thread, const std::string& thread_name, double start,
                         double end, const std::string& name, uint64_t flow) {
  const uint32_t pid = tenants_[context].gpu + 1u, tid = host_tid(context, thread);
  if (!track_names_.count({pid, tid}))
    track_names_[{pid, tid}] = fmt::format("{} host {}", tenants_[context].name, thread_name);
  if (!keeps(start, end)) return;
  push({'X', pid, tid, start, end - start, 0, name, "", 0});
  if (flow) push({'s', pid, tid, start, 0, 0, "launch", "", flow});
}

void Timeline::memory(Engine::GpuIndex gpu, double now, double bytes_used) {
  push({'C', gpu + 1u, 0, now, 0, bytes_used / 1073741824.0, "memory used (GiB)", "", 0});
}

void Timeline::on_rates(Engine::GpuIndex gpu, double now, std::span<const Engine::ContextIndex> contexts,
                        std::span<const double> rates, bool busy) {
  ProcessState& p = processes_[gpu];
  double total = 0;
  for (size_t i = 0; i < contexts.size(); ++i) {
    TenantState& t = tenants_[contexts[i]];
    total += rates[i];
    if (rates[i] > 0 && t.running_since < 0) t.running_since = now;
    if (rates[i] == 0 && t.running_since >= 0) {
      if (now > t.running_since)
        push({'X', gpu + 1u, running_tid(contexts[i]), t.running_since, now - t.running_since, 0, "on GPU", "", 0});
      t.running_since = -1;
    }
  }
  // Busy with nobody progressing: a context switch (or an idle slot of a fixed-share scheduler).
  const bool stalled = busy && total == 0;
  if (stalled && p.switch_since < 0) p.switch_since = now;
  if (!stalled && p.switch_since >= 0) {
    if (now > p.switch_since)
      push({'X', gpu + 1u, kSchedulerTid, p.switch_since, now - p.switch_since, 0, "switch / idle slot", "", 0});
    p.switch_since = -1;
  }
  if (total != p.utilization) {
    p.utilization = total;
    push({'C', gpu + 1u, 0, now, 0, total, "utilization", "", 0});
  }
}

void Timeline::finish(double end) {
  for (size_t c = 0; c < tenants_.size(); ++c) {
    TenantState& t = tenants_[c];
    if (t.running_since >= 0 && end > t.running_since)
      push({'X', t.gpu + 1u, running_tid(c), t.running_since, end - t.running_since, 0, "on GPU", "", 0});
    t.running_since = -1;
  }
  for (size_t g = 0; g < processes_.size(); ++g) {
    ProcessState& p = processes_[g];
    if (p.switch_since >= 0 && end > p.switch_since)
      push({'X', static_cast<uint32_t>(g + 1), kSchedulerTid, p.switch_since, end - p.switch_since, 0,
            "switch / idle slot", "", 0});
    p.switch_since = -1;
  }
}

std::string Timeline::to_json() const {
  std::string out = "{\"displayTimeUnit\": \"ms\", \"traceEvents\": [\n";
  bool first = true;
  auto add = [&](const std::string& line) {
    out += first ? "  " : ",\n  ";
    out += line;
    first = false;
  };
  for (size_t g = 0; g < processes_.size(); ++g) {
    add(fmt::format(R"({{"ph": "M", "name": "process_name", "pid": {}, "args": {{"name": "{}"}}}})", g + 1,
                    json_escape(processes_[g].name)));
    add(fmt::format(R"({{"ph": "M", "name": "process_sort_index", "pid": {}, "args": {{"sort_index": {}}}}})", g + 1,
                    g + 1));
    add(fmt::format(R"({{"ph": "M", "name": "thread_name", "pid": {}, "tid": {}, "args": {{"name": "scheduler"}}}})",
                    g + 1, kSchedulerTid));
  }
  for (size_t c = 0; c < tenants_.size(); ++c) {
    const TenantState& t = tenants_[c];
    add(fmt::format(R"({{"ph": "M", "name": "thread_name", "pid": {}, "tid": {}, "args": {{"name": "{} kernels"}}}})",
                    t.gpu + 1, kernel_tid(c), json_escape(t.name)));
    add(fmt::format(R"({{"ph": "M", "name": "thread_name", "pid": {}, "tid": {}, "args": {{"name": "{} on GPU"}}}})",
                    t.gpu + 1, running_tid(c), json_escape(t.name)));
  }
  for (const auto& [track, name] : track_names_)
    add(fmt::format(R"({{"ph": "M", "name": "thread_name", "pid": {}, "tid": {}, "args": {{"name": "{}"}}}})",
                    track.first, track.second, json_escape(name)));
  // Times in microseconds, as the format wants, with nanosecond resolution.
  for (const Event& e : events_) {
    if (e.phase == 'X')
      add(fmt::format(R"({{"ph": "X", "name": "{}", "pid": {}, "tid": {}, "ts": {:.3f}, "dur": {:.3f}{}}})",
                      json_escape(e.name), e.pid, e.tid, e.ts * 1e6, e.dur * 1e6,
                      e.args.empty() ? std::string() : fmt::format(R"(, "args": {{{}}})", e.args)));
    else if (e.phase == 's' || e.phase == 'f')  // a flow arrow from a launch to its kernel; "bp": "e" binds its end
      add(fmt::format(R"({{"ph": "{}", "name": "{}", "cat": "launch", "id": {}, "pid": {}, "tid": {}, "ts": {:.3f}{}}})",
                      e.phase, json_escape(e.name), e.id, e.pid, e.tid, e.ts * 1e6,
                      e.phase == 'f' ? R"(, "bp": "e")" : ""));
    else
      add(fmt::format(R"({{"ph": "C", "name": "{}", "pid": {}, "ts": {:.3f}, "args": {{"value": {:.6g}}}}})",
                      json_escape(e.name), e.pid, e.ts * 1e6, e.value));
  }
  out += "\n]}\n";
  return out;
}

}  // namespace vgpusim
