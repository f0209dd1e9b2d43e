// The cycle check of a trace's dependency graph (docs/trace-replay.md, "No silent stall"): used by the builder
// (trace_graph.cpp) once the graph is built.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "models/workload/trace_graph.hpp"

namespace vgpusim {

// Walks the graph of waits in topological order and breaks each cycle it meets at the inferred edge on it that the
// recording contradicts most (taking it out of `g`). `step_times`: per step, in thread order, when it acted and
// returned; `op_start`, `op_end`: per op; all in trace time (s). Returns what each dropped edge was.
std::vector<std::string> break_wait_cycles(TraceGraph& g, const std::vector<std::pair<double, double>>& step_times,
                                           const std::vector<double>& op_start, const std::vector<double>& op_end);

}  // namespace vgpusim
