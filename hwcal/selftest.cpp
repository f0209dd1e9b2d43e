// CPU self-test of hwcal's host-side pieces: the JSON writer, the order statistics and the time-slice analysis.
// Runs without a GPU (ctest hwcal/selftest); prints each failed check and exits 1 if any failed.
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "hwcal/json.hpp"
#include "hwcal/stats.hpp"
#include "hwcal/telemetry_analysis.hpp"
#include "hwcal/test_checks.hpp"
#include "hwcal/timeslice_analysis.hpp"

namespace {

using namespace vgpusim::hwcal;

using vgpusim::hwcal::testing::check;

bool near(double x, double y) { return std::abs(x - y) <= 1e-12 * std::max(1.0, std::abs(y)); }

void test_json() {
  Json object = Json::object();
  object["text"] = "a\"b\\c\n\x01";
  object["count"] = 3u;
  object["negative"] = -2;
  object["rate"] = 4.3e12;
  object["missing"] = std::numeric_limits<double>::quiet_NaN();
  object["flag"] = true;
  object["count"] = 4u;  // replaces, keeps position
  const std::string text = document_text(object);
  check(text == "{\n  \"text\": \"a\\\"b\\\\c\\n\\u0001\",\n  \"count\": 4,\n  \"negative\": -2,\n  \"rate\": "
                "4300000000000.0,\n  \"missing\": null,\n  \"flag\": true\n}\n",
        "order kept, escapes, replacement, NaN as null: " + text);
  check(member(object, "rate") != nullptr && number_of(*member(object, "rate")) == 4.3e12, "member + number_of");
  check(number_of(*member(object, "text")) == std::nullopt, "number_of a string");
  check(member(object, "absent") == nullptr && member(Json(3), "rate") == nullptr, "member of nothing");
  check(document_text(Json::object()) == "{}\n" && document_text(Json::array()) == "[]\n", "empty containers");
}

void test_stats() {
  const Summary s = summarize({5, 1, 4, 2, 3, std::numeric_limits<double>::infinity()});
  check(s.n == 5 && s.min == 1 && s.max == 5 && near(s.median, 3) && near(s.mean, 3), "summary basics");
  check(near(s.p10, 1.4) && near(s.p90, 4.6), "linear-interpolation percentiles");
  check(std::isnan(median_of({})), "median of nothing is NaN");
  check(summary_json({}).is_null(), "summary of nothing is null");
  check(near(summarize({7}).p90, 7), "one value");
}

void test_timeslice_analysis() {
  // Two processes alternating 2 ms slices with 0.1 ms switches, from t = 0 to the end of the last switch.
  ProbeTimeline a, b;
  double t = 0;
  bool a_runs = true;
  while (t + 0.0021 < 0.0203) {
    const double slice_end = t + 0.002;
    const double next_start = slice_end + 0.0001;
    // The running process logs nothing; the waiting one sees one long gap covering slice + switch.
    ProbeTimeline& waiting = a_runs ? b : a;
    if (waiting.gaps.empty() || waiting.gaps.back().to_s < t) {
      waiting.gaps.push_back({t, next_start});
    } else {
      waiting.gaps.back().to_s = next_start;
    }
    ProbeTimeline& running = a_runs ? a : b;
    running.gaps.push_back({slice_end, next_start});
    t = next_start;
    a_runs = !a_runs;
  }
  a.end_s = b.end_s = t;
  a.gaps = merge_intervals(a.gaps);
  b.gaps = merge_intervals(b.gaps);
  const PairSlices result = analyze_pair(a, b);
  check(near(result.window.length(), t), "window");
  bool slices_ok = !result.slice_s[0].empty() && !result.slice_s[1].empty();
  for (const auto& list : result.slice_s) {
    for (const double slice : list) slices_ok = slices_ok && std::abs(slice - 0.002) < 1e-9;
  }
  check(slices_ok, "interior slices are 2 ms");
  bool switches_ok = !result.switch_s.empty();
  for (const double idle : result.switch_s) switches_ok = switches_ok && std::abs(idle - 0.0001) < 1e-9;
  check(switches_ok, "switch cost is 0.1 ms");
  check(result.both_active_s < 1e-12, "no concurrency under time-slicing");
  check(std::abs(result.active_fraction[0] + result.active_fraction[1] + static_cast<double>(result.switch_s.size()) * 0.0001 /
                     result.window.length() - 1.0) < 1e-6,
        "fractions and switches cover the window");

  // Concurrent processes (MPS, green contexts): no gaps, fully overlapped.
  const PairSlices together = analyze_pair({0, 1, {}}, {0.1, 1.2, {}});
  check(near(together.both_active_s, 0.9) && together.switch_s.empty() && together.slice_s[0].empty(),
        "concurrent processes");
  check(uncovered({{1, 2}, {3, 4}}, {0, 5}).size() == 3, "uncovered");
}

// Two processes alternating `slice` with `switch_cost` between slices; the running one stalls for `stall` in the
// middle of each of its slices (0: no stall). Each probe's gaps as it would record them with a threshold below the
// stall. Returns the end of the last switch.
double alternate(ProbeTimeline& a, ProbeTimeline& b, double slice, double switch_cost, double stall, double until) {
  double t = 0;
  bool a_runs = true;
  while (t + slice + switch_cost < until) {
    const double slice_end = t + slice;
    const double next_start = slice_end + switch_cost;
    ProbeTimeline& waiting = a_runs ? b : a;
    if (waiting.gaps.empty() || waiting.gaps.back().to_s < t) {
      waiting.gaps.push_back({t, next_start});
    } else {
      waiting.gaps.back().to_s = next_start;
    }
    ProbeTimeline& running = a_runs ? a : b;
    if (stall > 0) running.gaps.push_back({t + slice / 2, t + slice / 2 + stall});
    running.gaps.push_back({slice_end, next_start});
    t = next_start;
    a_runs = !a_runs;
  }
  a.end_s = b.end_s = t;
  a.gaps = merge_intervals(a.gaps);
  b.gaps = merge_intervals(b.gaps);
  return t;
}

bool within(double value, double want, double relative) { return std::abs(value - want) <= relative * want; }

double mean_of(const std::vector<double>& values) {
  double total = 0;
  for (const double v : values) total += v;
  return values.empty() ? std::numeric_limits<double>::quiet_NaN() : total / static_cast<double>(values.size());
}

void test_timeslice_stalls() {
  // One 4 us stall per 2 ms slice (0.1 ms switches), recorded because it is above the 2-3 us threshold. Counted
  // as a slice end and a switch, it would halve the slices and pull the switch cost towards 4 us.
  ProbeTimeline a, b;
  alternate(a, b, 0.002, 0.0001, 4e-6, 0.0403);
  const PairSlices result = analyze_pair(a, b);
  std::vector<double> slices = result.slice_s[0];
  slices.insert(slices.end(), result.slice_s[1].begin(), result.slice_s[1].end());
  check(slices.size() >= 10, "stalls: enough interior slices (" + std::to_string(slices.size()) + ")");
  check(within(median_of(slices), 0.002, 0.03) && within(mean_of(slices), 0.002, 0.03),
        "stalls: slice recovered within 3%: median " + std::to_string(median_of(slices)) + " s, mean " +
            std::to_string(mean_of(slices)) + " s");
  check(!result.switch_s.empty() && within(median_of(result.switch_s), 0.0001, 0.03) &&
            within(mean_of(result.switch_s), 0.0001, 0.03),
        "stalls: switch cost recovered within 3%: median " + std::to_string(median_of(result.switch_s)) +
            " s, mean " + std::to_string(mean_of(result.switch_s)) + " s over " +
            std::to_string(result.switch_s.size()) + " switches");
  std::size_t four_us_stalls = 0;  // (the synthetic's last switch ends both timelines: no one ran in it either)
  for (const auto& list : result.stall_s) {
    for (const double stall : list) four_us_stalls += std::abs(stall - 4e-6) < 1e-12 ? 1 : 0;
  }
  check(four_us_stalls >= slices.size(), "stalls: each reported as a 4 us stall");
  bool gaps_ok = !result.gap_s[0].empty() && !result.gap_s[1].empty();
  for (const auto& list : result.gap_s) {
    for (const double gap : list) gaps_ok = gaps_ok && gap > 0.002;
  }
  check(gaps_ok, "stalls: every switch-out gap holds the other's slice");
  check(result.both_active_s < 1e-12, "stalls: no concurrency");
  check(std::abs(result.active_fraction[0] + result.active_fraction[1] +
                 static_cast<double>(result.switch_s.size()) * 0.0001 / result.window.length() - 1.0) < 1e-6,
        "stalls: fractions and switches cover the window");

  // The split on its own: a gap the other ran in is a switch-out; one it did not run in is a stall.
  const ProbeTimeline one{0, 1, {{0.1, 0.2}, {0.5, 0.500004}}};
  const auto split = split_gaps(one, {{0.1, 0.19}, {0.6, 0.7}}, {0, 1});
  check(split[0].size() == 1 && split[0][0].from_s == 0.1 && split[1].size() == 1 && split[1][0].from_s == 0.5 &&
            split[2].empty(),
        "split_gaps");

  // The pair threshold: above the solo run's largest stall, floored by the base, capped.
  check(near(pair_threshold_s(2e-6, {}), 2e-6), "pair threshold without solo gaps is the base");
  check(near(pair_threshold_s(2e-6, {3e-6, 4e-6}), 8e-6), "pair threshold is twice the largest solo gap");
  check(near(pair_threshold_s(2e-6, {1e-3}), kMaxPairThreshold_s), "pair threshold is capped");
  check(near(pair_threshold_s(30e-6, {1e-3}), 30e-6), "a base above the cap wins");
}

void test_timeslice_edges() {
  // The other's probe ends inside a gap: it ran 10 us of a 60 us gap, all of the part its probe saw. Over the whole
  // gap (17%) it would be a stall, and both would be active in those 10 us.
  const ProbeTimeline a{0, 1, {{0.49999, 0.50005}}};
  const ProbeTimeline b{0.4, 0.5, {{0.4, 0.49999}}};
  const auto split = split_gaps(a, merge_intervals(active_intervals(b)), {b.start_s, b.end_s});
  check(split[0].size() == 1 && split[1].empty() && split[2].empty(),
        "a gap the other ran in until its probe ended is a switch-out");
  const PairSlices cut = analyze_pair(a, b);
  check(near(cut.window.to_s, 0.5) && cut.both_active_s < 1e-12 && cut.stall_s[0].empty(),
        "end of window: no concurrency, no stall (both_active_s " + std::to_string(cut.both_active_s) + " s)");

  // Concurrent processes with one 1 ms pause of both: idle for both, not a stall (active) and not a switch.
  const PairSlices paused = analyze_pair({0, 1, {{0.5, 0.501}}}, {0, 1, {{0.5, 0.501}}});
  check(near(paused.both_active_s, 0.999) && paused.switch_s.empty() && paused.idle_s.size() == 1 &&
            near(paused.idle_s[0], 0.001),
        "a long pause of both is idle: both_active_s " + std::to_string(paused.both_active_s) + " s, " +
            std::to_string(paused.switch_s.size()) + " switches, " + std::to_string(paused.idle_s.size()) +
            " idle stretches");
  check(paused.idle_gap_s[0].size() == 1 && paused.idle_gap_s[1].size() == 1 && paused.stall_s[0].empty() &&
            paused.stall_s[1].empty() && paused.slice_s[0].empty() && paused.slice_s[1].empty(),
        "a long pause: an idle gap of each, no stalls, no slices");
  const double pause_end = 0.5 + 0.9 * kMaxStall_s;
  const auto short_pause = split_gaps({0, 1, {{0.5, pause_end}}}, {{0, 0.5}, {pause_end, 1}}, {0, 1});
  check(short_pause[1].size() == 1, "a pause of both below kMaxStall_s is still a stall");
}

void test_handoff() {
  const double inf = std::numeric_limits<double>::infinity();
  const HandoffOutcome handed = handoff_outcome(1.0e-3, inf, 1.05e-3);
  check(!handed.kept && near(handed.gap_s, 0.05e-3), "no second kernel: the handoff gap is the second's wait");
  check(handoff_outcome(1.0e-3, 1.1e-3, 1.5e-3).kept, "the first's second kernel before the second's: kept");
  const HandoffOutcome lost = handoff_outcome(1.0e-3, 1.6e-3, 1.03e-3);
  check(!lost.kept && near(lost.gap_s, 0.03e-3), "the second ran in the first's gap: a handoff of 30 us");
  check(near(grace_crossing_s({25e-6, 50e-6, 100e-6}, {1.0, 1.0, 0.0}), 75e-6), "crossing halfway: 75 us");
  check(grace_crossing_s({25e-6, 50e-6}, {0.25, 0.0}) == 0.0, "never kept: no grace");
  check(near(grace_crossing_s({25e-6, 50e-6}, {1.0, 0.75}), 50e-6), "always kept: the largest gap");
  check(grace_crossing_s({}, {}) == 0.0, "no sweep: 0");
}

void test_paced() {
  // 1000 launches of 20 us alone in 0.1 s: 20% busy; beside, 0.125 s inside a busy run that took 0.02 s longer.
  const PacedOutcome o = paced_outcome(0.1, 1.0, 1.125, 0.5, 0.98, 1.5, 1000, 20e-6);
  check(near(o.speed, 0.8), "normalized speed: alone over beside");
  check(near(o.gpu_share_alone, 0.2), "utilization alone: launches x kernel over the run");
  check(near(o.util_rule, 1.0 / 1.2), "the rule beside an always-busy job: 1 / (1 + u)");
  check(near(o.busy_lost_s, 0.02) && near(o.busy_lost_share, 0.16), "the busy run's loss and its share");
  check(o.inside, "inside the busy run");
  check(!paced_outcome(0.1, 0.9, 1.125, 0.5, 0.98, 1.5, 1000, 20e-6).inside, "started before the busy run: outside");
  check(paced_outcome(0.1, 1.0, 1.0, 0.5, 0.98, 1.5, 1000, 20e-6).speed == 0.0, "an empty run: nothing");
}

void test_util_duty() {
  // 20000 kernels of 25 us in 2 s: a quarter busy. NVML read every 0.5 s says 30% after the first second.
  const std::vector<UtilSample> samples = {{0.0, 0.9, 0.1}, {0.5, 0.5, 0.1}, {1.0, 0.3, 0.05}, {1.5, 0.3, 0.15}};
  const UtilDutyOutcome o = util_duty_outcome(20000, 25e-6, 2.0, samples, 1.0);
  check(near(o.busy_share, 0.25), "busy share: launches x kernel over the run");
  check(o.samples == 2 && near(o.nvml_gpu, 0.3) && near(o.nvml_memory, 0.1), "reads before settling left out");
  check(near(o.busy_per_util, 0.25 / 0.3), "busy_per_util: the kernels' share over NVML's");
  check(std::isnan(util_duty_outcome(1, 1e-3, 1, {}, 0).busy_per_util), "no reads: no ratio");
  check(std::isnan(util_duty_outcome(1, 1e-3, 1, {{0, 0, 0}}, 0).busy_per_util), "NVML saw nothing: no ratio");
  const UtilDutyOutcome idle = util_duty_outcome(10, 1e-6, 1.0, {{1.0, 0.0, 0.0}}, 0);
  const UtilDutyOutcome full = util_duty_outcome(1000, 1e-3, 1.0, {{1.0, 1.0, 0.0}}, 0);
  const UtilDutyOutcome a = util_duty_outcome(1000, 0.4e-3, 1.0, {{1.0, 0.5, 0.0}}, 0);
  const UtilDutyOutcome b = util_duty_outcome(1000, 0.7e-3, 1.0, {{1.0, 0.8, 0.0}}, 0);
  const UtilDutyOutcome c = util_duty_outcome(1000, 0.2e-3, 1.0, {{1.0, 0.2, 0.0}}, 0);
  check(near(busy_per_util_of({idle, full, a, b, c}), 0.875), "the median over points seen 5-95% busy");
  check(std::isnan(busy_per_util_of({idle, full})), "no informative point: NaN");
}

}  // namespace

int main() {
  test_json();
  test_stats();
  test_timeslice_analysis();
  test_timeslice_stalls();
  test_timeslice_edges();
  test_handoff();
  test_paced();
  test_util_duty();
  return vgpusim::hwcal::testing::verdict("hwcal selftest");
}
