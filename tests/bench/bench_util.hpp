// What the benchmark programs share: a wall clock, the baseline they measure in the same run (a bare heap), the
// trace they replay and a timed load and simulation of a scenario.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <queue>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "sim/io/gpu_catalog.hpp"
#include "sim/run/simulation.hpp"
#include "sim/scenario/loader.hpp"

namespace vgpusim::bench {

inline double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// `events` events through a bare std::priority_queue (hold model: each pop schedules one later event), with
// `actors` events pending: events per second.
inline double bare_heap_events_per_s(uint64_t events, uint64_t actors = 4) {
  const double t0 = now_s();
  std::priority_queue<std::pair<double, uint64_t>, std::vector<std::pair<double, uint64_t>>, std::greater<>> q;
  std::mt19937_64 gen(1);
  std::uniform_real_distribution<double> dist(0.5, 1.5);
  for (uint64_t i = 0; i < actors; ++i) q.push({dist(gen), i});
  double sink = 0;
  for (uint64_t n = 0; n < events; ++n) {
    const auto [t, id] = q.top();
    q.pop();
    sink += static_cast<double>(id);
    q.push({t + dist(gen), id});
  }
  const double wall = now_s() - t0;
  if (sink < 0) std::printf("%g", sink);  // keeps the loop from being optimized away
  return static_cast<double>(events) / wall;
}

// The trace a benchmark replays: its first argument, else `fallback`; "" (said on stdout) when the file is missing.
inline std::string trace_argument(int argc, char** argv, const std::string& fallback, const char* bench) {
  const std::string trace = argc > 1 ? argv[1] : fallback;
  if (std::filesystem::exists(trace)) return trace;
  std::printf("%s benchmark skipped: %s not found\n", bench, trace.c_str());
  return "";
}

// A scenario text loaded and simulated, each timed.
struct TimedRun {
  RunRecord rec;
  double load_s = 0, simulate_s = 0;
  double events_per_s() const { return static_cast<double>(rec.events) / simulate_s; }
};
inline TimedRun load_and_simulate(const std::string& text) {
  TimedRun r;
  const double t0 = now_s();
  const Scenario sc = load_scenario_text(text, "bench.yaml", builtin_catalog());
  const double t1 = now_s();
  r.rec = simulate(sc);
  r.load_s = t1 - t0;
  r.simulate_s = now_s() - t1;
  return r;
}

}  // namespace vgpusim::bench
