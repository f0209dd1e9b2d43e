// The roofline kernel model: compute- and memory-bound cases, SM fill, and duration conversion.
#include <gtest/gtest.h>

#include "models/gpu/roofline.hpp"
#include "sim/io/gpu_catalog.hpp"

using namespace vgpusim;

namespace {
const GpuSpec& h100() { return builtin_catalog().find("H100-SXM")->spec; }
ParamValues perf() { return ParamValues::defaults(roofline_params()); }
}  // namespace

TEST(Roofline, ComputeBoundKernel) {
  KernelSpec k;
  k.flops_fp16 = 989e12 * 0.79;  // one second of H100 tensor work at the default efficiency
  EXPECT_NEAR(solo_time(k, h100(), perf()), 1.0, 1e-12);
}

TEST(Roofline, MemoryBoundKernel) {
  KernelSpec k;
  k.bytes = 3.35e12 * 0.9;
  k.flops_fp32 = 1e9;  // negligible next to the memory time
  EXPECT_NEAR(solo_time(k, h100(), perf()), 1.0, 1e-12);
}

TEST(Roofline, PrecisionsAddUp) {
  KernelSpec k;
  k.flops_fp32 = 67e12 * 0.79;
  k.flops_fp64 = 2 * h100().fp64 * 0.79;
  EXPECT_NEAR(solo_time(k, h100(), perf()), 3.0, 1e-12);
}

TEST(Roofline, FewBlocksLeaveSmsIdle) {
  KernelSpec k;
  k.flops_fp32 = 67e12 * 0.79;
  k.blocks = 66;  // half of the 132 SMs
  EXPECT_NEAR(solo_time(k, h100(), perf()), 2.0, 1e-12);
  k.blocks = 1000;
  EXPECT_NEAR(solo_time(k, h100(), perf()), 1.0, 1e-12);
}

TEST(Roofline, MeasuredDurationScalesWithTheBound) {
  const GpuSpec& a100 = builtin_catalog().find("A100-80GB")->spec;
  const KernelSpec mem = kernel_from_duration(2e-3, a100, KernelBound::Memory, 0, perf());
  EXPECT_NEAR(solo_time(mem, a100, perf()), 2e-3, 1e-15);
  EXPECT_NEAR(solo_time(mem, h100(), perf()), 2e-3 * a100.memory_bandwidth / h100().memory_bandwidth, 1e-15);
  const KernelSpec fp16 = kernel_from_duration(2e-3, a100, KernelBound::FP16, 54, perf());
  EXPECT_NEAR(solo_time(fp16, a100, perf()), 2e-3, 1e-15);
}
