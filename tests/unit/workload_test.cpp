// Synthetic workloads through the pipeline: counts, Poisson arrivals, frame caps, think time, per-tenant streams.
#include <gtest/gtest.h>
#include <fmt/format.h>

#include <cmath>

#include "sim/core/rng.hpp"
#include "models/gpu/roofline.hpp"
#include "sim/io/calibration_file.hpp"
#include "sim/io/gpu_catalog.hpp"
#include "sim/run/metrics.hpp"
#include "sim/run/runs.hpp"
#include "sim/scenario/loader.hpp"
#include "sim/run/simulation.hpp"
#include "sim/core/errors.hpp"
#include "models/workload/workload.hpp"
#include "models/workload/distribution.hpp"

namespace unit_workload {

using namespace vgpusim;

namespace {
// Analytic cases: tenants start at t = 0 (no start jitter).
Scenario load(const std::string& tenants, const std::string& extra = "duration: 100s\nstart_jitter: 0s\n") {
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
  EXPECT_NEAR(r.tenants[0].finish, 50 * (13e-3 + 2.48e-6), 1e-9);  // and each step's launch overhead
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
  const double service = 1e9 / (3.35e12 * 0.9) + 2.48e-6;  // with the launch overhead
  const double rho = 200 * service;
  EXPECT_NEAR(mean, service * (1 + rho / (2 * (1 - rho))), 0.01 * service);
}

TEST(Workloads, RenderHonoursTheFrameCap) {
  const Scenario sc = load("  - {name: r, on: g0, workload: {render: {frames: 120, fps_cap: 60, frame: {bytes: 1GB}}}}\n",
                           "start_jitter: 0s\n");
  const RunRecord r = simulate(sc);
  EXPECT_EQ(r.tenants[0].units, 120);
  const double service = 1e9 / (3.35e12 * 0.9) + 2.48e-6;  // with the launch overhead
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

TEST(Distributions, SampleTheirMeansAndNeverGoNegative) {
  Rng rng(11);
  const Distribution cases[] = {Distribution::constant(2e-3),
                                Distribution::uniform(1e-3, 3e-3),
                                {Distribution::Kind::Normal, 2e-3, 0.5e-3},
                                {Distribution::Kind::Lognormal, 2e-3, 1e-3},
                                {Distribution::Kind::Exponential, 2e-3, 0}};
  for (const Distribution& d : cases) {
    double sum = 0, sq = 0;
    const int n = 200000;
    for (int i = 0; i < n; ++i) {
      const double x = d.sample(rng);
      ASSERT_GE(x, 0.0) << distribution_name(d.kind);
      sum += x;
      sq += x * x;
    }
    const double mean = sum / n, sd = std::sqrt(sq / n - mean * mean);
    EXPECT_NEAR(mean, 2e-3, 0.01 * 2e-3) << distribution_name(d.kind);
    EXPECT_NEAR(d.mean(), 2e-3, 1e-15) << distribution_name(d.kind);
    if (d.kind == Distribution::Kind::Normal || d.kind == Distribution::Kind::Lognormal) {
      EXPECT_NEAR(sd, d.b, 0.02 * d.b) << distribution_name(d.kind);
    }
  }
}

TEST(Distributions, AreReadFromAPlainValueOrAMappingWithClearErrors) {
  const auto host_time = [](const std::string& value) {
    const Scenario sc = load("  - {name: t, on: g0, workload: {training: {iterations: 1, host_time: " + value +
                             ", step: {bytes: 1GB}}}}\n");
    return dynamic_cast<const TrainingWorkload&>(*sc.tenants[0].workload).host_time;
  };
  EXPECT_TRUE(host_time("3ms").is_constant());
  EXPECT_NEAR(host_time("3ms").a, 3e-3, 1e-15);
  const Distribution u = host_time("{distribution: uniform, min: 1ms, max: 2ms}");
  EXPECT_TRUE(u.kind == Distribution::Kind::Uniform && std::abs(u.b - 2e-3) < 1e-15);
  EXPECT_TRUE(host_time("{distribution: lognormal, mean: 1ms, sd: 0.2ms}").kind == Distribution::Kind::Lognormal);
  const auto error = [&](const std::string& value) {
    try {
      host_time(value);
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error("{distribution: uniform, mean: 1ms}").find(
                "`mean` does not go with distribution uniform (it takes: min, max)"),
            std::string::npos);
  EXPECT_NE(error("{distribution: normal, mean: 1ms}").find("distribution normal needs `sd` (it takes: mean, sd)"),
            std::string::npos);
  EXPECT_NE(error("{distribution: uniform, min: 2ms, max: 1ms}").find("expected max >= min"), std::string::npos);
  EXPECT_NE(error("{distribution: gamma, mean: 1ms}").find("gamma"), std::string::npos);
  EXPECT_NE(error("{distribution: exponential, mean: -1ms}").find("expected a value >= 0"), std::string::npos);
}

// Issue 13, bug 3: two identical trainers with a constant host time under MPS. Started together they stay in
// lockstep and one run reports a spread of exactly 0; the default start offsets and replications show how much the
// answer depends on their phase; a varying host time mixes the phases and the replications then agree closely.
TEST(Replications, ShowThePhaseDependenceThatOneLockstepRunHides) {
  const std::string pair = R"(version: 1
name: lockstep
seed: 1
duration: 5s
gpus: [{id: g0, model: A100-80GB}]
sharing: {g0: {mode: mps}}
tenants:
  - {name: a, on: g0, workload: {training: {step: {bytes: 2GB, blocks: 80}, host_time: HOST}}}
  - {name: b, on: g0, workload: {training: {step: {bytes: 2GB, blocks: 80}, host_time: HOST}}}
)";
  const auto run = [&](const std::string& head, const std::string& host) {
    std::string text = head + pair;
    for (size_t at; (at = text.find("HOST")) != std::string::npos;) text.replace(at, 4, host);
    return run_scenario(load_scenario_text(text, "lock.yaml", builtin_catalog()));
  };
  const Results lockstep = run("start_jitter: 0s\nreplications: 1\n", "1ms");
  EXPECT_LT(lockstep.tenants[0].vgpu_loss_ci95, 1e-9);  // batch means of one deterministic, periodic run
  EXPECT_EQ(lockstep.replications, 1);
  const Results phases = run("replications: 10\n", "1ms");
  ASSERT_EQ(phases.tenants[0].vgpu_loss_replications.size(), 10u);
  EXPECT_GT(phases.tenants[0].vgpu_loss_ci95, 0.01);
  const Results mixed = run("replications: 10\n", "{distribution: lognormal, mean: 1ms, sd: 0.2ms}");
  EXPECT_LT(mixed.tenants[0].vgpu_loss_ci95, phases.tenants[0].vgpu_loss_ci95 / 3);
  EXPECT_GT(mixed.tenants[0].vgpu_loss_ci95, 0.0);
  // Default: 3 replications, the first with the scenario's own seed.
  const Results defaults = run("", "1ms");
  EXPECT_EQ(defaults.replications, 3);
  EXPECT_EQ(defaults.tenants[0].vgpu_loss_replications.size(), 3u);
}

namespace {
// Iterations per second of a training step (`step`: the kernel's keys) alone on a GPU passed through without
// overhead, one replication.
double lone_step_rate(const std::string& gpu, const std::string& step, const std::string& duration) {
  const std::string text = fmt::format(
      "version: 1\nname: lone\nduration: {}\nreplications: 1\ngpus: [{{id: g0, model: {}}}]\n"
      "sharing: {{g0: {{mode: passthrough, overhead: 0}}}}\n"
      "tenants:\n  - {{name: a, on: g0, workload: {{training: {{step: {{{}}}}}}}}}\n",
      duration, gpu, step);
  return run_scenario(load_scenario_text(text, "lone.yaml", builtin_catalog())).tenants[0].shared.throughput;
}
}  // namespace

// `launch: graph` and `launch: persistent` kernels pay the GPU's own overheads for them (issue 13, per-kernel
// latency): a 64 kB step launched each way on an H200, alone.
TEST(Workloads, LaunchKindSetsEachKernelsOverhead) {
  const auto rate = [](const std::string& launch) { return lone_step_rate("H200", "bytes: 64kB" + launch, "50ms"); };
  const RooflineParams h200 = RooflineParams::table().with(builtin_overrides("H200"));
  const double bytes = 64e3 / (4.8e12 * h200.memory_efficiency);
  const double stream = rate(""), graph = rate(", launch: graph"), persistent = rate(", launch: persistent");
  EXPECT_NEAR(stream, 1 / (h200.launch_overhead + bytes), 0.01 * stream);
  EXPECT_NEAR(graph, 1 / (h200.graph_launch_overhead + bytes), 0.01 * graph);
  EXPECT_NEAR(persistent, 1 / (h200.grid_sync_overhead + bytes), 0.01 * persistent);
  EXPECT_GT(graph, 1.5 * stream);
}

// `threads` reaches the roofline: on an A100-80GB (2048 threads per SM, occupancy_saturation fitted on gpu-stream)
// a memory-bound step on 54 blocks of 256 threads holds 6.25% of the thread slots and streams at that share of the
// saturation.
TEST(Workloads, DeclaredBlockSizeLimitsBandwidthByOccupancy) {
  const auto rate = [](const std::string& extra) {
    return lone_step_rate("A100-80GB", "bytes: 1GB, blocks: 54" + extra, "500ms");
  };
  const RooflineParams a100 = RooflineParams::table().with(builtin_overrides("A100-80GB"));
  const double sat = a100.occupancy_saturation, o = a100.launch_overhead;
  ASSERT_GT(sat, 0.0625);
  const double full = 1e9 / (2.039e12 * a100.memory_efficiency);
  EXPECT_NEAR(rate(""), 1 / (full + o), 0.01 * rate(""));
  EXPECT_NEAR(rate(", threads: 256"), 1 / (full * sat / 0.0625 + o), 0.01 * rate(", threads: 256"));
}

// Inference as services run it: closed-loop clients and host time per request (issue 13).
TEST(Workloads, ClosedLoopClientsObeyLittlesLawAndSaturateAtTheServiceRate) {
  // 1 GB per request on an H100: ~0.33 ms of GPU time each (plus the launch overhead).
  const double service = 1e9 / (3.35e12 * 0.9) + 2.48e-6;
  const auto run = [&](int clients, const std::string& think) {
    const Scenario sc = load(fmt::format("  - {{name: c, on: g0, workload: {{inference: {{clients: {}, think: {}, "
                                         "request: {{bytes: 1GB}}}}}}}}\n",
                                         clients, think),
                             "duration: 20s\n");
    return run_scenario(sc);
  };
  // 4 clients thinking 10 ms (exponential): X = N / (Z + R), R the mean latency (interactive response time law).
  const Results light = run(4, "{distribution: exponential, mean: 10ms}");
  const TenantResult& t = light.tenants[0];
  ASSERT_TRUE(t.shared.latency.has_value());
  EXPECT_NEAR(t.shared.throughput, 4 / (10e-3 + t.shared.latency->mean), 0.01 * t.shared.throughput);
  EXPECT_GE(t.shared.latency->mean, service * (1 - 1e-9));
  // 200 clients without think time keep the GPU busy: throughput = 1 / service, and it can no longer follow
  // the load it is offered.
  const Results heavy = run(200, "0s");
  EXPECT_NEAR(heavy.tenants[0].shared.throughput, 1 / service, 0.01 / service);
}

TEST(Workloads, HostTimeAddsToEachRequestsLatencyButNotToTheGpusWork) {
  const double service = 1e9 / (3.35e12 * 0.9) + 2.48e-6;
  const Scenario sc = load("  - {name: s, on: g0, workload: {inference: {rate: 5/s, host_time: 2ms, request: {bytes: "
                           "1GB}}}}\n",
                           "duration: 60s\nreplications: 1\n");
  const Results r = run_scenario(sc);
  ASSERT_TRUE(r.tenants[0].shared.latency.has_value());
  // At 5 requests/s the GPU is almost never busy when one arrives: latency = host time + service.
  EXPECT_NEAR(r.tenants[0].shared.latency->p50, 2e-3 + service, 1e-6);
  EXPECT_NEAR(r.tenants[0].gpu_work, static_cast<double>(r.tenants[0].shared.units) * service, 1e-3);
}

TEST(Workloads, InferenceTakesEitherARateOrClients) {
  const auto error = [](const std::string& workload) {
    try {
      load("  - {name: s, on: g0, workload: {inference: {" + workload + ", request: {bytes: 1GB}}}}\n");
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error("rate: 5/s, clients: 2").find("give either `rate` (open loop) or `clients` (closed loop)"),
            std::string::npos);
  EXPECT_NE(error("requests: 3").find("give either `rate` (open loop) or `clients` (closed loop)"), std::string::npos);
  EXPECT_NE(error("rate: 5/s, think: 1ms").find("`think` goes with `clients`"), std::string::npos);
}

TEST(Workloads, DynamicBatchingServesWhatOneAtATimeCannot) {
  // Each request reads the same 1 GB of weights (~0.33 ms alone on an H100); at 4000 requests/s one at a time
  // cannot keep up, batches of up to 8 that read the weights once can.
  const double service = 1e9 / (3.35e12 * 0.9) + 2.48e-6;
  const auto run = [&](const std::string& batch) {
    return run_scenario(load("  - {name: s, on: g0, workload: {inference: {rate: 4000/s, request: {bytes: 1GB}" + batch +
                                 "}}}\n",
                             "duration: 2s\nreplications: 1\n"));
  };
  const Results one = run("");
  const Results batched = run(", batch: {max: 8, wait: 0.2ms, shared_bytes: 1GB}");
  EXPECT_LT(one.tenants[0].shared.throughput, 1.05 / service);  // saturated: ~3000/s served
  EXPECT_NEAR(batched.tenants[0].shared.throughput, 4000, 4000 * 0.05);
  ASSERT_TRUE(one.tenants[0].shared.latency && batched.tenants[0].shared.latency);
  EXPECT_LT(batched.tenants[0].shared.latency->p99, 0.1 * one.tenants[0].shared.latency->p99);
  // GPU time per request: a batch pays one pass over the weights, and at this load batches hold about two.
  EXPECT_LT(batched.tenants[0].gpu_work / static_cast<double>(batched.tenants[0].shared.units), 0.75 * service);
}

TEST(Workloads, ABatchShortOfItsMaximumWaitsForMore) {
  // At 2 requests/s a request is almost always alone: it waits the full 5 ms for company, then runs.
  const double service = 1e9 / (3.35e12 * 0.9) + 2.48e-6;
  const Results r = run_scenario(load("  - {name: s, on: g0, workload: {inference: {rate: 2/s, request: {bytes: 1GB}, "
                                      "batch: {max: 4, wait: 5ms}}}}\n",
                                      "duration: 60s\nreplications: 1\n"));
  ASSERT_TRUE(r.tenants[0].shared.latency.has_value());
  EXPECT_NEAR(r.tenants[0].shared.latency->p50, 5e-3 + service, 1e-6);
  // And without shared bytes a batch costs what its requests cost one by one.
  EXPECT_NEAR(r.tenants[0].gpu_work / static_cast<double>(r.tenants[0].shared.units), service, 0.01 * service);
  try {
    load("  - {name: s, on: g0, workload: {inference: {rate: 2/s, request: {bytes: 1GB}, batch: {max: 4, "
         "shared_bytes: 2GB}}}}\n");
    ADD_FAILURE() << "accepted shared bytes above the request's";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("2 GB is more than the request's 1 GB bytes"), std::string::npos) << e.what();
  }
}

TEST(Workloads, AStepGivenAsADurationComesBackWhateverItsKernelCount) {
  // 10 ms measured on this H100, run as 100 kernels: their launch overhead is inside the 10 ms, not added to it.
  for (const char* fidelity : {"exact", "fluid"}) {
    const Scenario sc = load("  - {name: t, on: g0, workload: {training: {iterations: 10, kernels_per_step: 100, step: "
                             "{duration: 10ms, bound: fp16}}}}\n",
                             std::string("duration: 100s\nstart_jitter: 0s\nfidelity: ") + fidelity + "\n");
    const RunRecord r = simulate(sc);
    EXPECT_NEAR(r.tenants[0].finish, 10 * 10e-3, 1e-9) << fidelity;
  }
}

TEST(Workloads, NoRequestsFinishAtOnce) {
  for (const char* w : {"rate: 5/s", "clients: 3"}) {
    const Scenario sc = load(std::string("  - {name: s, on: g0, workload: {inference: {") + w +
                             ", requests: 0, request: {bytes: 1GB}}}}\n");
    const RunRecord r = simulate(sc);
    EXPECT_FALSE(std::isnan(r.tenants[0].finish)) << w;
    EXPECT_EQ(r.tenants[0].units, 0) << w;
  }
}

// The server's CPU (`host`): while the runnable threads outnumber the cores, every tenant's host time stretches by
// threads / cores; a tenant alone (its baseline) counts only its own threads and the background's.
TEST(HostCpu, OversubscribedCoresStretchHostTime) {
  const std::string two_gpus =
      "version: 1\nname: h\nduration: 100s\nstart_jitter: 0s\nreplications: 1\n{}"
      "gpus: [{{id: g0, model: H100-SXM}}, {{id: g1, model: H100-SXM}}]\ntenants:\n"
      "  - {{name: a, on: g0, host_threads: 3, workload: {{training: {{iterations: 50, host_time: 3ms, step: {{bytes: "
      "30.15GB}}}}}}}}\n"
      "  - {{name: b, on: g1, host_threads: 3, workload: {{training: {{iterations: 50, host_time: 3ms, step: {{bytes: "
      "30.15GB}}}}}}}}\n";
  // No `host`: no limit (passthrough: the step as alone on bare metal plus passthrough's own cost).
  const RunRecord free = simulate(load_scenario_text(fmt::format(fmt::runtime(two_gpus), ""), "h.yaml", builtin_catalog()));
  EXPECT_DOUBLE_EQ(free.host_stretch, 1.0);
  // 6 threads and 2 background on 4 cores: host time x2, 3 ms more per iteration.
  const Scenario sc = load_scenario_text(fmt::format(fmt::runtime(two_gpus), "host: {cores: 4, background_threads: 2}\n"),
                                         "h.yaml", builtin_catalog());
  EXPECT_DOUBLE_EQ(sc.host.cores, 4);
  EXPECT_DOUBLE_EQ(sc.tenants[1].host_threads, 3);
  const RunRecord shared = simulate(sc);
  EXPECT_DOUBLE_EQ(shared.host_stretch, 2.0);
  EXPECT_NEAR(shared.tenants[0].finish - free.tenants[0].finish, 50 * 3e-3, 1e-8);
  EXPECT_NEAR(shared.tenants[1].finish, shared.tenants[0].finish, 1e-12);
  // Alone on bare metal: 3 + 2 threads on 4 cores, x1.25: 3.75 ms of host time and the 10 ms step (and its launch).
  const RunRecord base = simulate_baseline(sc, 0, UINT64_MAX);
  EXPECT_DOUBLE_EQ(base.host_stretch, 1.25);
  EXPECT_NEAR(base.tenants[0].finish, 50 * (13.75e-3 + 2.48e-6), 1e-8);
  // The results' relative performance is the shared run's against that baseline.
  const Results res = run_scenario(sc);
  EXPECT_NEAR(res.tenants[0].relative_performance, base.tenants[0].finish / shared.tenants[0].finish, 1e-3);
  EXPECT_DOUBLE_EQ(res.host_stretch, 2.0);
  EXPECT_DOUBLE_EQ(run_scenario(load_scenario_text(fmt::format(fmt::runtime(two_gpus), ""), "h.yaml", builtin_catalog()))
                       .host_stretch,
                   0.0);  // no `host`: not reported
}

TEST(HostCpu, StretchesEveryKindWithHostTimeAndRefusesBadValues) {
  TrainingWorkload t;
  t.host_time = Distribution{Distribution::Kind::Lognormal, 2e-3, 1e-3};
  t.launch_cost = 10e-6;
  auto st = std::static_pointer_cast<const TrainingWorkload>(t.with_host_scale(1.5));
  EXPECT_DOUBLE_EQ(st->host_time.mean(), 3e-3);
  EXPECT_DOUBLE_EQ(st->host_time.b, 1.5e-3);
  EXPECT_DOUBLE_EQ(st->launch_cost, 15e-6);
  InferenceWorkload i;
  i.host_time = Distribution::constant(1e-3);
  EXPECT_DOUBLE_EQ(std::static_pointer_cast<const InferenceWorkload>(i.with_host_scale(2))->host_time.mean(), 2e-3);
  KernelsWorkload k;
  k.think = Distribution::uniform(1e-3, 3e-3);
  EXPECT_DOUBLE_EQ(std::static_pointer_cast<const KernelsWorkload>(k.with_host_scale(2))->think.mean(), 4e-3);
  const std::string base = "version: 1\nname: h\nduration: 1s\n{}gpus: [{{id: g0, model: H100-SXM}}]\ntenants:\n"
                           "  - {{name: a, on: g0, {}workload: {{training: {{host_time: 1ms, step: {{flops: 1TFLOP}}}}}}}}\n";
  for (const auto& [host, tenant] : std::vector<std::pair<std::string, std::string>>{
           {"host: {cores: 0}\n", ""}, {"host: {background_threads: 2}\n", ""}, {"", "host_threads: 0, "},
           {"host: {cores: 4, threads: 2}\n", ""}, {"host: {cores: 0.5}\n", ""}, {"host: {cores: 1e9}\n", ""},
           {"", "host_threads: 2e6, "}})
    EXPECT_THROW(load_scenario_text(fmt::format(fmt::runtime(base), host, tenant), "h.yaml", builtin_catalog()), InputError)
        << host << tenant;
}

}  // namespace unit_workload
