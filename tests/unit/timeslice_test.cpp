// Time-slicing and passthrough against their analytic answers, through the whole pipeline (scenario text ->
// simulation -> baseline -> results) in both fidelities, plus the exact scheduler's slice mechanics.
#include <gtest/gtest.h>
#include <fmt/format.h>

#include "models/sharing/sharing_model.hpp"
#include "sim/catalog.hpp"
#include "sim/engine.hpp"
#include "sim/metrics.hpp"
#include "sim/scenario/loader.hpp"
#include "sim/simulation.hpp"
#include "tests/unit/scenario_helpers.hpp"

using namespace vgpusim;

namespace {

Results run_text(const std::string& text) { return testing_support::run_text(text, "test.yaml"); }

std::string trainers(int n, const std::string& fidelity, const std::string& sharing, const std::string& iterations) {
  std::string s = fmt::format(R"(version: 1
name: analytic
duration: 10s
fidelity: {}
gpus: [{{id: g0, model: H100-SXM}}]
sharing: {{g0: {}}}
tenants:
)",
                              fidelity, sharing);
  for (int i = 0; i < n; ++i)
    s += fmt::format("  - {{name: t{}, on: g0, workload: {{training: {{{}step: {{flops: 0.8TFLOP}}, kernels_per_step: 4}}}}}}\n",
                     i, iterations);
  return s;
}

}  // namespace

class TwoTrainers : public ::testing::TestWithParam<std::string> {};

TEST_P(TwoTrainers, EachGetsHalfTheGpuLessSwitchCost) {
  const double q = 2e-3, s = 40e-6;
  const Results r = run_text(trainers(2, GetParam(), "{mode: timeslice, slice: 2ms, switch_cost: 40us}", ""));
  const double expected = 0.5 * q / (q + s);
  for (const TenantResult& t : r.tenants) {
    EXPECT_NEAR(t.relative_performance, expected, 0.005 * expected) << t.name;
    EXPECT_GT(t.shared.units, 1000);
  }
}

TEST_P(TwoTrainers, FourTrainersEachGetAQuarter) {
  const double q = 1e-3, s = 100e-6;
  const Results r = run_text(trainers(4, GetParam(), "{mode: timeslice, slice: 1ms, switch_cost: 100us}", ""));
  const double expected = 0.25 * q / (q + s);
  for (const TenantResult& t : r.tenants) EXPECT_NEAR(t.relative_performance, expected, 0.005 * expected) << t.name;
}

TEST_P(TwoTrainers, LoneTenantUnderTimesliceLosesNothing) {
  const Results r = run_text(trainers(1, GetParam(), "{mode: timeslice}", "iterations: 500, "));
  ASSERT_EQ(r.tenants.size(), 1u);
  EXPECT_NEAR(r.tenants[0].vgpu_loss, 0.0, 1e-12);
  EXPECT_TRUE(r.tenants[0].finished);
}

TEST_P(TwoTrainers, PassthroughLosesExactlyItsOverhead) {
  const Results r = run_text(trainers(1, GetParam(), "{mode: passthrough, overhead: 3%}", "iterations: 500, "));
  EXPECT_NEAR(r.tenants[0].slowdown, 1.03, 1e-9);
  const Results d = run_text(trainers(1, GetParam(), "{mode: passthrough}", "iterations: 500, "));
  EXPECT_NEAR(d.tenants[0].slowdown, 1.02, 1e-9);  // the registered default
}

INSTANTIATE_TEST_SUITE_P(Fidelity, TwoTrainers, ::testing::Values("exact", "fluid"));

namespace {
struct Log : EngineClient {
  Engine* e = nullptr;
  std::vector<std::pair<uint64_t, double>> done;
  void on_activity_done(uint64_t tag) override { done.push_back({tag, e->now()}); }
  void on_timer(uint64_t) override {}
};
std::unique_ptr<SharingModel> exact_timeslice(double q, double s) {
  ModelSetup setup;
  setup.params = ParamValues::defaults(find_sharing_model("timeslice")->params);
  setup.params.set("slice", q);
  setup.params.set("switch_cost", s);
  setup.params.set("idle_grace", 0);
  setup.fidelity = Fidelity::Exact;
  return find_sharing_model("timeslice")->create(setup);
}
}  // namespace

TEST(TimeSliceScheduler, AlternatesSlicesWithSwitches) {
  // a: 3 ms of work, b: 1 ms, both at t=0, q = 1 ms, s = 0.1 ms.
  // a runs [0,1], switch [1,1.1], b runs [1.1,2.1] and is done, switch [2.1,2.2], a runs [2.2,4.2].
  Engine e;
  Log la, lb;
  la.e = lb.e = &e;
  const auto g = e.add_gpu(exact_timeslice(1e-3, 1e-4));
  e.start_activity(e.add_context(g, e.add_client(&la)), 3e-3, 1);
  e.start_activity(e.add_context(g, e.add_client(&lb)), 1e-3, 2);
  e.run();
  ASSERT_EQ(lb.done.size(), 1u);
  ASSERT_EQ(la.done.size(), 1u);
  EXPECT_NEAR(lb.done[0].second, 2.1e-3, 1e-12);
  EXPECT_NEAR(la.done[0].second, 4.2e-3, 1e-12);
  EXPECT_NEAR(e.gpu_stats(g).delivered, 4e-3, 1e-12);
  EXPECT_NEAR(e.gpu_stats(g).busy_time, 4.2e-3, 1e-12);
}

TEST(TimeSliceScheduler, LateArrivalWaitsForTheSliceGrid) {
  // a alone from t=0 with slices on a 1 ms grid; b arrives at 2.3 ms and gets the GPU at the 3 ms boundary plus
  // the switch.
  Engine e;
  Log la, lb;
  la.e = lb.e = &e;
  const auto g = e.add_gpu(exact_timeslice(1e-3, 1e-4));
  const auto ca = e.add_context(g, e.add_client(&la));
  const auto cb = e.add_context(g, e.add_client(&lb));
  e.start_activity(ca, 10e-3, 1);
  e.run(2.3e-3);
  e.start_activity(cb, 0.5e-3, 2);
  e.run();
  ASSERT_EQ(lb.done.size(), 1u);
  EXPECT_NEAR(lb.done[0].second, 3.6e-3, 1e-12);  // 3.0 + 0.1 switch + 0.5 work
  EXPECT_NEAR(la.done[0].second, 10.7e-3, 1e-12);  // 10 ms of work + b's 0.5 ms + two switches
}

TEST(TimeSliceScheduler, ReturningResidentContextPaysNoSwitch) {
  // Only a ever runs; its gaps leave it resident, so it never pays a switch.
  Engine e;
  Log la;
  la.e = &e;
  const auto g = e.add_gpu(exact_timeslice(1e-3, 1e-4));
  const auto ca = e.add_context(g, e.add_client(&la));
  e.start_activity(ca, 2.5e-3, 1);
  e.run(5e-3);
  e.start_activity(ca, 2.5e-3, 2);
  e.run();
  ASSERT_EQ(la.done.size(), 2u);
  EXPECT_NEAR(la.done[1].second, 7.5e-3, 1e-12);
}
