// Turns time-slice probe gap lists into slice lengths, gaps and switch costs (pure functions, no CUDA).
// Runs cut by the window's edges are not slices: their true length is unknown, so they are left out.
#include "hwcal/timeslice_analysis.hpp"

#include <algorithm>

namespace vgpusim::hwcal {

std::vector<Interval> active_intervals(const ProbeTimeline& timeline) {
  std::vector<Interval> out;
  double cursor = timeline.start_s;
  for (const Interval& gap : timeline.gaps) {
    if (gap.from_s > cursor) out.push_back({cursor, gap.from_s});
    cursor = std::max(cursor, gap.to_s);
  }
  if (timeline.end_s > cursor) out.push_back({cursor, timeline.end_s});
  return out;
}

std::vector<Interval> merge_intervals(std::vector<Interval> intervals) {
  std::sort(intervals.begin(), intervals.end(),
            [](const Interval& x, const Interval& y) { return x.from_s < y.from_s; });
  std::vector<Interval> out;
  for (const Interval& next : intervals) {
    if (next.to_s <= next.from_s) continue;
    if (!out.empty() && next.from_s <= out.back().to_s) {
      out.back().to_s = std::max(out.back().to_s, next.to_s);
    } else {
      out.push_back(next);
    }
  }
  return out;
}

std::vector<Interval> uncovered(const std::vector<Interval>& merged, Interval window) {
  std::vector<Interval> out;
  double cursor = window.from_s;
  for (const Interval& covered : merged) {
    if (covered.to_s <= cursor) continue;
    if (covered.from_s >= window.to_s) break;
    if (covered.from_s > cursor) out.push_back({cursor, covered.from_s});
    cursor = std::max(cursor, covered.to_s);
  }
  if (window.to_s > cursor) out.push_back({cursor, window.to_s});
  return out;
}

double overlap_length(const std::vector<Interval>& merged_a, const std::vector<Interval>& merged_b) {
  double total = 0;
  std::size_t i = 0, j = 0;
  while (i < merged_a.size() && j < merged_b.size()) {
    const double from = std::max(merged_a[i].from_s, merged_b[j].from_s);
    const double to = std::min(merged_a[i].to_s, merged_b[j].to_s);
    if (to > from) total += to - from;
    if (merged_a[i].to_s < merged_b[j].to_s) {
      ++i;
    } else {
      ++j;
    }
  }
  return total;
}

namespace {

std::vector<Interval> clip(const std::vector<Interval>& intervals, Interval window) {
  std::vector<Interval> out;
  for (const Interval& x : intervals) {
    const Interval clipped{std::max(x.from_s, window.from_s), std::min(x.to_s, window.to_s)};
    if (clipped.to_s > clipped.from_s) out.push_back(clipped);
  }
  return out;
}

}  // namespace

PairSlices analyze_pair(const ProbeTimeline& a, const ProbeTimeline& b) {
  PairSlices out;
  out.window = {std::max(a.start_s, b.start_s), std::min(a.end_s, b.end_s)};
  if (out.window.to_s <= out.window.from_s) return out;
  const std::array<const ProbeTimeline*, 2> timelines{&a, &b};
  std::array<std::vector<Interval>, 2> active;
  for (std::size_t p = 0; p < 2; ++p) {
    const ProbeTimeline& timeline = *timelines[p];
    const std::vector<Interval> runs = active_intervals(timeline);
    for (std::size_t r = 0; r < runs.size(); ++r) {
      const bool gap_before = runs[r].from_s > timeline.start_s;
      const bool gap_after = runs[r].to_s < timeline.end_s;
      const bool inside = runs[r].from_s >= out.window.from_s && runs[r].to_s <= out.window.to_s;
      if (gap_before && gap_after && inside) out.slice_s[p].push_back(runs[r].length());
    }
    for (const Interval& gap : timeline.gaps) {
      if (gap.from_s >= out.window.from_s && gap.to_s <= out.window.to_s) out.gap_s[p].push_back(gap.length());
    }
    active[p] = merge_intervals(clip(runs, out.window));
  }
  std::vector<Interval> either = active[0];
  either.insert(either.end(), active[1].begin(), active[1].end());
  for (const Interval& idle : uncovered(merge_intervals(either), out.window)) out.switch_s.push_back(idle.length());
  out.both_active_s = overlap_length(active[0], active[1]);
  const double window_length = out.window.length();
  for (std::size_t p = 0; p < 2; ++p) {
    double total = 0;
    for (const Interval& run : active[p]) total += run.length();
    out.active_fraction[p] = total / window_length;
  }
  return out;
}

}  // namespace vgpusim::hwcal
