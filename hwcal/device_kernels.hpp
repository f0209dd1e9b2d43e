// Host-side interface to the calibration kernels in device_kernels.cu (plain C++: no CUDA syntax here).
// Every launcher returns cudaGetLastError() so callers check it with HWCAL_CUDA.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace vgpusim::hwcal {

// Earliest block start and latest block end of the kernels that share it, in %globaltimer ns
// (one GPU-wide clock, so spans from different streams, contexts and processes compare directly).
struct DeviceSpan {
  unsigned long long start_ns;
  unsigned long long end_ns;
};

// One stall seen by the time-slice probe: the timer jumped from `from_ns` to `to_ns` between two reads.
struct TimesliceGap {
  unsigned long long from_ns;
  unsigned long long to_ns;
  unsigned block;
  unsigned smid;
};

struct TimesliceProbeBuffers {
  TimesliceGap* gaps;                  // capacity entries
  unsigned capacity;
  unsigned* gap_count;                 // may exceed capacity: the overflow is reported, not written
  unsigned long long* block_start_ns;  // one per block
  unsigned long long* block_end_ns;
  unsigned long long* block_reads;     // timer reads per block (the loop count)
  unsigned* block_capped;              // 1 where the block stopped at the iteration cap, not after its duration
};

struct TimerResolution {
  unsigned long long reads;         // timer reads in the window
  unsigned long long changes;       // reads that differed from the previous read
  unsigned long long min_delta_ns;  // smallest non-zero step
  unsigned long long first_ns;
  unsigned long long last_change_ns;
  unsigned long long capped;        // 1: stopped at the iteration cap, not after the window
};

// How a kernel is launched. blocks = 0 means one tile per block (the grid covers the data once).
struct LaunchShape {
  unsigned blocks = 0;
  unsigned threads_per_block = 256;
  std::size_t dynamic_shared_bytes = 0;  // used only to limit residency (one block per SM)
  unsigned* block_smids = nullptr;       // optional: %smid of each block
  DeviceSpan* span = nullptr;            // optional: start/end times, min/max over blocks
};

// Elements handled by one block per tile: threads_per_block x 4 float4.
constexpr unsigned kStreamUnroll = 4;
constexpr unsigned kFmaIlp = 8;             // independent FMA chains per thread
constexpr unsigned kFmaUnroll = 16;         // iterations must be a multiple of this
constexpr unsigned kMixedFmasPerElement = 96;  // ~ the H100/H200 FP32-to-DRAM ridge: 194 FLOP per 12 bytes

std::size_t stream_tiles(std::size_t elements, unsigned threads_per_block);

// target = source. elements must be a multiple of 4, pointers 16-byte aligned.
cudaError_t launch_copy(const float* source, float* target, std::size_t elements, const LaunchShape& shape,
                        cudaStream_t stream);
// target = a + scalar * b
cudaError_t launch_triad(float* target, const float* a, const float* b, float scalar, std::size_t elements,
                         const LaunchShape& shape, cudaStream_t stream);
// target = chain of kMixedFmasPerElement FMAs applied to (a + scalar * b)
cudaError_t launch_mixed(float* target, const float* a, const float* b, float scalar, std::size_t elements,
                         const LaunchShape& shape, cudaStream_t stream);
// kFmaIlp dependent FMA chains of `iterations` each per thread; needs shape.blocks > 0.
cudaError_t launch_fma_chain(float* sink, unsigned iterations, const LaunchShape& shape, cudaStream_t stream);
cudaError_t launch_reset_span(DeviceSpan* span, cudaStream_t stream);
cudaError_t launch_fill_uniform(float* data, std::size_t count, unsigned seed, float low, float high,
                                cudaStream_t stream);
// bf16 values uniform in [-1, 1); `data` points to __nv_bfloat16.
cudaError_t launch_fill_uniform_bf16(void* data, std::size_t count, unsigned seed, cudaStream_t stream);

// One thread follows next_word[] from word *cursor for `steps` loads (ld.global.cg: L2, not L1), then stores the
// word it reached in *cursor, so the next run continues from there.
cudaError_t launch_pointer_chase(const unsigned* next_word, unsigned steps, unsigned* cursor,
                                 unsigned long long* elapsed_ns, cudaStream_t stream);
// Reads word i * stride_words for i < nodes, to pull a chase array into L2 before timing.
cudaError_t launch_touch_nodes(const unsigned* words, std::size_t nodes, unsigned stride_words, unsigned* sink,
                               cudaStream_t stream);

cudaError_t launch_empty(unsigned blocks, unsigned threads_per_block, cudaStream_t stream);
cudaError_t launch_timer_resolution(unsigned long long duration_ns, TimerResolution* out, cudaStream_t stream);
// blocks x 1 thread, each spinning on %globaltimer for duration_ns from its own first read.
cudaError_t launch_timeslice_probe(unsigned blocks, unsigned long long duration_ns, unsigned long long threshold_ns,
                                   const TimesliceProbeBuffers& buffers, cudaStream_t stream);
// Each block writes its %smid and holds its SM for spin_ns, so the blocks spread over all SMs it may use.
cudaError_t launch_smid_probe(unsigned blocks, unsigned long long spin_ns, unsigned* block_smids,
                              cudaStream_t stream);

// Kernels run with one block per SM in the scaling experiments.
enum class ScalingKernel { triad, fma_chain };
cudaError_t allow_dynamic_shared(ScalingKernel kernel, std::size_t bytes);
cudaError_t max_blocks_per_sm(ScalingKernel kernel, unsigned threads_per_block, std::size_t dynamic_shared_bytes,
                              int* blocks);

}  // namespace vgpusim::hwcal
