// timeslice.paced: a launch-paced process (short kernels a host gap apart, like an eager training step whose host
// is slower than its kernels) alone and beside a process that keeps the GPU busy, under time-slicing.
#include <algorithm>
#include <array>
#include <cmath>

#include "hwcal/stats.hpp"
#include "hwcal/suites.hpp"
#include "hwcal/timeslice_analysis.hpp"
#include "hwcal/timeslice_probe.hpp"

namespace vgpusim::hwcal {
namespace {

constexpr double kPacedKernel_s = 20e-6;  // the light process's kernel (a small training op)
constexpr double kBusyKernel_s = 0.5e-3;  // the busy process's kernels, launched all at once
constexpr double kLightRun_s = 0.1;       // the light process's run alone, about
constexpr double kBusyRun_s = 0.5;        // the busy process's run alone: the light run beside it fits inside
constexpr double kBusyLead_s = 20e-3;     // the light process starts this long after the busy one
constexpr double kStartLead_s = 30e-3;    // both children sleep until the shared start
constexpr double kPacedAnswer_s = 10;     // a run's reply (the busy run beside takes ~0.6 s)
constexpr double kPacedMinBudget_s = 12;  // the children's start and ~15 runs of < 1 s
constexpr unsigned kPacedRepeats = 2;

// The light process's host: its gap after each launch and how often it waits for its kernels (0: once, at the
// end). A 10 us gap launches faster than the GPU runs (kernels longer than the gap), 40 and 160 us leave the GPU idle
// between its kernels, about half and seven eighths of the time alone.
struct PacedPoint {
  double gap_s;
  unsigned sync_every;
};
constexpr std::array<PacedPoint, 6> kPacedPoints = {
    {{10e-6, 0}, {40e-6, 0}, {40e-6, 1}, {40e-6, 16}, {160e-6, 0}, {160e-6, 1}}};

struct PacedReply {
  double from_s = 0, to_s = 0;  // CLOCK_MONOTONIC: first launch, the host seeing the last kernel end
  double length() const { return to_s - from_s; }
};

PacedReply read_paced(ChildProcess& child) {
  const RunReply reply = parse_reply(child.read_reply(kPacedAnswer_s), 0);
  return {static_cast<double>(reply.launched_ns) * 1e-9, static_cast<double>(reply.synced_ns) * 1e-9};
}

std::string paced_command(std::int64_t start_ns, unsigned iterations, unsigned launches, double gap_s,
                          unsigned sync_every) {
  return "paced " + std::to_string(start_ns) + " " + std::to_string(iterations) + " " + std::to_string(launches) +
         " " + std::to_string(ns_of(gap_s)) + " " + std::to_string(sync_every);
}

}  // namespace

// timeslice.paced: the question behind two training jobs time-sliced on one GPU (docs/models/timeslice.md,
// Validation: a light job measured slower beside a busy one than the utilization rule says, while the busy one
// loses less). Two processes, fixed-work fma_chain kernels of one block per SM. The light one launches
// kLightRun_s / max(gap, kernel) kernels of kPacedKernel_s, spinning `gap` after each launch call and waiting for
// its kernels every `sync_every` launches; the busy one launches kBusyRun_s of kBusyKernel_s kernels at once and
// waits at the end. Per point: the light run alone, then beside the busy run (started kBusyLead_s earlier); the
// busy run alone once per repeat. Its normalized speed, its utilization alone, and what the busy run lost.
void run_paced(RunContext& context, const Deadline& deadline) {
  Experiment experiment;
  experiment.name = "timeslice.paced";
  experiment.kind = "timeslice";
  run_experiment(context, std::move(experiment), [&](Experiment& e) {
    const unsigned blocks = context.device.sm_count;
    LaunchShape shape;
    shape.blocks = blocks;
    shape.threads_per_block = kPacedThreads;
    DeviceBuffer<float> sink(1);
    const unsigned light_iterations = calibrate_iterations(shape, sink.get(), kPacedKernel_s);
    const unsigned busy_iterations = calibrate_iterations(shape, sink.get(), kBusyKernel_s);
    // The light kernel's time alone, back to back (its launches cost less than it on every current GPU).
    const auto back_to_back_s = [&](unsigned iterations, unsigned launches) {
      return time_with_events_s(nullptr,
                                [&] {
                                  for (unsigned i = 0; i < launches; ++i)
                                    HWCAL_CUDA(launch_fma_chain(sink.get(), iterations, shape, nullptr));
                                }) /
             launches;
    };
    const double light_kernel_s = back_to_back_s(light_iterations, 200);
    const double busy_kernel_s = back_to_back_s(busy_iterations, 20);
    const auto busy_launches = static_cast<unsigned>(std::ceil(kBusyRun_s / kBusyKernel_s));
    e.params["blocks"] = blocks;
    e.params["threads_per_block"] = kPacedThreads;
    e.params["kernel"] = "fp32_fma_chain";
    e.params["light_iterations"] = light_iterations;
    e.params["light_kernel_s"] = light_kernel_s;
    e.params["busy_iterations"] = busy_iterations;
    e.params["busy_kernel_s"] = busy_kernel_s;
    e.params["busy_launches"] = busy_launches;
    e.params["busy_lead_s"] = kBusyLead_s;
    e.params["repeats_per_point"] = kPacedRepeats;
    e.params["timing"] = "host CLOCK_MONOTONIC: each process's first launch to seeing its last kernel end";
    if (!two_processes_can_run(context, deadline, kPacedMinBudget_s, e)) return;
    const TemporaryDirectory directory("vgpusim-hwcal-paced");
    std::vector<std::unique_ptr<ChildProcess>> children;
    const std::vector<bool> mps = start_probe_children(context, blocks, 1e-3, ~0ull >> 1, directory.path + "/paced",
                                                       children);
    if (mps[0] || mps[1]) {
      e.skipped = "the probe children are MPS clients: no time-slicing to measure";
      for (auto& child : children) child->finish(5);
      return;
    }
    ChildProcess& busy = *children[0];
    ChildProcess& light = *children[1];
    Json points = Json::array();
    for (const PacedPoint& point : kPacedPoints) {
      const auto launches =
          static_cast<unsigned>(std::max(1.0, std::round(kLightRun_s / std::max(point.gap_s, light_kernel_s))));
      std::vector<double> alone, beside, speed, share, rule, lost, lost_share;
      unsigned outside = 0;
      for (unsigned r = 0; r < kPacedRepeats; ++r) {
        if (deadline.remaining_s() < 2) {
          e.truncated = true;
          break;
        }
        std::int64_t start_ns = monotonic_ns() + ns_of(kStartLead_s);
        light.send_line(paced_command(start_ns, light_iterations, launches, point.gap_s, point.sync_every));
        const PacedReply light_alone = read_paced(light);
        start_ns = monotonic_ns() + ns_of(kStartLead_s);
        busy.send_line(paced_command(start_ns, busy_iterations, busy_launches, 0, 0));
        const PacedReply busy_alone = read_paced(busy);
        start_ns = monotonic_ns() + ns_of(kStartLead_s);
        busy.send_line(paced_command(start_ns, busy_iterations, busy_launches, 0, 0));
        light.send_line(paced_command(start_ns + ns_of(kBusyLead_s), light_iterations, launches, point.gap_s,
                                      point.sync_every));
        const PacedReply busy_beside = read_paced(busy);
        const PacedReply light_beside = read_paced(light);
        const PacedOutcome o =
            paced_outcome(light_alone.length(), light_beside.from_s, light_beside.to_s, busy_alone.length(),
                          busy_beside.from_s, busy_beside.to_s, launches, light_kernel_s);
        alone.push_back(light_alone.length());
        beside.push_back(light_beside.length());
        speed.push_back(o.speed);
        share.push_back(o.gpu_share_alone);
        rule.push_back(o.util_rule);
        lost.push_back(o.busy_lost_s);
        if (o.inside) {
          lost_share.push_back(o.busy_lost_share);
        } else {
          ++outside;
        }
      }
      Json p = Json::object();
      p["host_gap_s"] = point.gap_s;
      p["sync_every"] = point.sync_every;
      p["launches"] = launches;
      p["alone_s"] = summary_json(alone);
      p["beside_s"] = summary_json(beside);
      p["speed"] = summary_json(speed);
      p["gpu_share_alone"] = summary_json(share);
      p["util_rule"] = summary_json(rule);
      p["busy_lost_s"] = summary_json(lost);
      p["busy_lost_share"] = summary_json(lost_share);
      p["outside_busy_run"] = outside;
      points.push_back(p);
      if (e.truncated) break;
    }
    for (auto& child : children) child->finish(5);
    e.summary["points"] = points;
  });
}

}  // namespace vgpusim::hwcal
