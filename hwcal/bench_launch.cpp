// Launch suite: empty-kernel cost back to back (throughput), launch + synchronize (round trip), and the shortest
// kernel as CUDA events see it (with the event pair alone as the baseline). All times are per launch.
#include <string>

#include "hwcal/device_kernels.hpp"
#include "hwcal/stats.hpp"
#include "hwcal/suites.hpp"

namespace vgpusim::hwcal {
namespace {

constexpr unsigned kBackToBackLaunches = 2000;
constexpr unsigned kBackToBackRepeats = 10;
constexpr unsigned kRoundTripRepeats = 1000;
constexpr unsigned kDeviceTimeRepeats = 200;
constexpr unsigned kWarmupLaunches = 100;

struct LaunchCase {
  const char* mode;  // back_to_back | launch_sync | device_time | event_pair
  unsigned blocks;   // 0: no kernel (event_pair)
  unsigned threads_per_block;
  unsigned launches_per_repeat;
  unsigned repeats;
};

std::string case_name(const LaunchCase& c) {
  if (c.blocks == 0) return std::string("launch.") + c.mode;
  return std::string("launch.") + c.mode + "." + std::to_string(c.blocks) + "x" + std::to_string(c.threads_per_block);
}

double measure_once(const LaunchCase& c, cudaStream_t stream) {
  if (std::string(c.mode) == "device_time" || std::string(c.mode) == "event_pair") {
    return time_with_events_s(stream, [&] {
      if (c.blocks > 0) HWCAL_CUDA(launch_empty(c.blocks, c.threads_per_block, stream));
    });
  }
  const std::int64_t start_ns = monotonic_ns();
  for (unsigned i = 0; i < c.launches_per_repeat; ++i) {
    HWCAL_CUDA(launch_empty(c.blocks, c.threads_per_block, stream));
    if (std::string(c.mode) == "launch_sync") HWCAL_CUDA(cudaStreamSynchronize(stream));
  }
  HWCAL_CUDA(cudaStreamSynchronize(stream));
  return static_cast<double>(monotonic_ns() - start_ns) * 1e-9 / c.launches_per_repeat;
}

void run_case(RunContext& context, const Deadline& deadline, const LaunchCase& c, cudaStream_t stream) {
  Experiment experiment;
  experiment.name = case_name(c);
  experiment.kind = "launch";
  run_experiment(context, std::move(experiment), [&](Experiment& e) {
    e.params["mode"] = c.mode;
    e.params["blocks"] = c.blocks;
    e.params["threads_per_block"] = c.threads_per_block;
    e.params["launches_per_repeat"] = c.launches_per_repeat;
    e.params["timing"] = std::string(c.mode) == "device_time" || std::string(c.mode) == "event_pair"
                               ? "cudaEventElapsedTime"
                               : "host CLOCK_MONOTONIC, per launch";
    for (unsigned w = 0; w < kWarmupLaunches / c.launches_per_repeat + 1; ++w) measure_once(c, stream);
    std::vector<double> times;
    for (unsigned r = 0; r < c.repeats; ++r) {
      if (deadline.expired()) {
        e.truncated = true;
        break;
      }
      const double seconds = measure_once(c, stream);
      Json repeat = Json::object();
      repeat["time_s"] = seconds;
      e.repeats.push_back(repeat);
      times.push_back(seconds);
    }
    e.summary["time_s"] = summary_json(times);
  });
}

}  // namespace

void run_launch_suite(RunContext& context) {
  const Deadline deadline = context.suite_deadline(kLaunchBudget_s);
  OwnedStream stream;
  const unsigned sms = context.device.sm_count;
  const LaunchCase cases[] = {
      {"back_to_back", 1, 1, kBackToBackLaunches, kBackToBackRepeats},
      {"back_to_back", sms, 1024, kBackToBackLaunches, kBackToBackRepeats},
      {"launch_sync", 1, 1, 1, kRoundTripRepeats},
      {"device_time", 1, 1, 1, kDeviceTimeRepeats},
      {"device_time", sms, 1024, 1, kDeviceTimeRepeats},
      {"event_pair", 0, 0, 1, kDeviceTimeRepeats},
  };
  for (const LaunchCase& c : cases) run_case(context, deadline, c, stream.get());
}

}  // namespace vgpusim::hwcal
