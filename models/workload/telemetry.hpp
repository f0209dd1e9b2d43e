// A job described by what it shows running alone on one GPU: its throughput and the utilization nvidia-smi or
// DCGM report. The model turns that into per-unit GPU work (a kernel with a compute/memory mix and an SM fill)
// plus host time, on the GPU it was measured on, so that it replays on any GPU, partition or sharing mode
// (docs/models/telemetry-workload.md).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "models/gpu/roofline.hpp"
#include "models/workload/workload.hpp"

namespace vgpusim {

struct SoloTelemetry {
  double throughput = 0;     // units of work per second, alone
  double gpu_util = 0;       // share of time a kernel runs: nvidia-smi utilization.gpu, DCGM_FI_DEV_GPU_UTIL
  double mem_util = 0;       // share of time device memory is read or written: nvidia-smi utilization.memory,
                             // DCGM_FI_DEV_MEM_COPY_UTIL
  double memory = 0;         // bytes of device memory used (nvidia-smi memory.used, DCGM_FI_DEV_FB_USED)
  double sm_active = -1;     // DCGM_FI_PROF_SM_ACTIVE: share of cycles an SM has a warp resident; < 0 = not given
  double sm_occupancy = -1;  // DCGM_FI_PROF_SM_OCCUPANCY; < 0 = not given (recorded, not used by the model)
  double dram_active = -1;   // DCGM_FI_PROF_DRAM_ACTIVE: share of cycles DRAM is busy; < 0 = not given
  int kernels_per_unit = 1;
  KernelBound precision = KernelBound::FP32;  // the pipes its compute runs on
};

// What is missing or contradictory, as (field, message) pairs; empty when the telemetry describes a job.
std::vector<std::pair<std::string, std::string>> telemetry_problems(const SoloTelemetry& t);

// Per unit of work: the GPU work (whole unit), its GPU time and host time on the GPU it was measured on.
struct TelemetryWork {
  KernelSpec unit;        // GPU work of one unit
  double gpu_time = 0;    // s per unit with a kernel running, alone on the measured GPU
  double host_time = 0;   // s per unit with no kernel running
  double memory_share = 0;  // share of the kernel time the memory side takes
  double sm_fill = 1;       // share of the SMs its kernels occupy
};
// `measured_on` is the GPU it was measured on and `roofline` that GPU's roofline parameters. The telemetry must
// have no problems (throws std::invalid_argument otherwise).
TelemetryWork telemetry_work(const SoloTelemetry& t, const GpuSpec& measured_on, const RooflineParams& roofline);

// A job described by its solo telemetry, played as iterations of host time then GPU work.
struct MeasuredWorkload final : WorkloadSpec {
  SoloTelemetry telemetry;
  std::string measured_on;  // catalog GPU
  TrainingWorkload body;    // what it plays

  std::string kind() const override { return "measured"; }
  std::string unit() const override { return "units"; }
  bool bounded() const override { return body.bounded(); }
  double device_memory() const override { return telemetry.memory; }
  std::unique_ptr<Workload> play(Fidelity fidelity, uint64_t seed) const override { return body.play(fidelity, seed); }
};

// The workload for `units` units (-1: until the scenario ends).
std::shared_ptr<MeasuredWorkload> measured_workload(const SoloTelemetry& t, const GpuSpec& measured_on,
                                                    const RooflineParams& roofline, long long units);

}  // namespace vgpusim
