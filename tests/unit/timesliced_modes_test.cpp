// Analytic cases for the hardware time-sliced modes (vgpu schedulers, sriov) and the software renderer.
#include <gtest/gtest.h>
#include <fmt/format.h>

#include "models/sharing/slot_scheduler.hpp"
#include "models/sharing/vgpu_profiles.hpp"
#include "sim/io/gpu_catalog.hpp"
#include "sim/run/metrics.hpp"
#include "sim/scenario/loader.hpp"
#include "sim/run/simulation.hpp"
#include "tests/unit/scenario_helpers.hpp"

namespace unit_timesliced_modes {

using namespace vgpusim;

namespace {

Results run_text(const std::string& text) { return testing_support::run_text(text, "v.yaml"); }

std::string error_of(const std::string& text) { return testing_support::error_of(text, "v.yaml"); }

std::string scenario(const std::string& gpu, const std::string& sharing, const std::string& tenants,
                     const std::string& fidelity = "exact", const std::string& duration = "4s") {
  return fmt::format("version: 1\nname: t\nduration: {}\nfidelity: {}\ngpus: [{{id: g0, model: {}}}]\n"
                     "sharing: {{g0: {}}}\ntenants:\n{}",
                     duration, fidelity, gpu, sharing, tenants);
}

// A memory-bound step of 0.5 ms alone on a T4 (320 GB/s x 0.9).
std::string busy(const std::string& name, const std::string& extra = "") {
  return fmt::format("  - {{name: {}, on: g0{}, workload: {{training: {{step: {{bytes: 144MB}}}}}}}}\n", name, extra);
}
// Without work during the run: starts after it. (Under equal share such a VM has no vGPU during the run.)
std::string idle(const std::string& name) {
  return fmt::format("  - {{name: {}, on: g0, start: 100s, workload: {{training: {{iterations: 1, step: {{bytes: 1MB}}}}}}}}\n",
                     name);
}
// Resident but without work: one tiny step at t = 0 (~3 us), then done (the VM stays on).
std::string resident_idle(const std::string& name) {
  return fmt::format("  - {{name: {}, on: g0, workload: {{training: {{iterations: 1, step: {{bytes: 1MB}}}}}}}}\n",
                     name);
}
// A VM that starts only at `start`.
std::string later(const std::string& name, const std::string& start) {
  return fmt::format("  - {{name: {}, on: g0, start: {}, workload: {{training: {{step: {{bytes: 144MB}}}}}}}}\n", name,
                     start);
}

double rel(const Results& r, const std::string& name) {
  for (const TenantResult& t : r.tenants)
    if (t.name == name) return t.relative_performance;
  throw std::runtime_error(name);
}

}  // namespace

class Fidelities : public ::testing::TestWithParam<std::string> {};

TEST_P(Fidelities, FixedShareWithIdleNeighboursStillGivesOneOverMax) {
  const Results r = run_text(scenario("T4", "{mode: vgpu, overhead: 0%, profile: T4-4C, scheduler: fixed_share}",
                                      busy("a") + idle("b"), GetParam()));
  EXPECT_NEAR(rel(r, "a"), 0.25, 0.0025);
}

TEST_P(Fidelities, BestEffortWithIdleNeighboursGivesTheWholeGpu) {
  const Results r =
      run_text(scenario("T4", "{mode: vgpu, overhead: 0%, profile: T4-4C}", busy("a") + idle("b") + idle("c") + idle("d"), GetParam()));
  EXPECT_NEAR(rel(r, "a"), 1.0, 1e-9);
}

// A lone VM on a vGPU pays the vGPU manager's overhead (vgpu.overhead, 4%), whatever the scheduler.
TEST_P(Fidelities, ALoneVmPaysTheManagersOverhead) {
  for (const char* scheduler : {"best_effort", "equal_share", "fixed_share"}) {
    const std::string sharing = std::string("{mode: vgpu, profile: T4-16C, scheduler: ") + scheduler + "}";
    EXPECT_NEAR(rel(run_text(scenario("T4", sharing, busy("a"), GetParam())), "a"), 1 / 1.04, 1e-4) << scheduler;
  }
}

TEST_P(Fidelities, EqualShareWithKOfNBusy) {
  // 4 resident, 2 busy: each busy vGPU gets its slot of 4, less a switch at its start: (q - s) / (4 q).
  const double q = 2e-3, s = 40e-6;
  const Results r = run_text(scenario("T4", "{mode: vgpu, overhead: 0%, profile: T4-4C, scheduler: equal_share}",
                                      busy("a") + busy("b") + resident_idle("c") + resident_idle("d"), GetParam()));
  EXPECT_NEAR(rel(r, "a"), (q - s) / (4 * q), 0.0025);
  EXPECT_NEAR(rel(r, "b"), (q - s) / (4 * q), 0.0025);
  // With one resident vGPU fewer the share grows to a third.
  const Results three = run_text(scenario("T4", "{mode: vgpu, overhead: 0%, profile: T4-4C, scheduler: equal_share}",
                                          busy("a") + busy("b") + resident_idle("c"), GetParam()));
  EXPECT_NEAR(rel(three, "a"), (q - s) / (3 * q), 0.0025);
}

TEST_P(Fidelities, EqualShareCountsAVmOnlyFromItsStart) {
  // Issue 13, bug 4: a VM that starts after the run has no vGPU during it, so its busy neighbour has the GPU alone
  // (it got (q - s) / 2q before: the late VM's slot was kept idle).
  const std::string sharing = "{mode: vgpu, overhead: 0%, profile: T4-4C, scheduler: equal_share}";
  EXPECT_NEAR(rel(run_text(scenario("T4", sharing, busy("a") + later("b", "100s"), GetParam())), "a"), 1.0, 1e-3);
  // One that starts half way: a alone for 2 s, then a slot of two, less a switch: (1 + (q - s) / 2q) / 2.
  const double q = 2e-3, s = 40e-6;
  EXPECT_NEAR(rel(run_text(scenario("T4", sharing, busy("a") + later("b", "2s"), GetParam())), "a"),
              (1 + (q - s) / (2 * q)) / 2, 0.0025);
  // Fixed share keeps the type's slots whoever runs: 1/4 either way.
  EXPECT_NEAR(rel(run_text(scenario("T4", "{mode: vgpu, overhead: 0%, profile: T4-4C, scheduler: fixed_share}",
                                    busy("a") + later("b", "100s"), GetParam())),
                  "a"),
              0.25, 0.0025);
}

TEST_P(Fidelities, DefaultSliceDependsOnTheTypesMaximum) {
  // T4-1Q allows 16 per GPU: 1 ms slices; T4-4C allows 4: 2 ms. Two busy vGPUs under equal share.
  const double s = 40e-6;
  const Results small = run_text(
      scenario("T4", "{mode: vgpu, overhead: 0%, profile: T4-1Q, scheduler: equal_share}", busy("a") + busy("b"), GetParam()));
  EXPECT_NEAR(rel(small, "a"), (1e-3 - s) / 2e-3, 0.0025);
  const Results large = run_text(
      scenario("T4", "{mode: vgpu, overhead: 0%, profile: T4-4C, scheduler: equal_share}", busy("a") + busy("b"), GetParam()));
  EXPECT_NEAR(rel(large, "a"), (2e-3 - s) / 4e-3, 0.0025);
}

TEST_P(Fidelities, SriovFixedShareKeepsIdleSlotsAndActiveSkipsThem) {
  const std::string t = busy("a", ", share: {fraction: 12.5%}") + idle("b");
  EXPECT_NEAR(rel(run_text(scenario("MI25", "{mode: sriov}", t, GetParam())), "a"), 0.125, 0.002);
  EXPECT_NEAR(rel(run_text(scenario("MI25", "{mode: sriov, scheduler: active}", t, GetParam())), "a"), 1.0, 1e-9);
  // Two busy half-GPU VFs: each its 8 slots of 16 less one world switch per cycle (100 whole cycles of 96 ms).
  const Results two = run_text(scenario("MI25", "{mode: sriov}",
                                        busy("a", ", share: {fraction: 50%}") + busy("b", ", share: {fraction: 50%}"),
                                        GetParam(), "9.6s"));
  EXPECT_NEAR(rel(two, "a"), (48e-3 - 87e-6) / 96e-3, 0.002);
}

INSTANTIATE_TEST_SUITE_P(Both, Fidelities, ::testing::Values("exact", "fluid"));

TEST(Vgpu, FramebufferIsPartitionedLessTheHypervisorsReservation) {
  // T4-4C (4 per GPU): 4096 / 16 + 16 + 128 / 4 = 304 MiB reserved, 3792 MiB usable.
  const Results r = run_text(scenario("T4", "{mode: vgpu, overhead: 0%, profile: T4-4C}",
                                      busy("fits", ", memory: 3792MiB") + busy("big", ", memory: 4GiB")));
  EXPECT_TRUE(r.tenants[0].failures.empty());
  ASSERT_EQ(r.tenants[1].failures.size(), 1u);
  EXPECT_EQ(r.tenants[1].failures[0].message,
            "out of memory on g0 (partition of big; vGPU T4-4C: 4 GiB less 304 MiB the hypervisor reserves): requested "
            "4 GiB, 3.703 GiB of 3.703 GiB free");
  // Without the reservation the type's full size.
  const Results none = run_text(scenario("T4", "{mode: vgpu, overhead: 0%, profile: T4-4C, framebuffer_reservation: none}",
                                         busy("fits", ", memory: 4GiB") + busy("big", ", memory: 5GiB")));
  EXPECT_TRUE(none.tenants[0].failures.empty());
  ASSERT_EQ(none.tenants[1].failures.size(), 1u);
  EXPECT_EQ(none.tenants[1].failures[0].message,
            "out of memory on g0 (partition of big): requested 5 GiB, 4 GiB of 4 GiB free");
}

TEST(Vgpu, EccReservesAnother16thOnlyWithoutHbmAndSixteenGigabyteT4TypesPayCompression) {
  const VgpuGpuTable* t4 = vgpu_table("T4");
  const VgpuGpuTable* a100 = vgpu_table("A100-40GB");
  ASSERT_TRUE(t4 && a100);
  constexpr double MiB = 1048576.0;
  const VgpuProfile t4_4c = std::get<VgpuProfile>(find_vgpu_profile(*t4, 16 * 1024 * MiB, "T4-4C"));
  EXPECT_DOUBLE_EQ(vgpu_reserved_framebuffer(*t4, t4_4c, false), 304 * MiB);
  EXPECT_DOUBLE_EQ(vgpu_reserved_framebuffer(*t4, t4_4c, true), 560 * MiB);
  const VgpuProfile t4_16c = std::get<VgpuProfile>(find_vgpu_profile(*t4, 16 * 1024 * MiB, "T4-16C"));
  EXPECT_DOUBLE_EQ(vgpu_reserved_framebuffer(*t4, t4_16c, false), (1024 + 16 + 128 + 28) * MiB);
  // A100-4C, 10 per GPU: 256 + 16 + 12.8 MiB, ECC free on HBM.
  const VgpuProfile a100_4c = std::get<VgpuProfile>(find_vgpu_profile(*a100, 40 * 1024 * MiB, "A100-4C"));
  EXPECT_DOUBLE_EQ(vgpu_reserved_framebuffer(*a100, a100_4c, true), (256 + 16 + 12.8) * MiB);
}

TEST(Vgpu, ConfigurationErrors) {
  EXPECT_EQ(error_of(scenario("T4", "{mode: vgpu, profile: T4-4C}",
                              busy("a") + busy("b") + busy("c") + busy("d") + busy("e"))),
            "v.yaml:6:15: sharing.g0: at most 4 vGPUs of type T4-4C fit on T4, 5 tenants are on it");
  EXPECT_EQ(error_of(scenario("M60", "{mode: vgpu, profile: M60-2Q, scheduler: equal_share}", busy("a"))),
            "v.yaml:6:15: sharing.g0: M60 supports only the best_effort scheduler (equal and fixed share need a GPU "
            "after Maxwell)");
  EXPECT_EQ(error_of(scenario("T4", "{mode: vgpu, profile: T4-5C}", busy("a"))),
            "v.yaml:6:15: sharing.g0: 'T4-5C' is not a time-sliced vGPU type of T4 (types: T4-16C, T4-8C, T4-4C, "
            "T4-16Q, T4-8Q, T4-4Q, T4-2Q, T4-1Q, T4-16B, T4-8B, T4-4B, T4-2B, T4-1B, T4-16A, T4-8A, T4-4A, T4-2A, "
            "T4-1A)");
  EXPECT_EQ(error_of(scenario("MI25", "{mode: vgpu, profile: MI25-4C}", busy("a"))),
            "v.yaml:6:15: sharing.g0: MI25 has no time-sliced vGPU types in vgpusim (GPUs with vGPU types: T4, "
            "A100-40GB, A100-80GB, H100-SXM, L4, A10, L40S, V100, M60); AMD GPUs are shared with mode: sriov");
  EXPECT_EQ(error_of(scenario("T4", "{mode: vgpu, profile: T4-4C, scheduler: fixed_share, rmpvmrl: 0x11}", busy("a"))),
            "v.yaml:6:15: sharing.g0: give the scheduler either as `rmpvmrl` or as `scheduler`/`slice`/`frequency`, "
            "not both");
}

TEST(Vgpu, RmPvmrlDecodesTheDriverBitLayout) {
  const auto legacy = std::get<RmPvmrl>(decode_rmpvmrl(0x00180013));  // fixed share, legacy, 24 ms
  EXPECT_EQ(legacy.scheduler, "fixed_share");
  EXPECT_DOUBLE_EQ(legacy.slice, 24e-3);
  const auto strict = std::get<RmPvmrl>(decode_rmpvmrl(0x00180011));  // fixed share, strict, 0x180 = 384 Hz
  EXPECT_EQ(strict.scheduler, "fixed_share");
  EXPECT_DOUBLE_EQ(strict.frequency, 384);
  const auto equal = std::get<RmPvmrl>(decode_rmpvmrl(0x3c3c0001));  // equal share, 960 Hz, averaging 60
  EXPECT_EQ(equal.scheduler, "equal_share");
  EXPECT_DOUBLE_EQ(equal.frequency, 960);
  EXPECT_DOUBLE_EQ(equal.averaging_factor, 60);
  EXPECT_EQ(std::get<RmPvmrl>(decode_rmpvmrl(0)).scheduler, "best_effort");
  EXPECT_EQ(std::get<std::string>(decode_rmpvmrl(0x00030001)),
            "RmPVMRL 0x00030001: scheduling frequency bits 21:12 = 48 Hz (expected 63 to 960, or 0); a time slice in "
            "ms goes in bits 23:16 with bit 1 set (legacy round robin), e.g. 0x00030003");
  // Through a scenario: the register value sets the same scheduler as the keys.
  const Results reg = run_text(scenario("T4", "{mode: vgpu, overhead: 0%, profile: T4-4C, rmpvmrl: 0x00020013}", busy("a") + idle("b")));
  EXPECT_NEAR(rel(reg, "a"), 0.25, 0.0025);
}

TEST(Sriov, FramebufferAndFractions) {
  const Results r = run_text(scenario("MI25", "{mode: sriov}", busy("vm", ", share: {fraction: 12.5%}, memory: 3GiB")));
  ASSERT_EQ(r.tenants[0].failures.size(), 1u);
  EXPECT_EQ(r.tenants[0].failures[0].message,
            "out of memory on g0 (partition of vm): requested 3 GiB, 2 GiB of 2 GiB free");
  EXPECT_EQ(error_of(scenario("MI25", "{mode: sriov}", busy("a", ", share: {fraction: 10%}"))),
            "v.yaml:6:15: sharing.g0: tenant 1's fraction 0.1 is not a whole number of the 16 VF slots (multiples "
            "of 1/16)");
  EXPECT_EQ(error_of(scenario("MI25", "{mode: sriov}",
                              busy("a", ", share: {fraction: 75%}") + busy("b", ", share: {fraction: 50%}"))),
            "v.yaml:6:15: sharing.g0: the tenants' fractions add up to 20 of 16 VF slots");
}

TEST(Software, SharesTheHostAndOnlyTheHost) {
  const Results r = run_text(scenario("llvmpipe", "{mode: software}", busy("a") + busy("b")));
  EXPECT_NEAR(rel(r, "a"), 0.5, 0.002);
  EXPECT_EQ(error_of(scenario("llvmpipe", "{mode: timeslice}", busy("a"))),
            "v.yaml:6:22: sharing.g0.mode: mode 'timeslice' shares gpu devices, but llvmpipe is a cpu device (use "
            "mode: software)");
  EXPECT_EQ(error_of(scenario("T4", "{mode: software}", busy("a"))),
            "v.yaml:6:22: sharing.g0.mode: mode 'software' shares cpu devices, but T4 is a gpu device");
}

TEST(SlotCycle, SlotsOfContextsNotYetStartedAreNotInTheCycle) {
  SlotCycle c{{0, 1}, 1e-3, 1e-4, false, {0.0, 5.0}, 0};
  EXPECT_NEAR(slot_cycle_rates(c, {true, false}, 1.0)[0], 1.0, 1e-12);  // b's VM does not exist yet
  EXPECT_NEAR(slot_cycle_rates(c, {true, false}, 5.0)[0], 0.5, 1e-12);  // from its start: its slot stays idle
}

TEST(SlotCycle, FluidRatesMatchTheCycle) {
  SlotCycle c{{0, 0, 1, -1}, 1e-3, 1e-4, false, {}, 0};
  const auto both = slot_cycle_rates(c, {true, true});
  EXPECT_NEAR(both[0], (2e-3 - 1e-4) / 4e-3, 1e-12);  // two slots in a row, one switch
  EXPECT_NEAR(both[1], (1e-3 - 1e-4) / 4e-3, 1e-12);
  const auto one = slot_cycle_rates(c, {true, false});
  EXPECT_NEAR(one[0], 0.5, 1e-12);  // alone: no switches, idle slots stay idle
  c.skip_idle = true;
  EXPECT_NEAR(slot_cycle_rates(c, {true, false})[0], 1.0, 1e-12);
}

}  // namespace unit_timesliced_modes
