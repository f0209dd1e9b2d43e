// Synthetic workloads through the pipeline: counts, Poisson arrivals, frame caps, think time, per-tenant streams.
#include <gtest/gtest.h>

#include <cmath>

#include "sim/core/rng.hpp"
#include "sim/io/gpu_catalog.hpp"
#include "sim/run/metrics.hpp"
#include "sim/scenario/loader.hpp"
#include "sim/run/simulation.hpp"

using namespace vgpusim;

namespace {
Scenario load(const std::string& tenants, const std::string& extra = "duration: 100s\n") {
  return load_scenario_text("version: 1\nname: w\n" + extra +
                                "gpus: [{id: g0, model: H100-SXM}]\nsharing: {g0: {mode: timeslice}}\ntenants:\n" + tenants,
                            "w.yaml", builtin_catalog());
}
}  // namespace

TEST(Workloads, TrainingRunsItsIterationsAndFinishes) {
  // 3 ms of host time + a step of exactly 10 ms on an H100 (memory-bound).
  const Scenario sc = load("  - {name: t, on: g0, workload: {training: {iterations: 50, host_time: 3ms, step: {bytes: "
                           "30.15GB}}}}\n");
  const RunRecord r = simulate(sc);
  EXPECT_EQ(r.tenants[0].units, 50);
  EXPECT_NEAR(r.tenants[0].finish, 50 * 13e-3, 1e-9);
}

TEST(Workloads, InferenceArrivalsArePoissonAtTheRate) {
  const Scenario sc = load("  - {name: i, on: g0, workload: {inference: {rate: 200/s, request: {bytes: 1GB}}}}\n");
  const RunRecord r = simulate(sc);
  // 20000 expected arrivals; 4 standard deviations is 566.
  EXPECT_NEAR(static_cast<double>(r.tenants[0].units), 20000, 566);
  // Service 0.33 ms at utilization 6.6%: the mean latency is close to the service time (M/D/1: +3.5%).
  double mean = 0;
  for (double x : r.tenants[0].unit_times) mean += x;
  mean /= static_cast<double>(r.tenants[0].units);
  const double service = 1e9 / (3.35e12 * 0.9);
  const double rho = 200 * service;
  EXPECT_NEAR(mean, service * (1 + rho / (2 * (1 - rho))), 0.01 * service);
}

TEST(Workloads, RenderHonoursTheFrameCap) {
  const Scenario sc = load("  - {name: r, on: g0, workload: {render: {frames: 120, fps_cap: 60, frame: {bytes: 1GB}}}}\n",
                           "");
  const RunRecord r = simulate(sc);
  EXPECT_EQ(r.tenants[0].units, 120);
  const double service = 1e9 / (3.35e12 * 0.9);
  EXPECT_NEAR(r.tenants[0].finish, 119.0 / 60 + service, 1e-9);
}

TEST(Workloads, KernelMixDrawsByWeight) {
  const Scenario sc = load(
      "  - name: k\n    on: g0\n    workload:\n      kernels:\n        count: 10000\n        mix:\n"
      "          - {name: big, weight: 1, kernel: {bytes: 3GB}}\n          - {name: small, weight: 3, kernel: {bytes: "
      "1GB}}\n",
      "");
  const RunRecord r = simulate(sc);
  EXPECT_EQ(r.tenants[0].units, 10000);
  // Expected work: 10000 x (1/4 x 3 GB + 3/4 x 1 GB) = 15 TB at 3.015 TB/s; binomial sd of the big count is 43.
  const double per_gb = 1e9 / (3.35e12 * 0.9);
  EXPECT_NEAR(r.tenants[0].finish, 15000 * per_gb, 4 * 43 * 2 * per_gb);
}

TEST(Workloads, TenantStreamsDependOnNameNotPosition) {
  const std::string a = "  - {name: a, on: g0, workload: {inference: {rate: 50/s, request: {bytes: 1GB}}}}\n";
  const std::string b = "  - {name: b, on: g0, workload: {inference: {rate: 50/s, request: {bytes: 1GB}}}}\n";
  const RunRecord alone = simulate(load(a, "duration: 10s\n"));
  const RunRecord baseline_of_a = simulate_baseline(load(b + a, "duration: 10s\n"), 1);
  EXPECT_EQ(alone.tenants[0].units, baseline_of_a.tenants[0].units);
  EXPECT_EQ(alone.tenants[0].unit_times, baseline_of_a.tenants[0].unit_times);
  EXPECT_NE(stream_seed(1, "a"), stream_seed(1, "b"));
  EXPECT_NE(stream_seed(1, "a"), stream_seed(2, "a"));
}

TEST(Workloads, OutOfMemoryIsReportedPerTenant) {
  const Scenario sc = load(
      "  - {name: big, on: g0, memory: 70GiB, workload: {training: {iterations: 5, step: {bytes: 1GB}}}}\n"
      "  - {name: late, on: g0, memory: 20GiB, workload: {training: {iterations: 5, step: {bytes: 1GB}}}}\n");
  const RunRecord r = simulate(sc);
  EXPECT_TRUE(r.tenants[0].failures.empty());
  ASSERT_EQ(r.tenants[1].failures.size(), 1u);
  EXPECT_EQ(r.tenants[1].failures[0].kind, "out_of_memory");
  EXPECT_EQ(r.tenants[1].failures[0].message,
            "out of memory on g0: requested 20 GiB, 10 GiB of 80 GiB free (in use: big 70 GiB)");
  EXPECT_EQ(r.tenants[1].units, 0);
}
