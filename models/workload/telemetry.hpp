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
  int kernels_per_unit = 1;  // 0: from the GPU time per unit and TelemetryMapping::kernel_time
  KernelBound precision = KernelBound::FP32;  // the pipes its compute runs on
};

// How telemetry becomes a host program (the `measured` model's parameters). A unit's GPU time g = busy_per_util x
// gpu_util ^ busy_exponent x T is `kernels` kernels of g / kernels each (g / kernel_time of them unless the job says),
// launched launch_cost apart by a host that runs ahead of the GPU and waits for them syncs_per_unit times; the rest of
// its time is one host phase (data loading, the optimizer), so that alone the unit takes T again.
struct TelemetryMapping {
  double kernel_time;       // s, a kernel's mean time where the job does not give its kernels per unit
  double launch_cost;       // s of host time per launch (the framework's dispatch)
  double busy_per_util;     // exclusive kernel time per unit of nvidia-smi busy time
  double busy_exponent;     // the exclusive share is busy_per_util x gpu_util ^ busy_exponent
  int syncs_per_unit;       // the host's synchronisations per unit (the last at its end)
  double gap_cv;            // coefficient of variation of a launch's host time beyond the kernel's
  double host_overlap;      // share of the host phase that runs after the launches, beside the GPU's work

  static const ParamTable<TelemetryMapping>& table();
};
std::vector<ParamSpec> telemetry_params();
std::string telemetry_description();
// The shipped mapping for a gpu_util that is a busy share itself rather than nvidia-smi's sampled utilization.gpu
// (a share fitted to measurements, or DCGM's GR_ENGINE_ACTIVE cycle ratio): busy_exponent 1, nothing overstated.
TelemetryMapping busy_share_mapping();

// What is missing or contradictory, as (field, message) pairs; empty when the telemetry describes a job.
std::vector<std::pair<std::string, std::string>> telemetry_problems(const SoloTelemetry& t);

// Per unit of work: the GPU work (whole unit), its GPU time and host time on the GPU it was measured on.
struct TelemetryWork {
  KernelSpec unit;        // GPU work of one unit
  double gpu_time = 0;    // s per unit with a kernel running, alone on the measured GPU
  double host_time = 0;   // s per unit with no kernel running
  double memory_share = 0;  // share of the kernel time the memory side takes
  double sm_fill = 1;       // share of the SMs its kernels occupy
  int kernels = 1;          // kernels per unit
  int syncs = 1;            // segments per unit, each ending with a synchronisation
  double host_phase = 0;    // s of the host time before the unit's segments (spread over them)
  double launch_cost = 0;   // s of host time per launch (the rest of the host time)
  double host_overlap = 0;  // share of host_phase after the launches, while the GPU works on them
};
// `measured_on` is the GPU it was measured on and `roofline` that GPU's roofline parameters. The telemetry must
// have no problems (throws std::invalid_argument otherwise).
TelemetryWork telemetry_work(const SoloTelemetry& t, const GpuSpec& measured_on, const RooflineParams& roofline,
                             const TelemetryMapping& mapping = TelemetryMapping::table().defaults());

// A job described by its solo telemetry, played as iterations of host time then GPU work.
struct MeasuredWorkload final : WorkloadSpec {
  SoloTelemetry telemetry;
  std::string measured_on;  // catalog GPU
  TrainingWorkload body;    // what it plays

  std::string kind() const override { return "measured"; }
  std::string description() const override { return "telemetry"; }
  std::string unit() const override { return "units"; }
  bool bounded() const override { return body.bounded(); }
  double device_memory() const override { return telemetry.memory; }
  std::shared_ptr<const WorkloadSpec> with_host_scale(double factor) const override {
    auto w = std::make_shared<MeasuredWorkload>(*this);
    w->body = *std::static_pointer_cast<const TrainingWorkload>(body.with_host_scale(factor));
    return w;
  }
  std::unique_ptr<Workload> play(Fidelity fidelity, uint64_t seed) const override { return body.play(fidelity, seed); }
  bool seeded() const override { return body.seeded(); }
};

// The workload for `units` units (-1: until the scenario ends).
std::shared_ptr<MeasuredWorkload> measured_workload(const SoloTelemetry& t, const GpuSpec& measured_on,
                                                    const RooflineParams& roofline, long long units,
                                                    const TelemetryMapping& mapping = TelemetryMapping::table().defaults());

// One solo profile of a job at one batch size (same model, data and precision at each).
struct BatchProfile {
  double batch = 0;       // samples per unit
  double throughput = 0;  // units per second, alone
  double gpu_util = 0;    // nvidia-smi utilization.gpu as a fraction
};
// The share of the job's host time per unit at `batch` that grows in proportion to the batch: its input pipeline
// (loading, decoding, per-sample transforms and collation), which PyTorch's DataLoader runs ahead of the training
// loop, beside the GPU. The host time per unit h = (1 - gpu_util) / throughput of each profile is fitted with a
// line a + b x batch (least squares); the share is b x batch / (a + b x batch), clamped to 0..1. 0 with fewer than
// two distinct batch sizes or no host time at `batch`. Usable as TelemetryMapping::host_overlap.
double input_pipeline_share(const std::vector<BatchProfile>& profiles, double batch);

}  // namespace vgpusim
