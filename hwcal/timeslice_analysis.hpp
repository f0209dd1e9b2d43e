// Turns time-slice probe gap lists into slice lengths, gaps and switch costs (pure functions, no CUDA).
// A process is "active" between its gaps; where neither of two processes is active, the GPU is switching. A short
// gap of one process in which the other did not run is a stall (a hiccup of a few us), not a switch: it is counted
// as active time, so it neither ends a slice nor counts as a switch. A long one (above kMaxStall_s) is idle time:
// neither process ran, so it is active time of neither.
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

// A gap is a switch-out only if the other process was active for at least this share of the part of the gap
// inside the other's probe ([start_s, end_s]; where its probe did not run, whether it ran is unknown): a real one
// holds the other's whole slice (plus the switches), a stall holds nothing of it.
inline constexpr double kSwitchOutMinOtherShare = 0.25;

// The pair probes' gap threshold: above every stall the solo probe saw (twice its largest gap), so stalls are not
// even recorded; never below `base_s` (the timer and loop floor) and, whatever the solo run saw, never above
// max(base_s, kMaxPairThreshold_s), far below any real gap (the other's slice).
inline constexpr double kMaxPairThreshold_s = 20e-6;
double pair_threshold_s(double base_s, const std::vector<double>& solo_gaps_s);

// A gap the other did not run in is a stall only up to this length: a hiccup, a few times the largest pair
// threshold. A longer one is idle time (neither ran: a third context, a pause of the whole GPU), not active time.
inline constexpr double kMaxStall_s = 4 * kMaxPairThreshold_s;

// Which gaps of `timeline` the other process ran in (other_active: its merged active intervals; other_span: its
// probe's [start_s, end_s]); of the rest, those up to kMaxStall_s are stalls and the longer ones idle.
// Returns {switch-out gaps, stalls, idle gaps}.
std::array<std::vector<Interval>, 3> split_gaps(const ProbeTimeline& timeline,
                                                const std::vector<Interval>& other_active, Interval other_span);

struct PairSlices {
  Interval window;                                // both processes running: [max start, min end]
  std::array<std::vector<double>, 2> slice_s;     // own active runs bounded by a switch-out on both sides, inside
                                                  // window
  std::array<std::vector<double>, 2> gap_s;       // switch-out gaps fully inside window
  std::array<std::vector<double>, 2> stall_s;     // short gaps inside window in which the other did not run
  std::array<std::vector<double>, 2> idle_gap_s;  // long gaps inside window in which the other did not run
  std::vector<double> switch_s;  // stretches inside window where neither process is active (stalls count as active)
                                 // and at least one of them is switched out for the other
  std::vector<double> idle_s;    // stretches inside window where both are in idle gaps: not switches
  double both_active_s = 0;                 // time both were active (concurrency; ~0 under time-slicing)
  std::array<double, 2> active_fraction{};  // share of the window each process was active
};

PairSlices analyze_pair(const ProbeTimeline& a, const ProbeTimeline& b);

// The handoff experiment (timeslice.handoff): the first process runs a short kernel and, optionally, another one
// `gap` after it ends; the second launches its kernel while the first's runs. `kept`: the first's second kernel
// started before the second's (the first kept the GPU through its gap). Otherwise `gap_s` is the time from the end
// of the first's kernel to the start of the second's: the handoff to a waiting context of one that ran out of work.
struct HandoffOutcome {
  bool kept = false;
  double gap_s = 0;  // the handoff; 0 when kept
};
// Times in seconds on one clock; first_again_s: the start of the first's second kernel, +infinity when none.
HandoffOutcome handoff_outcome(double first_end_s, double first_again_s, double second_start_s);

// The host gap at which the share of repeats in which the first kept the GPU falls through one half, linearly
// interpolated between sweep points (sorted by gap); 0 when even the smallest gap is kept in less than half, the
// largest gap when every one is kept in at least half. Empty input: 0.
double grace_crossing_s(const std::vector<double>& gaps_s, const std::vector<double>& kept_share);

// The paced experiment (timeslice.paced): a light process launches short kernels a host gap apart (waiting for
// them every few launches) alone and beside a busy process that keeps the GPU's queue full. Host times in seconds
// on one clock: the light run [light_from_s, light_to_s] beside the busy run [busy_from_s, busy_to_s].
struct PacedOutcome {
  double speed = 0;            // the light job's normalized speed: its run alone over its run beside
  double gpu_share_alone = 0;  // launches x kernel_s over its run alone: its utilization alone
  double util_rule = 0;        // min(1, 1 / (1 + gpu_share_alone)): the utilization rule beside an always-busy job
  double busy_lost_s = 0;      // the busy run beside less alone: the GPU time it gave away
  double busy_lost_share = 0;  // busy_lost_s over the light run beside (meaningful when `inside`)
  bool inside = false;         // the light run lay inside the busy run, so the busy job was busy throughout
};
PacedOutcome paced_outcome(double light_alone_s, double light_from_s, double light_to_s, double busy_alone_s,
                           double busy_from_s, double busy_to_s, unsigned launches, double kernel_s);

}  // namespace vgpusim::hwcal
