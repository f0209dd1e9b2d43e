// timeslice.handoff: how long a context that ran out of work keeps the GPU from a waiting one, and the switch then.
#include <algorithm>
#include <array>
#include <limits>
#include <numeric>

#include "hwcal/stats.hpp"
#include "hwcal/suites.hpp"
#include "hwcal/timeslice_analysis.hpp"
#include "hwcal/timeslice_probe.hpp"

namespace vgpusim::hwcal {
namespace {

// timeslice.handoff: kernels far shorter than a slice (2 ms measured on an H200) so that the first runs out of work
// inside its slice; the second launches well inside the first's kernel.
constexpr double kHandoffKernel_s = 0.5e-3;
constexpr double kHandoffOffset_s = 0.15e-3;
constexpr double kHandoffAgain_s = 0.2e-3;
constexpr double kHandoffLead_s = 20e-3;           // both children sleep until the shared start
constexpr double kHandoffLaunchMargin_s = 100e-6;  // the second must launch at least this long before the first ends
constexpr double kHandoffAnswer_s = 5;             // a repeat's reply; the children are already up
constexpr double kHandoffMinBudget_s = 13;         // ~280 repeats of ~28 ms, the children's start, 3 s spare
constexpr unsigned kHandoffRepeats = 20;
// Dense up to the end of a 2 ms slice less the kernel, so that a hold to the slice's end is told from a grace.
constexpr std::array<double, 13> kHandoffGaps_s = {0,      10e-6,  25e-6,   50e-6,   100e-6,  200e-6, 400e-6,
                                                   800e-6, 1e-3,   1.2e-3,  1.3e-3,  1.4e-3,  1.6e-3};

}  // namespace

// timeslice.handoff: how long a context that ran out of work keeps the GPU from another that waits, and what the
// switch then costs. Two processes; per repeat the first runs a kernel of kHandoffKernel_s (all SMs) and the second
// launches one kHandoffOffset_s later, while the first's runs, so it waits. Plain handoff: the first has nothing
// more, and the second's start minus the first's end is the handoff (grace + switch of an idle context). Sweep: the
// first launches another kernel a host gap g after it saw its first end; whether that one starts before the
// second's says whether the first kept the GPU through g. Roles alternate between repeats. A repeat whose launches
// came out of order (the second launched before the first, or too late to find the first's kernel running, or the
// second's kernel started first) is dropped and counted. `slice_s`: the probe's slice, 0 when unknown.
void run_handoff(RunContext& context, const Deadline& deadline, unsigned long long threshold_ns, double slice_s) {
  Experiment experiment;
  experiment.name = "timeslice.handoff";
  experiment.kind = "timeslice";
  run_experiment(context, std::move(experiment), [&](Experiment& e) {
    const unsigned blocks = context.device.sm_count;
    e.params["blocks"] = blocks;
    e.params["threads_per_block"] = 1;
    e.params["kernel_s"] = kHandoffKernel_s;
    e.params["second_launch_offset_s"] = kHandoffOffset_s;
    e.params["second_kernel_s"] = kHandoffAgain_s;
    e.params["repeats_per_point"] = kHandoffRepeats;
    e.params["host_gaps_s"] = Json(kHandoffGaps_s);
    e.params["probe_slice_s"] = slice_s;
    e.params["timing"] = "%globaltimer: the first's latest block end, the second's earliest block start; host "
                           "launches on CLOCK_MONOTONIC";
    if (!two_processes_can_run(context, deadline, kHandoffMinBudget_s, e)) return;
    const TemporaryDirectory directory("vgpusim-hwcal-handoff");
    std::vector<std::unique_ptr<ChildProcess>> children;
    const std::vector<bool> mps =
        start_probe_children(context, blocks, kHandoffKernel_s, threshold_ns, directory.path + "/handoff", children);
    if (mps[0] || mps[1]) {
      e.skipped = "the probe children are MPS clients: no time-slicing to measure";
      for (auto& child : children) child->finish(5);
      return;
    }
    struct Repeat {
      bool valid = false, kept = false;
      double handoff_s = 0;  // kept: 0
      double gpu_gap_s = 0;  // the first's second kernel's start minus its first's end (run2 only)
    };
    // One repeat; host_gap_s < 0: plain handoff.
    auto repeat = [&](unsigned first, double host_gap_s) {
      const std::int64_t start_ns = monotonic_ns() + ns_of(kHandoffLead_s);
      const unsigned second = 1 - first;
      const bool sweep = host_gap_s >= 0;
      const std::string kernel_ns = std::to_string(ns_of(kHandoffKernel_s));
      children[first]->send_line(sweep ? "run2 " + std::to_string(start_ns) + " " + kernel_ns + " " +
                                             std::to_string(ns_of(host_gap_s)) + " " +
                                             std::to_string(ns_of(kHandoffAgain_s))
                                       : "run " + std::to_string(start_ns) + " " + kernel_ns);
      children[second]->send_line("run " + std::to_string(start_ns + ns_of(kHandoffOffset_s)) + " " + kernel_ns);
      const RunReply a_reply = parse_reply(children[first]->read_reply(kHandoffAnswer_s), sweep ? 2 : 1);
      const RunReply b_reply = parse_reply(children[second]->read_reply(kHandoffAnswer_s), 1);
      const ProbeRun a = read_run(a_reply.paths[0]);
      const ProbeRun b = read_run(b_reply.paths[0]);
      Repeat out;
      const double launch_lag_s = static_cast<double>(b_reply.launched_ns - a_reply.launched_ns) * 1e-9;
      out.valid = launch_lag_s > 0 && launch_lag_s < kHandoffKernel_s - kHandoffLaunchMargin_s &&
                  first_start_ns(b) >= first_start_ns(a);
      if (!out.valid) return out;
      const unsigned long long origin = first_start_ns(a);
      const double a_end = relative_s(last_end_ns(a), origin);
      const double b_start = relative_s(first_start_ns(b), origin);
      double a_again = std::numeric_limits<double>::infinity();
      if (sweep) {
        a_again = relative_s(first_start_ns(read_run(a_reply.paths[1])), origin);
        out.gpu_gap_s = a_again - a_end;
      }
      const HandoffOutcome outcome = handoff_outcome(a_end, a_again, b_start);
      out.kept = outcome.kept;
      out.handoff_s = outcome.gap_s;
      return out;
    };
    unsigned dropped = 0, overlapping = 0, plain_overlapping = 0;
    std::vector<double> handoff;
    for (unsigned r = 0; r < kHandoffRepeats; ++r) {
      if (deadline.remaining_s() < 3) {
        e.truncated = true;
        break;
      }
      const Repeat x = repeat(r % 2, -1);
      if (!x.valid) {
        ++dropped;
      } else if (x.handoff_s < 0) {
        ++plain_overlapping;  // the second did not wait: no time-slicing between them
      } else {
        handoff.push_back(x.handoff_s);
      }
    }
    Json sweep = Json::array();
    std::vector<double> gaps, kept_share, offsets;
    for (const double g : kHandoffGaps_s) {
      std::vector<double> kept, lost_handoffs, kept_gpu_gaps;
      for (unsigned r = 0; r < kHandoffRepeats; ++r) {
        if (deadline.remaining_s() < 3) {
          e.truncated = true;
          break;
        }
        const Repeat x = repeat(r % 2, g);
        if (!x.valid) {
          ++dropped;
          continue;
        }
        if (!x.kept && x.handoff_s < 0) {
          ++overlapping;  // the second did not wait: says nothing about keeping the GPU
          continue;
        }
        kept.push_back(x.kept ? 1.0 : 0.0);
        if (x.kept) {
          kept_gpu_gaps.push_back(x.gpu_gap_s);
          offsets.push_back(x.gpu_gap_s - g);
        } else {
          lost_handoffs.push_back(x.handoff_s);
        }
      }
      if (e.truncated) break;
      const double share =
          kept.empty() ? 0.0 : std::accumulate(kept.begin(), kept.end(), 0.0) / static_cast<double>(kept.size());
      Json point = Json::object();
      point["host_gap_s"] = g;
      point["repeats"] = kept.size();
      point["kept_share"] = share;
      point["kept_gpu_gap_s"] = summary_json(kept_gpu_gaps);
      point["handoff_s"] = summary_json(lost_handoffs);
      sweep.push_back(point);
      if (!kept.empty()) {
        gaps.push_back(g);
        kept_share.push_back(share);
      }
    }
    for (auto& child : children) child->finish(5);
    e.summary["handoff_s"] = summary_json(handoff);
    e.summary["overlapping_repeats"] = plain_overlapping;
    e.summary["sweep_overlapping_repeats"] = overlapping;
    e.summary["dropped_repeats"] = dropped;
    e.summary["sweep"] = sweep;
    // The GPU gap is the host gap plus the host's synchronization and launch latency: the crossing is read on the
    // GPU's axis.
    const double offset = offsets.empty() ? 0.0 : median_of(offsets);
    e.summary["launch_offset_s"] = offset;
    // A crossing only where the sweep brackets it: every point measured, not every gap kept (then only a lower
    // bound), and not near the end of the first's slice (then the slice, not a grace, ended its hold).
    const bool complete = !e.truncated && gaps.size() == kHandoffGaps_s.size();
    const bool all_kept =
        complete && std::all_of(kept_share.begin(), kept_share.end(), [](double k) { return k >= 0.5; });
    const bool never_kept = !kept_share.empty() && kept_share.front() < 0.5;
    const double crossing = grace_crossing_s(gaps, kept_share) + (never_kept ? 0.0 : offset);
    // The bracket's upper end (the first gap mostly lost) against what is left of the first's slice after its
    // kernel: a hold that lasts to the slice's end lands there whatever the grace, and says nothing about one.
    double first_lost = 0;
    for (std::size_t i = 0; i < gaps.size(); ++i)
      if (kept_share[i] < 0.5) {
        first_lost = gaps[i] + offset;
        break;
      }
    const bool slice_known = slice_s > 0;
    const bool bounded_by_slice =
        slice_known && !never_kept && first_lost >= slice_s - kHandoffKernel_s - kHandoffLaunchMargin_s;
    e.summary["grace_bounded_by_slice"] = bounded_by_slice;
    if (all_kept) e.summary["grace_at_least_s"] = gaps.back() + offset;
    const bool usable = complete && slice_known && !all_kept && !bounded_by_slice && !handoff.empty() &&
                        plain_overlapping * 2 <= kHandoffRepeats;
    e.summary["grace_crossing_s"] = usable ? Json(crossing) : Json();
  });
}

}  // namespace vgpusim::hwcal
