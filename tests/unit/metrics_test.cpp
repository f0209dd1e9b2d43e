// Percentiles, confidence intervals and SLO accounting.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "tests/unit/scenario_helpers.hpp"
#include "sim/scenario/document.hpp"
#include "sim/report/run_formats.hpp"

#include <cmath>
#include <limits>
#include <map>
#include <vector>

#include "sim/run/metrics.hpp"
#include "sim/run/runs.hpp"
#include "sim/run/simulation.hpp"

namespace unit_metrics {

using namespace vgpusim;

TEST(Metrics, PercentileInterpolatesBetweenRanks) {
  const std::vector<double> v = {1, 2, 3, 4, 5};
  EXPECT_DOUBLE_EQ(percentile(v, 50), 3);
  EXPECT_DOUBLE_EQ(percentile(v, 0), 1);
  EXPECT_DOUBLE_EQ(percentile(v, 100), 5);
  EXPECT_DOUBLE_EQ(percentile(v, 90), 4.6);
  EXPECT_DOUBLE_EQ(percentile({7}, 99), 7);
}

TEST(Metrics, ConfidenceIntervalNeedsEnoughValuesAndShrinksWithThem) {
  EXPECT_TRUE(std::isnan(mean_ci95_halfwidth(std::vector<double>(19, 1.0))));
  EXPECT_DOUBLE_EQ(mean_ci95_halfwidth(std::vector<double>(100, 1.0)), 0.0);
  std::vector<double> small, large;
  for (int i = 0; i < 100; ++i) small.push_back(i % 7);
  for (int i = 0; i < 10000; ++i) large.push_back((i * 7919) % 7);
  EXPECT_GT(mean_ci95_halfwidth(small), 0);
  EXPECT_LT(mean_ci95_halfwidth(large), mean_ci95_halfwidth(small));
}

TEST(Metrics, ReplicationIntervalIsStudentTAndExactlyZeroOnlyWhenTheyAgree) {
  // {1, 2, 3}: mean 2, sd 1, t(0.975, 2 dof) = 4.3027: 4.3027 / sqrt(3).
  EXPECT_NEAR(replication_ci95_halfwidth({1, 2, 3}), 4.302653 / std::sqrt(3.0), 1e-5);
  EXPECT_EQ(replication_ci95_halfwidth({0.25, 0.25, 0.25}), 0.0);
  EXPECT_GT(replication_ci95_halfwidth({0.25, 0.25, 0.2500001}), 0.0);
  EXPECT_TRUE(std::isnan(replication_ci95_halfwidth({0.25})));
  EXPECT_NEAR(student_t95(9), 2.262, 1e-3);  // the batch means' 10 batches
}

TEST(Metrics, MergedReplicationsLeaveOutFiguresAReplicationDoesNotHave) {
  // Three replications of one tenant; the second has no completed unit (no relative performance, no latency).
  Scenario sc;
  std::vector<Results> reps(3);
  const double rel[] = {0.5, std::numeric_limits<double>::quiet_NaN(), 0.7};
  for (int i = 0; i < 3; ++i) {
    TenantResult t;
    t.name = "a";
    t.relative_performance = rel[i];
    t.shared.units = i == 1 ? 0 : 100;
    t.shared.unit_time_mean = i == 1 ? 0 : 0.01 * (i + 1);
    if (i != 1) t.shared.latency = LatencySummary{0.01, 0.01, 0.02, 0.03 * (i + 1), 0.1};
    if (i == 2) t.failures.push_back({"out_of_memory", 0, "no room"});
    reps[static_cast<size_t>(i)].tenants.push_back(t);
  }
  const Results m = merge_replications(sc, reps);
  const TenantResult& t = m.tenants[0];
  EXPECT_NEAR(t.relative_performance, 0.6, 1e-12);
  EXPECT_NEAR(t.vgpu_loss_ci95, replication_ci95_halfwidth({0.5, 0.7}), 1e-12);
  ASSERT_TRUE(t.shared.latency.has_value());
  EXPECT_NEAR(t.shared.latency->p99, (0.03 + 0.09) / 2, 1e-12);
  // Tails get intervals across the replications that have them (p50 equal in both: exactly 0).
  EXPECT_NEAR(t.shared.latency->p99_ci95, replication_ci95_halfwidth({0.03, 0.09}), 1e-12);
  EXPECT_EQ(t.shared.latency->p50_ci95, 0.0);
  EXPECT_NEAR(t.shared.throughput_ci95, replication_ci95_halfwidth({0, 0, 0}), 1e-12);
  EXPECT_NEAR(t.shared.unit_time_mean, (0.01 + 0.03) / 2, 1e-12);
  EXPECT_EQ(t.shared.units, 67);
  ASSERT_EQ(t.failures.size(), 1u);  // a failure of any replication is reported
  EXPECT_EQ(t.vgpu_loss_replications.size(), 3u);
}

TEST(Metrics, TailsAndThroughputGetIntervalsOnlyFromSeveralReplications) {
  // An open-loop service at 200 requests/s on an A100: three replications (different seeds) give intervals,
  // one gives none.
  const std::string text =
      "version: 1\nname: t\nduration: 5s\nreplications: REPS\ngpus: [{id: g0, model: A100-80GB}]\n"
      "sharing: {g0: {mode: timeslice}}\ntenants:\n"
      "  - {name: s, on: g0, workload: {inference: {rate: 200/s, request: {fp16: 0.5TFLOP}}}}\n";
  auto with = [&](const char* reps) {
    std::string t = text;
    t.replace(t.find("REPS"), 4, reps);
    return testing_support::run_text(t, "m.yaml").tenants.at(0).shared;
  };
  const Performance three = with("3");
  ASSERT_TRUE(three.latency.has_value());
  EXPECT_TRUE(std::isfinite(three.latency->p99_ci95));
  EXPECT_GT(three.latency->p99_ci95, 0);
  EXPECT_TRUE(std::isfinite(three.throughput_ci95));
  const Performance one = with("1");
  ASSERT_TRUE(one.latency.has_value());
  EXPECT_TRUE(std::isnan(one.latency->p99_ci95));
  EXPECT_TRUE(std::isnan(one.throughput_ci95));
}

TEST(Metrics, ResultsJsonNamesTheToolVersionAndTheScenarioTextsFingerprint) {
  // FNV-1a 64 of "" and "a" (the published test vectors).
  EXPECT_EQ(text_fingerprint(""), "fnv1a64:cbf29ce484222325");
  EXPECT_EQ(text_fingerprint("a"), "fnv1a64:af63dc4c8601ec8c");
  const std::string text =
      "version: 1\nname: t\nduration: 1s\ngpus: [{id: g0, model: A100-80GB}]\nsharing: {g0: {mode: timeslice}}\n"
      "tenants:\n  - {name: a, on: g0, workload: {training: {step: {fp16: 1TFLOP}}}}\n";
  const Results r = testing_support::run_text(text, "m.yaml");
  EXPECT_EQ(r.scenario_hash, text_fingerprint(text));
  const std::string json = results_json(r);
  EXPECT_NE(json.find("\"tool\": {\n    \"name\": \"vgpusim\",\n    \"version\": \""), std::string::npos) << json;
  EXPECT_NE(json.find("\"hash\": \"" + text_fingerprint(text) + "\""), std::string::npos);
}

TEST(Metrics, AQueueThatKeepsGrowingIsWarnedAbout) {
  // Latencies that grow linearly (arrivals outpace service) against a steady sequence with the same mean.
  std::vector<double> growing, steady;
  for (int i = 0; i < 400; ++i) {
    growing.push_back(0.01 + 0.001 * i);
    steady.push_back(i % 2 ? 0.1 : 0.3);
  }
  const std::string w = queue_growth_warning(growing, 0.01);
  EXPECT_NE(w.find("does not reach a steady state: the last quarter of the requests waited 2.25x"), std::string::npos)
      << w;
  EXPECT_EQ(queue_growth_warning(steady, 0.01), "");
  // A growth that stays within twice the tenant's latency alone is not a queue building up.
  EXPECT_EQ(queue_growth_warning(growing, 0.3), "");
  // Too few requests to tell.
  EXPECT_EQ(queue_growth_warning(std::vector<double>(growing.begin(), growing.begin() + 39), 0.01), "");
}

namespace {

TEST(RunScenario, ThreadsDoNotChangeResults) {
  // Three replications of a time-sliced pair with random think times: the shared runs and baselines on one thread
  // or several give the same results, byte for byte.
  const std::string text =
      "version: 1\nname: t\nduration: 0.5s\nreplications: 3\ngpus: [{id: g0, model: A100-80GB}]\n"
      "sharing: {g0: {mode: timeslice}}\ntenants:\n"
      "  - {name: a, on: g0, memory: 1GiB, workload: {kernels: {kernel: {duration: 300us}, think: 300us, "
      "think_distribution: exponential}}}\n"
      "  - {name: b, on: g0, memory: 1GiB, workload: {training: {step: {flops: 1TFLOP, bytes: 1GB}}}}\n";
  const Scenario sc = load_scenario_text(text, "t.yaml", builtin_catalog());
  const std::string one = results_json(run_scenario(sc, nullptr, nullptr, 1));
  EXPECT_EQ(results_json(run_scenario(sc, nullptr, nullptr, 4)), one);
  EXPECT_EQ(results_json(run_scenario(sc, nullptr, nullptr, 2)), one);
}

// Tenants whose alone runs would be the same (one workload text, GPU, memory and start, and one random stream where
// the workload draws) share one simulated baseline, and get the results a baseline of their own would give.
TEST(RunScenario, TenantsWhoseAloneRunsAreTheSameShareOneBaseline) {
  const std::string head =
      "version: 1\nname: t\nduration: 0.5s\ngpus: [{id: g0, model: A100-80GB}]\nsharing: {g0: {mode: timeslice}}\n"
      "tenants:\n";
  const std::string train =
      "workload: {training: {step: {flops: 1TFLOP, bytes: 1GB}, kernels_per_step: 8, host_time: 1ms}}";
  const std::string serve = "workload: {inference: {rate: 200/s, request: {flops: 50GFLOP, bytes: 1GB}}}";
  const auto tenant = [](const std::string& name, const std::string& more, const std::string& workload,
                         const std::string& memory = "1GiB") {
    return fmt::format("  - {{name: {}, on: g0, memory: {}{}, {}}}\n", name, memory, more, workload);
  };
  const std::string text = head + tenant("a", ", start: 0s", train) + tenant("b", ", start: 0s", train) +
                           tenant("c", ", start: 0s", serve) + tenant("d", ", start: 0s", serve) +
                           tenant("e", ", start: 0s, stream: s", serve) + tenant("f", ", start: 0s, stream: s", serve) +
                           tenant("g", "", train) + tenant("h", "", train);
  const Scenario sc = load_scenario_text(text, "t.yaml", builtin_catalog());
  // c and d draw their arrivals from streams of their own; e and f from one; g and h start at their own times.
  EXPECT_EQ(baseline_sources(sc), (std::vector<size_t>{0, 0, 2, 3, 4, 4, 6, 7}));
  EXPECT_EQ(sc.tenants[0].workload, sc.tenants[1].workload);  // one spec for one text
  // The same tenants, each made distinct by a byte of memory that changes nothing else: a baseline each.
  const std::string apart = head + tenant("a", ", start: 0s", train) +
                            tenant("b", ", start: 0s", train, "1025MiB") +
                            tenant("e", ", start: 0s, stream: s", serve) +
                            tenant("f", ", start: 0s, stream: s", serve, "1025MiB");
  const Scenario alone = load_scenario_text(apart, "t.yaml", builtin_catalog());
  ASSERT_EQ(baseline_sources(alone), (std::vector<size_t>{0, 1, 2, 3}));
  const Results shared = run_scenario(sc, nullptr, nullptr, 1), own = run_scenario(alone, nullptr, nullptr, 1);
  for (const auto& [in_shared, in_own] : {std::pair{1, 1}, std::pair{5, 3}}) {
    const Performance& x = shared.tenants[in_shared].baseline;
    const Performance& y = own.tenants[in_own].baseline;
    EXPECT_GT(x.units, 10) << in_shared;
    EXPECT_EQ(x.units, y.units) << in_shared;
    EXPECT_EQ(x.throughput, y.throughput) << in_shared;
    EXPECT_EQ(x.latency_cdf, y.latency_cdf) << in_shared;
  }
}


// Why each tenant slowed, from first principles: the unit's extra time splits by where it went, and the parts add up
// to the difference of the unit times.
std::map<std::string, double> causes_of(const TenantResult& t) {
  std::map<std::string, double> m;
  for (const auto& [name, seconds] : t.slowdown_causes) m[name] = seconds;
  return m;
}

// Two identical trainers a and b on one A100-80GB shared as `sharing`, for 2 s, one replication.
Results identical_pair(const std::string& sharing, const std::string& training) {
  const std::string text = fmt::format(
      "version: 1\nname: t\nduration: 2s\nreplications: 1\ngpus: [{{id: g0, model: A100-80GB}}]\n"
      "sharing: {{g0: {}}}\ntenants:\n  - {{name: a, on: g0, workload: {{training: {}}}}}\n"
      "  - {{name: b, on: g0, workload: {{training: {}}}}}\n",
      sharing, training, training);
  return run_scenario(load_scenario_text(text, "t.yaml", builtin_catalog()), nullptr, nullptr, 1);
}

void expect_split_adds_up(const TenantResult& t) {
  double shares = 0;
  for (const auto& [name, share] : t.shared.time_split) shares += share;
  EXPECT_NEAR(shares, 1.0, 1e-9) << t.name;
  double added = 0;
  for (const auto& [name, seconds] : t.slowdown_causes) added += seconds;
  EXPECT_NEAR(added, 1 / t.shared.throughput - 1 / t.baseline.throughput, 1e-9) << t.name;
}

TEST(RunScenario, ATimeSlicedTrainerWaitsForItsNeighboursSteps) {
  // Two identical compute-bound trainers without host time, 2 ms slices, 50 us switches: each step (about 5 ms
  // alone) waits about as long for the other's slices, and loses a switch per slice. (The split covers the whole
  // window, the unit in progress at its end included: with hundreds of units that is within 1% of a unit.)
  const Results r = identical_pair("{mode: timeslice, slice: 2ms, switch_cost: 50us}", "{step: {flops: 1TFLOP}}");
  for (const TenantResult& t : r.tenants) {
    expect_split_adds_up(t);
    const double alone = 1 / t.baseline.throughput;
    std::map<std::string, double> c = causes_of(t);
    ASSERT_EQ(c.size(), 5u);
    EXPECT_NEAR(c["waiting"] / alone, 1.0, 0.1) << t.name;
    EXPECT_GT(c["withheld"], 0) << t.name;  // the switches
    EXPECT_LT(c["withheld"] / alone, 0.1) << t.name;
    EXPECT_NEAR(c["running"], 0, 0.01 * alone) << t.name;
    EXPECT_EQ(c["slowed"], 0) << t.name;
    EXPECT_NEAR(c["off_gpu"], 0, 0.01 * alone) << t.name;
  }
}

TEST(RunScenario, MpsClientsBesideEachOtherAreSlowedNotQueued) {
  // Two memory-bound trainers under MPS run at once and share the bandwidth: their loss is `slowed`.
  const Results r = identical_pair("{mode: mps}", "{step: {bytes: 20GB}, kernels_per_step: 10}");
  for (const TenantResult& t : r.tenants) {
    expect_split_adds_up(t);
    std::map<std::string, double> c = causes_of(t);
    EXPECT_GT(c["slowed"], 0.8 * (1 / t.shared.throughput - 1 / t.baseline.throughput)) << t.name;
    EXPECT_EQ(c["waiting"], 0) << t.name;
  }
}

TEST(RunScenario, AJobOnASliceRunsLongerAndIsNotQueued) {
  // Alone on a 3g slice of seven: the same work takes longer at the slice's solo speed (`running`), nothing else;
  // an open-loop server's split is given as shares of its time and has no per-unit causes.
  const std::string text =
      "version: 1\nname: t\nduration: 2s\nreplications: 1\ngpus: [{id: g0, model: A100-80GB}]\n"
      "sharing: {g0: {mode: mig, partitions: [{id: i0, profile: 3g.40gb}, {id: i1, profile: 1g.10gb}]}}\n"
      "tenants:\n"
      "  - {name: a, on: g0/i0, workload: {training: {step: {flops: 20TFLOP}, host_time: 2ms}}}\n"
      "  - {name: s, on: g0/i1, workload: {inference: {rate: 20/s, request: {flops: 1TFLOP}}}}\n";
  const Results r = run_scenario(load_scenario_text(text, "t.yaml", builtin_catalog()), nullptr, nullptr, 1);
  const TenantResult& a = r.tenants[0];
  expect_split_adds_up(a);
  std::map<std::string, double> c = causes_of(a);
  EXPECT_GT(c["running"], 0.95 * (1 / a.shared.throughput - 1 / a.baseline.throughput));
  EXPECT_EQ(c["waiting"] + c["slowed"] + c["withheld"], 0);
  EXPECT_NEAR(c["off_gpu"], 0, 0.01 / a.baseline.throughput);  // its host time is the same
  const TenantResult& s = r.tenants[1];
  EXPECT_TRUE(s.slowdown_causes.empty());
  ASSERT_EQ(s.shared.time_split.size(), 5u);
  EXPECT_GT(s.shared.time_split[0].second, 2 * s.baseline.time_split[0].second);  // running on a seventh
}

}  // namespace

}  // namespace unit_metrics
