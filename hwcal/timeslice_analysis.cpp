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

std::array<std::vector<Interval>, 3> split_gaps(const ProbeTimeline& timeline,
                                                const std::vector<Interval>& other_active, Interval other_span) {
  std::array<std::vector<Interval>, 3> out;
  for (const Interval& gap : timeline.gaps) {
    // Only where the other's probe ran does its timeline say whether it ran: the share is of that part of the gap.
    const Interval seen{std::max(gap.from_s, other_span.from_s), std::min(gap.to_s, other_span.to_s)};
    const bool switched_out =
        seen.length() > 0 && overlap_length({seen}, other_active) >= kSwitchOutMinOtherShare * seen.length();
    if (switched_out) {
      out[0].push_back(gap);
    } else if (gap.length() <= kMaxStall_s) {
      out[1].push_back(gap);
    } else {
      out[2].push_back(gap);
    }
  }
  return out;
}

namespace {

bool covers(const std::vector<Interval>& intervals, double t) {
  return std::any_of(intervals.begin(), intervals.end(),
                     [&](const Interval& x) { return x.from_s <= t && t <= x.to_s; });
}

}  // namespace

PairSlices analyze_pair(const ProbeTimeline& a, const ProbeTimeline& b) {
  PairSlices out;
  out.window = {std::max(a.start_s, b.start_s), std::min(a.end_s, b.end_s)};
  if (out.window.to_s <= out.window.from_s) return out;
  const auto inside = [&](const Interval& x) { return x.from_s >= out.window.from_s && x.to_s <= out.window.to_s; };
  // Stalls (short gaps the other did not run in) are dropped from the timelines, so they count as active time;
  // switch-outs and idle gaps stay. Both splits use the timelines as measured: a stall of one cannot hide the
  // other's real switch-out.
  const std::array<std::vector<Interval>, 2> measured_active{merge_intervals(active_intervals(a)),
                                                             merge_intervals(active_intervals(b))};
  const std::array<Interval, 2> span{Interval{a.start_s, a.end_s}, Interval{b.start_s, b.end_s}};
  std::array<ProbeTimeline, 2> switched{a, b};
  std::array<std::vector<Interval>, 2> switch_outs, idle_gaps;
  for (std::size_t p = 0; p < 2; ++p) {
    std::array<std::vector<Interval>, 3> split = split_gaps(switched[p], measured_active[1 - p], span[1 - p]);
    for (const Interval& stall : split[1]) {
      if (inside(stall)) out.stall_s[p].push_back(stall.length());
    }
    for (const Interval& idle : split[2]) {
      if (inside(idle)) out.idle_gap_s[p].push_back(idle.length());
    }
    switch_outs[p] = std::move(split[0]);
    idle_gaps[p] = std::move(split[2]);
    std::vector<Interval>& kept = switched[p].gaps;
    kept = switch_outs[p];
    kept.insert(kept.end(), idle_gaps[p].begin(), idle_gaps[p].end());
    std::sort(kept.begin(), kept.end(), [](const Interval& x, const Interval& y) { return x.from_s < y.from_s; });
  }
  std::array<std::vector<Interval>, 2> active;
  for (std::size_t p = 0; p < 2; ++p) {
    const ProbeTimeline& timeline = switched[p];
    // A run next to an idle gap was not ended (or begun) by a switch to the other: not a slice.
    const auto next_to_idle = [&](const Interval& run) {
      return std::any_of(idle_gaps[p].begin(), idle_gaps[p].end(),
                         [&](const Interval& gap) { return gap.to_s == run.from_s || gap.from_s == run.to_s; });
    };
    const std::vector<Interval> runs = active_intervals(timeline);
    for (std::size_t r = 0; r < runs.size(); ++r) {
      const bool gap_before = runs[r].from_s > timeline.start_s;
      const bool gap_after = runs[r].to_s < timeline.end_s;
      if (gap_before && gap_after && inside(runs[r]) && !next_to_idle(runs[r])) {
        out.slice_s[p].push_back(runs[r].length());
      }
    }
    for (const Interval& gap : switch_outs[p]) {
      if (inside(gap)) out.gap_s[p].push_back(gap.length());
    }
    active[p] = merge_intervals(clip(runs, out.window));
  }
  std::vector<Interval> either = active[0];
  either.insert(either.end(), active[1].begin(), active[1].end());
  for (const Interval& idle : uncovered(merge_intervals(either), out.window)) {
    // Neither is active here, so each is inside one of its gaps; if both gaps are idle, nobody switched.
    const double middle = 0.5 * (idle.from_s + idle.to_s);
    const bool nobody_switched = covers(idle_gaps[0], middle) && covers(idle_gaps[1], middle);
    (nobody_switched ? out.idle_s : out.switch_s).push_back(idle.length());
  }
  out.both_active_s = overlap_length(active[0], active[1]);
  const double window_length = out.window.length();
  for (std::size_t p = 0; p < 2; ++p) {
    double total = 0;
    for (const Interval& run : active[p]) total += run.length();
    out.active_fraction[p] = total / window_length;
  }
  return out;
}

double pair_threshold_s(double base_s, const std::vector<double>& solo_gaps_s) {
  double largest = 0;
  for (const double gap : solo_gaps_s) largest = std::max(largest, gap);
  return std::clamp(2 * largest, base_s, std::max(base_s, kMaxPairThreshold_s));
}

HandoffOutcome handoff_outcome(double first_end_s, double first_again_s, double second_start_s) {
  if (first_again_s < second_start_s) return {true, 0.0};
  return {false, second_start_s - first_end_s};
}

double grace_crossing_s(const std::vector<double>& gaps_s, const std::vector<double>& kept_share) {
  if (gaps_s.empty() || gaps_s.size() != kept_share.size()) return 0.0;
  if (kept_share.front() < 0.5) return 0.0;
  for (std::size_t i = 1; i < gaps_s.size(); ++i) {
    if (kept_share[i] < 0.5) {
      const double a = kept_share[i - 1], b = kept_share[i];
      return gaps_s[i - 1] + (gaps_s[i] - gaps_s[i - 1]) * (a - 0.5) / (a - b);
    }
  }
  return gaps_s.back();
}

PacedOutcome paced_outcome(double light_alone_s, double light_from_s, double light_to_s, double busy_alone_s,
                           double busy_from_s, double busy_to_s, unsigned launches, double kernel_s) {
  PacedOutcome out;
  const double beside_s = light_to_s - light_from_s;
  if (!(light_alone_s > 0) || !(beside_s > 0)) return out;
  out.speed = light_alone_s / beside_s;
  out.gpu_share_alone = std::min(1.0, static_cast<double>(launches) * kernel_s / light_alone_s);
  out.util_rule = 1.0 / (1.0 + out.gpu_share_alone);
  out.busy_lost_s = (busy_to_s - busy_from_s) - busy_alone_s;
  out.busy_lost_share = out.busy_lost_s / beside_s;
  out.inside = busy_from_s <= light_from_s && light_to_s <= busy_to_s;
  return out;
}

}  // namespace vgpusim::hwcal
