// Latency suite: one thread chases pointers through a random single-cycle permutation (Sattolo), footprint 1 MiB to
// 4 x L2, loads cached in L2 only (ld.global.cg): latency per access against footprint shows the L2 size.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "hwcal/device_kernels.hpp"
#include "hwcal/stats.hpp"
#include "hwcal/suites.hpp"

namespace vgpusim::hwcal {
namespace {

constexpr std::size_t kNodeStrideBytes = 128;  // one node per 128-byte L2 line: every step touches a new line
constexpr unsigned kStrideWords = kNodeStrideBytes / sizeof(unsigned);
constexpr unsigned kSteps = 32768;  // ~10-25 ms per run at 0.3-0.8 us per access
constexpr unsigned kRunsPerSize = 3;
constexpr std::size_t kMinFootprintBytes = std::size_t{1} << 20;
constexpr double kStepsPerOctave = 4;  // footprints grow by 2^(1/4)
constexpr std::uint64_t kSeed = 0x9e3779b97f4a7c15ull;

std::vector<std::size_t> footprints(std::size_t max_bytes) {
  std::vector<std::size_t> out;
  for (int i = 0;; ++i) {
    const double bytes = static_cast<double>(kMinFootprintBytes) * std::pow(2.0, i / kStepsPerOctave);
    const std::size_t rounded = static_cast<std::size_t>(bytes) / kNodeStrideBytes * kNodeStrideBytes;
    if (rounded > max_bytes) break;
    out.push_back(rounded);
  }
  return out;
}

// words[i * kStrideWords] = word index of node i's successor; successors form one cycle over all nodes.
void build_chase(std::vector<unsigned>& words, std::size_t nodes, std::mt19937_64& random) {
  std::vector<unsigned> successor(nodes);
  std::iota(successor.begin(), successor.end(), 0u);
  for (std::size_t i = nodes - 1; i > 0; --i) {  // Sattolo: j < i strictly gives a single cycle
    const std::size_t j = static_cast<std::size_t>(random() % i);
    std::swap(successor[i], successor[j]);
  }
  for (std::size_t i = 0; i < nodes; ++i) words[i * kStrideWords] = successor[i] * kStrideWords;
}

}  // namespace

void run_latency_suite(RunContext& context) {
  const Deadline deadline = context.suite_deadline(kLatencyBudget_s);
  Experiment experiment;
  experiment.name = "latency.pointer_chase";
  experiment.kind = "latency";
  run_experiment(context, std::move(experiment), [&](Experiment& e) {
    const std::size_t l2 = context.device.l2_bytes;
    const std::size_t max_bytes = std::min(4 * std::max<std::size_t>(l2, kMinFootprintBytes),
                                           free_device_memory_bytes() / 4);
    const std::vector<std::size_t> sizes = footprints(max_bytes);
    HWCAL_REQUIRE(!sizes.empty(), "no footprint fits in device memory");
    const std::size_t max_nodes = sizes.back() / kNodeStrideBytes;
    HWCAL_REQUIRE(max_nodes * kStrideWords < 0xffffffffull, "footprint too large for 32-bit word indices");
    e.params["threads"] = 1;
    e.params["node_stride_bytes"] = kNodeStrideBytes;
    e.params["steps_per_run"] = kSteps;
    e.params["runs_per_footprint"] = kRunsPerSize;
    e.params["load"] = "ld.global.cg (L2, not L1)";
    e.params["warm_pass"] = "parallel read of every node before timing";
    e.params["start"] = "random node per footprint; each later run continues where the previous one stopped";
    e.params["timing"] = "%globaltimer around the chase loop in the kernel";
    e.params["seed"] = kSeed;
    e.params["l2_cache_bytes"] = l2;
    e.params["footprints_bytes"] = Json(sizes);

    std::vector<unsigned> host_words(max_nodes * kStrideWords, 0u);
    DeviceBuffer<unsigned> words(max_nodes * kStrideWords);
    DeviceBuffer<unsigned> sink(1);
    DeviceBuffer<unsigned> cursor(1);  // the word the chase is at; each run continues from the last one's end
    DeviceBuffer<unsigned long long> elapsed(1);
    std::mt19937_64 random(kSeed);
    Json points = Json::array();
    for (const std::size_t footprint : sizes) {
      if (deadline.expired()) {
        e.truncated = true;
        break;
      }
      const std::size_t nodes = footprint / kNodeStrideBytes;
      build_chase(host_words, nodes, random);
      HWCAL_CUDA(cudaMemcpy(words.get(), host_words.data(), nodes * kNodeStrideBytes, cudaMemcpyHostToDevice));
      HWCAL_CUDA(launch_touch_nodes(words.get(), nodes, kStrideWords, sink.get(), nullptr));
      // Start at a random node; runs 2 and 3 go on from where the previous one stopped, so with nodes >= runs x
      // steps every run visits new nodes (a fixed start would have runs 2-3 re-read what run 1 left in L2). With
      // fewer nodes (below 12 MiB) a run laps the cycle: its revisits were read a whole footprint earlier.
      const unsigned start_word = static_cast<unsigned>(random() % nodes) * kStrideWords;
      HWCAL_CUDA(cudaMemcpy(cursor.get(), &start_word, sizeof(start_word), cudaMemcpyHostToDevice));
      std::vector<double> latencies;
      for (unsigned run = 0; run < kRunsPerSize; ++run) {
        HWCAL_CUDA(launch_pointer_chase(words.get(), kSteps, cursor.get(), elapsed.get(), nullptr));
        const double seconds = static_cast<double>(elapsed.download(1)[0]) * 1e-9;
        Json repeat = Json::object();
        repeat["footprint_bytes"] = footprint;
        repeat["nodes"] = nodes;
        repeat["steps"] = kSteps;
        repeat["time_s"] = seconds;
        repeat["latency_s"] = seconds / kSteps;
        e.repeats.push_back(repeat);
        latencies.push_back(seconds / kSteps);
      }
      Json point = Json::object();
      point["footprint_bytes"] = footprint;
      point["latency_s"] = summary_json(latencies);
      points.push_back(point);
    }
    e.summary["points"] = points;
  });
}

}  // namespace vgpusim::hwcal
