// Co-run workloads: compute-bound (FMA chains), memory-bound (triad) and mixed, each a sequence of kernel launches.
// A sequence (not one long kernel) is what real jobs submit, and lets a partition's SMs pick up blocks as they free.
#include "hwcal/workloads.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <thread>
#include <vector>

namespace vgpusim::hwcal {
namespace {

constexpr float kTriadScalar = 0.5f;
constexpr unsigned kComputeBlocksPerSm = 32;     // 4 waves at 8 resident blocks per SM: fine grain for partitions
constexpr double kComputeLaunchTarget_s = 3e-3;  // one FMA launch; the run is many of them
constexpr unsigned kComputeTrialIterations = 1024;

void enqueue_launch(const WorkloadSpec& spec, SlotBuffers& slot, cudaStream_t stream) {
  LaunchShape shape;
  shape.threads_per_block = spec.threads_per_block;
  shape.span = slot.span.get();
  switch (spec.kind) {
    case WorkloadKind::compute:
      shape.blocks = spec.blocks;
      HWCAL_CUDA(launch_fma_chain(slot.sink.get(), spec.iterations, shape, stream));
      break;
    case WorkloadKind::memory:
      HWCAL_CUDA(launch_triad(slot.target.get(), slot.a.get(), slot.b.get(), kTriadScalar, spec.elements, shape,
                              stream));
      break;
    case WorkloadKind::mixed:
      HWCAL_CUDA(launch_mixed(slot.target.get(), slot.a.get(), slot.b.get(), kTriadScalar, spec.elements, shape,
                              stream));
      break;
  }
}

// Polls until the stream is idle; the host sees completion within a few microseconds.
std::int64_t wait_for_stream(cudaStream_t stream, std::int64_t deadline_ns) {
  while (true) {
    const cudaError_t status = cudaStreamQuery(stream);
    if (status == cudaSuccess) return monotonic_ns();
    if (status != cudaErrorNotReady) HWCAL_CUDA(status);
    if (monotonic_ns() > deadline_ns) throw HwcalError("a co-run workload did not finish in time");
    std::this_thread::yield();
  }
}

SlotTiming timing_from(const DeviceSpan& span, std::int64_t host_start_ns, std::int64_t host_end_ns) {
  SlotTiming out;
  out.device_start_ns = span.start_ns;
  out.device_end_ns = span.end_ns;
  out.device_s = static_cast<double>(span.end_ns - span.start_ns) * 1e-9;
  out.host_start_ns = host_start_ns;
  out.host_end_ns = host_end_ns;
  out.host_s = static_cast<double>(host_end_ns - host_start_ns) * 1e-9;
  return out;
}

}  // namespace

const char* workload_name(WorkloadKind kind) {
  switch (kind) {
    case WorkloadKind::compute: return "compute";
    case WorkloadKind::memory: return "memory";
    case WorkloadKind::mixed: return "mixed";
  }
  return "unknown";
}

std::optional<WorkloadKind> parse_workload_kind(std::string_view text) {
  for (const WorkloadKind kind : kWorkloadKinds) {
    if (text == workload_name(kind)) return kind;
  }
  return std::nullopt;
}

double workload_flops(const WorkloadSpec& spec) {
  const double launches = spec.launches;
  switch (spec.kind) {
    case WorkloadKind::compute:
      return launches * spec.blocks * spec.threads_per_block * 2.0 * kFmaIlp * spec.iterations;
    case WorkloadKind::memory: return launches * static_cast<double>(spec.elements) * 2.0;
    case WorkloadKind::mixed:
      return launches * static_cast<double>(spec.elements) * (2.0 + 2.0 * kMixedFmasPerElement);
  }
  return 0;
}

double workload_bytes(const WorkloadSpec& spec) {
  if (spec.kind == WorkloadKind::compute) return 0;
  return static_cast<double>(spec.launches) * static_cast<double>(spec.elements) * 3.0 * sizeof(float);
}

Json workload_json(const WorkloadSpec& spec) {
  Json out = Json::object();
  out["kind"] = workload_name(spec.kind);
  out["kernel"] = spec.kind == WorkloadKind::compute ? "fp32_fma_chain"
                    : spec.kind == WorkloadKind::memory ? "triad"
                                                        : "triad_plus_fma_chain";
  out["launches"] = spec.launches;
  out["blocks_per_launch"] = spec.blocks;
  out["threads_per_block"] = spec.threads_per_block;
  out["iterations_per_thread"] = spec.kind == WorkloadKind::compute ? Json(spec.iterations) : Json();
  out["elements_per_array"] = spec.kind == WorkloadKind::compute ? Json() : Json(spec.elements);
  out["flops"] = workload_flops(spec);
  out["bytes"] = workload_bytes(spec);
  return out;
}

std::string encode_workload(const WorkloadSpec& spec) {
  return std::string(workload_name(spec.kind)) + ":" + std::to_string(spec.launches) + ":" +
         std::to_string(spec.blocks) + ":" + std::to_string(spec.threads_per_block) + ":" +
         std::to_string(spec.iterations) + ":" + std::to_string(spec.elements);
}

WorkloadSpec decode_workload(std::string_view text) {
  std::vector<std::string> fields;
  std::stringstream stream{std::string(text)};
  std::string field;
  while (std::getline(stream, field, ':')) fields.push_back(field);
  const auto kind = fields.empty() ? std::nullopt : parse_workload_kind(fields[0]);
  if (fields.size() != 6 || !kind) throw HwcalError("bad workload spec '" + std::string(text) + "'");
  WorkloadSpec spec;
  spec.kind = *kind;
  try {
    spec.launches = static_cast<unsigned>(std::stoul(fields[1]));
    spec.blocks = static_cast<unsigned>(std::stoul(fields[2]));
    spec.threads_per_block = static_cast<unsigned>(std::stoul(fields[3]));
    spec.iterations = static_cast<unsigned>(std::stoul(fields[4]));
    spec.elements = static_cast<std::size_t>(std::stoull(fields[5]));
  } catch (const std::exception&) {
    throw HwcalError("bad number in workload spec '" + std::string(text) + "'");
  }
  return spec;
}

SlotBuffers allocate_slot(std::size_t capacity_elements, unsigned seed) {
  SlotBuffers slot;
  slot.capacity_elements = capacity_elements;
  slot.a = DeviceBuffer<float>(capacity_elements);
  slot.b = DeviceBuffer<float>(capacity_elements);
  slot.target = DeviceBuffer<float>(capacity_elements);
  slot.sink = DeviceBuffer<float>(1);
  slot.span = DeviceBuffer<DeviceSpan>(1);
  HWCAL_CUDA(launch_fill_uniform(slot.a.get(), capacity_elements, seed, 0.5f, 1.5f, nullptr));
  HWCAL_CUDA(launch_fill_uniform(slot.b.get(), capacity_elements, seed + 1, 0.5f, 1.5f, nullptr));
  slot.target.zero();
  slot.sink.zero();
  HWCAL_CUDA(cudaDeviceSynchronize());
  return slot;
}

void enqueue_workload(const WorkloadSpec& spec, SlotBuffers& slot, cudaStream_t stream) {
  HWCAL_REQUIRE(spec.kind == WorkloadKind::compute || spec.elements <= slot.capacity_elements,
                "workload larger than its slot's buffers");
  HWCAL_CUDA(launch_reset_span(slot.span.get(), stream));
  for (unsigned i = 0; i < spec.launches; ++i) enqueue_launch(spec, slot, stream);
}

DeviceSpan read_span(const SlotBuffers& slot) {
  DeviceSpan span{};
  HWCAL_CUDA(cudaMemcpy(&span, slot.span.get(), sizeof(span), cudaMemcpyDeviceToHost));
  HWCAL_REQUIRE(span.start_ns != ~0ull && span.end_ns >= span.start_ns, "a workload recorded no span");
  return span;
}

SlotTiming run_alone(const WorkloadSpec& spec, SlotBuffers& slot, cudaStream_t stream, double timeout_s) {
  const std::int64_t start_ns = monotonic_ns();
  enqueue_workload(spec, slot, stream);
  const std::int64_t end_ns = wait_for_stream(stream, start_ns + static_cast<std::int64_t>(timeout_s * 1e9));
  return timing_from(read_span(slot), start_ns, end_ns);
}

std::array<SlotTiming, 2> run_together(const std::array<const WorkloadSpec*, 2>& specs,
                                       const std::array<SlotBuffers*, 2>& slots,
                                       const std::array<cudaStream_t, 2>& streams, double timeout_s) {
  for (int k = 0; k < 2; ++k) HWCAL_CUDA(launch_reset_span(slots[k]->span.get(), streams[k]));
  const std::int64_t start_ns = monotonic_ns();
  // Interleave in proportion to each side's launch count, so both start together and stay fed.
  std::array<unsigned, 2> issued{0, 0};
  while (issued[0] < specs[0]->launches || issued[1] < specs[1]->launches) {
    const auto progress_of = [&](int k) {
      return issued[k] >= specs[k]->launches ? 2.0 : (issued[k] + 0.5) / specs[k]->launches;
    };
    const int next = progress_of(0) <= progress_of(1) ? 0 : 1;
    enqueue_launch(*specs[next], *slots[next], streams[next]);
    ++issued[next];
  }
  const std::int64_t deadline_ns = start_ns + static_cast<std::int64_t>(timeout_s * 1e9);
  std::array<std::int64_t, 2> done_ns{0, 0};
  while (done_ns[0] == 0 || done_ns[1] == 0) {
    for (int k = 0; k < 2; ++k) {
      if (done_ns[k] != 0) continue;
      const cudaError_t status = cudaStreamQuery(streams[k]);
      if (status == cudaSuccess) {
        done_ns[k] = monotonic_ns();
      } else if (status != cudaErrorNotReady) {
        HWCAL_CUDA(status);
      }
    }
    if (monotonic_ns() > deadline_ns) throw HwcalError("a co-run pair did not finish in time");
  }
  return {timing_from(read_span(*slots[0]), start_ns, done_ns[0]),
          timing_from(read_span(*slots[1]), start_ns, done_ns[1])};
}

WorkloadSpec calibrate_workload(WorkloadKind kind, const WorkloadLimits& limits, SlotBuffers& slot,
                                cudaStream_t stream, double target_s) {
  constexpr double kTimeout_s = 30;
  WorkloadSpec spec;
  spec.kind = kind;
  spec.threads_per_block = 256;
  spec.launches = 1;
  if (kind == WorkloadKind::compute) {
    spec.blocks = limits.sm_count * kComputeBlocksPerSm;
    spec.iterations = kComputeTrialIterations;
    run_alone(spec, slot, stream, kTimeout_s);  // warm-up: module load, clocks
    const double trial_s = std::max(run_alone(spec, slot, stream, kTimeout_s).device_s, 1e-6);
    const double scaled = kComputeTrialIterations * kComputeLaunchTarget_s / trial_s;
    spec.iterations = static_cast<unsigned>(std::clamp(std::round(scaled / kFmaUnroll), 1.0, 1048576.0)) * kFmaUnroll;
  } else {
    spec.elements = kind == WorkloadKind::memory ? limits.memory_elements : limits.mixed_elements;
    spec.blocks = static_cast<unsigned>(stream_tiles(spec.elements, spec.threads_per_block));
    run_alone(spec, slot, stream, kTimeout_s);
  }
  const double launch_s = std::max(run_alone(spec, slot, stream, kTimeout_s).device_s, 1e-6);
  spec.launches = static_cast<unsigned>(std::clamp(std::round(target_s / launch_s), 1.0, 10000.0));
  // One check of the whole sequence: launch gaps and clock changes can make it differ from n x one launch.
  const double run_s = run_alone(spec, slot, stream, kTimeout_s).device_s;
  if (run_s > 0 && std::abs(run_s / target_s - 1.0) > 0.3) {
    spec.launches = static_cast<unsigned>(std::clamp(std::round(spec.launches * target_s / run_s), 1.0, 10000.0));
  }
  return spec;
}

}  // namespace vgpusim::hwcal
