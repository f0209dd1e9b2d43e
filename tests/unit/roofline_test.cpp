// The roofline kernel model: compute- and memory-bound cases, SM fill, and duration conversion.
#include <gtest/gtest.h>

#include "models/gpu/roofline.hpp"
#include "sim/io/gpu_catalog.hpp"

namespace unit_roofline {

using namespace vgpusim;

namespace {
const GpuSpec& h100() { return builtin_catalog().find("H100-SXM")->spec; }
RooflineParams perf() { return RooflineParams::table().defaults(); }
// Each kernel takes the launch overhead beyond its roofline time.
double overhead() { return perf().launch_overhead; }
}  // namespace

TEST(Roofline, ComputeBoundKernel) {
  KernelSpec k;
  k.flops_fp16 = 989e12 * 0.79;  // one second of H100 tensor work at the default efficiency
  EXPECT_NEAR(solo_time(k, h100(), perf()), 1.0 + overhead(), 1e-12);
}

TEST(Roofline, MemoryBoundKernel) {
  KernelSpec k;
  k.bytes = 3.35e12 * 0.9;
  k.flops_fp32 = 1e9;  // negligible next to the memory time
  EXPECT_NEAR(solo_time(k, h100(), perf()), 1.0 + overhead(), 1e-12);
}

TEST(Roofline, PrecisionsAddUp) {
  KernelSpec k;
  k.flops_fp32 = 67e12 * 0.79;
  k.flops_fp64 = 2 * h100().fp64 * 0.79;
  EXPECT_NEAR(solo_time(k, h100(), perf()), 3.0 + overhead(), 1e-12);
}

TEST(Roofline, FewBlocksLeaveSmsIdle) {
  KernelSpec k;
  k.flops_fp32 = 67e12 * 0.79;
  k.blocks = 66;  // half of the 132 SMs
  EXPECT_NEAR(solo_time(k, h100(), perf()), 2.0 + overhead(), 1e-12);
  k.blocks = 1000;
  EXPECT_NEAR(solo_time(k, h100(), perf()), 1.0 + overhead(), 1e-12);
}

TEST(Roofline, MeasuredDurationScalesWithTheBound) {
  const GpuSpec& a100 = builtin_catalog().find("A100-80GB")->spec;
  const KernelSpec mem = kernel_from_duration(2e-3, a100, KernelBound::Memory, 0, perf());
  EXPECT_NEAR(solo_time(mem, a100, perf()), 2e-3, 1e-15);
  // The work scales with the bandwidth; the launch overhead does not.
  EXPECT_NEAR(solo_time(mem, h100(), perf()),
              (2e-3 - overhead()) * a100.memory_bandwidth / h100().memory_bandwidth + overhead(), 1e-15);
  const KernelSpec fp16 = kernel_from_duration(2e-3, a100, KernelBound::FP16, 54, perf());
  EXPECT_NEAR(solo_time(fp16, a100, perf()), 2e-3, 1e-15);
}

TEST(Roofline, EachKernelTakesTheLaunchOverheadAndDurationsIncludeIt) {
  EXPECT_NEAR(overhead(), 2.48e-6, 1e-12);  // the H200's from gpu-benches
  KernelSpec k;
  k.bytes = 1e6;
  const double one = solo_time(k, h100(), perf());
  k.kernels = 4;  // the same work as four kernels back to back (a merged fluid phase)
  EXPECT_NEAR(solo_time(k, h100(), perf()), one + 3 * overhead(), 1e-15);
  // A duration stands for the whole kernel: on its reference GPU it comes back exactly, for any kernel count.
  const KernelSpec four = kernel_from_duration(1e-3, h100(), KernelBound::FP16, 0, perf(), 4);
  EXPECT_NEAR(solo_time(four, h100(), perf()), 1e-3, 1e-15);
  // A duration shorter than the overhead holds no work, and takes only that much of the overhead: it comes back.
  const KernelSpec tiny = kernel_from_duration(1e-6, h100(), KernelBound::Memory, 0, perf());
  EXPECT_EQ(tiny.bytes, 0.0);
  EXPECT_NEAR(solo_time(tiny, h100(), perf()), 1e-6, 1e-15);
  RooflineParams none = perf();
  none.launch_overhead = 0.0;
  EXPECT_NEAR(solo_time(k, h100(), none), one - overhead(), 1e-15);
}

TEST(Roofline, EachLaunchKindPaysItsOwnOverhead) {
  RooflineParams p = perf();
  p.launch_overhead = 3e-6;
  p.graph_launch_overhead = 1e-6;
  p.grid_sync_overhead = 0.5e-6;
  KernelSpec k;
  k.bytes = 1e6;
  k.kernels = 10;
  const double stream = solo_time(k, h100(), p);
  k.launch = LaunchKind::Graph;
  EXPECT_NEAR(solo_time(k, h100(), p), stream - 10 * 2e-6, 1e-15);
  k.launch = LaunchKind::Persistent;
  EXPECT_NEAR(solo_time(k, h100(), p), stream - 10 * 2.5e-6, 1e-15);
  EXPECT_STREQ(launch_kind_name(LaunchKind::Persistent), "persistent");
  // A duration measured with graph launches holds the graph's overhead: it comes back as such, and its work is the
  // duration less that overhead (more work than if the stream's larger overhead were taken out).
  const KernelSpec g = kernel_from_duration(20e-6, h100(), KernelBound::Memory, 0, p, 2, LaunchKind::Graph);
  EXPECT_EQ(g.launch, LaunchKind::Graph);
  EXPECT_NEAR(solo_time(g, h100(), p), 20e-6, 1e-15);
  const KernelSpec s = kernel_from_duration(20e-6, h100(), KernelBound::Memory, 0, p, 2);
  EXPECT_NEAR(g.bytes / s.bytes, (20e-6 - 2e-6) / (20e-6 - 6e-6), 1e-9);
}

// A declared block size (issue 13: occupancy from block size, bandwidth against occupancy, wave quantization): the
// H100 holds 2048 threads per SM (compute capability 9.0).
TEST(Roofline, BlockSizeSetsOccupancyBandwidthAndTheBusiestSm) {
  RooflineParams p = perf();
  p.launch_overhead = 0;
  p.occupancy_saturation = 0.4;
  const GpuSpec& gpu = h100();
  ASSERT_EQ(gpu.threads_per_sm, 2048);
  KernelSpec k;
  k.bytes = 3.35e12 * 0.9;  // one second at full bandwidth
  k.threads = 256;          // 8 blocks per SM, a wave of 1056 blocks
  k.blocks = 1056 / 4;      // a quarter of the thread slots: 0.25 / 0.4 of the bandwidth
  EXPECT_NEAR(kernel_times(k, gpu, p).occupancy, 0.25, 1e-12);
  EXPECT_NEAR(solo_time(k, gpu, p), 0.4 / 0.25, 1e-9);
  k.blocks = 1056;  // every slot: full bandwidth
  EXPECT_NEAR(solo_time(k, gpu, p), 1.0, 1e-9);
  k.blocks = 0;  // unknown count: one full wave
  EXPECT_NEAR(solo_time(k, gpu, p), 1.0, 1e-9);
  k.threads = 768;  // 2 blocks per SM hold 1536 of 2048 threads: 75%, at or above saturation
  EXPECT_NEAR(kernel_times(k, gpu, p).occupancy, 0.75, 1e-12);
  EXPECT_NEAR(solo_time(k, gpu, p), 1.0, 1e-9);
  // Small blocks: at most 32 resident blocks per SM (9.0), so 32-thread blocks hold half of the slots; threads count
  // in whole warps (48 threads take 64 slots).
  k.blocks = 0;
  k.threads = 32;
  EXPECT_NEAR(kernel_times(k, gpu, p).occupancy, 0.5, 1e-12);
  k.threads = 48;
  EXPECT_NEAR(kernel_times(k, gpu, p).occupancy, 1.0, 1e-12);
  // Without a saturation (the default) or without a block size, the occupancy does not limit the bandwidth.
  k.threads = 256;
  k.blocks = 1056 / 4;
  EXPECT_NEAR(solo_time(k, gpu, perf()) - perf().launch_overhead, 1.0, 1e-9);
  k.threads = 0;
  EXPECT_NEAR(solo_time(k, gpu, p), 1.0, 1e-9);
  // From L2 too, the bytes in flight set the bandwidth; where L2 is slower than DRAM a working set changes nothing.
  RooflineParams l2 = p;
  l2.l2_bandwidth = 2 * 3.35e12 * 0.9;
  k.threads = 256;
  k.blocks = 1056 / 4;
  k.working_set = 1e6;
  EXPECT_NEAR(solo_time(k, gpu, l2), 0.5 * 0.4 / 0.25, 1e-9);
  l2.l2_bandwidth = 0.5 * 3.35e12 * 0.9;
  EXPECT_NEAR(solo_time(k, gpu, l2), 0.4 / 0.25, 1e-9);
  const ActivityDemand d = activity_demand(k, kernel_times(k, gpu, l2), gpu);
  EXPECT_NEAR(d.memory_fraction, 1.0, 1e-12);  // it waits on DRAM all its time
  EXPECT_NEAR(d.bandwidth_reach, 0.25 / 0.4, 1e-12);  // and draws that share of it
  EXPECT_NEAR(d.occupancy, 0.25, 1e-12);
  k.working_set = 0;
  // Compute: the blocks spread over the SMs and the busiest SM sets the time, not whole waves: 1.5 waves (12 blocks
  // on each of the 132 SMs) take 1.5 waves' time; one block more puts 13 on the busiest SM.
  KernelSpec c;
  c.flops_fp16 = 989e12 * 0.79;  // one second on the whole GPU
  c.threads = 256;
  c.blocks = 1056 * 1.5;
  EXPECT_NEAR(solo_time(c, gpu, p), 1.0, 1e-9);
  c.blocks = 1056 * 1.5 + 1;
  EXPECT_NEAR(solo_time(c, gpu, p), 13.0 * 132 / c.blocks, 1e-9);
  c.blocks = 1056 * 2;
  EXPECT_NEAR(solo_time(c, gpu, p), 1.0, 1e-9);
  // Fewer blocks than a wave but more than the SMs: 133 blocks put two on one SM.
  c.blocks = 133;
  EXPECT_NEAR(solo_time(c, gpu, p), 2.0 * 132 / 133, 1e-9);
  c.threads = 0;  // unknown block size: no waves
  c.blocks = 1056 * 1.5;
  EXPECT_NEAR(solo_time(c, gpu, p), 1.0, 1e-9);
}

TEST(Roofline, AWorkingSetThatStaysInL2MovesItsBytesAtTheL2Bandwidth) {
  RooflineParams p = perf();
  p.l2_bandwidth = 10e12;
  p.l2_capacity_fraction = 0.5;  // H100-SXM: 50 MiB of L2, 25 MiB usable here
  KernelSpec k;
  k.bytes = 1e9;
  const double dram = 1e9 / (3.35e12 * 0.9);
  // No working set declared: DRAM.
  EXPECT_NEAR(solo_time(k, h100(), p), overhead() + dram, 1e-12);
  k.working_set = 20 * 1048576.0;
  const KernelTimes in_l2 = kernel_times(k, h100(), p);
  EXPECT_NEAR(in_l2.solo(), overhead() + 1e9 / 10e12, 1e-12);
  EXPECT_EQ(in_l2.memory, 0);  // no DRAM bandwidth drawn: the contention model sees it on the SM side
  EXPECT_NEAR(in_l2.sm_side(), 1e9 / 10e12, 1e-15);
  // A working set larger than the usable L2 streams from DRAM.
  k.working_set = 30 * 1048576.0;
  EXPECT_NEAR(solo_time(k, h100(), p), overhead() + dram, 1e-12);
  // An L2 slower than DRAM streaming is not used.
  k.working_set = 20 * 1048576.0;
  p.l2_bandwidth = 1e12;
  EXPECT_NEAR(solo_time(k, h100(), p), overhead() + dram, 1e-12);
  // Uncalibrated (0): no L2 level.
  EXPECT_NEAR(solo_time(k, h100(), perf()), overhead() + dram, 1e-12);
  // A merged activity of 4 kernels (fluid fidelity) holds the unit's working set: each kernel's share decides.
  p.l2_bandwidth = 10e12;
  k.kernels = 4;
  k.working_set = 4 * 20 * 1048576.0;
  EXPECT_NEAR(solo_time(k, h100(), p), 4 * overhead() + 1e9 / 10e12, 1e-12);
}

}  // namespace unit_roofline
