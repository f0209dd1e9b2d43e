// What the benchmark programs share: a wall clock and the baseline they measure in the same run, a bare heap.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <queue>
#include <random>
#include <utility>
#include <vector>

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

}  // namespace vgpusim::bench
