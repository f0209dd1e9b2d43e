// Resource limits: a run's events and memory estimated from a pilot before it runs, and refused above a limit.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "sim/core/errors.hpp"
#include "sim/io/gpu_catalog.hpp"
#include "sim/run/estimate.hpp"
#include "sim/run/metrics.hpp"
#include "sim/run/runs.hpp"
#include "sim/run/simulation.hpp"
#include "sim/scenario/document.hpp"
#include "sim/scenario/loader.hpp"

namespace unit_estimate {

using namespace vgpusim;

namespace {

Scenario quickstart(std::vector<Override> overrides = {}) {
  return load_scenario(read_scenario_document(VGPUSIM_SOURCE_DIR "/scenarios/quickstart.yaml"), builtin_catalog(),
                       overrides);
}

// The events a replication really takes: its shared run and its distinct baselines.
double run_events(const Scenario& r) {
  double events = static_cast<double>(simulate(r).events);
  const std::vector<size_t> source = baseline_sources(r);
  for (size_t t = 0; t < source.size(); ++t)
    if (source[t] == t) events += static_cast<double>(simulate_baseline(r, t).events);
  return events;
}

std::string refusal(const Scenario& sc, RunLimits limits = {}, bool timeline = false) {
  try {
    check_run_limits(estimate_run(sc, timeline, limits), limits);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(Estimate, ExtrapolatesThePilotToTheSharedRunsEvents) {
  // 60 s of quickstart take more events than the pilot: the estimate extrapolates, and lands near the real count.
  const Scenario sc = quickstart({{"replications", "1"}});
  const RunEstimate e = estimate_run(sc, false, {});
  EXPECT_FALSE(e.pilot_complete);
  EXPECT_EQ(e.pilot_events, pilot_budget(sc));
  EXPECT_GT(e.pilot_span, 0);
  const double real = run_events(replication(sc, 0));
  EXPECT_NEAR(e.events / real, 1.0, 0.25) << e.events << " vs " << real;
  EXPECT_EQ(refusal(sc), "");
}

TEST(Estimate, AShortRunIsCountedExactly) {
  const Scenario sc = quickstart({{"replications", "2"}, {"duration", "1s"}});
  const RunEstimate e = estimate_run(sc, false, {});
  ASSERT_TRUE(e.pilot_complete);
  EXPECT_EQ(e.events, 2 * run_events(replication(sc, 0)));
}

// Tenants that starve each other take few events shared, while each one's baseline runs at full speed: the
// estimate pilots the baselines too (once for tenants that share one).
TEST(Estimate, CountsTheBaselinesOfTenantsThatStarveShared) {
  std::string text =
      "version: 1\nname: crowd\nduration: 2s\ngpus: [{id: g0, model: H100-SXM}]\n"
      "sharing: {g0: {mode: timeslice, slice: 2ms}}\ntenants:\n";
  for (int i = 0; i < 40; ++i)
    text += fmt::format("  - {{name: t{}, on: g0, start: 0s, memory: {}MiB, workload: {{training: {{step: {{flops: "
                        "1TFLOP, bytes: 1GB}}, kernels_per_step: 10, host_time: 1ms}}}}}}\n",
                        i, 1 + i % 4);
  const Scenario sc = load_scenario_text(text, "crowd.yaml", builtin_catalog());
  const Scenario r = replication(sc, 0);
  const double shared = static_cast<double>(simulate(r).events);
  const double real = run_events(r);
  ASSERT_GT(real, 3 * shared);  // the four distinct baselines take most of the events
  const RunEstimate e = estimate_run(sc, false, {});
  EXPECT_NEAR(e.events / sc.replications / real, 1.0, 0.1) << e.events << " vs " << sc.replications << " x " << real;
}

TEST(Estimate, RefusesRunsAboveTheLimitsWithTheNumbersAndTheOption) {
  EXPECT_NE(refusal(quickstart({{"duration", "1e9s"}})).find("raise the limit with --max-events 1e+14"),
            std::string::npos)
      << refusal(quickstart({{"duration", "1e9s"}}));
  // Its unit times alone would need terabytes; limits raised far enough let it through.
  EXPECT_NE(refusal(quickstart({{"duration", "1e9s"}}), {1e15, kDefaultMaxMemory}).find("TiB of memory, above"),
            std::string::npos);
  EXPECT_EQ(refusal(quickstart({{"duration", "1e9s"}}), {1e15, 1e15}), "");
  // Bins alone: refused before any pilot, with the bin count and the key to change.
  const Scenario tiny_bins = quickstart({{"metrics.interval", "1ns"}});
  const RunEstimate bins = estimate_run(tiny_bins, false, {});
  EXPECT_EQ(bins.pilot_events, 0u);
  EXPECT_DOUBLE_EQ(bins.bins, 6e10);
  EXPECT_NE(refusal(tiny_bins).find("6e+10 utilization bins per GPU: widen `metrics.interval`"), std::string::npos)
      << refusal(tiny_bins);
  // The timeline keeps bytes per event: a run that fits without one may not fit with one.
  const Scenario sc = quickstart({{"replications", "1"}});
  const RunLimits small{kDefaultMaxEvents, 16.0 * 1024 * 1024};
  EXPECT_EQ(refusal(sc, small, false), "");
  EXPECT_NE(refusal(sc, small, true).find("--max-memory 64MiB"), std::string::npos) << refusal(sc, small, true);
}

// A refusal names the scenario key that sizes the run where the file gave it (FILE:LINE:COL), or says it came from
// --set; a run sized by defaults names none.
TEST(Estimate, RefusalsNameTheKeyThatSizesTheRun) {
  const std::string text =
      "version: 1\nname: big\nduration: 1e9s\nmetrics:\n  interval: 1ns\ngpus: [{id: g0, model: H100-SXM}]\n"
      "tenants:\n  - {name: a, on: g0, workload: {training: {step: {flops: 1TFLOP}}}}\n";
  const Scenario both = load_scenario_text(text, "s.yaml", builtin_catalog());
  EXPECT_EQ(refusal(both).rfind("s.yaml:5:13: metrics.interval: the run would need about ", 0), 0u) << refusal(both);
  const Scenario events = load_scenario_text(text, "s.yaml", builtin_catalog(), {parse_override("metrics.interval=1s")});
  EXPECT_EQ(refusal(events, {kDefaultMaxEvents, 1e18}).rfind("s.yaml:3:11: duration: the run would take about ", 0), 0u)
      << refusal(events, {kDefaultMaxEvents, 1e18});
  const std::string set = refusal(quickstart({parse_override("duration=1e9s")}));
  EXPECT_NE(set.find("quickstart.yaml (--set): duration: the run would take about "), std::string::npos) << set;
}

}  // namespace unit_estimate
