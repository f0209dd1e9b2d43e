// Co-run workloads: compute-bound (FMA chains), memory-bound (triad) and mixed, each a sequence of kernel launches,
// sized once so a solo run on the whole GPU takes ~60 ms, and timed on the GPU by their first and last block.
#pragma once

#include <cuda_runtime_api.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "hwcal/device_kernels.hpp"
#include "hwcal/experiment.hpp"
#include "hwcal/json.hpp"

namespace vgpusim::hwcal {

enum class WorkloadKind { compute, memory, mixed };
inline constexpr std::array<WorkloadKind, 3> kWorkloadKinds{WorkloadKind::compute, WorkloadKind::memory,
                                                            WorkloadKind::mixed};
const char* workload_name(WorkloadKind kind);
std::optional<WorkloadKind> parse_workload_kind(std::string_view text);

struct WorkloadSpec {
  WorkloadKind kind = WorkloadKind::compute;
  unsigned launches = 1;            // kernels per run, back to back on one stream
  unsigned blocks = 0;              // per launch; for memory/mixed one tile per block
  unsigned threads_per_block = 256;
  unsigned iterations = 0;          // compute: FMA iterations per chain per launch
  std::size_t elements = 0;         // memory/mixed: floats per array (3 arrays)
};

double workload_flops(const WorkloadSpec& spec);  // per run (all launches)
double workload_bytes(const WorkloadSpec& spec);  // DRAM bytes read + written per run, counted as the kernels ask
Json workload_json(const WorkloadSpec& spec);
std::string encode_workload(const WorkloadSpec& spec);  // "kind:launches:blocks:threads:iterations:elements"
WorkloadSpec decode_workload(std::string_view text);    // throws HwcalError

// Device memory one slot (stream, green context or process) runs its workloads in.
struct SlotBuffers {
  DeviceBuffer<float> a, b, target;  // capacity_elements each
  DeviceBuffer<float> sink;
  DeviceBuffer<DeviceSpan> span;
  std::size_t capacity_elements = 0;
};
SlotBuffers allocate_slot(std::size_t capacity_elements, unsigned seed);

// Resets the slot's span, then enqueues all launches of the workload on the stream.
void enqueue_workload(const WorkloadSpec& spec, SlotBuffers& slot, cudaStream_t stream);

struct SlotTiming {
  double device_s = 0;                // last block end - first block start (%globaltimer)
  double host_s = 0;                  // first launch call -> completion seen by the host
  std::uint64_t device_start_ns = 0;  // %globaltimer
  std::uint64_t device_end_ns = 0;
  std::int64_t host_start_ns = 0;     // CLOCK_MONOTONIC
  std::int64_t host_end_ns = 0;
};

DeviceSpan read_span(const SlotBuffers& slot);
// Runs one workload alone on `stream` and waits for it (timeout_s bounds the wait).
SlotTiming run_alone(const WorkloadSpec& spec, SlotBuffers& slot, cudaStream_t stream, double timeout_s);
// Launches both workloads interleaved, polls both streams, records when each finished.
std::array<SlotTiming, 2> run_together(const std::array<const WorkloadSpec*, 2>& specs,
                                       const std::array<SlotBuffers*, 2>& slots,
                                       const std::array<cudaStream_t, 2>& streams, double timeout_s);

// Sizes a workload so one run alone on the whole GPU takes about target_s.
struct WorkloadLimits {
  unsigned sm_count = 0;
  std::size_t memory_elements = 0;  // triad arrays: >> L2
  std::size_t mixed_elements = 0;
};
WorkloadSpec calibrate_workload(WorkloadKind kind, const WorkloadLimits& limits, SlotBuffers& slot,
                                cudaStream_t stream, double target_s);

}  // namespace vgpusim::hwcal
