// Plays a trace's dependency graph (models/workload/trace_graph.hpp) as a workload: host threads step through
// their runtime calls, ops start when launched, their stream is free and the events they wait for are recorded,
// synchronising calls wait for the GPU; at the end of each pass the critical path is walked back. Built by
// trace_graph.cpp; method in docs/trace-replay.md.
#include <fmt/format.h>

#include <algorithm>

#include "models/workload/trace_graph.hpp"
#include "sim/core/errors.hpp"

namespace vgpusim {
namespace {

// Timer tags: which kind of wake-up, and the step or op it is for. Launch tags are op indices.
constexpr uint64_t kStepAct = uint64_t{1} << 62, kStepEnd = uint64_t{1} << 61, kOpStart = uint64_t{1} << 60,
                   kTagKinds = kStepAct | kStepEnd | kOpStart;

class TraceGraphWorkload final : public Workload {
 public:
  TraceGraphWorkload(std::shared_ptr<const TraceGraph> graph, long long iterations)
      : g_(std::move(graph)), remaining_(iterations) {
    const TraceGraph& g = *g_;
    for (const auto& t : g.threads) {
      thread_base_.push_back(static_cast<uint32_t>(step_thread_.size()));
      for (size_t j = 0; j < t.steps.size(); ++j) step_thread_.push_back(static_cast<uint32_t>(thread_base_.size() - 1));
    }
    const size_t ops = g.ops.size(), steps = step_thread_.size();
    stream_next_.assign(ops, TraceGraph::kNone);
    dependents_.resize(ops);
    for (uint32_t op = 0; op < ops; ++op) {
      if (g.ops[op].stream_prev != TraceGraph::kNone) stream_next_[g.ops[op].stream_prev] = op;
      for (uint32_t d : g.ops[op].deps) dependents_[d].push_back(op);
    }
    handoffs_.resize(steps);
    for (uint32_t s = 0; s < steps; ++s)
      if (const uint32_t a = step(s).after; a != TraceGraph::kNone) handoffs_[a].push_back(s);
    nodes_ = ops + 2 * steps;  // a step's second node: a blocking copy's launch
  }

  void start(WorkloadPort& port) override {
    begin_pass(port);
    check_progress(port);
  }

  // Each handler finishes what the event set off before the pass may end (a pass ending midway would reset the
  // state the rest of the handler still works on).
  void on_timer(WorkloadPort& port, uint64_t tag) override {
    const auto index = static_cast<uint32_t>(tag & ~kTagKinds);
    --timers_;
    if (tag & kStepAct) act(port, index);
    else if (tag & kStepEnd) finish_step(port, index);
    else if (tag & kOpStart) start_op(port, index);
    maybe_end_pass(port);
  }

  void on_kernel_done(WorkloadPort& port, uint64_t tag) override {
    --in_flight_;
    op_done(port, static_cast<uint32_t>(tag));
    maybe_end_pass(port);
  }

  KernelNote note(uint64_t tag) const override {
    const TraceGraph::Op& o = g_->ops[tag];
    KernelNote n;
    n.name = o.name;
    n.lane = o.stream + 1;
    n.lane_name = fmt::format("stream {}", g_->streams[o.stream]);
    n.args = fmt::format(R"j("stream": {}, "grid": [{}, {}, {}], "block": [{}, {}, {}], "recorded start (ms)": {:.3f}, "op": {})j",
                         g_->streams[o.stream], o.grid[0], o.grid[1], o.grid[2], o.block[0], o.block[1], o.block[2],
                         o.recorded_start * 1e3, tag);
    n.flow = tag < flow_.size() ? flow_[tag] : 0;
    return n;
  }

 private:
  void op_done(WorkloadPort& port, uint32_t op) {
    const double now = port.now();
    done_[op] = true;
    end_[op] = now;
    ++ops_done_;
    note_end(op, now);
    if (stream_next_[op] != TraceGraph::kNone) satisfy(port, stream_next_[op], now, op);
    for (uint32_t d : dependents_[op]) satisfy(port, d, now, op);
    std::vector<uint32_t> waiters;
    waiters.swap(op_waiters_[op]);
    for (uint32_t s : waiters)
      if (--wait_count_[s] == 0) waits_done(port, s, op);
    // Launches that waited for a slot in the stream's queue: this op's end frees theirs.
    std::vector<uint32_t> launches;
    launches.swap(queue_waiters_[op]);
    for (uint32_t s : launches) {
      binder_[node(s)] = op;
      gap_[node(s)] = 0;
      start_[node(s)] = now;
      act(port, s);
    }
  }

  const TraceGraph::Step& step(uint32_t s) const {
    const uint32_t t = step_thread_[s];
    return g_->threads[t].steps[s - thread_base_[t]];
  }
  uint32_t node(uint32_t s) const { return static_cast<uint32_t>(g_->ops.size()) + s; }

  void note_end(uint32_t n, double time) {
    if (time >= last_end_) {
      last_end_ = time;
      last_node_ = n;
    }
  }

  void begin_pass(WorkloadPort& port) {
    const TraceGraph& g = *g_;
    if (remaining_ == 0 || g.ops.empty()) {
      finished_ = true;
      port.finished();
      return;
    }
    const double now = port.now();
    pass_start_ = now;
    const size_t ops = g.ops.size(), steps = step_thread_.size();
    pending_.assign(ops, 0);
    ready_.assign(ops, now);
    done_.assign(ops, false);
    start_.assign(nodes_, now);
    end_.assign(nodes_, now);
    gap_.assign(nodes_, 0);
    binder_.assign(nodes_, TraceGraph::kNone);
    step_done_.assign(steps, false);
    armed_.assign(steps, false);
    began_.assign(steps, now);
    flow_.assign(ops, 0);
    wait_count_.assign(steps, 0);
    op_waiters_.assign(ops, {});
    queue_waiters_.assign(ops, {});
    pc_.assign(g.threads.size(), 0);
    ops_done_ = 0;
    threads_done_ = 0;
    last_end_ = now;
    last_node_ = TraceGraph::kNone;
    for (uint32_t op = 0; op < ops; ++op) {
      const TraceGraph::Op& o = g.ops[op];
      pending_[op] = 1 + (o.stream_prev != TraceGraph::kNone ? 1 : 0) + static_cast<uint32_t>(o.deps.size());
    }
    // Ops without a launch call are released at their recorded time; the host's launch queue does not hold them.
    for (uint32_t op = 0; op < ops; ++op)
      if (g.ops[op].orphan_release >= 0) satisfy(port, op, now + g.ops[op].orphan_release, TraceGraph::kNone);
    for (uint32_t t = 0; t < g.threads.size(); ++t) {
      if (g.threads[t].steps.empty()) {
        ++threads_done_;
        continue;
      }
      arm(port, thread_base_[t], now, TraceGraph::kNone);
    }
  }

  // A constraint of `op` is met at `time` (the launch, its stream predecessor, an event); `by` is the node that met
  // it. When none is left, it starts after its recorded delay.
  void satisfy(WorkloadPort& port, uint32_t op, double time, uint32_t by) {
    if (time >= ready_[op]) {
      ready_[op] = time;
      binder_[op] = by;
    }
    if (--pending_[op] > 0) return;
    const double at = ready_[op] + g_->ops[op].delay;
    gap_[op] = at - ready_[op];
    if (at > port.now())
      wake(port, at, kOpStart | op);
    else
      start_op(port, op);
  }

  void start_op(WorkloadPort& port, uint32_t op) {
    start_[op] = port.now();
    ++in_flight_;
    port.launch(g_->ops[op].kernel, op);
  }

  void wake(WorkloadPort& port, double at, uint64_t tag) {
    ++timers_;
    port.wake_at(at, tag);
  }

  // With no op running and no timer set, nothing can happen any more: if the pass is not done, the replay is
  // stuck. The builder breaks every cycle of waits (trace_graph_cycles.cpp), so this is never meant to
  // happen; if it does, the run stops here rather than report a tenant that quietly stopped working.
  void check_progress(WorkloadPort& port) const {
    if (finished_ || timers_ > 0 || in_flight_ > 0) return;
    const TraceGraph& g = *g_;
    std::string why;
    for (uint32_t t = 0; t < g.threads.size(); ++t) {
      if (pc_[t] >= g.threads[t].steps.size()) continue;
      const uint32_t s = thread_base_[t] + static_cast<uint32_t>(pc_[t]);
      if (step_done_[s]) continue;
      const TraceGraph::Step& st = step(s);
      std::string on;
      if (st.after != TraceGraph::kNone && !step_done_[st.after])
        on = fmt::format("a hand-off from host thread {}", g.threads[step_thread_[st.after]].id);
      else if (st.queue != TraceGraph::kNone && !done_[st.queue])
        on = fmt::format("a launch queue slot (op {} '{}')", st.queue, g.ops[st.queue].name);
      else
        for (uint32_t op : st.waits)
          if (!done_[op]) on = fmt::format("op {} '{}'", op, g.ops[op].name);
      why += fmt::format("; host thread {} at its step {} (recorded end {:.3f} ms) waits for {}", g.threads[t].id,
                         pc_[t], st.recorded_end * 1e3, on.empty() ? "nothing it can name" : on);
    }
    for (uint32_t op = 0; op < g.ops.size(); ++op)
      if (!done_[op]) {
        why += fmt::format("; the first op not done is op {} '{}' (stream {}, recorded at {:.3f} ms)", op,
                           g.ops[op].name, g.streams[g.ops[op].stream], g.ops[op].recorded_start * 1e3);
        break;
      }
    throw InputError(fmt::format("trace '{}': the replay is stuck at {:.6f} s with work left and nothing that can "
                                 "start{}",
                                 g.file, port.now(), why));
  }

  // Step `s` may begin once its thread's previous step ended (`prev_end`, by node `prev`) and the step it waits for
  // on another thread ended.
  void arm(WorkloadPort& port, uint32_t s, double prev_end, uint32_t prev) {
    if (armed_[s]) return;  // a step is armed once a pass, whoever arms it first
    const TraceGraph::Step& st = step(s);
    double from = prev_end;
    uint32_t by = prev;
    if (st.after != TraceGraph::kNone) {
      if (!step_done_[st.after]) return;  // armed again when it ends
      if (end_[node(st.after)] > from) {
        from = end_[node(st.after)];
        by = node(st.after);
      }
    }
    armed_[s] = true;
    binder_[node(s)] = by;
    gap_[node(s)] = st.cpu;
    const double at = std::max(port.now(), from + st.cpu);
    start_[node(s)] = at;
    if (at > port.now())
      wake(port, at, kStepAct | s);
    else
      act(port, s);
  }

  void act(WorkloadPort& port, uint32_t s) {
    const TraceGraph::Step& st = step(s);
    const double now = port.now();
    if (st.op != TraceGraph::kNone) {
      if (st.queue != TraceGraph::kNone && !done_[st.queue]) {
        queue_waiters_[st.queue].push_back(s);  // the stream's queue is full: it returns when a slot frees
        return;
      }
      if (port.recording()) {
        flow_[st.op] = ++flows_;
        if (st.kind == TraceGraph::Step::Kind::Launch) host_call(port, s, now, now, "launch", flow_[st.op]);
      }
      uint32_t by = node(s);
      if (st.kind == TraceGraph::Step::Kind::Sync) {
        // A blocking copy: the step's node ends when the copy does, so its launch is a node of its own.
        by = node(s) + static_cast<uint32_t>(step_thread_.size());
        start_[by] = end_[by] = now;
        gap_[by] = gap_[node(s)];
        binder_[by] = binder_[node(s)];
      }
      satisfy(port, st.op, now, by);
    }
    if (st.kind == TraceGraph::Step::Kind::Launch) {
      finish_step(port, s);
      return;
    }
    began_[s] = now;
    uint32_t missing = 0;
    for (uint32_t op : st.waits)
      if (!done_[op]) {
        op_waiters_[op].push_back(s);
        ++missing;
      }
    wait_count_[s] = missing;
    if (missing == 0) {
      // Everything it waits for was done before it began: the path runs through its own thread.
      uint32_t last = TraceGraph::kNone;
      for (uint32_t op : st.waits)
        if (last == TraceGraph::kNone || end_[op] > end_[last]) last = op;
      if (last != TraceGraph::kNone && end_[last] > start_[node(s)]) {
        binder_[node(s)] = last;
        gap_[node(s)] = 0;
        start_[node(s)] = end_[last];
      }
      finish_after(port, s, st.post);
    }
  }

  void waits_done(WorkloadPort& port, uint32_t s, uint32_t op) {
    binder_[node(s)] = op;
    gap_[node(s)] = 0;
    start_[node(s)] = port.now();
    finish_after(port, s, step(s).post);
  }

  void finish_after(WorkloadPort& port, uint32_t s, double post) {
    if (post > 0)
      wake(port, port.now() + post, kStepEnd | s);
    else
      finish_step(port, s);
  }

  void host_call(WorkloadPort& port, uint32_t s, double from, double to, const char* name, uint64_t flow) {
    const uint32_t t = step_thread_[s];
    port.host_call(t, fmt::format("thread {}", g_->threads[t].id), from, to, name, flow);
  }

  void finish_step(WorkloadPort& port, uint32_t s) {
    const double now = port.now();
    if (port.recording() && step(s).kind == TraceGraph::Step::Kind::Sync) {
      const uint32_t op = step(s).op;
      host_call(port, s, began_[s], now, op == TraceGraph::kNone ? "synchronize" : "blocking copy",
                op == TraceGraph::kNone ? 0 : flow_[op]);
    }
    step_done_[s] = true;
    end_[node(s)] = now;
    note_end(node(s), now);
    for (uint32_t h : handoffs_[s]) arm_if_ready(port, h);
    const uint32_t t = step_thread_[s];
    const uint32_t next = s + 1;
    if (next - thread_base_[t] < g_->threads[t].steps.size()) {
      pc_[t] = next - thread_base_[t];
      arm(port, next, now, node(s));
    } else {
      ++threads_done_;
    }
  }

  // A step whose hand-off just ended: armed when its own thread has reached it.
  void arm_if_ready(WorkloadPort& port, uint32_t h) {
    const uint32_t t = step_thread_[h];
    if (pc_[t] != h - thread_base_[t]) return;
    if (h == thread_base_[t]) {
      arm(port, h, pass_start_, TraceGraph::kNone);
      return;
    }
    if (!step_done_[h - 1]) return;
    arm(port, h, end_[node(h - 1)], node(h - 1));
  }

  void maybe_end_pass(WorkloadPort& port) {
    if (ops_done_ < g_->ops.size() || threads_done_ < g_->threads.size()) {
      check_progress(port);
      return;
    }
    // The critical path, walked back from what ended last.
    const auto& names = critical_path_parts();
    std::vector<double> parts(names.size(), 0.0);
    enum Part { Cpu, Latency, Gpu, Other, Comm };
    const auto ops = static_cast<uint32_t>(g_->ops.size());
    double t = last_end_;
    uint32_t n = last_node_;
    size_t guard = 0;
    while (n != TraceGraph::kNone && guard++ <= nodes_) {
      const double own = std::max(0.0, std::min(t, end_[n]) - start_[n]);
      if (n < ops) {
        const auto k = g_->ops[n].kind;
        parts[k == TraceGraph::OpClass::Communication ? Comm : k == TraceGraph::OpClass::OtherStream ? Other : Gpu] += own;
        parts[Latency] += gap_[n];
      } else {
        parts[Cpu] += own + gap_[n];
      }
      t = start_[n] - gap_[n];
      n = binder_[n];
    }
    parts[Cpu] += std::max(0.0, t - pass_start_);
    port.unit_parts(names, parts);
    port.unit_done(pass_start_);
    if (remaining_ > 0) --remaining_;
    begin_pass(port);
    check_progress(port);
  }

  std::shared_ptr<const TraceGraph> g_;
  long long remaining_;
  std::vector<uint32_t> thread_base_, step_thread_, stream_next_;
  std::vector<std::vector<uint32_t>> dependents_, handoffs_;
  size_t nodes_ = 0;
  // Per pass.
  double pass_start_ = 0, last_end_ = 0;
  uint32_t last_node_ = TraceGraph::kNone;
  std::vector<uint32_t> pending_;
  std::vector<double> ready_;
  std::vector<bool> done_, step_done_, armed_;
  std::vector<double> start_, end_, gap_;  // per node (ops, then steps): its own interval, the gap before it
  std::vector<uint32_t> binder_;           // per node: what it waited for last
  std::vector<uint32_t> wait_count_;
  std::vector<std::vector<uint32_t>> op_waiters_, queue_waiters_;
  std::vector<size_t> pc_;
  size_t ops_done_ = 0, threads_done_ = 0;
  std::vector<double> began_;    // per step: when a synchronising call began
  std::vector<uint64_t> flow_;   // per op: the flow id of its launch, while recording
  uint64_t flows_ = 0;
  size_t timers_ = 0, in_flight_ = 0;  // this workload's timers set and ops launched, not yet back
  bool finished_ = false;
};

}  // namespace

std::unique_ptr<Workload> play_trace_graph(std::shared_ptr<const TraceGraph> graph, long long iterations) {
  return std::make_unique<TraceGraphWorkload>(std::move(graph), iterations);
}

}  // namespace vgpusim
