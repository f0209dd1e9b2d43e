// The Chrome-trace timeline: only X, M and C events; every process and thread named; slices, switches, kernels and
// counters present and consistent with the run.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "sim/io/gpu_catalog.hpp"
#include "sim/scenario/loader.hpp"
#include "sim/run/simulation.hpp"
#include "sim/report/timeline.hpp"

namespace unit_timeline {

using namespace vgpusim;

TEST(Timeline, ChromeTraceStructure) {
  const Scenario sc = load_scenario_text(R"(version: 1
name: tl
duration: 0.2s
gpus: [{id: g0, model: A100-80GB}]
sharing: {g0: {mode: timeslice, slice: 2ms, switch_cost: 40us}}
tenants:
  - {name: a, on: g0, memory: 1GiB, workload: {training: {step: {flops: 2.5TFLOP}, kernels_per_step: 10}}}
  - {name: b, on: g0, memory: 1GiB, workload: {training: {step: {flops: 2.5TFLOP}, kernels_per_step: 10}}}
)",
                                         "tl.yaml", builtin_catalog());
  Timeline timeline;
  const RunRecord rec = simulate(sc, nullptr, &timeline);
  const nlohmann::json j = nlohmann::json::parse(timeline.to_json());
  ASSERT_TRUE(j.contains("traceEvents"));
  std::set<int> pids, named_pids;
  std::set<std::pair<int, int>> tids, named_tids;
  std::map<std::string, double> x_time;
  std::map<std::string, int> x_count, c_count;
  for (const auto& e : j["traceEvents"]) {
    const std::string ph = e["ph"];
    ASSERT_TRUE(ph == "X" || ph == "M" || ph == "C") << ph;
    const int pid = e["pid"];
    if (ph == "M") {
      if (e["name"] == "process_name") named_pids.insert(pid);
      if (e["name"] == "thread_name") named_tids.insert({pid, e["tid"].get<int>()});
      continue;
    }
    pids.insert(pid);
    ASSERT_TRUE(e.contains("ts"));
    if (ph == "X") {
      ASSERT_TRUE(e.contains("dur") && e.contains("tid"));
      EXPECT_GE(e["dur"].get<double>(), 0);
      tids.insert({pid, e["tid"].get<int>()});
      x_time[e["name"]] += e["dur"].get<double>() * 1e-6;
      ++x_count[e["name"]];
    } else {
      ++c_count[e["name"]];
    }
  }
  for (int pid : pids) EXPECT_TRUE(named_pids.count(pid)) << pid;
  for (const auto& t : tids) EXPECT_TRUE(named_tids.count(t)) << t.first << "/" << t.second;
  // Time on the GPU is the delivered work; switches are 40 us each; both tenants' kernels are there.
  EXPECT_NEAR(x_time["on GPU"], rec.gpus[0].delivered, 1e-6);
  EXPECT_GT(x_count["switch / idle slot"], 10);
  EXPECT_NEAR(x_time["switch / idle slot"], 40e-6 * x_count["switch / idle slot"], 1e-9);
  // Completed kernels: 10 per completed iteration, plus up to 9 of each tenant's unfinished one.
  const long long steps = rec.tenants[0].units + rec.tenants[1].units;
  EXPECT_GE(x_count["training kernel"], steps * 10);
  EXPECT_LE(x_count["training kernel"], steps * 10 + 18);
  EXPECT_GT(c_count["utilization"], 10);
  EXPECT_EQ(c_count["memory used (GiB)"], 2);
}

}  // namespace unit_timeline
