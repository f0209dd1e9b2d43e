// Turns time-slice probe gap lists into slice lengths, gaps and switch costs (pure functions, no CUDA).
// A process is "active" between its gaps; where neither of two processes is active, the GPU is switching.
#pragma once

#include <array>
#include <vector>

namespace vgpusim::hwcal {

struct Interval {
  double from_s = 0;
  double to_s = 0;
  double length() const { return to_s - from_s; }
};

// One probe block's view of its process: it ran from start_s to end_s except during gaps (sorted, disjoint).
struct ProbeTimeline {
  double start_s = 0;
  double end_s = 0;
  std::vector<Interval> gaps;
};

// The complement of the gaps inside [start_s, end_s].
std::vector<Interval> active_intervals(const ProbeTimeline& timeline);
// Sorts, merges overlapping or touching intervals.
std::vector<Interval> merge_intervals(std::vector<Interval> intervals);
// Parts of [window.from_s, window.to_s] that no interval covers.
std::vector<Interval> uncovered(const std::vector<Interval>& merged, Interval window);
double overlap_length(const std::vector<Interval>& merged_a, const std::vector<Interval>& merged_b);

struct PairSlices {
  Interval window;                           // both processes running: [max start, min end]
  std::array<std::vector<double>, 2> slice_s;  // own active runs bounded by a gap on both sides, inside window
  std::array<std::vector<double>, 2> gap_s;    // gaps fully inside window
  std::vector<double> switch_s;              // idle stretches inside window: neither process active
  double both_active_s = 0;                  // time both were active (concurrency; ~0 under time-slicing)
  std::array<double, 2> active_fraction{};   // share of the window each process was active
};

PairSlices analyze_pair(const ProbeTimeline& a, const ProbeTimeline& b);

}  // namespace vgpusim::hwcal
