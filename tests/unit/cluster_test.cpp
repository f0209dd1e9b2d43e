// Cluster simulator tests: analytic FIFO times, policy choices on hand-made states, FGD's fragmentation measure,
// preemption with checkpoints, the openb importer on the real trace, and the cluster scenario reader.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>

#include "sim/io/openb.hpp"
#include "models/cluster/placement.hpp"
#include "sim/studies/cluster/cluster_scenario.hpp"
#include "sim/studies/cluster/cluster_sim.hpp"

namespace vgpusim::unit_cluster {
namespace {

ClusterNode node(const std::string& name, int gpus) { return {name, "GPU", gpus, 64000, 262144, 0, false}; }

ClusterJob job(double arrival, double duration, int num_gpu = 1, int milli = 1000) {
  ClusterJob j;
  j.name = "j";
  j.cpu_milli = 1000;
  j.memory_mib = 1024;
  j.arrival_s = arrival;
  j.duration_s = duration;
  j.num_gpu = num_gpu;
  j.gpu_units = milli * kUnitsPerMilliGpu;
  return j;
}

NodeState state(const ClusterNode& n, std::vector<int> free_milli) {
  NodeState s;
  s.node = &n;
  s.cpu_free = n.cpu_milli;
  s.memory_free = n.memory_mib;
  for (int m : free_milli) s.gpu_free.push_back(m * kUnitsPerMilliGpu);
  return s;
}

Placement place(const std::string& policy, const std::vector<NodeState>& nodes, const std::vector<TaskType>& w,
                const ClusterJob& j) {
  return find_placement_policy(policy)->place({nodes, w}, j);
}

TEST(ClusterSim, FifoOnOneGpuGivesKnownCompletionTimes) {
  ClusterConfig c;
  c.nodes = {node("n0", 1)};
  c.jobs = {job(0, 10), job(1, 5), job(2, 3)};  // whole GPU each: they run one after another
  const ClusterResults r = run_cluster(c);
  EXPECT_EQ(r.completed, 3);
  EXPECT_DOUBLE_EQ(r.makespan_s, 18);
  // Completions at 10, 15, 18: completion times 10, 14, 16; waits 0, 9, 13.
  EXPECT_NEAR(r.completion_time.mean, (10.0 + 14 + 16) / 3, 1e-9);
  EXPECT_NEAR(r.queueing_delay.mean, (0.0 + 9 + 13) / 3, 1e-9);
  EXPECT_DOUBLE_EQ(r.first_failure_s, 1);
  EXPECT_DOUBLE_EQ(r.unallocated_gpus_at_first_failure, 0);
  EXPECT_NEAR(r.mean_allocation, 1.0, 1e-12);
}

TEST(ClusterSim, QueueSkipsAJobThatDoesNotFit) {
  ClusterConfig c;
  c.nodes = {node("n0", 1)};
  // A half-GPU job runs; a whole-GPU job waits; a later half-GPU job starts beside the first (skipping).
  c.jobs = {job(0, 10, 1, 500), job(1, 10), job(2, 4, 1, 500)};
  c.sharing_efficiency = 1;
  const ClusterResults r = run_cluster(c);
  EXPECT_EQ(r.completed, 3);
  EXPECT_DOUBLE_EQ(r.makespan_s, 20);  // the whole-GPU job starts at 10 when both halves are free
}

TEST(ClusterSim, SharingSlowdownStretchesSharedJobs) {
  ClusterConfig c;
  c.nodes = {node("n0", 1)};
  c.jobs = {job(0, 10, 1, 500), job(0, 10, 1, 500)};
  c.sharing_efficiency = timeslice_efficiency(1024e-6, 40e-6);
  const ClusterResults r = run_cluster(c);
  EXPECT_NEAR(r.makespan_s, 10 / c.sharing_efficiency, 1e-9);
}

TEST(ClusterSim, PreemptionLosesWorkSinceTheLastCheckpoint) {
  ClusterConfig c;
  c.nodes = {node("n0", 1)};
  c.nodes[0].spot = true;
  c.jobs = {job(0, 10)};
  c.preemption.times_s = {7.5};
  c.preemption.checkpoint_interval_s = 2;
  c.preemption.restart_cost_s = 1;
  c.preemption.downtime_s = 0.5;
  const ClusterResults r = run_cluster(c);
  // 7.5 s done, 6 s checkpointed, 1.5 s lost; back at 8, then 10 - 6 + 1 s of work: ends at 13.
  EXPECT_EQ(r.preemptions, 1);
  EXPECT_NEAR(r.lost_gpu_hours, 1.5 / 3600, 1e-12);
  EXPECT_NEAR(r.makespan_s, 13, 1e-9);
}

TEST(ClusterSim, PreemptionStopsWhenNoJobWillFinish) {
  ClusterConfig c;
  c.nodes = {node("n0", 1), node("n1", 1)};
  c.nodes[0].spot = c.nodes[1].spot = true;
  c.jobs = {job(0, 10), job(1, 10), job(2, 10)};
  c.no_departures = true;
  c.preemption.rate_per_s = 1;
  c.preemption.downtime_s = 1;
  const ClusterResults r = run_cluster(c);  // must return: the process pauses once all jobs have arrived
  EXPECT_EQ(r.completed, 0);
  EXPECT_LT(r.makespan_s, 60);  // at most one preemption after the last arrival, then its node returns
}

TEST(Placement, BestFitAndFirstFitDifferOnAHandMadeState) {
  const ClusterNode a = node("a", 2), b = node("b", 2);
  const std::vector<NodeState> nodes = {state(a, {1000, 1000}), state(b, {300, 1000})};
  const ClusterJob j = job(0, 1, 1, 250);
  const Placement ff = place("first_fit", nodes, {}, j), bf = place("best_fit", nodes, {}, j),
                  sp = place("spread", nodes, {}, j);
  EXPECT_EQ(ff.node, 0);
  EXPECT_EQ(ff.gpus, std::vector<int>{0});
  EXPECT_EQ(bf.node, 1);
  EXPECT_EQ(bf.gpus, std::vector<int>{0});  // the tightest GPU: 300 free
  EXPECT_EQ(sp.node, 0);
}

TEST(Placement, FragmentationFollowsTheFgdDefinition) {
  const ClusterNode n = node("n", 2);
  // Workload: half the requests ask 0.5 GPU, half ask one whole GPU.
  std::vector<TaskType> w = {{1, 500 * kUnitsPerMilliGpu, 0, 0, 0.5}, {1, kGpuUnits, 0, 0, 0.5}};
  // Free 0.3 and 1.0 GPU: for 0.5-GPU tasks the 0.3 is a fragment; for whole tasks also the 0.3.
  EXPECT_DOUBLE_EQ(node_fragmentation(state(n, {300, 1000}), w), 300.0 * kUnitsPerMilliGpu);
  // Free 0.3 and 0.4: no whole task fits, so all 0.7 is fragmented for it; 0.5 tasks: both fragments.
  EXPECT_DOUBLE_EQ(node_fragmentation(state(n, {300, 400}), w), 700.0 * kUnitsPerMilliGpu);
}

TEST(Placement, FgdPicksTheLeastFragmentationIncrease) {
  const ClusterNode a = node("a", 1), b = node("b", 1);
  // Node a has 0.6 free, node b a whole GPU. Workload: 0.5-GPU tasks (40%) and whole-GPU tasks (60%).
  const std::vector<NodeState> nodes = {state(a, {600}), state(b, {1000})};
  const std::vector<TaskType> w = {{1, 500 * kUnitsPerMilliGpu, 0, 0, 0.4}, {1, kGpuUnits, 0, 0, 0.6}};
  const ClusterJob j = job(0, 1, 1, 500);
  // On a: 0.1 left; before 0.6 x 0.6 = 0.36, after 0.1 -> delta -0.26. On b: before 0, after 0.5 x 0.6 = 0.3.
  const Placement p = place("fgd", nodes, w, j);
  EXPECT_EQ(p.node, 0);
  // With only 0.4-GPU tasks in view, 0.5 on a strands 0.1 (+0.1) while b keeps 0.5 usable (+0).
  const std::vector<TaskType> small = {{1, 400 * kUnitsPerMilliGpu, 0, 0, 1.0}};
  EXPECT_EQ(place("fgd", nodes, small, job(0, 1, 1, 500)).node, 1);
  const ClusterJob j2 = job(0, 1, 1, 300);
  // 0.3 on a leaves 0.3 (< 0.4: fragment, +0.3); on b leaves 0.7 (usable, +0): FGD picks b, best fit picks a.
  EXPECT_EQ(place("fgd", nodes, small, j2).node, 1);
  EXPECT_EQ(place("best_fit", nodes, small, j2).node, 0);
}

TEST(Placement, BestFitByItsIndexChoosesWhatTheScanChooses) {
  // Random states of 200 nodes (ties in free capacity and CPU on purpose, some nodes down, another GPU model) and
  // random jobs: best fit and mig_aware walking the (free, CPU, index) set pick the same node and GPUs as the scan.
  std::mt19937 rng(7);
  std::vector<ClusterNode> defs;
  for (int i = 0; i < 200; ++i) defs.push_back({"n", i % 17 == 0 ? "T4" : "GPU", 1 + i % 8, 64000, 262144, 0, false});
  for (int round = 0; round < 50; ++round) {
    std::vector<NodeState> nodes;
    std::set<FreeKey> by_free;
    for (size_t i = 0; i < defs.size(); ++i) {
      std::vector<int> free;
      for (int g = 0; g < defs[i].gpus; ++g) free.push_back(static_cast<int>(rng() % 5) * 250);
      NodeState st = state(defs[i], free);
      st.cpu_free = static_cast<double>(rng() % 3) * 1000;
      st.up = rng() % 10 != 0;
      nodes.push_back(st);
      by_free.insert(free_key(nodes.back(), static_cast<int>(i)));
    }
    for (int k = 0; k < 40; ++k) {
      ClusterJob j = job(0, 1, 1 + static_cast<int>(rng() % 3), 125 * (1 + static_cast<int>(rng() % 8)));
      if (rng() % 5 == 0) j.gpu_models = {"T4"};
      for (const char* policy : {"best_fit", "mig_aware"}) {
        const auto& place_fn = find_placement_policy(policy)->place;
        const Placement scan = place_fn({nodes, {}}, j);
        const Placement walk = place_fn({nodes, {}, nullptr, &by_free}, j);
        ASSERT_EQ(scan.node, walk.node) << policy << " round " << round << " job " << k;
        EXPECT_EQ(scan.gpus, walk.gpus);
        EXPECT_EQ(scan.gpu_units, walk.gpu_units);
      }
    }
  }
}

TEST(Placement, MigAwareRoundsUpToSliceSizes) {
  const ClusterNode a = node("a", 1);
  const std::vector<NodeState> nodes = {state(a, {1000})};
  const Placement p = place("mig_aware", nodes, {}, job(0, 1, 1, 250));  // 0.25 GPU -> 2/7
  EXPECT_EQ(p.gpu_units, 2000);
  EXPECT_EQ(mig_slice_units(), (std::vector<int>{1000, 2000, 3000, 4000, 7000}));
}

TEST(Openb, ReadsEveryFileWithTheRightRowCounts) {
  // The files the repository ships (scenarios/traces/alibaba-openb).
  const std::filesystem::path dir = VGPUSIM_OPENB_TRACES;
  EXPECT_EQ(read_openb_nodes((dir / "openb_node_list_gpu_node.csv").string(), true).size(), 1213u);
  const std::vector<ClusterJob> pods = read_openb_pods((dir / "openb_pod_list_default.csv").string(), 0);
  EXPECT_EQ(pods.size(), 8152u);
  EXPECT_EQ(pods.front().gpu_units, kGpuUnits);
  EXPECT_EQ(read_openb_pods((dir / "openb_pod_list_default.csv").string(), 100).size(), 100u);
  // In addition, the other published files when ../shared is beside the repository (they are not shipped).
  const std::filesystem::path more = VGPUSIM_SHARED_OPENB_TRACES;
  if (!std::filesystem::exists(more / "openb_node_list_all_node.csv")) return;
  EXPECT_EQ(read_openb_nodes((more / "openb_node_list_all_node.csv").string(), false).size(), 1523u);
  EXPECT_EQ(read_openb_nodes((more / "openb_node_list_all_node.csv").string(), true).size(), 1213u);
  for (const char* f : {"gpushare20", "gpushare40", "gpushare80", "gpushare100", "gpuspec33"})
    EXPECT_EQ(read_openb_pods((more / (std::string("openb_pod_list_") + f + ".csv")).string(), 0).size(), 8152u) << f;
  EXPECT_EQ(read_openb_pods((more / "openb_pod_list_multigpu20.csv").string(), 0).size(), 8324u);
  EXPECT_EQ(read_openb_pods((more / "openb_pod_list_multigpu40.csv").string(), 0).size(), 8746u);
}

TEST(Openb, SamplingDrawsWithReplacementAndNeverLeaves) {
  const std::vector<ClusterJob> population = {job(5, 10), job(6, 20, 1, 500)};
  const std::vector<ClusterJob> s = sample_jobs(population, 50, 3);
  ASSERT_EQ(s.size(), 50u);
  int halves = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    EXPECT_DOUBLE_EQ(s[i].arrival_s, static_cast<double>(i));
    EXPECT_FALSE(std::isfinite(s[i].duration_s));
    halves += s[i].gpu_units < kGpuUnits ? 1 : 0;
  }
  EXPECT_GT(halves, 10);
  EXPECT_LT(halves, 40);
  ClusterConfig c;
  c.nodes = {node("n0", 2)};
  c.jobs = s;
  const ClusterResults r = run_cluster(c);  // fills the two GPUs, then every request fails; nothing completes
  EXPECT_EQ(r.completed, 0);
  EXPECT_DOUBLE_EQ(r.final_allocation, 1.0);
}

TEST(Openb, MalformedRowNamesFileAndLine) {
  const std::filesystem::path p = std::filesystem::temp_directory_path() / "vgpusim_bad_openb.csv";
  std::ofstream(p) << "sn,cpu_milli,memory_mib,gpu,model\nn0,64000,abc,2,T4\n";
  try {
    read_openb_nodes(p.string(), true);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(":2: memory_mib"), std::string::npos) << e.what();
  }
}

TEST(Openb, ResourcesBeyondAnyMachineAreRefused) {
  // 1e20 milli-cores once overflowed to a negative request and an "over-allocated a node" internal error.
  const std::filesystem::path p = std::filesystem::temp_directory_path() / "vgpusim_huge_openb.csv";
  std::ofstream(p) << "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
                      "deletion_time,scheduled_time\np0,99999999999999999999,1000,1,500,,LS,Running,0,10,0\n";
  try {
    read_openb_pods(p.string(), 0);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(":2: cpu_milli: at most 1e12, found '99999999999999999999'"),
              std::string::npos)
        << e.what();
  }
}

TEST(ClusterSim, RunsThatWouldNotEndStopWithTheirNumbers) {
  ClusterConfig c;
  ClusterNode node;
  node.name = "n0";
  node.gpu_model = "V100M16";
  node.gpus = 8;
  node.cpu_milli = 64000;
  node.memory_mib = 262144;
  c.nodes = {node};
  for (int i = 0; i < 20; ++i) c.jobs.push_back(ClusterJob{});
  for (size_t i = 0; i < c.jobs.size(); ++i) {
    c.jobs[i].name = fmt::format("j{}", i);
    c.jobs[i].arrival_s = static_cast<double>(i);
    c.jobs[i].duration_s = 3600;
    c.jobs[i].num_gpu = 1;
    c.jobs[i].gpu_units = kGpuUnits;
  }
  // Samples every nanosecond over hours of jobs: refused at the memory limit, not after gigabytes.
  c.sample_interval_s = 1e-9;
  c.max_sample_bytes = 1 << 20;
  try {
    run_cluster(c);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("samples of allocation and fragmentation would pass the 1 MiB memory limit"),
              std::string::npos)
        << e.what();
  }
  // Preemptions that keep every job restarting: stopped at the event limit.
  c.sample_interval_s = 3600;
  c.preemption.rate_per_s = 1;
  c.preemption.all_nodes = true;
  c.max_events = 1000;
  try {
    run_cluster(c);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("the cluster run passed 1e+03 events"), std::string::npos) << e.what();
  }
  // Rates beyond one a second are refused when the scenario is read.
  EXPECT_THROW(load_cluster_scenario_text("version: 1\nkind: cluster\ncluster:\n  nodes: [{name: n, gpus: 1}]\n"
                                          "  jobs: {synthetic: {count: 3, rate: 1/s}}\n"
                                          "  preemption: {rate: 1e306/h}\n",
                                          "s.yaml"),
               InputError);
}

TEST(ClusterScenario, UnknownKeyGetsDidYouMean) {
  const std::string text =
      "version: 1\nkind: cluster\ncluster:\n  nodes: [{name: n, gpus: 1}]\n"
      "  jobs: {synthetic: {count: 3, rate: 1/s}}\n  polcy: fgd\n";
  try {
    load_cluster_scenario_text(text, "s.yaml");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("s.yaml:6:3: cluster.polcy: unknown key 'polcy'; did you mean 'policy'?"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace vgpusim::unit_cluster
