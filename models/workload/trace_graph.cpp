// The dependency graph of a recorded trace, built from its runtime calls and GPU ops (inference rules in
// docs/trace-replay.md, "The dependency graph"). Its replay is trace_graph_replay.cpp.
#include "models/workload/trace_graph.hpp"

#include "models/workload/trace_graph_cycles.hpp"
#include "models/workload/trace_kernels.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <unordered_map>

namespace vgpusim {
namespace {

using Call = KinetoCall;

// Two clocks (CPU and GPU) stamp a trace; an edge whose target started this much before its source ended is still
// taken as consistent (Kineto's timestamps are whole microseconds in most traces).
constexpr double kClockSlack = 1e-6;  // s

// A pageable host copy returns to the host only when the copy is done (device to pageable host), or after a stream
// synchronisation and staging (pageable host to device): CUDA runtime API, "API synchronization behavior".
bool pageable_copy(const KinetoOp& op) {
  return op.kind == KinetoOp::Kind::Memcpy && op.name.find("Pageable") != std::string::npos;
}

// Builds one trace's graph in named phases, run in order by build(); what the phases share is the builder's state.
class Builder {
 public:
  Builder(const KinetoTrace& recorded, const GpuSpec& on, const RooflineParams& roofline, const TraceWindow& kept,
          const TraceGraphOptions& settings)
      : trace(recorded),
        window(kept),
        options(settings),
        solo(solo_durations(recorded.ops)),
        work(recorded, on, roofline, settings.shapes) {
    g.file = trace.file;
    g.launch_queue = options.launch_queue;
  }

  std::shared_ptr<const TraceGraph> build() {
    select_ops();
    if (!select_calls()) return nullptr;
    find_blocked_launches();
    walk_program();
    order_streams();
    measure_pass();
    link_steps();
    place_ops();
    link_queues();
    break_cycles();
    g.evidence = work.facts();
    return std::make_shared<const TraceGraph>(std::move(g));
  }

 private:
  struct PendingStep {
    TraceGraph::Step step;
    double call = 0, begin = 0, end = 0;  // s in trace time: when it was called, when it acts, when it returns
  };
  using Item = struct {
    double time;
    size_t call;  // index into calls, or SIZE_MAX for an op without a launch call
    uint32_t op;  // the op it enqueues (a call that enqueues several gives an item per op), or kNone
  };

  // 1. The GPU ops in the window, in start order, and their streams; each op's work from its recorded time.
  void select_ops() {
    for (size_t i = 0; i < trace.ops.size(); ++i) {
      const KinetoOp& op = trace.ops[i];
      if (op.start < window.from || op.start >= window.to) continue;
      const auto id = static_cast<uint32_t>(g.ops.size());
      auto [it, added] = stream_index.try_emplace(op.stream, static_cast<uint32_t>(g.streams.size()));
      if (added) {
        g.streams.push_back(op.stream);
        launched.emplace_back();
      }
      TraceGraph::Op o;
      o.stream = it->second;
      o.bound = op_bound(op);
      o.kernel = work.work(i, solo[i]);
      o.name = op.name;
      o.grid = op.grid;
      o.block = op.block;
      g.ops.push_back(std::move(o));
      op_start.push_back(op.start);
      op_end.push_back(op.end());
      op_launch.push_back(op.start);  // until a launch call says otherwise
      source_op.push_back(i);
      if (op.correlation >= 0) by_correlation[op.correlation].push_back(id);
    }
    if (g.ops.empty())
      throw TraceError(
          fmt::format("no GPU op of trace '{}' (device {}) starts in the window", trace.file, trace.device));
  }

  // 2. The runtime calls in the window, and which of them enqueue a kept op (false: none does; the trace has no CPU
  // side for this device).
  bool select_calls() {
    has_launch.assign(g.ops.size(), false);
    // Calls from the window's start (from the trace's start without a window: the first op's launch precedes it),
    // and the launches of the kept ops wherever they are.
    const double calls_from = window.from > 0 ? window.from : -std::numeric_limits<double>::infinity();
    for (const Call& c : trace.calls) {
      if (c.start >= window.to) continue;
      std::vector<uint32_t> ops;
      if (c.kind == Call::Kind::Enqueue || c.kind == Call::Kind::BlockingCopy) {
        const auto it = by_correlation.find(c.correlation);
        if (it == by_correlation.end()) continue;  // another device's, or outside the window
        for (uint32_t op : it->second)
          if (!has_launch[op]) {  // a second call naming the same op (a broken trace) launches nothing
            has_launch[op] = true;
            ops.push_back(op);
          }
        if (ops.empty()) continue;
      } else if (c.start < calls_from) {
        continue;
      }
      calls.push_back(&c);
      enqueues.push_back(std::move(ops));
    }
    if (std::none_of(has_launch.begin(), has_launch.end(), [](bool l) { return l; })) return false;
    for (size_t i = 0; i < calls.size(); ++i)
      for (uint32_t op : enqueues[i]) op_launch[op] = calls[i]->start;
    return true;
  }

  // 3. Launches that found their stream's queue full, and the typical host time of the others.
  void find_blocked_launches() {
    // Launches that found their stream's queue full: they returned when an op ended and freed a slot, so their
    // recorded time is mostly waiting, not host work. Pending ops are counted from the GPU's timestamps, which show an
    // op ended a little before the host learns of it: a full queue of `launch_queue` reads as launch_queue - 2 or
    // more (1022 in the V100 trace). Their host time is taken as the median of the unblocked launches'.
    std::vector<std::vector<double>> launch_times(g.streams.size()), end_times(g.streams.size());
    for (uint32_t op = 0; op < g.ops.size(); ++op) {
      launch_times[g.ops[op].stream].push_back(op_launch[op]);
      end_times[g.ops[op].stream].push_back(op_end[op]);
    }
    for (auto& v : launch_times) std::sort(v.begin(), v.end());
    for (auto& v : end_times) std::sort(v.begin(), v.end());
    blocked.assign(calls.size(), false);
    std::vector<double> unblocked;
    const auto full = static_cast<std::ptrdiff_t>(
        std::max<size_t>(1, options.recorded_launch_queue - std::min<size_t>(2, options.recorded_launch_queue / 2)));
    for (size_t i = 0; i < calls.size(); ++i) {
      if (enqueues[i].empty() || calls[i]->kind != Call::Kind::Enqueue) continue;
      const uint32_t s = g.ops[enqueues[i].front()].stream;
      const double at = calls[i]->start;
      const auto launched_before =
          std::lower_bound(launch_times[s].begin(), launch_times[s].end(), at) - launch_times[s].begin();
      const auto ended_before = std::upper_bound(end_times[s].begin(), end_times[s].end(), at) - end_times[s].begin();
      blocked[i] = launched_before - ended_before >= full;
      if (!blocked[i]) unblocked.push_back(calls[i]->duration);
    }
    if (!unblocked.empty()) {
      std::nth_element(unblocked.begin(), unblocked.begin() + static_cast<std::ptrdiff_t>(unblocked.size() / 2),
                       unblocked.end());
      launch_cost = unblocked[unblocked.size() / 2];
    }
  }

  // 4. The program in time order: each thread's steps (launches, synchronising calls) and the edges between
  // streams (explicit waits, event records, timing).
  void walk_program() {
    for (const KinetoSync& s : trace.syncs) sync_of[s.correlation] = &s;

    // The calls and the launch-less ops in time order, as the program issued them.
    std::vector<Item> items;
    for (size_t i = 0; i < calls.size(); ++i) {
      if (enqueues[i].empty()) items.push_back({calls[i]->start, i, TraceGraph::kNone});
      for (uint32_t op : enqueues[i]) items.push_back({calls[i]->start, i, op});
    }
    for (uint32_t op = 0; op < g.ops.size(); ++op)
      if (!has_launch[op]) items.push_back({op_start[op], SIZE_MAX, op});
    std::stable_sort(items.begin(), items.end(), [](const Item& x, const Item& y) { return x.time < y.time; });

    pending_explicit.assign(g.streams.size(), {});
    for (const Item& item : items) {
      if (item.call == SIZE_MAX) {  // released at its recorded start
        launched[g.ops[item.op].stream].push_back(item.op);
        continue;
      }
      const Call& c = *calls[item.call];
      PendingStep ps;
      ps.call = ps.begin = c.start;
      ps.end = c.start + c.duration;
      if (item.op != TraceGraph::kNone)
        enqueue(c, item.call, thread(c.thread), item.op, std::move(ps));
      else
        host_call(c, thread(c.thread), std::move(ps));
    }
  }

  // A call that enqueues `op`: its stream's pending waits become edges, and its step is a launch (or a sync for a
  // copy that blocks the host).
  void enqueue(const Call& c, size_t call, uint32_t t, uint32_t op, PendingStep ps) {
    TraceGraph::Step& st = ps.step;
    const uint32_t s = g.ops[op].stream;
    launched[s].push_back(op);
    for (uint32_t from : pending_explicit[s]) add_edge(from, op, g.explicit_edges);
    pending_explicit[s].clear();
    if (const auto w = thread_pending_wait.find(c.thread); w != thread_pending_wait.end()) {
      for (const auto& [recorded_op, when] : w->second) {
        uint32_t from = recorded_op;
        if (from == TraceGraph::kNone) {
          // No record call before it (some traces drop them): the op of another stream, enqueued before the
          // wait, that ended last before this op started.
          double latest = -1e300;
          for (uint32_t other = 0; other < g.streams.size(); ++other) {
            if (other == s) continue;
            const uint32_t last = last_before(other, when);
            if (last != TraceGraph::kNone && op_end[last] <= op_start[op] + kClockSlack && op_end[last] > latest) {
              latest = op_end[last];
              from = last;
            }
          }
          add_edge(from, op, g.timing_edges);
        } else {
          add_edge(from, op, g.event_edges);
        }
      }
      thread_pending_wait.erase(w);
    }
    thread_last_op[c.thread] = op;
    st.op = op;
    // A copy that blocks the host: named so, or from pageable memory, and the call did return after the copy.
    const bool blocks = (c.kind == Call::Kind::BlockingCopy || pageable_copy(trace.ops[source_op[op]])) &&
                        ps.end + kClockSlack >= op_end[op];
    if (blocks) {
      st.kind = TraceGraph::Step::Kind::Sync;
      st.waits = {op};
      ++g.blocking_copies;
    } else {
      // It acts when the op may start: at the call's return, or earlier when the op started before it returned.
      if (blocked[call]) {
        // Its host work ends after the typical launch time; it returns when the slot frees, at its recorded end.
        ps.begin = c.start + std::min(c.duration, launch_cost);
        ++g.blocked_launches;
      } else {
        ps.begin = c.start + std::clamp(op_start[op] - c.start, 0.0, c.duration);
        ps.end = ps.begin;
      }
      ++g.launches;
    }
    steps[t].push_back(std::move(ps));
  }

  // A call that enqueues nothing: an event record or wait (remembered for the next launch), or a synchronising call
  // (a step that waits for the ops it waited for).
  void host_call(const Call& c, uint32_t t, PendingStep ps) {
    TraceGraph::Step& st = ps.step;
    const auto sync = sync_of.find(c.correlation);
    const KinetoSync* recorded = sync == sync_of.end() ? nullptr : sync->second;
    switch (c.kind) {
      case Call::Kind::EventRecord:
        thread_recorded[c.thread] = get(thread_last_op, c.thread);
        if (c.correlation >= 0) record_time[c.correlation] = c.start;
        return;
      case Call::Kind::StreamWait:
        if (recorded && recorded->kind == KinetoSync::Kind::StreamWait) {
          const auto from = stream_index.find(recorded->wait_on_stream);
          const auto to = stream_index.find(recorded->stream);
          if (from != stream_index.end() && to != stream_index.end()) {
            const auto rt = record_time.find(recorded->record_correlation);
            const uint32_t recorded_op = last_before(from->second, rt != record_time.end() ? rt->second : c.start);
            if (recorded_op != TraceGraph::kNone) pending_explicit[to->second].push_back(recorded_op);
          }
        } else {
          // The event recorded last on this thread; resolved at the thread's next launch.
          // Each record serves the wait after it; a second wait without a new record falls back to timing.
          thread_pending_wait[c.thread].emplace_back(get(thread_recorded, c.thread), c.start);
          thread_recorded.erase(c.thread);
        }
        return;
      case Call::Kind::DeviceSync:
        for (uint32_t s = 0; s < g.streams.size(); ++s)
          if (const uint32_t last = last_before(s, c.start); last != TraceGraph::kNone) st.waits.push_back(last);
        break;
      case Call::Kind::StreamSync:
      case Call::Kind::EventSync: {
        std::optional<uint32_t> stream;
        if (recorded) {
          const long long id = c.kind == Call::Kind::EventSync ? recorded->wait_on_stream : recorded->stream;
          if (const auto it = stream_index.find(id); it != stream_index.end()) stream = it->second;
        }
        if (!stream) {  // the stream whose last op ended latest while the call waited
          double latest = -1;
          for (uint32_t s = 0; s < g.streams.size(); ++s) {
            const uint32_t last = last_before(s, c.start);
            if (last == TraceGraph::kNone) return;
            const double e = op_end[last];
            if (e >= c.start - kClockSlack && e <= c.start + c.duration + kClockSlack && e > latest) {
              latest = e;
              stream = s;
            }
          }
        }
        if (!stream)
          if (const uint32_t last = get(thread_last_op, c.thread); last != TraceGraph::kNone)
            stream = g.ops[last].stream;
        if (stream)
          if (const uint32_t last = last_before(*stream, c.start); last != TraceGraph::kNone) st.waits.push_back(last);
        break;
      }
      default:
        return;
    }
    // A call that returned before an op ended did not wait for it (the inference named the wrong stream).
    st.waits.erase(
        std::remove_if(st.waits.begin(), st.waits.end(), [&](uint32_t w) { return op_end[w] > ps.end + kClockSlack; }),
        st.waits.end());
    if (st.waits.empty()) return;  // nothing enqueued yet to wait for: host time
    st.kind = TraceGraph::Step::Kind::Sync;
    ++g.syncs;
    steps[t].push_back(std::move(ps));
  }

  // 5. Stream order: the order the program enqueued the ops (a stream runs them in that order; the walk put them
  // there in time order); the stream with the most op time is the main one.
  void order_streams() {
    std::vector<double> stream_time(g.streams.size(), 0);
    for (const auto& on : launched)
      for (size_t k = 1; k < on.size(); ++k) g.ops[on[k]].stream_prev = on[k - 1];
    for (uint32_t op = 0; op < g.ops.size(); ++op) stream_time[g.ops[op].stream] += op_end[op] - op_start[op];
    g.main_stream =
        static_cast<uint32_t>(std::max_element(stream_time.begin(), stream_time.end()) - stream_time.begin());
  }

  // 6. The pass: from the first step or op to the last end, and the GPU's busy time in it.
  void measure_pass() {
    first = op_start.front();
    double last = 0;
    for (uint32_t op = 0; op < g.ops.size(); ++op) {
      first = std::min(first, op_start[op]);
      last = std::max(last, op_end[op]);
    }
    for (const auto& thread : steps)
      for (const auto& ps : thread) {
        first = std::min(first, ps.call);
        last = std::max(last, ps.end);
      }
    g.recorded_pass = last - first;
    std::vector<std::pair<double, double>> intervals;
    for (uint32_t op = 0; op < g.ops.size(); ++op) intervals.emplace_back(op_start[op], op_end[op]);
    g.recorded_busy = busy_time(std::move(intervals));
  }

  // 7. Each step's post (syncs), host time and hand-off from another thread.
  void link_steps() {
    std::vector<uint32_t> base(g.threads.size(), 0);
    for (size_t t = 1; t < g.threads.size(); ++t) base[t] = base[t - 1] + static_cast<uint32_t>(steps[t - 1].size());
    const double handoff = options.handoff_gap;
    for (size_t t = 0; t < g.threads.size(); ++t) {
      auto& mine = steps[t];
      for (size_t j = 0; j < mine.size(); ++j) {
        auto& ps = mine[j];
        TraceGraph::Step& st = ps.step;
        if (st.kind == TraceGraph::Step::Kind::Sync) {
          double w = -1e300;
          for (uint32_t op : st.waits) w = std::max(w, op_end[op]);
          st.post = std::max(0.0, ps.end - std::max(ps.begin, w));
        }
        const double prev = j > 0 ? mine[j - 1].end : first;
        double from = prev;
        if (ps.begin - prev >= handoff) {
          // The other thread's last step before this one resumes, if that thread then idles as long.
          for (size_t u = 0; u < g.threads.size(); ++u) {
            if (u == t) continue;
            const auto& theirs = steps[u];
            // Strictly before it resumes: two threads resuming at the same instant must not wait for each other.
            auto it = std::upper_bound(theirs.begin(), theirs.end(), ps.begin,
                                       [](double time, const Builder::PendingStep& s) { return time <= s.end; });
            if (it == theirs.begin()) continue;
            const size_t k = static_cast<size_t>(std::prev(it) - theirs.begin());
            const double end_k = theirs[k].end;
            const bool idles = k + 1 == theirs.size() || theirs[k + 1].begin >= end_k + handoff;
            if (end_k > from && idles) {
              from = end_k;
              st.after = base[u] + static_cast<uint32_t>(k);
            }
          }
          if (st.after != TraceGraph::kNone) ++g.thread_edges;
        }
        st.cpu = std::max(0.0, ps.begin - from);
        st.recorded_end = ps.end - first;
        g.threads[t].steps.push_back(st);
      }
    }
  }

  // 8. Each op's recorded start, its class, and its delay after everything it waits for (or the op whose SMs it
  // waited for).
  void place_ops() {
    std::vector<double> release(g.ops.size(), 0);
    for (uint32_t op = 0; op < g.ops.size(); ++op) release[op] = op_start[op];  // launch-less: at its start
    for (const auto& thread : steps)
      for (const auto& ps : thread)
        if (ps.step.op != TraceGraph::kNone)  // a launch: when it returned; a blocking copy: when it was called
          release[ps.step.op] = ps.step.kind == TraceGraph::Step::Kind::Launch ? ps.end : ps.begin;
    std::vector<std::vector<uint32_t>> by_stream(g.streams.size());
    for (uint32_t op = 0; op < g.ops.size(); ++op) by_stream[g.ops[op].stream].push_back(op);
    for (uint32_t op = 0; op < g.ops.size(); ++op) {
      TraceGraph::Op& o = g.ops[op];
      double ready = release[op];
      if (o.stream_prev != TraceGraph::kNone) ready = std::max(ready, op_end[o.stream_prev]);
      for (uint32_t d : o.deps) ready = std::max(ready, op_end[d]);
      // Waiting for the SMs: another stream's op ran throughout the wait and ended about when this one started
      // (closer to its start than the wait was long): this op's blocks found no room until that op's last wave
      // drained. It then waits for that op (on another GPU its wait scales with it) instead of a fixed delay. The
      // one edge that may disagree with the recording, by at most the occupant's last wave: a fixed delay of
      // milliseconds would not scale at all. A cycle it closes is broken like any other (break_cycles).
      const double wait = op_start[op] - ready;
      if (wait > kClockSlack) {
        uint32_t occupant = TraceGraph::kNone;
        for (uint32_t other = 0; other < g.streams.size(); ++other) {
          if (other == o.stream) continue;
          const auto& on = by_stream[other];  // in start order; a stream's ops do not overlap
          auto it = std::upper_bound(on.begin(), on.end(), ready + kClockSlack,
                                     [&](double t, uint32_t x) { return t < op_start[x]; });
          if (it == on.begin()) continue;
          const uint32_t y = *std::prev(it);
          const double lead = op_end[y] - op_start[op];
          if (lead >= -kClockSlack && lead < wait && (occupant == TraceGraph::kNone || op_end[y] < op_end[occupant]))
            occupant = y;
        }
        if (occupant != TraceGraph::kNone) {
          o.deps.push_back(occupant);
          ++g.resource_edges;
          ready = std::max(ready, op_end[occupant]);
        }
      }
      o.delay = std::max(0.0, op_start[op] - ready);
      if (!has_launch[op]) o.orphan_release = op_start[op] - first;
      o.recorded_start = op_start[op] - first;
      o.recorded_end = op_end[op] - first;
      o.kind = is_collective(trace.ops[source_op[op]]) ? TraceGraph::OpClass::Communication
               : o.stream == g.main_stream             ? TraceGraph::OpClass::MainStream
                                                       : TraceGraph::OpClass::OtherStream;
    }
  }

  // 9. The launch queue as edges: a stream runs its ops in order, so a launch into it finds `launch_queue` ops
  // launched and not done exactly while the op that many launches before it on the stream runs (ops without a
  // launch call take no slot).
  void link_queues() {
    const size_t q = options.launch_queue;
    std::vector<std::pair<uint32_t, uint32_t>> step_of(g.ops.size(), {TraceGraph::kNone, 0});  // thread, step
    for (uint32_t t = 0; t < g.threads.size(); ++t)
      for (uint32_t j = 0; j < g.threads[t].steps.size(); ++j)
        if (const uint32_t op = g.threads[t].steps[j].op; op != TraceGraph::kNone) step_of[op] = {t, j};
    for (const auto& on : launched) {
      std::vector<uint32_t> slots;  // the stream's ops with a launch call, in order
      for (uint32_t op : on)
        if (has_launch[op]) slots.push_back(op);
      for (size_t k = q; k < slots.size(); ++k) {
        const auto [t, j] = step_of[slots[k]];
        TraceGraph::Step& st = g.threads[t].steps[j];
        if (st.kind == TraceGraph::Step::Kind::Launch) st.queue = slots[k - q];
      }
    }
  }

  // 10. The recording is a schedule that ran: every wait the graph has was met in it, so the graph of waits has no
  // cycle, and replayed at any speed everything on it starts in turn. Inferred edges can still close one within
  // the clocks' slack (two ops of a microsecond, each taken to wait for the other) or through rules that met
  // differently (a hand-off and a full queue). Each cycle found loses the inferred edge on it that the recording
  // contradicts most (its source ended latest after its target began), with a warning.
  void break_cycles() {
    std::vector<std::pair<double, double>> step_times;
    for (const auto& thread : steps)
      for (const auto& ps : thread) step_times.emplace_back(ps.begin, ps.end);
    for (const std::string& w : break_wait_cycles(g, step_times, op_start, op_end)) {
      ++g.cycle_edges;
      g.warnings.push_back(fmt::format("trace '{}': {}", trace.file, w));
    }
  }

  static uint32_t get(const std::unordered_map<long long, uint32_t>& m, long long k) {
    const auto it = m.find(k);
    return it == m.end() ? TraceGraph::kNone : it->second;
  }

  std::vector<double> op_start, op_end, op_launch;  // per graph op, s in trace time; launch: when enqueued
  std::vector<std::vector<uint32_t>> launched;      // per stream: ops in the order they were enqueued
  std::vector<std::vector<PendingStep>> steps;      // per thread
  std::map<long long, uint32_t> thread_index;

  uint32_t thread(long long id) {
    auto [it, added] = thread_index.try_emplace(id, static_cast<uint32_t>(g.threads.size()));
    if (added) {
      g.threads.push_back({id, {}});
      steps.emplace_back();
    }
    return it->second;
  }

  // The last op enqueued on `stream` before `time` (trace time), or kNone.
  uint32_t last_before(uint32_t stream, double time) const {
    const auto& l = launched[stream];
    const auto it =
        std::upper_bound(l.begin(), l.end(), time, [&](double t, uint32_t op) { return t < op_launch[op]; });
    return it == l.begin() ? TraceGraph::kNone : *std::prev(it);
  }

  void add_edge(uint32_t from, uint32_t to, size_t& counter) {
    if (from == TraceGraph::kNone || to == TraceGraph::kNone || g.ops[from].stream == g.ops[to].stream) return;
    if (op_start[to] + kClockSlack < op_end[from]) {  // it started before what it would wait for ended
      ++g.dropped_edges;
      return;
    }
    auto& deps = g.ops[to].deps;
    if (std::find(deps.begin(), deps.end(), from) == deps.end()) {
      deps.push_back(from);
      ++counter;
    }
  }

  const KinetoTrace& trace;
  const TraceWindow& window;
  const TraceGraphOptions& options;
  const std::vector<double> solo;  // per trace op: its solo duration
  TraceKernels work;               // each op's work from the trace's evidence
  TraceGraph g;
  // A correlation id names every op one call enqueued (a CUDA graph launch enqueues many).
  std::unordered_map<long long, std::vector<uint32_t>> by_correlation;
  std::map<long long, uint32_t> stream_index;
  std::vector<size_t> source_op;  // graph op -> trace op
  std::vector<const Call*> calls;
  std::vector<std::vector<uint32_t>> enqueues;  // per kept call: the ops it enqueues (none: not an enqueue)
  std::vector<bool> has_launch;                 // per op
  std::vector<bool> blocked;                    // per kept call: it found its stream's queue full
  double launch_cost = 0;                       // s, the median host time of an unblocked launch
  std::unordered_map<long long, const KinetoSync*> sync_of;  // by the runtime call's correlation
  std::unordered_map<long long, double> record_time;         // cudaEventRecord correlation -> its start
  std::vector<std::vector<uint32_t>> pending_explicit;       // per stream: ops its next op waits for
  std::unordered_map<long long, uint32_t> thread_last_op, thread_recorded;
  // Per thread, the waits its next launch takes: the recorded event's op (or kNone) and the wait's time.
  std::unordered_map<long long, std::vector<std::pair<uint32_t, double>>> thread_pending_wait;
  double first = 0;  // s in trace time: the pass's start
};

}  // namespace

std::shared_ptr<const TraceGraph> make_trace_graph(const KinetoTrace& trace, const GpuSpec& source,
                                                   const RooflineParams& perf, const TraceWindow& window,
                                                   const TraceGraphOptions& options) {
  return Builder(trace, source, perf, window, options).build();
}

}  // namespace vgpusim
