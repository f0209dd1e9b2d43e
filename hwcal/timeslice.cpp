// Time-slice probe: grid = SM count, one thread per block, spinning on %globaltimer and logging every jump above a
// threshold; alone, then as two processes started together. Gaps = the other's slice + switches; see analysis.
// The suite then runs timeslice.handoff (timeslice_handoff.cpp) and timeslice.paced (timeslice_paced.cpp); the
// probe's runner and child processes are in timeslice_probe.cpp.
#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <set>

#include "hwcal/device_kernels.hpp"
#include "hwcal/stats.hpp"
#include "hwcal/suites.hpp"
#include "hwcal/timeslice_analysis.hpp"
#include "hwcal/timeslice_probe.hpp"

namespace vgpusim::hwcal {
namespace {

constexpr double kTimerWindow_s = 5e-3;
constexpr double kLoopCalibration_s = 20e-3;
constexpr double kSoloDuration_s = 0.5;
constexpr double kPairDuration_s = 2.0;
constexpr unsigned kPairRepeats = 2;
constexpr double kMinThreshold_s = 2e-6;

// A block that stopped at the iteration cap saw less than its duration (the timer stood still or ran slow): its
// reads, gaps and end are those of a shorter probe.
void warn_if_capped(const ProbeRun& run, const std::string& which) {
  const unsigned capped = capped_blocks(run);
  if (capped == 0) return;
  progress("timeslice.probe: warning: " + std::to_string(capped) + " of " + std::to_string(run.block_capped.size()) +
           " blocks of the " + which + " stopped at the iteration cap before their duration");
}

// Block 0's timeline; every block of a context is switched together, so one block stands for the process.
ProbeTimeline timeline_of(const ProbeRun& run, unsigned long long origin_ns) {
  ProbeTimeline out;
  out.start_s = relative_s(run.block_start_ns.at(0), origin_ns);
  out.end_s = relative_s(run.block_end_ns.at(0), origin_ns);
  for (const TimesliceGap& gap : run.gaps) {
    if (gap.block == 0) out.gaps.push_back({relative_s(gap.from_ns, origin_ns), relative_s(gap.to_ns, origin_ns)});
  }
  std::sort(out.gaps.begin(), out.gaps.end(), [](const Interval& x, const Interval& y) { return x.from_s < y.from_s; });
  return out;
}

Json run_json(const char* label, unsigned repeat, unsigned process, const ProbeRun& run,
              unsigned long long origin_ns, const std::vector<double>& pair_gaps_block0) {
  const auto blocks = static_cast<unsigned>(run.block_start_ns.size());
  const std::set<unsigned> sampled{0, blocks / 2, blocks - 1};
  std::vector<double> gaps_per_block(blocks, 0.0), reads;
  Json gaps = Json::array();
  for (const TimesliceGap& gap : run.gaps) {
    if (gap.block < blocks) gaps_per_block[gap.block] += 1;
    if (sampled.count(gap.block) == 0) continue;
    Json record = Json::object();
    record["block"] = gap.block;
    record["smid"] = gap.smid;
    record["from_s"] = relative_s(gap.from_ns, origin_ns);
    record["to_s"] = relative_s(gap.to_ns, origin_ns);
    gaps.push_back(record);
  }
  for (const unsigned long long r : run.block_reads) reads.push_back(static_cast<double>(r));
  Json out = Json::object();
  out["run"] = label;
  out["repeat"] = repeat;
  out["process"] = process;
  out["pid"] = run.pid;
  out["start_s"] = relative_s(run.block_start_ns.at(0), origin_ns);
  out["end_s"] = relative_s(run.block_end_ns.at(0), origin_ns);
  out["blocks"] = blocks;
  out["gap_count"] = run.gap_count;
  out["gap_overflow"] = run.gap_count > run.gaps.size();
  out["gaps_per_block"] = summary_json(gaps_per_block);
  out["reads_per_block"] = summary_json(reads);
  out["capped_blocks"] = capped_blocks(run);
  out["block0_gap_s"] = summary_json(pair_gaps_block0);
  out["sampled_blocks"] = Json(sampled);
  out["gaps"] = gaps;
  return out;
}

std::vector<double> lengths_of(const std::vector<Interval>& intervals) {
  std::vector<double> out;
  for (const Interval& x : intervals) out.push_back(x.length());
  return out;
}

}  // namespace

void run_timeslice_suite(RunContext& context) {
  const Deadline deadline = context.suite_deadline(kTimesliceBudget_s);
  unsigned long long handoff_threshold_ns = static_cast<unsigned long long>(kMaxPairThreshold_s * 1e9);
  double probe_slice_s = 0;
  Experiment experiment;
  experiment.name = "timeslice.probe";
  experiment.kind = "timeslice";
  run_experiment(context, std::move(experiment), [&](Experiment& e) {
    const unsigned blocks = context.device.sm_count;
    DeviceBuffer<TimerResolution> resolution(1);
    HWCAL_CUDA(launch_timer_resolution(static_cast<unsigned long long>(kTimerWindow_s * 1e9), resolution.get(),
                                       nullptr));
    const TimerResolution timer = resolution.download(1)[0];
    if (timer.capped != 0) progress("timeslice.probe: warning: the timer-tick window stopped at the iteration cap");
    const double tick_s = timer.changes == 0 ? 0.0
                                             : static_cast<double>(timer.last_change_ns - timer.first_ns) * 1e-9 /
                                                   static_cast<double>(timer.changes);
    ProbeRunner runner(blocks, kGapCapacity);
    const ProbeRun calibration = runner.run(kLoopCalibration_s, ~0ull >> 1);
    warn_if_capped(calibration, "loop-period probe");
    std::vector<double> reads;
    for (const unsigned long long r : calibration.block_reads) reads.push_back(static_cast<double>(r));
    const double loop_period_s = kLoopCalibration_s / median_of(reads);
    const double threshold_s = std::max({5 * loop_period_s, 3 * tick_s, kMinThreshold_s});
    const auto threshold_ns = static_cast<unsigned long long>(threshold_s * 1e9);
    e.params["blocks"] = blocks;
    e.params["threads_per_block"] = 1;
    e.params["timer_tick_s"] = tick_s;
    e.params["timer_min_step_s"] = static_cast<double>(timer.min_delta_ns) * 1e-9;
    e.params["timer_window_capped"] = timer.capped != 0;
    e.params["loop_period_s"] = loop_period_s;
    e.params["loop_period_capped_blocks"] = capped_blocks(calibration);
    e.params["threshold_s"] = static_cast<double>(threshold_ns) * 1e-9;
    e.params["solo_duration_s"] = kSoloDuration_s;
    e.params["pair_duration_s"] = kPairDuration_s;
    e.params["pair_repeats"] = kPairRepeats;
    e.params["gap_capacity"] = kGapCapacity;
    e.params["time_origin"] = "earliest block start of the run (solo) or of the pair, in %globaltimer";

    const ProbeRun solo = runner.run(kSoloDuration_s, threshold_ns);
    warn_if_capped(solo, "solo probe");
    const unsigned long long solo_origin = *std::min_element(solo.block_start_ns.begin(), solo.block_start_ns.end());
    const std::vector<double> solo_gaps = lengths_of(timeline_of(solo, solo_origin).gaps);
    e.repeats.push_back(run_json("solo", 0, 0, solo, solo_origin, solo_gaps));
    Json solo_summary = Json::object();
    solo_summary["block0_gap_count"] = solo_gaps.size();
    solo_summary["block0_gap_s"] = summary_json(solo_gaps);
    solo_summary["gap_count_all_blocks"] = solo.gap_count;
    e.summary["solo"] = solo_summary;
    // The pair's threshold sits above every stall the solo run saw (all blocks), so stalls are not recorded as gaps.
    std::vector<double> solo_gaps_all;
    for (const TimesliceGap& gap : solo.gaps) {
      solo_gaps_all.push_back(static_cast<double>(gap.to_ns - gap.from_ns) * 1e-9);
    }
    const double solo_max_gap_s =
        solo_gaps_all.empty() ? 0.0 : *std::max_element(solo_gaps_all.begin(), solo_gaps_all.end());
    const auto pair_threshold_ns = static_cast<unsigned long long>(
        std::llround(pair_threshold_s(static_cast<double>(threshold_ns) * 1e-9, solo_gaps_all) * 1e9));
    e.params["solo_max_gap_s"] = solo_max_gap_s;
    e.params["pair_threshold_s"] = static_cast<double>(pair_threshold_ns) * 1e-9;

    if (!two_processes_can_run(context, deadline, kPairDuration_s * kPairRepeats + 10, e)) return;
    const TemporaryDirectory directory("vgpusim-hwcal-probe");
    std::vector<std::unique_ptr<ChildProcess>> children;
    Json clients_mps = Json::array();
    for (const bool mps : start_probe_children(context, blocks, kPairDuration_s, pair_threshold_ns,
                                               directory.path + "/process", children))
      clients_mps.push_back(mps);
    e.params["pair_processes_are_mps_clients"] = clients_mps;
    std::array<std::vector<double>, 2> slices;
    std::vector<double> gaps, stalls, idle_gaps, switches, idle, both_active, windows;
    Json fractions = Json::array();
    for (unsigned repeat = 0; repeat < kPairRepeats; ++repeat) {
      if (deadline.remaining_s() < kPairDuration_s + 5) {
        e.truncated = true;
        break;
      }
      const std::int64_t start_ns = monotonic_ns() + 300'000'000;  // both children sleep until then
      for (auto& child : children) child->send_line("run " + std::to_string(start_ns));
      std::array<ProbeRun, 2> runs;
      for (unsigned p = 0; p < 2; ++p) {
        runs[p] = read_run(parse_reply(children[p]->read_reply(kPairDuration_s + kChildAnswer_s), 1).paths[0]);
        warn_if_capped(runs[p],
                       "pair probe (repeat " + std::to_string(repeat) + ", process " + std::to_string(p) + ")");
      }
      const unsigned long long origin =
          std::min(*std::min_element(runs[0].block_start_ns.begin(), runs[0].block_start_ns.end()),
                   *std::min_element(runs[1].block_start_ns.begin(), runs[1].block_start_ns.end()));
      const std::array<ProbeTimeline, 2> timelines{timeline_of(runs[0], origin), timeline_of(runs[1], origin)};
      const PairSlices analysis = analyze_pair(timelines[0], timelines[1]);
      for (unsigned p = 0; p < 2; ++p) {
        e.repeats.push_back(run_json("pair", repeat, p, runs[p], origin, lengths_of(timelines[p].gaps)));
        slices[p].insert(slices[p].end(), analysis.slice_s[p].begin(), analysis.slice_s[p].end());
        gaps.insert(gaps.end(), analysis.gap_s[p].begin(), analysis.gap_s[p].end());
        stalls.insert(stalls.end(), analysis.stall_s[p].begin(), analysis.stall_s[p].end());
        idle_gaps.insert(idle_gaps.end(), analysis.idle_gap_s[p].begin(), analysis.idle_gap_s[p].end());
      }
      switches.insert(switches.end(), analysis.switch_s.begin(), analysis.switch_s.end());
      idle.insert(idle.end(), analysis.idle_s.begin(), analysis.idle_s.end());
      both_active.push_back(analysis.both_active_s);
      windows.push_back(analysis.window.length());
      fractions.push_back(Json(analysis.active_fraction));
    }
    for (auto& child : children) child->finish(5);
    std::vector<double> all_slices = slices[0];
    all_slices.insert(all_slices.end(), slices[1].begin(), slices[1].end());
    Json pair = Json::object();
    pair["slice_s"] = summary_json(all_slices);
    Json by_process = Json::array();
    by_process.push_back(summary_json(slices[0]));
    by_process.push_back(summary_json(slices[1]));
    pair["slice_s_by_process"] = by_process;
    pair["gap_s"] = summary_json(gaps);
    pair["switch_s"] = summary_json(switches);
    pair["stall_count"] = stalls.size();
    pair["stall_s"] = summary_json(stalls);
    pair["idle_gap_count"] = idle_gaps.size();
    pair["idle_gap_s"] = summary_json(idle_gaps);
    pair["idle_s"] = summary_json(idle);
    pair["window_s"] = Json(windows);
    pair["both_active_s"] = Json(both_active);
    pair["active_fraction"] = fractions;
    e.summary["pair"] = pair;
    handoff_threshold_ns = pair_threshold_ns;
    if (!all_slices.empty()) probe_slice_s = median_of(all_slices);
  });
  run_handoff(context, deadline, handoff_threshold_ns, probe_slice_s);
  run_paced(context, deadline);
}

}  // namespace vgpusim::hwcal
