// Solo telemetry to GPU work. With T = 1 / throughput, a kernel runs gpu_util x T of each unit and the host the
// rest. While a kernel runs, the memory side is busy mem_util / gpu_util of the time (dram_active / gpu_util when
// DCGM gives it) and the kernels occupy sm_active / gpu_util of the SMs (all of them when not given). The unit's
// kernel is built so that the roofline gives back exactly that kernel time on the measured GPU: its compute side
// takes the whole kernel time at that SM fill (less what a partial compute/memory overlap adds), its memory side the
// busy share of it at full bandwidth.
#include "models/workload/telemetry.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <string_view>

namespace vgpusim {
namespace {
bool given(double v) { return v >= 0; }
}  // namespace

std::vector<std::pair<std::string, std::string>> telemetry_problems(const SoloTelemetry& t) {
  std::vector<std::pair<std::string, std::string>> out;
  if (!(t.throughput > 0)) out.emplace_back("throughput", "expected a positive rate (units of work per second)");
  const std::pair<const char*, double> shares[] = {{"gpu_util", t.gpu_util},         {"mem_util", t.mem_util},
                                                   {"sm_active", t.sm_active},       {"sm_occupancy", t.sm_occupancy},
                                                   {"dram_active", t.dram_active}};
  for (const auto& [name, v] : shares) {
    if (v > 1.0 + 1e-12) out.emplace_back(name, fmt::format("{:g}% is over 100%", v * 100));
    // gpu_util and mem_util are always given; the optional ones are negative when not given (set by code only).
    const bool optional = std::string_view(name) != "gpu_util" && std::string_view(name) != "mem_util";
    if (!optional && v < 0) out.emplace_back(name, fmt::format("{:g}% is below 0%", v * 100));
  }
  if (!(t.gpu_util > 0) && t.throughput > 0)
    out.emplace_back("gpu_util", "0% with a positive throughput: the job would do no GPU work (give the share of time "
                                 "a kernel runs, nvidia-smi utilization.gpu)");
  if (t.gpu_util > 0 && t.mem_util > t.gpu_util + 1e-12)
    out.emplace_back("mem_util", fmt::format("{:g}% is above gpu_util {:g}%: memory busy while no kernel runs means "
                                             "copies, which this workload does not model",
                                             t.mem_util * 100, t.gpu_util * 100));
  if (given(t.sm_active) && t.gpu_util > 0 && t.sm_active > t.gpu_util + 1e-12)
    out.emplace_back("sm_active", fmt::format("{:g}% is above gpu_util {:g}%: SMs cannot be active while no kernel runs",
                                              t.sm_active * 100, t.gpu_util * 100));
  if (given(t.sm_active) && !(t.sm_active > 0) && t.gpu_util > 0)
    out.emplace_back("sm_active", "0% while kernels run: expected a positive share");
  if (given(t.dram_active) && t.gpu_util > 0 && t.dram_active > t.gpu_util + 1e-12)
    out.emplace_back("dram_active", fmt::format("{:g}% is above gpu_util {:g}%: DRAM busy while no kernel runs means "
                                                "copies, which this workload does not model",
                                                t.dram_active * 100, t.gpu_util * 100));
  if (t.kernels_per_unit < 1) out.emplace_back("kernels_per_unit", "expected at least 1");
  return out;
}

TelemetryWork telemetry_work(const SoloTelemetry& t, const GpuSpec& gpu, const RooflineParams& roofline) {
  const auto problems = telemetry_problems(t);
  if (!problems.empty()) throw std::invalid_argument(problems.front().first + ": " + problems.front().second);
  TelemetryWork w;
  const double period = 1.0 / t.throughput;
  w.gpu_time = std::min(1.0, t.gpu_util) * period;
  w.host_time = period - w.gpu_time;
  const double busy = given(t.dram_active) ? t.dram_active : t.mem_util;
  w.memory_share = std::clamp(busy / t.gpu_util, 0.0, 1.0);
  w.sm_fill = given(t.sm_active) ? std::clamp(t.sm_active / t.gpu_util, 1e-3, 1.0) : 1.0;
  // The compute side at this fill takes the whole kernel time; the memory side takes its busy share of it.
  const double blocks = w.sm_fill < 1.0 ? w.sm_fill * gpu.compute_units : 0.0;
  // The unit's kernels each take the launch overhead; the rest of the GPU time is work.
  const double kernels = std::max(1, t.kernels_per_unit);
  w.unit = kernel_from_duration(w.gpu_time, gpu, t.precision, blocks, roofline, kernels);
  if (w.memory_share > 0) {
    w.unit.bytes = w.memory_share * kernel_work_time(w.gpu_time, kernels, roofline) * gpu.memory_bandwidth *
                   roofline.memory_efficiency;
    // With partial overlap the memory side adds (1 - overlap) of the shorter side: the compute side shrinks so
    // that the kernel still takes its measured time (longer + (1 - o) shorter = work time).
    const double o = roofline.overlap, s = w.memory_share;
    if (o < 1) {
      const double compute = s <= 1 / (2 - o) ? 1 - (1 - o) * s : (1 - s) / (1 - o);
      w.unit.flops_fp16 *= compute;
      w.unit.flops_fp32 *= compute;
      w.unit.flops_fp64 *= compute;
    }
  }
  return w;
}

std::shared_ptr<MeasuredWorkload> measured_workload(const SoloTelemetry& t, const GpuSpec& measured_on,
                                                    const RooflineParams& roofline, long long units) {
  auto m = std::make_shared<MeasuredWorkload>();
  m->telemetry = t;
  m->measured_on = measured_on.name;
  const TelemetryWork w = telemetry_work(t, measured_on, roofline);
  m->body.iterations = units;
  m->body.step = w.unit;
  m->body.kernels_per_step = t.kernels_per_unit;
  m->body.host_time = Distribution::constant(w.host_time);
  return m;
}

}  // namespace vgpusim
