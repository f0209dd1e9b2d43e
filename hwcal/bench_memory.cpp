// Bandwidth suite: STREAM-style copy and triad on arrays >> L2, and triad bandwidth against the number of SMs used.
// Bytes count what the kernel reads plus writes (copy 2 x 4 B, triad 3 x 4 B per element), as STREAM does.
#include <algorithm>

#include "hwcal/device_kernels.hpp"
#include "hwcal/stats.hpp"
#include "hwcal/suites.hpp"

namespace vgpusim::hwcal {
namespace {

constexpr unsigned kWarmups = 2;
constexpr unsigned kRepeats = 20;
constexpr unsigned kScalingRepeats = 3;
constexpr unsigned kThreadsPerBlock = 256;
constexpr unsigned kScalingThreadsPerBlock = 1024;
constexpr std::size_t kMinArrayBytes = std::size_t{2} << 30;         // 2 GiB
constexpr std::size_t kMinScalingArrayBytes = std::size_t{512} << 20;  // 512 MiB
constexpr float kTriadScalar = 3.0f;
constexpr double kSustainedWarmup_s = 1.0;  // triad back to back before the first timed run
constexpr unsigned kWarmupBatch = 8;        // launches between synchronizations during it

std::size_t round_elements(std::size_t bytes) { return bytes / sizeof(float) / 4096 * 4096; }

Json stream_params(const char* kernel, std::size_t elements, unsigned arrays, unsigned blocks, unsigned threads) {
  Json params = Json::object();
  params["kernel"] = kernel;
  params["element_bytes"] = sizeof(float);
  params["elements"] = elements;
  params["array_bytes"] = elements * sizeof(float);
  params["arrays_touched"] = arrays;
  params["bytes_per_repeat"] = static_cast<double>(elements) * sizeof(float) * arrays;
  params["blocks"] = blocks;
  params["threads_per_block"] = threads;
  params["warmup_runs"] = kWarmups;
  params["timing"] = "cudaEventElapsedTime around one launch";
  return params;
}

struct StreamArrays {
  DeviceBuffer<float> a, b, c;
  std::size_t elements;
};

// Triad back to back for ~1 s (at most a tenth of what the suite has left), so that the first timed runs do not
// start from idle clocks: two launches of a few ms are not enough for the clocks and power state to settle.
Json sustained_warmup(StreamArrays& arrays, const Deadline& deadline) {
  const double wanted_s = std::min(kSustainedWarmup_s, 0.1 * deadline.remaining_s());
  LaunchShape shape;
  shape.threads_per_block = kThreadsPerBlock;
  const std::int64_t start_ns = monotonic_ns();
  const std::int64_t end_ns = start_ns + static_cast<std::int64_t>(wanted_s * 1e9);
  unsigned launches = 0;
  while (monotonic_ns() < end_ns) {
    for (unsigned k = 0; k < kWarmupBatch; ++k) {
      HWCAL_CUDA(launch_triad(arrays.a.get(), arrays.b.get(), arrays.c.get(), kTriadScalar, arrays.elements, shape,
                              nullptr));
    }
    HWCAL_CUDA(cudaDeviceSynchronize());
    launches += kWarmupBatch;
  }
  Json out = Json::object();
  out["kernel"] = "triad";
  out["seconds"] = static_cast<double>(monotonic_ns() - start_ns) * 1e-9;
  out["launches"] = launches;
  return out;
}

void run_stream_kernel(RunContext& context, const Deadline& deadline, StreamArrays& arrays, bool triad,
                       const Json& warmup) {
  Experiment experiment;
  experiment.name = triad ? "bandwidth.triad" : "bandwidth.copy";
  experiment.kind = "bandwidth";
  run_experiment(context, std::move(experiment), [&](Experiment& e) {
    const unsigned arrays_touched = triad ? 3 : 2;
    const auto blocks = static_cast<unsigned>(stream_tiles(arrays.elements, kThreadsPerBlock));
    e.params = stream_params(triad ? "triad" : "copy", arrays.elements, arrays_touched, blocks, kThreadsPerBlock);
    e.params["sustained_warmup"] = warmup;
    const double bytes = static_cast<double>(arrays.elements) * sizeof(float) * arrays_touched;
    LaunchShape shape;
    shape.threads_per_block = kThreadsPerBlock;
    const auto enqueue = [&] {
      if (triad) {
        HWCAL_CUDA(launch_triad(arrays.a.get(), arrays.b.get(), arrays.c.get(), kTriadScalar, arrays.elements, shape,
                                nullptr));
      } else {
        HWCAL_CUDA(launch_copy(arrays.b.get(), arrays.a.get(), arrays.elements, shape, nullptr));
      }
    };
    time_repeats(e, deadline, kWarmups, kRepeats, enqueue, bytes, "bytes_per_s");
  });
}

void run_sm_scaling(RunContext& context, const Deadline& deadline, StreamArrays& arrays) {
  Experiment experiment;
  experiment.name = "bandwidth_sm_scaling.triad";
  experiment.kind = "bandwidth_sm_scaling";
  run_experiment(context, std::move(experiment), [&](Experiment& e) {
    const DeviceInfo& device = context.device;
    const std::size_t elements =
        std::min(arrays.elements, round_elements(std::max(4 * device.l2_bytes, kMinScalingArrayBytes)));
    // Shared memory nobody uses, so that only one 1024-thread block fits per SM (no %smid-based placement).
    const std::size_t shared_bytes = device.shared_per_block_optin_bytes;
    HWCAL_CUDA(allow_dynamic_shared(ScalingKernel::triad, shared_bytes));
    int blocks_per_sm = 0;
    HWCAL_CUDA(max_blocks_per_sm(ScalingKernel::triad, kScalingThreadsPerBlock, shared_bytes, &blocks_per_sm));
    const std::vector<unsigned> points = sm_scaling_points(device.sm_count);
    e.params = stream_params("triad", elements, 3, 0, kScalingThreadsPerBlock);
    e.params["blocks"] = Json();
    e.params["blocks_list"] = Json(points);
    e.params["dynamic_shared_bytes"] = shared_bytes;
    e.params["max_resident_blocks_per_sm"] = blocks_per_sm;  // 1 = one block per SM guaranteed
    e.params["repeats_per_point"] = kScalingRepeats;
    const double bytes = static_cast<double>(elements) * sizeof(float) * 3;
    DeviceBuffer<unsigned> smids(device.sm_count);
    Json points_json = Json::array();
    std::vector<std::pair<unsigned, double>> medians;  // (blocks, median bytes/s)
    for (const unsigned blocks : points) {
      LaunchShape shape;
      shape.blocks = blocks;
      shape.threads_per_block = kScalingThreadsPerBlock;
      shape.dynamic_shared_bytes = shared_bytes;
      shape.block_smids = smids.get();
      const auto enqueue = [&] {
        HWCAL_CUDA(launch_triad(arrays.a.get(), arrays.b.get(), arrays.c.get(), kTriadScalar, elements, shape,
                                nullptr));
      };
      time_with_events_s(nullptr, enqueue);  // warm-up at this width
      if (std::optional<ScalingPoint> point =
              time_scaling_point(e, deadline, kScalingRepeats, blocks, enqueue, smids, bytes, "bytes_per_s")) {
        points_json.push_back(point->json);
        medians.emplace_back(blocks, point->median_rate);
      }
      if (deadline.expired()) {
        e.truncated = e.truncated || blocks != points.back();
        break;
      }
    }
    double peak = 0;
    for (const auto& [blocks, rate] : medians) peak = std::max(peak, rate);
    Json at_90 = Json();
    for (const auto& [blocks, rate] : medians) {
      if (rate >= 0.9 * peak) {
        at_90 = blocks;
        break;
      }
    }
    e.summary["points"] = points_json;
    e.summary["peak_bytes_per_s"] = peak;
    e.summary["blocks_reaching_90pct_of_peak"] = at_90;
  });
}

}  // namespace

std::vector<unsigned> sm_scaling_points(unsigned sm_count) {
  std::vector<unsigned> points;
  for (unsigned k = 1; k < sm_count; k *= 2) points.push_back(k);
  points.push_back(sm_count);
  return points;
}

void run_bandwidth_suite(RunContext& context) {
  const Deadline deadline = context.suite_deadline(kBandwidthBudget_s);
  const std::size_t free_bytes = free_device_memory_bytes();
  // max(8 x L2, 2 GiB) per array, three arrays in at most half of the free memory.
  const std::size_t array_bytes =
      std::min(std::max(8 * context.device.l2_bytes, kMinArrayBytes), free_bytes / 6);
  const std::size_t elements = round_elements(array_bytes);
  StreamArrays arrays{DeviceBuffer<float>(elements), DeviceBuffer<float>(elements), DeviceBuffer<float>(elements),
                      elements};
  HWCAL_CUDA(launch_fill_uniform(arrays.b.get(), arrays.elements, 11, 0.5f, 1.5f, nullptr));
  HWCAL_CUDA(launch_fill_uniform(arrays.c.get(), arrays.elements, 12, 0.5f, 1.5f, nullptr));
  arrays.a.zero();
  HWCAL_CUDA(cudaDeviceSynchronize());
  const Json warmup = sustained_warmup(arrays, deadline);
  run_stream_kernel(context, deadline, arrays, false, warmup);
  run_stream_kernel(context, deadline, arrays, true, warmup);
  run_sm_scaling(context, deadline, arrays);
}

}  // namespace vgpusim::hwcal
