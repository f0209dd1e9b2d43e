// telemetry.util_duty: what nvidia-smi's utilization.gpu says of a process whose kernels hold a known share of its
// run. vgpusim reads a job's solo utilization.gpu as its kernels' share of the step (the `measured` workload,
// docs/models/telemetry-workload.md) and scales it by measured.busy_per_util; this measures that factor on the GPU.
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "hwcal/environment.hpp"
#include "hwcal/nvml.hpp"
#include "hwcal/suites.hpp"
#include "hwcal/telemetry_analysis.hpp"
#include "hwcal/timeslice_probe.hpp"

namespace vgpusim::hwcal {
namespace {

constexpr double kPoint_s = 2.0;            // each point's run
constexpr double kNvmlSettle_s = 1.0;       // reads before this are left out: NVML's period may reach back 1 s
constexpr double kSampleInterval_s = 0.02;  // how often NVML is read
// Kernel lengths (a small training op, a large one, a long kernel) and the share of the run they hold.
constexpr double kKernels_s[] = {20e-6, 200e-6, 2e-3};
constexpr double kDuties[] = {0.25, 0.5, 0.8};

double now_s() { return static_cast<double>(monotonic_ns()) * 1e-9; }

// Stops and joins the NVML reader when the point's run ends, an exception included.
struct StopOnExit {
  std::atomic<bool>& stop;
  std::thread& reader;
  ~StopOnExit() {
    stop = true;
    reader.join();
  }
};

}  // namespace

// One process, kernels of fma_chain with one block per SM (they hold the whole GPU while they run), each waited
// for before a host spin of kernel x (1 - duty) / duty; NVML read every 20 ms by a second thread. Per point: the
// kernels' share of the run (launches x their back-to-back time over the run) against NVML's mean over the
// point's last second.
void run_telemetry_suite(RunContext& context) {
  const Deadline deadline = context.suite_deadline(kTelemetryBudget_s);
  Experiment experiment;
  experiment.name = "telemetry.util_duty";
  experiment.kind = "telemetry";
  run_experiment(context, std::move(experiment), [&](Experiment& e) {
    const NvmlUtilization nvml(pci_bus_id(context.device.ordinal));
    if (!nvml.available()) {
      e.skipped = "NVML utilization not readable: " + nvml.error();
      return;
    }
    LaunchShape shape;
    shape.blocks = context.device.sm_count;
    shape.threads_per_block = kPacedThreads;
    DeviceBuffer<float> sink(1);
    e.params["blocks"] = shape.blocks;
    e.params["threads_per_block"] = shape.threads_per_block;
    e.params["kernel"] = "fp32_fma_chain";
    e.params["point_s"] = kPoint_s;
    e.params["settle_s"] = kNvmlSettle_s;
    e.params["sample_interval_s"] = kSampleInterval_s;
    Json points = Json::array();
    std::vector<UtilDutyOutcome> outcomes;
    for (const double target_s : kKernels_s) {
      const unsigned iterations = calibrate_iterations(shape, sink.get(), target_s);
      constexpr unsigned kBackToBack = 20;
      const double kernel_s = time_with_events_s(nullptr,
                                                 [&] {
                                                   for (unsigned i = 0; i < kBackToBack; ++i)
                                                     HWCAL_CUDA(launch_fma_chain(sink.get(), iterations, shape,
                                                                                 nullptr));
                                                 }) /
                              kBackToBack;
      for (const double duty : kDuties) {
        if (deadline.remaining_s() < kPoint_s + 0.5) {
          e.truncated = true;
          break;
        }
        const double gap_s = kernel_s * (1 - duty) / duty;
        std::vector<UtilSample> samples;
        std::atomic<bool> stop{false};
        const double start_s = now_s();
        std::thread sampler([&] {
          while (!stop.load()) {
            UtilSample s;
            if (nvml.read(s.gpu, s.memory)) {
              s.t_s = now_s() - start_s;
              samples.push_back(s);
            }
            std::this_thread::sleep_for(std::chrono::duration<double>(kSampleInterval_s));
          }
        });
        unsigned launches = 0;
        double wall_s = 0;
        {
          const StopOnExit stop_sampler{stop, sampler};
          while (now_s() - start_s < kPoint_s) {
            HWCAL_CUDA(launch_fma_chain(sink.get(), iterations, shape, nullptr));
            HWCAL_CUDA(cudaStreamSynchronize(nullptr));
            ++launches;
            const double until_s = now_s() + gap_s;
            while (now_s() < until_s) {
            }
          }
          wall_s = now_s() - start_s;
        }
        const UtilDutyOutcome o = util_duty_outcome(launches, kernel_s, wall_s, samples, kNvmlSettle_s);
        outcomes.push_back(o);
        Json p = Json::object();
        p["kernel_s"] = kernel_s;
        p["duty_target"] = duty;
        p["host_gap_s"] = gap_s;
        p["launches"] = launches;
        p["wall_s"] = wall_s;
        p["busy_share"] = o.busy_share;
        p["nvml_gpu_util"] = o.nvml_gpu;
        p["nvml_memory_util"] = o.nvml_memory;
        p["samples"] = static_cast<unsigned>(o.samples);
        p["busy_per_util"] = o.busy_per_util;
        points.push_back(p);
      }
      if (e.truncated) break;
    }
    e.summary["points"] = points;
    e.summary["busy_per_util"] = busy_per_util_of(outcomes);
  });
}

}  // namespace vgpusim::hwcal
