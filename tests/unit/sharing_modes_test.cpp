// Analytic cases for the spatial and partitioning modes (mps, mig and nesting) through the whole pipeline.
#include <gtest/gtest.h>
#include <fmt/format.h>

#include "sim/io/gpu_catalog.hpp"
#include "sim/run/metrics.hpp"
#include "sim/scenario/loader.hpp"
#include "sim/run/simulation.hpp"
#include "tests/unit/scenario_helpers.hpp"

namespace unit_sharing_modes {

using namespace vgpusim;

namespace {

Results run_text(const std::string& text) { return testing_support::run_text(text, "m.yaml"); }

std::string error_of(const std::string& text) { return testing_support::error_of(text, "m.yaml"); }

// A scenario on one A100-40GB with the given sharing and tenants.
std::string scenario(const std::string& sharing, const std::string& tenants, const std::string& fidelity = "exact",
                     const std::string& duration = "2s") {
  return fmt::format("version: 1\nname: t\nduration: {}\nfidelity: {}\ngpus: [{{id: g0, model: A100-40GB}}]\n"
                     "sharing: {{g0: {}}}\ntenants:\n{}",
                     duration, fidelity, sharing, tenants);
}

// Kernels: compute-bound filling the GPU (1 ms alone), memory-bound (1 ms alone), compute-bound on 30% of the SMs.
const char* kCompute = "{fp16: 0.24648TFLOP}";  // 312e12 x 0.79 x 1e-3
const char* kMemory = "{bytes: 1.3995GB}";      // 1555e9 x 0.9 x 1e-3
std::string trainer(const std::string& name, const std::string& on, const char* step, const std::string& extra = "") {
  return fmt::format("  - {{name: {}, on: {}{}, workload: {{training: {{step: {}}}}}}}\n", name, on, extra, step);
}

const TenantResult& tenant(const Results& r, const std::string& name) {
  for (const TenantResult& t : r.tenants)
    if (t.name == name) return t;
  throw std::runtime_error("no tenant " + name);
}

}  // namespace

TEST(Mps, CapBoundsAComputeBoundKernelAtItsShareOfSms) {
  const Results r = run_text(scenario("{mode: mps}", trainer("a", "g0", kCompute, ", share: {active_threads: 25%}")));
  EXPECT_NEAR(tenant(r, "a").relative_performance, 0.25, 0.002);
}

TEST(Mps, TwoComputeBoundClientsSplitTheSms) {
  const Results r = run_text(scenario("{mode: mps}", trainer("a", "g0", kCompute) + trainer("b", "g0", kCompute)));
  EXPECT_NEAR(tenant(r, "a").relative_performance, 0.5, 0.002);
  EXPECT_NEAR(tenant(r, "b").relative_performance, 0.5, 0.002);
}

TEST(Mps, SmallKernelsRunSideBySideAtFullSpeed) {
  // 32 blocks on 108 SMs: each kernel fills 30% of the GPU, so two fit at once.
  const std::string small = "{fp16: 0.24648TFLOP, blocks: 32}";
  const Results r = run_text(
      scenario("{mode: mps}", trainer("a", "g0", small.c_str()) + trainer("b", "g0", small.c_str())));
  EXPECT_NEAR(tenant(r, "a").relative_performance, 1.0, 0.002);
  EXPECT_NEAR(tenant(r, "b").relative_performance, 1.0, 0.002);
  // Under time-slicing the same pair takes turns instead.
  const Results ts = run_text(scenario("{mode: timeslice, switch_cost: 0us}",
                                       trainer("a", "g0", small.c_str()) + trainer("b", "g0", small.c_str())));
  EXPECT_NEAR(tenant(ts, "a").relative_performance, 0.5, 0.002);
}

TEST(Mps, MemoryBoundClientsShareTheBandwidth) {
  const Results r = run_text(scenario("{mode: mps}", trainer("a", "g0", kMemory) + trainer("b", "g0", kMemory)));
  EXPECT_NEAR(tenant(r, "a").relative_performance, 0.5, 0.002);
  EXPECT_NEAR(tenant(r, "b").relative_performance, 0.5, 0.002);
}

TEST(Mps, BandwidthSaturationLetsAFewSmsStreamAtFullSpeed) {
  const std::string t = trainer("mem", "g0", kMemory, ", share: {active_threads: 50%}") +
                        trainer("cmp", "g0", kCompute, ", share: {active_threads: 50%}");
  // Bandwidth proportional to SMs: the memory-bound client streams at half speed.
  const Results linear = run_text(scenario("{mode: mps, bw_saturation_fraction: 100%}", t));
  EXPECT_NEAR(tenant(linear, "mem").relative_performance, 0.5, 0.002);
  EXPECT_NEAR(tenant(linear, "cmp").relative_performance, 0.5, 0.002);
  // If a quarter of the SMs saturates DRAM, half the SMs give the memory-bound client all it needs.
  const Results saturating = run_text(scenario("{mode: mps, bw_saturation_fraction: 25%}", t));
  EXPECT_GT(tenant(saturating, "mem").relative_performance, 0.9);
  EXPECT_NEAR(tenant(saturating, "cmp").relative_performance, 0.5, 0.01);
}

// A lone client draws the bandwidth its kernel draws alone on bare metal, whatever its fill: MPS takes away only
// what SMs the client does not get would have drawn (issue 13, bug 1: 0.2497 before).
TEST(Mps, ALoneClientOfAPartlyFillingKernelIsNotSlowedByItself) {
  const std::string lone = trainer("a", "g0", "{bytes: 1.3995GB, blocks: 27}");
  for (const std::string& sharing : {std::string("{mode: mps}"), std::string("{mode: mps, bw_saturation_fraction: 38%}")})
    EXPECT_NEAR(tenant(run_text(scenario(sharing, lone)), "a").relative_performance, 1.0, 1e-6) << sharing;
  // A cap below the kernel's fill still takes bandwidth away when the fewer SMs cannot reach it.
  const std::string capped = trainer("a", "g0", "{bytes: 1.3995GB, blocks: 27}", ", share: {active_threads: 10%}");
  EXPECT_NEAR(tenant(run_text(scenario("{mode: mps}", capped)), "a").relative_performance, 0.4, 0.01);
}

// Each kernel an MPS client launches on a stream takes mps.launch_overhead longer than in a plain process, in wall
// time (default 0: hwcal resolved none on an H200): a few percent on 10 us kernels at 0.5 us, nothing on 1 ms ones.
TEST(Mps, EachKernelPaysTheServersLaunchOverhead) {
  const auto lone = [](const std::string& step, const std::string& sharing, const std::string& duration = "100ms") {
    const Results r = run_text(scenario(sharing, trainer("a", "g0", step.c_str()), "exact", duration));
    return std::pair{tenant(r, "a").relative_performance, 1 / tenant(r, "a").baseline.throughput};
  };
  const auto [small, t_small] = lone("{bytes: 10MB}", "{mode: mps, launch_overhead: 0.5us}");
  EXPECT_NEAR(small, t_small / (t_small + 0.5e-6), 1e-3);
  EXPECT_LT(small, 0.97);
  const auto [big, t_big] = lone(kMemory, "{mode: mps, launch_overhead: 0.5us}", "2s");
  EXPECT_NEAR(big, t_big / (t_big + 0.5e-6), 1e-4);
  EXPECT_GT(big, 0.999);
  EXPECT_NEAR(lone("{bytes: 10MB}", "{mode: mps, launch_overhead: 2us}").first, t_small / (t_small + 2e-6), 1e-3);
  EXPECT_NEAR(lone("{bytes: 10MB}", "{mode: mps}").first, 1.0, 1e-6);  // the default
  // It is wall time, whatever the client's share: capped at 25%, a 1 ms kernel takes 4 ms + 100 us, not 4.4 ms.
  const Results capped = run_text(scenario("{mode: mps, launch_overhead: 100us}",
                                           trainer("a", "g0", kCompute, ", share: {active_threads: 25%}")));
  const double t = 1 / tenant(capped, "a").baseline.throughput;
  EXPECT_NEAR(tenant(capped, "a").relative_performance, t / (t / 0.25 + 100e-6), 1e-3);
  // Graph nodes and persistent iterations do not go through the server one by one.
  for (const char* launch : {"graph", "persistent"})
    EXPECT_NEAR(lone(fmt::format("{{bytes: 10MB, launch: {}}}", launch), "{mode: mps, launch_overhead: 100us}").first,
                1.0, 1e-6)
        << launch;
}

// A kernel whose block size is known streams at what its occupancy reaches alone (roofline) and draws only that
// share of the bandwidth: on the A100-40GB (occupancy_saturation 30% from gpu-stream) 54 blocks of 256 threads hold
// 6.25% of the thread slots and draw ~21% of the bandwidth. Two such clients fit side by side, and a cap that still
// holds its blocks (25% of the SMs: 27 SMs x 8 blocks) takes nothing away.
TEST(Mps, LowOccupancyKernelsDrawOnlyWhatTheyReach) {
  const char* low = "{bytes: 1GB, blocks: 54, threads: 256}";
  const Results pair = run_text(scenario("{mode: mps}", trainer("a", "g0", low) + trainer("b", "g0", low)));
  EXPECT_NEAR(tenant(pair, "a").relative_performance, 1.0, 0.01);
  EXPECT_NEAR(tenant(pair, "b").relative_performance, 1.0, 0.01);
  const Results capped = run_text(scenario("{mode: mps}", trainer("a", "g0", low, ", share: {active_threads: 25%}")));
  EXPECT_NEAR(tenant(capped, "a").relative_performance, 1.0, 0.01);
  // A cap below its occupancy does take bandwidth away: 3% of the SMs hold 3% of the slots, reaching 0.03 / 0.0625.
  const Results tight = run_text(scenario("{mode: mps}", trainer("a", "g0", low, ", share: {active_threads: 3%}")));
  EXPECT_NEAR(tenant(tight, "a").relative_performance, 0.03 / 0.0625, 0.02);
  // Without a block size the same 54 blocks count as filling half of the SMs: two of them share the bandwidth.
  const char* unknown = "{bytes: 1GB, blocks: 54}";
  const Results old = run_text(scenario("{mode: mps}", trainer("a", "g0", unknown) + trainer("b", "g0", unknown)));
  EXPECT_NEAR(tenant(old, "a").relative_performance, 0.5, 0.01);
}

TEST(Mps, InOrderAllocationServesEarlierClientsFirst) {
  const std::string t = trainer("a", "g0", kCompute, ", share: {active_threads: 80%}") +
                        trainer("b", "g0", kCompute, ", share: {active_threads: 80%}");
  const Results r = run_text(scenario("{mode: mps, sm_allocation: in_order}", t));
  EXPECT_NEAR(tenant(r, "a").relative_performance, 0.8, 0.002);
  EXPECT_NEAR(tenant(r, "b").relative_performance, 0.2, 0.002);
  const Results p = run_text(scenario("{mode: mps}", t));
  EXPECT_NEAR(tenant(p, "a").relative_performance, 0.5, 0.002);
}

TEST(Mps, FullGpuKernelsTakeTurnsInProportionToTheirLength) {
  // A compute-bound client of 3 ms kernels and a memory-bound one of 1 ms kernels, each filling the GPU: under
  // kernel turns (the default, after the H200 co-runs) they run one after the other, 3 ms then 1 ms, so 0.75 and
  // 0.25 of their solo speed, and the GPU does no more than one of them at a time (the shares add up to 1).
  const std::string t = trainer("a", "g0", "{fp16: 0.73944TFLOP}") + trainer("b", "g0", kMemory);
  const Results r = run_text(scenario("{mode: mps}", t));
  EXPECT_NEAR(tenant(r, "a").relative_performance, 0.75, 0.005);
  EXPECT_NEAR(tenant(r, "b").relative_performance, 0.25, 0.005);
  // Side by side (proportional), the same pair overlapped compute and memory: more than one GPU's worth.
  const Results p = run_text(scenario("{mode: mps, sm_allocation: proportional}", t));
  EXPECT_GT(tenant(p, "a").relative_performance + tenant(p, "b").relative_performance, 1.2);
  // Fluid fidelity merges nothing here (one kernel per step) and takes the same turns.
  const Results f = run_text(scenario("{mode: mps}", t, "fluid"));
  EXPECT_NEAR(tenant(f, "a").relative_performance, 0.75, 0.005);
  // A step of 4 kernels merged into one phase in fluid fidelity still takes turns by one kernel's time.
  const std::string split = "  - {name: a, on: g0, workload: {training: {step: {fp16: 0.98592TFLOP}, kernels_per_step: 4}}}\n" +
                            trainer("b", "g0", kMemory);
  for (const char* fidelity : {"exact", "fluid"}) {
    const Results x = run_text(scenario("{mode: mps}", split, fidelity));
    EXPECT_NEAR(tenant(x, "a").relative_performance, 0.5, 0.01) << fidelity;  // 1 ms kernels against 1 ms kernels
  }
}

TEST(Mps, AFatalFaultEndsEveryClientButNotUnderTimeslicing) {
  const std::string t = trainer("a", "g0", kCompute) + trainer("b", "g0", kCompute) + "faults: [{tenant: a, at: 1s}]\n";
  const Results mps = run_text(scenario("{mode: mps}", t));
  ASSERT_EQ(tenant(mps, "a").failures.size(), 1u);
  EXPECT_EQ(tenant(mps, "a").failures[0].kind, "fatal_fault");
  ASSERT_EQ(tenant(mps, "b").failures.size(), 1u);
  EXPECT_EQ(tenant(mps, "b").failures[0].kind, "fault_of_other_client");
  EXPECT_NEAR(static_cast<double>(tenant(mps, "b").shared.units), 500, 2);  // half speed until 1 s, then nothing
  const Results ts = run_text(scenario("{mode: timeslice}", t));
  EXPECT_TRUE(tenant(ts, "b").failures.empty());
  EXPECT_GT(tenant(ts, "b").shared.units, 1400);  // alone after 1 s
}

TEST(Mps, AtMost48Clients) {
  std::string t;
  for (int i = 0; i < 49; ++i) t += trainer(fmt::format("c{}", i), "g0", kCompute);
  EXPECT_EQ(error_of(scenario("{mode: mps}", t)),
            "m.yaml:56:21: tenants[48].on: 'g0' is shared in mode 'mps', which takes at most 48 tenant(s)");
}

TEST(Mig, InstanceThroughputIsUnchangedByLoadOnOtherInstances) {
  const std::string layout =
      "{mode: mig, partitions: [{id: a, profile: 1g.5gb}, {id: b, profile: 2g.10gb}, {id: c, profile: 3g.20gb}]}";
  const Results alone = run_text(scenario(layout, trainer("x", "g0/a", kCompute)));
  const Results noisy = run_text(scenario(layout, trainer("x", "g0/a", kCompute) + trainer("n1", "g0/b", kMemory) +
                                                      trainer("n2", "g0/b", kCompute) + trainer("n3", "g0/c", kMemory)));
  EXPECT_EQ(tenant(alone, "x").shared.units, tenant(noisy, "x").shared.units);
  EXPECT_DOUBLE_EQ(tenant(alone, "x").shared.throughput, tenant(noisy, "x").shared.throughput);
  // Against the whole GPU, the 1g instance has 14 of 108 SMs (compute-bound) ...
  EXPECT_NEAR(tenant(alone, "x").relative_performance, 14.0 / 108, 0.002);
  // ... and 1/8 of the memory bandwidth (memory-bound).
  const Results mem = run_text(scenario(layout, trainer("y", "g0/a", kMemory)));
  EXPECT_NEAR(tenant(mem, "y").relative_performance, 1.0 / 8, 0.002);
}

TEST(Mig, MpsInsideAnInstanceComposes) {
  const std::string layout = "{mode: mig, partitions: [{id: a, profile: 3g.20gb, sharing: {mode: mps}}]}";
  const Results r = run_text(scenario(layout, trainer("p", "g0/a", kCompute) + trainer("q", "g0/a", kCompute)));
  EXPECT_NEAR(tenant(r, "p").relative_performance, 0.5 * 42 / 108, 0.002);
  EXPECT_NEAR(tenant(r, "q").relative_performance, 0.5 * 42 / 108, 0.002);
  const Results ts = run_text(scenario(
      "{mode: mig, partitions: [{id: a, profile: 3g.20gb, sharing: {mode: timeslice, switch_cost: 0us}}]}",
      trainer("p", "g0/a", kCompute) + trainer("q", "g0/a", kCompute)));
  EXPECT_NEAR(tenant(ts, "p").relative_performance, 0.5 * 42 / 108, 0.002);
}

TEST(Mig, InstanceMemoryIsIsolated) {
  const std::string layout = "{mode: mig, partitions: [{id: a, profile: 1g.5gb}, {id: b, profile: 1g.5gb}]}";
  const Results r =
      run_text(scenario(layout, trainer("fits", "g0/a", kCompute, ", memory: 4GiB") +
                                    trainer("big", "g0/b", kCompute, ", memory: 6GiB")));
  EXPECT_TRUE(tenant(r, "fits").failures.empty());
  ASSERT_EQ(tenant(r, "big").failures.size(), 1u);
  EXPECT_EQ(tenant(r, "big").failures[0].message, "out of memory on g0/b: requested 6 GiB, 4.75 GiB of 4.75 GiB free");
}

TEST(Mig, LayoutAndPlacementErrors) {
  EXPECT_EQ(error_of(scenario("{mode: mig, partitions: [{id: a, profile: 3g.20gb}, {id: b, profile: 3g.20gb}, "
                              "{id: c, profile: 1g.5gb}]}",
                              trainer("x", "g0/a", kCompute))),
            "m.yaml:6:39: sharing.g0.partitions: the layout 3g.20gb + 3g.20gb + 1g.5gb does not fit on A100-40GB "
            "(uses 7 of 7 compute slices, no free placement); valid layouts with these profiles include: 3g.20gb + "
            "3g.20gb; 3g.20gb + 1g.5gb");
  EXPECT_EQ(error_of(scenario("{mode: mig, partitions: [{id: a, profile: 1g.5gb}]}", trainer("x", "g0", kCompute))),
            "m.yaml:8:19: tenants[0].on: GPU 'g0' is split into partitions; put the tenant on one of: g0/a");
  EXPECT_EQ(error_of(fmt::format("version: 1\nname: t\nduration: 1s\ngpus: [{{id: g0, model: T4}}]\n"
                                 "sharing: {{g0: {{mode: mig, partitions: [{{id: a, profile: 1g.5gb}}]}}}}\ntenants:\n{}",
                                 trainer("x", "g0/a", kCompute))),
            "m.yaml:5:39: sharing.g0.partitions: T4 does not support MIG (MIG GPUs: A100-40GB, A100-80GB, H100-SXM, "
            "H200, A30)");
  // The key's old name is refused with its new one.
  EXPECT_EQ(error_of(scenario("{mode: mig, instances: [{id: a, profile: 1g.5gb}]}", trainer("x", "g0/a", kCompute))),
            "m.yaml:6:38: sharing.g0.instances: MIG partitions are listed under `partitions` (they used to be "
            "`instances`)");
}

TEST(MigLayoutChange, AffectedInstancesDrainAndComeBackUnaffectedOnesRunOn) {
  // Layout 3g (a) + 1g (b); at 1 s: a stays, b grows to a 2g, c (1g) is added. Reconfiguration takes 2 s.
  const std::string sharing =
      "{mode: mig, reconfiguration_time: 2s, partitions: [{id: a, profile: 3g.20gb}, {id: b, profile: 1g.5gb}], "
      "reconfigure: [{at: 1s, partitions: [{id: a, profile: 3g.20gb}, {id: b, profile: 2g.10gb}, "
      "{id: c, profile: 1g.5gb}]}]}";
  const std::string tenants = trainer("on-a", "g0/a", kCompute) + trainer("on-b", "g0/b", kCompute) +
                              trainer("on-c", "g0/c", kCompute);
  const Results r = run_text(scenario(sharing, tenants, "exact", "5s"));
  const Results fixed = run_text(scenario(
      "{mode: mig, partitions: [{id: a, profile: 3g.20gb}, {id: b, profile: 1g.5gb}, {id: c, profile: 1g.5gb}]}", tenants,
      "exact", "5s"));
  // a never notices.
  EXPECT_EQ(tenant(r, "on-a").shared.units, tenant(fixed, "on-a").shared.units);
  // b: its steps take 1 ms on the whole GPU, so 108/14 ms on 14 SMs: 1 s of those, down from about 1 s to 3 s,
  // then the last 2 s of the 5 s run on 28 SMs.
  const double b_units = 1.0 / (108.0 / 14 * 1e-3) + 2.0 / (108.0 / 28 * 1e-3);
  EXPECT_NEAR(static_cast<double>(tenant(r, "on-b").shared.units), b_units, 2);
  // c exists only from about 3 s: 2 s on 14 SMs.
  EXPECT_NEAR(static_cast<double>(tenant(r, "on-c").shared.units), 2.0 / (108.0 / 14 * 1e-3), 2);
}

TEST(MigLayoutChange, RemovedInstanceEndsItsTenants) {
  const std::string sharing =
      "{mode: mig, partitions: [{id: a, profile: 3g.20gb}, {id: b, profile: 1g.5gb}], "
      "reconfigure: [{at: 1s, partitions: [{id: a, profile: 3g.20gb}]}]}";
  const Results r = run_text(scenario(sharing, trainer("on-a", "g0/a", kCompute) + trainer("on-b", "g0/b", kCompute)));
  ASSERT_EQ(tenant(r, "on-b").failures.size(), 1u);
  EXPECT_EQ(tenant(r, "on-b").failures[0].kind, "partition_removed");
  EXPECT_NEAR(tenant(r, "on-b").failures[0].time, 1.0, 0.01);  // after its running kernel drained
  EXPECT_TRUE(tenant(r, "on-a").failures.empty());
}

}  // namespace unit_sharing_modes
