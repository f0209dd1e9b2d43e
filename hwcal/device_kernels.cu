// The calibration kernels: streaming copy/triad, FMA chains, mixed, pointer chase, launch, time-slice and SM probes.
// Kernels never return early from a subset of threads where a __syncthreads follows (span_end).
#include <cuda_bf16.h>

#include <cstdint>

#include "hwcal/device_kernels.hpp"

namespace vgpusim::hwcal {
namespace {

// Fixed point of acc = acc * kChainMultiplier + kChainAddend is 1.0: values stay normal and positive.
constexpr float kChainMultiplier = 0.9999f;
constexpr float kChainAddend = 1.0e-4f;

__device__ __forceinline__ unsigned long long global_timer_ns() {
  unsigned long long now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  return now;
}

// Iteration cap for loops that spin on %globaltimer, so they end even if that timer stood still. It counts loop
// iterations, not clock64() cycles: clock64 is a per-SM counter, and a block switched out (time-slicing, compute
// preemption) may resume on another SM, where its difference to the start cycle means nothing. One iteration (a
// timer read the loop condition waits on, a compare, a branch) takes well over 1 ns, so one iteration per ns of the
// wanted time never ends a normal loop early; a frozen timer ends it after (iteration time / 1 ns) x that time.
__device__ __forceinline__ unsigned long long iteration_cap(unsigned long long duration_ns) {
  return duration_ns + 1000000ull;
}

__device__ __forceinline__ unsigned sm_id() {
  unsigned id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
}

__device__ __forceinline__ void span_begin(DeviceSpan* span) {
  if (span != nullptr && threadIdx.x == 0) atomicMin(&span->start_ns, global_timer_ns());
}

__device__ __forceinline__ void span_end(DeviceSpan* span) {
  if (span == nullptr) return;
  __syncthreads();  // the block ends when its last thread does
  if (threadIdx.x == 0) atomicMax(&span->end_ns, global_timer_ns());
}

__device__ __forceinline__ void record_smid(unsigned* block_smids) {
  if (block_smids != nullptr && threadIdx.x == 0) block_smids[blockIdx.x] = sm_id();
}

__device__ __forceinline__ float4 axpy4(float4 x, float s, float4 y) {
  return make_float4(x.x + s * y.x, x.y + s * y.y, x.z + s * y.z, x.w + s * y.w);
}

__device__ __forceinline__ float4 chain4(float4 v) {
  v.x = fmaf(v.x, kChainMultiplier, kChainAddend);
  v.y = fmaf(v.y, kChainMultiplier, kChainAddend);
  v.z = fmaf(v.z, kChainMultiplier, kChainAddend);
  v.w = fmaf(v.w, kChainMultiplier, kChainAddend);
  return v;
}

// Tiles of blockDim.x * kStreamUnroll float4; a block loops over tiles blockIdx.x, +gridDim.x, ...
// so the same kernel serves a one-pass grid and a persistent grid of k blocks.
__global__ void copy_kernel(const float4* source, float4* target, std::size_t count4, unsigned* block_smids) {
  record_smid(block_smids);
  const std::size_t tile_size = static_cast<std::size_t>(blockDim.x) * kStreamUnroll;
  const std::size_t tiles = (count4 + tile_size - 1) / tile_size;
  for (std::size_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const std::size_t base = tile * tile_size + threadIdx.x;
    float4 value[kStreamUnroll];
#pragma unroll
    for (unsigned u = 0; u < kStreamUnroll; ++u) {
      const std::size_t i = base + u * blockDim.x;
      value[u] = i < count4 ? source[i] : make_float4(0.f, 0.f, 0.f, 0.f);
    }
#pragma unroll
    for (unsigned u = 0; u < kStreamUnroll; ++u) {
      const std::size_t i = base + u * blockDim.x;
      if (i < count4) target[i] = value[u];
    }
  }
}

__global__ void triad_kernel(float4* target, const float4* a, const float4* b, float scalar, std::size_t count4,
                             unsigned* block_smids, DeviceSpan* span) {
  span_begin(span);
  record_smid(block_smids);
  const std::size_t tile_size = static_cast<std::size_t>(blockDim.x) * kStreamUnroll;
  const std::size_t tiles = (count4 + tile_size - 1) / tile_size;
  for (std::size_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const std::size_t base = tile * tile_size + threadIdx.x;
    float4 left[kStreamUnroll];
    float4 right[kStreamUnroll];
#pragma unroll
    for (unsigned u = 0; u < kStreamUnroll; ++u) {
      const std::size_t i = base + u * blockDim.x;
      const bool inside = i < count4;
      left[u] = inside ? a[i] : make_float4(0.f, 0.f, 0.f, 0.f);
      right[u] = inside ? b[i] : make_float4(0.f, 0.f, 0.f, 0.f);
    }
#pragma unroll
    for (unsigned u = 0; u < kStreamUnroll; ++u) {
      const std::size_t i = base + u * blockDim.x;
      if (i < count4) target[i] = axpy4(left[u], scalar, right[u]);
    }
  }
  span_end(span);
}

__global__ void mixed_kernel(float4* target, const float4* a, const float4* b, float scalar, std::size_t count4,
                             DeviceSpan* span) {
  span_begin(span);
  const std::size_t tile_size = static_cast<std::size_t>(blockDim.x) * kStreamUnroll;
  const std::size_t tiles = (count4 + tile_size - 1) / tile_size;
  for (std::size_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const std::size_t base = tile * tile_size + threadIdx.x;
    float4 value[kStreamUnroll];
#pragma unroll
    for (unsigned u = 0; u < kStreamUnroll; ++u) {
      const std::size_t i = base + u * blockDim.x;
      value[u] = i < count4 ? axpy4(a[i], scalar, b[i]) : make_float4(0.f, 0.f, 0.f, 0.f);
    }
    // 4 x kStreamUnroll independent chains per thread keep the FP32 pipes busy while loads are in flight.
#pragma unroll 8
    for (unsigned f = 0; f < kMixedFmasPerElement; ++f) {
#pragma unroll
      for (unsigned u = 0; u < kStreamUnroll; ++u) value[u] = chain4(value[u]);
    }
#pragma unroll
    for (unsigned u = 0; u < kStreamUnroll; ++u) {
      const std::size_t i = base + u * blockDim.x;
      if (i < count4) target[i] = value[u];
    }
  }
  span_end(span);
}

__global__ void fma_chain_kernel(float* sink, unsigned iterations, unsigned* block_smids, DeviceSpan* span) {
  span_begin(span);
  record_smid(block_smids);
  float acc[kFmaIlp];
#pragma unroll
  for (unsigned j = 0; j < kFmaIlp; ++j) acc[j] = 1.0e-3f * static_cast<float>(threadIdx.x + j);
  for (unsigned i = 0; i < iterations; i += kFmaUnroll) {
#pragma unroll
    for (unsigned u = 0; u < kFmaUnroll; ++u) {
#pragma unroll
      for (unsigned j = 0; j < kFmaIlp; ++j) acc[j] = fmaf(acc[j], kChainMultiplier, kChainAddend);
    }
  }
  float total = 0.f;
#pragma unroll
  for (unsigned j = 0; j < kFmaIlp; ++j) total += acc[j];
  if (total < 0.f) sink[0] = total;  // never true (acc > 0), but the compiler cannot drop the chains
  span_end(span);
}

__global__ void reset_span_kernel(DeviceSpan* span) {
  span->start_ns = ~0ull;
  span->end_ns = 0;
}

__device__ __forceinline__ unsigned hash32(unsigned x) {  // lowbias32 (C. Wellons)
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}

__device__ __forceinline__ float unit_uniform(std::size_t index, unsigned seed) {
  const unsigned mixed = hash32(static_cast<unsigned>(index) ^ hash32(static_cast<unsigned>(index >> 32) + seed));
  return static_cast<float>(mixed >> 8) * (1.0f / 16777216.0f);  // [0, 1) with 24 bits
}

__global__ void fill_uniform_kernel(float* data, std::size_t count, unsigned seed, float low, float high) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride) {
    data[i] = low + (high - low) * unit_uniform(i, seed);
  }
}

__global__ void fill_uniform_bf16_kernel(__nv_bfloat16* data, std::size_t count, unsigned seed) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride) {
    data[i] = __float2bfloat16(2.0f * unit_uniform(i, seed) - 1.0f);
  }
}

// Starts where *cursor says and leaves it where it stopped: consecutive runs walk on along the cycle (to nodes not
// visited yet while the cycle is at least runs x steps long), instead of revisiting (now L2-resident) nodes from
// the same start.
__global__ void pointer_chase_kernel(const unsigned* next_word, unsigned steps, unsigned* cursor,
                                     unsigned long long* elapsed_ns) {
  unsigned word = *cursor;
  const unsigned long long start = global_timer_ns();
  for (unsigned s = 0; s < steps; ++s) word = __ldcg(next_word + word);
  const unsigned long long end = global_timer_ns();
  *cursor = word;
  *elapsed_ns = end - start;
}

__global__ void touch_nodes_kernel(const unsigned* words, std::size_t nodes, unsigned stride_words, unsigned* sink) {
  unsigned sum = 0;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < nodes; i += stride) {
    sum += __ldcg(words + i * stride_words);
  }
  if (sum == 0xffffffffu) *sink = sum;  // keeps the loads
}

__global__ void empty_kernel() {}

__global__ void timer_resolution_kernel(unsigned long long duration_ns, TimerResolution* out) {
  const unsigned long long max_reads = iteration_cap(duration_ns);
  const unsigned long long first = global_timer_ns();
  unsigned long long previous = first;
  unsigned long long reads = 1, changes = 0, min_delta = ~0ull, last_change = first;
  while (previous - first < duration_ns && reads < max_reads) {
    const unsigned long long now = global_timer_ns();
    ++reads;
    if (now != previous) {
      ++changes;
      const unsigned long long delta = now - previous;
      if (delta < min_delta) min_delta = delta;
      last_change = now;
    }
    previous = now;
  }
  out->reads = reads;
  out->changes = changes;
  out->min_delta_ns = changes == 0 ? 0 : min_delta;
  out->first_ns = first;
  out->last_change_ns = last_change;
  out->capped = previous - first < duration_ns ? 1ull : 0ull;  // the loop ended at reads == max_reads, early
}

__global__ void timeslice_probe_kernel(unsigned long long duration_ns, unsigned long long threshold_ns,
                                       TimesliceProbeBuffers buffers) {
  if (threadIdx.x != 0) return;  // launched with one thread per block
  const unsigned smid = sm_id();
  const unsigned long long max_reads = iteration_cap(duration_ns);
  const unsigned long long start = global_timer_ns();
  unsigned long long previous = start;
  unsigned long long reads = 1;
  while (previous - start < duration_ns && reads < max_reads) {
    const unsigned long long now = global_timer_ns();
    ++reads;
    if (now - previous > threshold_ns) {
      const unsigned slot = atomicAdd(buffers.gap_count, 1u);
      if (slot < buffers.capacity) buffers.gaps[slot] = TimesliceGap{previous, now, blockIdx.x, smid};
    }
    previous = now;
  }
  buffers.block_start_ns[blockIdx.x] = start;
  buffers.block_end_ns[blockIdx.x] = previous;
  buffers.block_reads[blockIdx.x] = reads;
  buffers.block_capped[blockIdx.x] = previous - start < duration_ns ? 1u : 0u;  // ended at the cap, early
}

__global__ void smid_probe_kernel(unsigned long long spin_ns, unsigned* block_smids) {
  if (threadIdx.x == 0) {
    block_smids[blockIdx.x] = sm_id();
    const unsigned long long max_reads = iteration_cap(spin_ns);
    const unsigned long long start = global_timer_ns();
    for (unsigned long long reads = 1; global_timer_ns() - start < spin_ns && reads < max_reads; ++reads) {
    }
  }
  __syncthreads();
}

constexpr unsigned kFillBlocks = 4096;
constexpr unsigned kFillThreads = 256;
constexpr unsigned kMaxGridX = 0x7fffffffu;

unsigned grid_for(const LaunchShape& shape, std::size_t count4) {
  if (shape.blocks > 0) return shape.blocks;
  const std::size_t tiles = stream_tiles(count4 * 4, shape.threads_per_block);
  return static_cast<unsigned>(tiles < 1 ? 1 : (tiles > kMaxGridX ? kMaxGridX : tiles));
}

bool aligned_float4(const void* pointer) { return reinterpret_cast<std::uintptr_t>(pointer) % 16 == 0; }

}  // namespace

std::size_t stream_tiles(std::size_t elements, unsigned threads_per_block) {
  const std::size_t tile_elements = static_cast<std::size_t>(threads_per_block) * kStreamUnroll * 4;
  return (elements + tile_elements - 1) / tile_elements;
}

cudaError_t launch_copy(const float* source, float* target, std::size_t elements, const LaunchShape& shape,
                        cudaStream_t stream) {
  if (elements % 4 != 0 || !aligned_float4(source) || !aligned_float4(target)) return cudaErrorInvalidValue;
  const std::size_t count4 = elements / 4;
  copy_kernel<<<grid_for(shape, count4), shape.threads_per_block, shape.dynamic_shared_bytes, stream>>>(
      reinterpret_cast<const float4*>(source), reinterpret_cast<float4*>(target), count4, shape.block_smids);
  return cudaGetLastError();
}

cudaError_t launch_triad(float* target, const float* a, const float* b, float scalar, std::size_t elements,
                         const LaunchShape& shape, cudaStream_t stream) {
  if (elements % 4 != 0 || !aligned_float4(target) || !aligned_float4(a) || !aligned_float4(b)) {
    return cudaErrorInvalidValue;
  }
  const std::size_t count4 = elements / 4;
  triad_kernel<<<grid_for(shape, count4), shape.threads_per_block, shape.dynamic_shared_bytes, stream>>>(
      reinterpret_cast<float4*>(target), reinterpret_cast<const float4*>(a), reinterpret_cast<const float4*>(b),
      scalar, count4, shape.block_smids, shape.span);
  return cudaGetLastError();
}

cudaError_t launch_mixed(float* target, const float* a, const float* b, float scalar, std::size_t elements,
                         const LaunchShape& shape, cudaStream_t stream) {
  if (elements % 4 != 0 || !aligned_float4(target) || !aligned_float4(a) || !aligned_float4(b)) {
    return cudaErrorInvalidValue;
  }
  const std::size_t count4 = elements / 4;
  mixed_kernel<<<grid_for(shape, count4), shape.threads_per_block, shape.dynamic_shared_bytes, stream>>>(
      reinterpret_cast<float4*>(target), reinterpret_cast<const float4*>(a), reinterpret_cast<const float4*>(b),
      scalar, count4, shape.span);
  return cudaGetLastError();
}

cudaError_t launch_fma_chain(float* sink, unsigned iterations, const LaunchShape& shape, cudaStream_t stream) {
  if (shape.blocks == 0 || iterations % kFmaUnroll != 0) return cudaErrorInvalidValue;
  fma_chain_kernel<<<shape.blocks, shape.threads_per_block, shape.dynamic_shared_bytes, stream>>>(
      sink, iterations, shape.block_smids, shape.span);
  return cudaGetLastError();
}

cudaError_t launch_reset_span(DeviceSpan* span, cudaStream_t stream) {
  reset_span_kernel<<<1, 1, 0, stream>>>(span);
  return cudaGetLastError();
}

cudaError_t launch_fill_uniform(float* data, std::size_t count, unsigned seed, float low, float high,
                                cudaStream_t stream) {
  fill_uniform_kernel<<<kFillBlocks, kFillThreads, 0, stream>>>(data, count, seed, low, high);
  return cudaGetLastError();
}

cudaError_t launch_fill_uniform_bf16(void* data, std::size_t count, unsigned seed, cudaStream_t stream) {
  fill_uniform_bf16_kernel<<<kFillBlocks, kFillThreads, 0, stream>>>(static_cast<__nv_bfloat16*>(data), count,
                                                                     seed);
  return cudaGetLastError();
}

cudaError_t launch_pointer_chase(const unsigned* next_word, unsigned steps, unsigned* cursor,
                                 unsigned long long* elapsed_ns, cudaStream_t stream) {
  pointer_chase_kernel<<<1, 1, 0, stream>>>(next_word, steps, cursor, elapsed_ns);
  return cudaGetLastError();
}

cudaError_t launch_touch_nodes(const unsigned* words, std::size_t nodes, unsigned stride_words, unsigned* sink,
                               cudaStream_t stream) {
  touch_nodes_kernel<<<kFillBlocks, kFillThreads, 0, stream>>>(words, nodes, stride_words, sink);
  return cudaGetLastError();
}

cudaError_t launch_empty(unsigned blocks, unsigned threads_per_block, cudaStream_t stream) {
  empty_kernel<<<blocks, threads_per_block, 0, stream>>>();
  return cudaGetLastError();
}

cudaError_t launch_timer_resolution(unsigned long long duration_ns, TimerResolution* out, cudaStream_t stream) {
  timer_resolution_kernel<<<1, 1, 0, stream>>>(duration_ns, out);
  return cudaGetLastError();
}

cudaError_t launch_timeslice_probe(unsigned blocks, unsigned long long duration_ns, unsigned long long threshold_ns,
                                   const TimesliceProbeBuffers& buffers, cudaStream_t stream) {
  timeslice_probe_kernel<<<blocks, 1, 0, stream>>>(duration_ns, threshold_ns, buffers);
  return cudaGetLastError();
}

cudaError_t launch_smid_probe(unsigned blocks, unsigned long long spin_ns, unsigned* block_smids,
                              cudaStream_t stream) {
  smid_probe_kernel<<<blocks, 32, 0, stream>>>(spin_ns, block_smids);
  return cudaGetLastError();
}

cudaError_t allow_dynamic_shared(ScalingKernel kernel, std::size_t bytes) {
  const int value = static_cast<int>(bytes);
  if (kernel == ScalingKernel::triad) {
    return cudaFuncSetAttribute(triad_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, value);
  }
  return cudaFuncSetAttribute(fma_chain_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, value);
}

cudaError_t max_blocks_per_sm(ScalingKernel kernel, unsigned threads_per_block, std::size_t dynamic_shared_bytes,
                              int* blocks) {
  const int threads = static_cast<int>(threads_per_block);
  if (kernel == ScalingKernel::triad) {
    return cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, triad_kernel, threads, dynamic_shared_bytes);
  }
  return cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, fma_chain_kernel, threads, dynamic_shared_bytes);
}

}  // namespace vgpusim::hwcal
