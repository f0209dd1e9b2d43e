// Cycles in a trace's graph of waits, and the inferred edge each loses (docs/trace-replay.md, "No silent stall").
#include "models/workload/trace_graph_cycles.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>

namespace vgpusim {
namespace {

// Finds the cycles of a built graph's waits and breaks each at an inferred edge. Nodes: each op (it is done), each
// step's action (a launch enqueues, a synchronising call begins waiting) and each step's return. Edges: a thread's
// steps in order, a launch to its op, a stream's ops in order (these follow the program's order and make no cycle),
// and the inferred ones, which may be dropped: an op's cross-stream waits, a synchronising call's waits, a
// hand-off between threads and a launch's queue slot.
class CycleBreaker {
 public:
  CycleBreaker(TraceGraph& graph, const std::vector<std::pair<double, double>>& step_times,
               const std::vector<double>& op_start, const std::vector<double>& op_end)
      : g(graph), ops(static_cast<uint32_t>(graph.ops.size())) {
    std::vector<uint32_t> base;
    for (const auto& t : g.threads) {
      base.push_back(steps);
      steps += static_cast<uint32_t>(t.steps.size());
    }
    begin.assign(ops + 2 * steps, 0);
    end.assign(ops + 2 * steps, 0);
    for (uint32_t op = 0; op < ops; ++op) begin[op] = op_start[op], end[op] = op_end[op];
    for (uint32_t s = 0; s < steps; ++s) {
      begin[act(s)] = end[act(s)] = step_times[s].first;
      begin[ret(s)] = end[ret(s)] = step_times[s].second;
    }
    in.resize(ops + 2 * steps);
    for (uint32_t op = 0; op < ops; ++op) {
      const TraceGraph::Op& o = g.ops[op];
      if (o.stream_prev != TraceGraph::kNone) add(o.stream_prev, op, Kind::Fixed, 0, 0);
      for (uint32_t i = 0; i < o.deps.size(); ++i) add(o.deps[i], op, Kind::Dep, op, i);
    }
    for (uint32_t t = 0; t < g.threads.size(); ++t)
      for (uint32_t j = 0; j < g.threads[t].steps.size(); ++j) {
        const TraceGraph::Step& st = g.threads[t].steps[j];
        const uint32_t s = base[t] + j;
        add(act(s), ret(s), Kind::Fixed, 0, 0);
        if (j > 0) add(ret(s - 1), act(s), Kind::Fixed, 0, 0);
        if (st.op != TraceGraph::kNone) add(act(s), st.op, Kind::Fixed, 0, 0);
        for (uint32_t i = 0; i < st.waits.size(); ++i) add(st.waits[i], ret(s), Kind::Wait, s, i);
        if (st.after != TraceGraph::kNone) add(ret(st.after), act(s), Kind::After, s, 0);
        if (st.queue != TraceGraph::kNone) add(st.queue, act(s), Kind::Queue, s, 0);
        where.emplace_back(t, j);
      }
  }

  // Breaks every cycle; returns what each dropped edge was.
  std::vector<std::string> run() {
    const auto n = static_cast<uint32_t>(in.size());
    std::vector<uint32_t> indegree(n, 0);
    std::vector<std::vector<uint32_t>> out(n);
    for (uint32_t e = 0; e < edges.size(); ++e) {
      ++indegree[edges[e].to];
      out[edges[e].from].push_back(e);
    }
    std::vector<bool> visited(n, false);
    std::vector<uint32_t> ready;
    for (uint32_t v = 0; v < n; ++v)
      if (indegree[v] == 0) ready.push_back(v);
    size_t seen = 0;
    std::vector<uint32_t> dropped;
    const auto release = [&](uint32_t e) {
      if (--indegree[edges[e].to] == 0) ready.push_back(edges[e].to);
    };
    while (seen < n) {
      while (!ready.empty()) {
        const uint32_t v = ready.back();
        ready.pop_back();
        visited[v] = true;
        ++seen;
        for (uint32_t e : out[v])
          if (edges[e].alive) release(e);
      }
      if (seen == n) break;
      const uint32_t e = edge_to_drop(visited);
      edges[e].alive = false;
      dropped.push_back(e);
      release(e);
    }
    std::vector<std::string> said;
    for (uint32_t e : dropped) said.push_back(remove(e));
    return said;
  }

 private:
  enum class Kind : uint8_t { Fixed, Dep, Wait, After, Queue };
  struct Edge {
    uint32_t from, to;
    Kind kind;
    uint32_t owner, index;  // the op (Dep) or step (Wait, After, Queue) that holds it, and where
    bool alive = true;
  };

  uint32_t act(uint32_t s) const { return ops + s; }
  uint32_t ret(uint32_t s) const { return ops + steps + s; }
  void add(uint32_t from, uint32_t to, Kind kind, uint32_t owner, uint32_t index) {
    in[to].push_back(static_cast<uint32_t>(edges.size()));
    edges.push_back({from, to, kind, owner, index});
  }

  // Walks back from an unvisited node along live edges from unvisited nodes (every unvisited node has one) until a
  // node repeats: the walk from there is a cycle. Its inferred edge the recording contradicts most goes.
  uint32_t edge_to_drop(const std::vector<bool>& visited) const {
    uint32_t v = static_cast<uint32_t>(std::find(visited.begin(), visited.end(), false) - visited.begin());
    std::vector<uint32_t> path_edges;
    std::vector<int64_t> on_path(in.size(), -1);
    while (on_path[v] < 0) {
      on_path[v] = static_cast<int64_t>(path_edges.size());
      const auto it = std::find_if(in[v].begin(), in[v].end(),
                                   [&](uint32_t e) { return edges[e].alive && !visited[edges[e].from]; });
      path_edges.push_back(*it);
      v = edges[*it].from;
    }
    uint32_t best = TraceGraph::kNone;
    double worst = -1e300;
    for (size_t i = static_cast<size_t>(on_path[v]); i < path_edges.size(); ++i) {
      const Edge& e = edges[path_edges[i]];
      const double contradiction = end[e.from] - begin[e.to];
      if (e.kind != Kind::Fixed && contradiction > worst) {
        worst = contradiction;
        best = path_edges[i];
      }
    }
    if (best == TraceGraph::kNone)  // the program's own order cannot loop; a broken graph would
      throw TraceError(fmt::format("trace '{}': the replay's program order has a cycle", g.file));
    return best;
  }

  std::string name(uint32_t node) const {
    if (node < ops)
      return fmt::format("op {} '{}' (stream {}, recorded at {:.3f} ms)", node, g.ops[node].name,
                         g.streams[g.ops[node].stream], g.ops[node].recorded_start * 1e3);
    const bool returns = node >= ops + steps;
    const uint32_t s = node - ops - (returns ? steps : 0);
    const auto [t, j] = where[s];
    return fmt::format("{} of step {} of host thread {}", returns ? "the return" : "the call", j, g.threads[t].id);
  }

  // Takes the edge out of the graph; says what it was.
  std::string remove(uint32_t id) {
    const Edge& e = edges[id];
    const char* rule = "";
    switch (e.kind) {
      case Kind::Dep: {
        auto& deps = g.ops[e.owner].deps;
        deps.erase(std::find(deps.begin(), deps.end(), e.from));
        rule = "a cross-stream wait (rules 4 and 6)";
        break;
      }
      case Kind::Wait: {
        auto& waits = g.threads[where[e.owner].first].steps[where[e.owner].second].waits;
        waits.erase(std::find(waits.begin(), waits.end(), e.from));
        rule = "a synchronising call's wait (rules 2 and 3)";
        break;
      }
      case Kind::After:
        g.threads[where[e.owner].first].steps[where[e.owner].second].after = TraceGraph::kNone;
        rule = "a hand-off between host threads (rule 5)";
        break;
      case Kind::Queue:
        g.threads[where[e.owner].first].steps[where[e.owner].second].queue = TraceGraph::kNone;
        rule = "a full launch queue (rule 7; the launch no longer blocks)";
        break;
      case Kind::Fixed:
        break;
    }
    return fmt::format("dropped {} from {} to {}: it closed a cycle of waits that would never start", rule,
                       name(e.from), name(e.to));
  }

  TraceGraph& g;
  const uint32_t ops;
  uint32_t steps = 0;
  std::vector<double> begin, end;            // per node, trace time as recorded
  std::vector<std::vector<uint32_t>> in;     // per node: edges into it
  std::vector<Edge> edges;
  std::vector<std::pair<uint32_t, uint32_t>> where;  // per step: thread, index
};

}  // namespace

std::vector<std::string> break_wait_cycles(TraceGraph& g, const std::vector<std::pair<double, double>>& step_times,
                                           const std::vector<double>& op_start, const std::vector<double>& op_end) {
  return CycleBreaker(g, step_times, op_start, op_end).run();
}

}  // namespace vgpusim
