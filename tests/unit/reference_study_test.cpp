// The FGD reference: its six policies' scores on hand-made nodes (the numbers worked out from the published
// formulas), its typical pods and fragmentation measure, the study protocol (top-up rule, arrived axis, buckets),
// the published file format and the comparison of two files.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>

#include "models/cluster/reference_scoring.hpp"
#include "sim/core/errors.hpp"
#include "sim/studies/cluster/reference_study.hpp"
#include "sim/studies/cluster/study_command.hpp"

namespace vgpusim::unit_reference_study {
namespace {

RefNode node(std::vector<int> left, int64_t cpu = 64000, std::string model = "T4") {
  RefNode n;
  n.model = std::move(model);
  n.cpu_left = cpu;
  n.memory_left = 262144;
  n.gpu_left = std::move(left);
  return n;
}

RefPod pod(int milli, int count = 1, int64_t cpu = 8000) {
  RefPod p;
  p.cpu_milli = cpu;
  p.memory_mib = 1024;
  p.milli_gpu = milli;
  p.gpu_count = milli == 0 ? 0 : count;
  return p;
}

double score(RefPolicy p, const RefNode& n, const RefPod& q, const std::vector<TypicalPod>& t = {}) {
  return reference_score(p, n, q, t, reference_node_fragmentation(n, t)).score;
}

TEST(ReferenceScoring, BestFitAndDotProductAreTruncatedPercentages) {
  const RefNode n = node({1000, 1000});
  // best fit: 1 - (0.5 x 56000/128000 + 0.5 x 1000/8000) = 0.71875 -> 71
  EXPECT_EQ(score(RefPolicy::BestFit, n, pod(1000)), 71);
  // dot product: free (0.5, 0.25) . asked (0.0625, 0.125) = 0.0625, halved 0.03125 -> 96.875 -> 96
  EXPECT_EQ(score(RefPolicy::DotProduct, n, pod(1000)), 96);
  // the fuller node scores higher under best fit
  EXPECT_GT(score(RefPolicy::BestFit, node({1000, 300}), pod(200)), score(RefPolicy::BestFit, n, pod(200)));
}

TEST(ReferenceScoring, GpuClusteringPrefersNodesHoldingTheSameKind) {
  RefNode n = node({1000, 500});
  reference_place(n, pod(0), {});  // a CPU-only pod leaves no tag
  EXPECT_TRUE(n.tags.empty());
  // empty of GPU pods: x + 25 with x = 25 x (8000 - 1500) / 8000 = 20
  EXPECT_EQ(score(RefPolicy::GpuClustering, n, pod(300)), 45);
  reference_place(n, pod(500), {1});
  ASSERT_EQ(n.tags.size(), 1u);
  // only share pods there: a share pod gets x + 75 (x = 25 x 7000 / 8000 = 21), a whole-GPU pod x
  EXPECT_EQ(score(RefPolicy::GpuClustering, n, pod(300)), 96);
  EXPECT_EQ(score(RefPolicy::GpuClustering, n, pod(1000)), 21);
  reference_place(n, pod(1000), {0});
  EXPECT_EQ(score(RefPolicy::GpuClustering, node({0, 0}), pod(0)), 0);  // no GPU asked: 0 everywhere
  n.gpu_left = {1000, 500};  // mixed tags: x + 50 (x = 25 x 6500 / 8000 = 20)
  EXPECT_EQ(score(RefPolicy::GpuClustering, n, pod(300)), 70);
}

TEST(ReferenceScoring, GpuPackingTiers) {
  EXPECT_EQ(score(RefPolicy::GpuPacking, node({1000, 1000}), pod(300)), 31);  // empty node: 33 - 2
  EXPECT_EQ(score(RefPolicy::GpuPacking, node(std::vector<int>(8, 1000)), pod(300)), 25);
  EXPECT_EQ(score(RefPolicy::GpuPacking, node({1000, 400}), pod(300)), 96);  // shared device, 40% free: 100 - 4
  EXPECT_EQ(score(RefPolicy::GpuPacking, node({1000, 400}), pod(500)), 49);  // must open a free device: 50 - 1
  EXPECT_EQ(score(RefPolicy::GpuPacking, node({1000, 1000, 0}), pod(1000, 2)), 48);
  EXPECT_EQ(score(RefPolicy::GpuPacking, node({1000, 400}), pod(0)), 0);
}

TEST(ReferenceScoring, TypicalPodsCoverTheShareAndRenormalise) {
  std::vector<RefPod> pods;
  for (int i = 0; i < 6; ++i) pods.push_back(pod(500));
  for (int i = 0; i < 3; ++i) pods.push_back(pod(1000));
  pods.push_back(pod(0));  // CPU-only pods are typical pods too
  // 80% of 10 pods: the 500 share (6) and the whole GPU (3, crossing 8) are kept; the CPU-only one is not.
  const std::vector<TypicalPod> t = reference_typical_pods(pods, 80);
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[0].milli_gpu, 500);
  EXPECT_DOUBLE_EQ(t[0].weight, 6.0 / 9);
  EXPECT_DOUBLE_EQ(t[1].weight, 3.0 / 9);
  // the cut is a real number: 95% of 10 pods is 9.5, which only the third kind reaches; 90% is 9, which two reach
  EXPECT_EQ(reference_typical_pods(pods, 95).size(), 3u);
  EXPECT_EQ(reference_typical_pods(pods, 90).size(), 2u);
}

TEST(ReferenceScoring, FragmentationCountsWhatEachTypicalPodCannotUse) {
  std::vector<TypicalPod> t = {{8000, 500, 1, {}, 0.5}, {8000, 1000, 1, {}, 0.25}, {8000, 0, 0, {}, 0.25}};
  // fits both GPU kinds: the 300 device is a fragment to each; the CPU-only kind counts all 1300 idle
  EXPECT_DOUBLE_EQ(reference_node_fragmentation(node({1000, 300}), t), 0.5 * 300 + 0.25 * 300 + 0.25 * 1300);
  // not enough CPU for any: all idle counts
  EXPECT_DOUBLE_EQ(reference_node_fragmentation(node({1000, 300}, 4000), t), 1300);
  // a model the typical pod does not accept: all idle counts for it
  t = {{0, 500, 1, {"V100"}, 1.0}};
  EXPECT_DOUBLE_EQ(reference_node_fragmentation(node({1000, 300}), t), 1300);
}

TEST(ReferenceScoring, FgdPicksTheDeviceThatLowersFragmentationAndTruncates) {
  const std::vector<TypicalPod> t = {{0, 500, 1, {}, 1.0}};
  const RefNode n = node({1000, 400});
  // device 0: 500 + 400 left, fragmentation 400 -> 400, score int(50) = 50; device 1: 1000 + 100 left, 400 -> 100,
  // a drop of 300: int(100 x sigmoid(0.3)) = 57
  const RefScore s = reference_score(RefPolicy::Fgd, n, pod(300, 1, 0), t, reference_node_fragmentation(n, t));
  EXPECT_EQ(s.score, 57);
  EXPECT_EQ(s.gpus, std::vector<int>{1});
  const RefScore e = reference_score(RefPolicy::FgdExact, n, pod(300, 1, 0), t, reference_node_fragmentation(n, t));
  EXPECT_DOUBLE_EQ(e.score, 300);
  // a pod asking nothing: 100
  EXPECT_EQ(score(RefPolicy::Fgd, n, pod(0, 0, 0), t), 100);
}

TEST(ReferenceScoring, FiltersAndDeviceChoice) {
  RefPod p = pod(500);
  p.gpu_types = {"V100", "P100"};
  EXPECT_FALSE(reference_fits(node({1000}), p));
  EXPECT_TRUE(reference_fits(node({1000}, 64000, "P100"), p));
  EXPECT_FALSE(reference_fits(node({1000}), pod(500, 1, 70000)));  // CPU
  RefPod big = pod(500);
  big.memory_mib = 300000;
  EXPECT_FALSE(reference_fits(node({1000}), big));  // memory is checked when filtering
  EXPECT_TRUE(reference_fits(node({}), pod(0)));    // CPU-only pods go anywhere with room
  EXPECT_FALSE(reference_fits(node({1000, 600}), pod(1000, 2)));
  EXPECT_EQ(reference_best_gpus(node({700, 600, 900}), pod(500)), std::vector<int>{1});  // tightest
  EXPECT_EQ(reference_best_gpus(node({600, 1000, 1000, 1000}), pod(1000, 2)), (std::vector<int>{1, 2}));
}

std::vector<RefNode> two_nodes() { return {node({1000, 1000}), node({1000, 1000})}; }

TEST(ReferenceProtocol, TopUpStopsOnOneDevicesShareAndTheAxisBucketsByArrivedPercent) {
  StudyTrace trace{"t", {pod(1000, 2)}};
  const StudyRun r = run_reference_protocol(two_nodes(), trace, *find_study_policy("best_fit"), 42, 1.3);
  // target 1.3 x 4000 = 5200: 2000, +2000 (3000 <= 5200), +2000 (5000 <= 5200, now 6000), then 7000 > 5200 stops
  EXPECT_EQ(r.pods, 3);
  EXPECT_EQ(r.failed, 1);
  EXPECT_EQ(r.first_failure, 2);
  EXPECT_DOUBLE_EQ(r.first_failure_arrived_percent, 150);
  EXPECT_EQ(r.total_gpus, 4);
  EXPECT_EQ(r.final_unallocated_milli_gpu, 0);
  ASSERT_EQ(r.allocation.size(), static_cast<size_t>(kStudyLevels));
  EXPECT_DOUBLE_EQ(r.allocation[50], 50);
  EXPECT_DOUBLE_EQ(r.allocation[49], 50);   // no pod there: the levels either side
  EXPECT_DOUBLE_EQ(r.allocation[100], 100);
  EXPECT_TRUE(std::isnan(r.allocation[0]));  // nothing within one level of 0
  EXPECT_TRUE(std::isnan(r.allocation[75]));
}

TEST(ReferenceProtocol, SeedsShuffleAndRandomPolicyDrawsButRunsRepeat) {
  StudyTrace trace{"t", {}};
  for (int m : {100, 200, 300, 400, 500, 600, 700, 800, 900, 1000}) trace.pods.push_back(pod(m, 1, 1000));
  std::vector<RefNode> nodes;
  for (int i = 0; i < 6; ++i) nodes.push_back(node({1000, 1000}));
  for (const StudyPolicy& p : study_policies()) {
    const StudyRun a = run_reference_protocol(nodes, trace, p, 1, 1.3);
    const StudyRun b = run_reference_protocol(nodes, trace, p, 1, 1.3);
    EXPECT_EQ(study_allocation_csv({a}), study_allocation_csv({b})) << p.name;
  }
  const StudyPolicy& rnd = *find_study_policy("random");
  std::set<std::string> curves;
  for (uint64_t s = 1; s <= 5; ++s) curves.insert(study_fragmentation_csv({run_reference_protocol(nodes, trace, rnd, s, 1.3)}));
  EXPECT_GT(curves.size(), 1u);
  EXPECT_THROW(run_reference_protocol(nodes, StudyTrace{"cpu", {pod(0)}}, rnd, 1, 1.3), InputError);
}

TEST(ReferenceProtocol, FilesHaveThePublishedLayout) {
  StudyTrace trace{"openb_pod_list_x", {pod(1000, 2)}};
  const StudyRun r = run_reference_protocol(two_nodes(), trace, *find_study_policy("fgd"), 7, 1.3);
  const std::string allo = study_allocation_csv({r});
  EXPECT_EQ(allo.substr(0, 40), "workload,sc_policy,tune,seed,total_gpus,");
  EXPECT_NE(allo.find("\nopenb_pod_list_x,06-FGD,1.3,7,4,,"), std::string::npos);  // level 0 empty
  EXPECT_NE(allo.find(",50.0,"), std::string::npos);                                  // Python's float text
  EXPECT_EQ(study_fragmentation_csv({r}).substr(0, 30), "workload,sc_policy,tune,seed,0");
  EXPECT_NE(study_summary_csv({r}).find("openb_pod_list_x,06-FGD,1.3,7,4,3,1,2,150.0000,8000m CPU; 2 x 1000 milli-GPU,100.0000,0,"),
            std::string::npos);
}

// The per-node score cache must change nothing: every policy, cached and scored afresh, on a mixed cluster.
TEST(ReferenceProtocol, TheScoreCacheChangesNothing) {
  std::vector<RefNode> nodes;
  for (int i = 0; i < 12; ++i) {
    RefNode n = node(std::vector<int>(static_cast<size_t>(1 + i % 4 * 2), 1000), 16000 + 8000 * (i % 5),
                     i % 3 == 0 ? "V100" : "T4");
    n.memory_left = 65536;
    nodes.push_back(n);
  }
  StudyTrace trace{"mix", {}};
  for (int k = 0; k < 40; ++k) {
    RefPod p = pod(k % 5 == 0 ? 1000 : 100 + 150 * (k % 6), k % 7 == 0 ? 2 : 1, 1000 + 1500 * (k % 4));
    if (k % 9 == 0) p = pod(0, 0, 4000);
    if (k % 11 == 0) p.gpu_types = {"V100"};
    p.memory_mib = 2048 * (1 + k % 3);
    trace.pods.push_back(p);
  }
  for (const StudyPolicy& p : study_policies()) {
    const StudyRun a = run_reference_protocol(nodes, trace, p, 3, 1.3, true);
    const StudyRun b = run_reference_protocol(nodes, trace, p, 3, 1.3, false);
    EXPECT_EQ(study_summary_csv({a}), study_summary_csv({b})) << p.name;
    EXPECT_EQ(study_fragmentation_csv({a}), study_fragmentation_csv({b})) << p.name;
  }
}

// Our own policies under the protocol: first fit on two one-GPU nodes with 600 milli-GPU pods (four of them, up to
// 1.3 x 2000): the first two land on the two GPUs, the last two fit nowhere.
TEST(ReferenceProtocol, OurPoliciesRunUnderTheSameProtocol) {
  const std::vector<RefNode> nodes = {node({1000}), node({1000})};
  const StudyRun r =
      run_reference_protocol(nodes, StudyTrace{"t", {pod(600)}}, *find_study_policy("vgpusim_first_fit"), 1, 1.3);
  EXPECT_EQ(r.pods, 4);
  EXPECT_EQ(r.failed, 2);
  EXPECT_EQ(r.first_failure, 2);
  EXPECT_EQ(r.final_unallocated_milli_gpu, 800);
  EXPECT_EQ(r.policy_label, "vgpusim-first_fit");
  EXPECT_EQ(find_study_policy("vgpusim_mig_aware"), nullptr);
  // A trace already at the target is not topped up.
  const StudyRun exact = run_reference_protocol(nodes, StudyTrace{"t", {pod(1000, 1), pod(300, 1)}},
                                                *find_study_policy("fgd"), 1, 0.65);
  EXPECT_EQ(exact.pods, 2);
}

class StudyFiles : public ::testing::Test {
 protected:
  std::filesystem::path dir;
  void SetUp() override {  // one folder per test: ctest runs tests in parallel processes
    dir = std::filesystem::temp_directory_path() /
          fmt::format("vgpusim-study-test-{}", ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir);
  }
  void TearDown() override { std::filesystem::remove_all(dir); }
  std::string write(const std::string& name, const std::string& text) {
    std::ofstream(dir / name) << text;
    return (dir / name).string();
  }
  static std::string row(const std::string& policy, int seed, double value) {
    std::string s = fmt::format("w,{},1.3,{}", policy, seed);
    for (int p = 0; p < kStudyLevels; ++p) s += p == 3 ? fmt::format(",{}", value) : std::string(",1");
    return s + "\n";
  }
  static std::string header() {
    std::string s = "workload,sc_policy,tune,seed";
    for (int p = 0; p < kStudyLevels; ++p) s += fmt::format(",{}", p);
    return s + "\n";
  }
};

TEST_F(StudyFiles, CompareTakesTheLargestDifferenceOfSeedMeans) {
  const std::string a = write("a.csv", header() + row("06-FGD", 1, 2) + row("06-FGD", 2, 4) + row("01-Random", 1, 1));
  const std::string b = write("b.csv", header() + row("06-FGD", 5, 3.6));
  const StudyComparison c = compare_study_files(a, b);
  ASSERT_EQ(c.rows.size(), 1u);
  EXPECT_NEAR(c.rows[0].max_abs, 0.6, 1e-12);
  EXPECT_EQ(c.rows[0].at_level, 3);
  EXPECT_EQ(c.rows[0].seeds_a, 2);
  EXPECT_EQ(c.only_in_a, std::vector<std::string>{"w/01-Random"});
  StudyOptions o;
  o.compare = {a, b};
  o.quiet = true;
  o.tolerance = 0.5;
  EXPECT_EQ(study_command(o), 4);
  o.tolerance = 0.7;
  EXPECT_EQ(study_command(o), 0);
}

TEST_F(StudyFiles, MalformedFilesAreInputErrors) {
  const std::string good = write("g.csv", header() + row("06-FGD", 1, 2));
  EXPECT_THROW(compare_study_files(write("h.csv", "a,b,c\n"), good), InputError);
  EXPECT_THROW(compare_study_files(write("s.csv", header() + "w,06-FGD,1.3,1,2\n"), good), InputError);
  EXPECT_THROW(compare_study_files(write("d.csv", header() + row("06-FGD", 1, 2) + row("06-FGD", 1, 2)), good),
               InputError);
  std::string other_tune = row("06-FGD", 2, 2);
  other_tune.replace(other_tune.find(",1.3,"), 5, ",1.5,");
  EXPECT_THROW(compare_study_files(write("t.csv", header() + row("06-FGD", 1, 2) + other_tune), good), InputError);
  std::string bad = row("06-FGD", 1, 2);
  bad.replace(bad.rfind(",1"), 2, ",x");
  EXPECT_THROW(compare_study_files(write("n.csv", header() + bad), good), InputError);
}

// A study shard of one run whose curves have `levels` values (a whole run has one per level, 0..130).
std::string study_shard(int levels) {
  nlohmann::json curve = nlohmann::json::array();
  for (int p = 0; p < levels; ++p) curve.push_back(p < 2 ? nlohmann::json(nullptr) : nlohmann::json(0.5 * p));
  const nlohmann::json run = {{"index", 0},
                              {"workload", "w"},
                              {"policy_label", "06-FGD"},
                              {"seed", 42},
                              {"tune", 1.3},
                              {"total_gpus", 8},
                              {"pods", 10},
                              {"failed", 0},
                              {"first_failure", -1},
                              {"first_failure_arrived_percent", nullptr},
                              {"first_failure_request", ""},
                              {"final_unallocated_milli_gpu", 0},
                              {"final_allocation_percent", 65.0},
                              {"final_fragmentation_percent", 1.0},
                              {"final_fragmentation_ratio", 2.0},
                              {"allocation", curve},
                              {"fragmentation", curve},
                              {"fragmentation_ratio", curve}};
  const nlohmann::json j = {{"schema", "vgpusim.study-shard/1"},
                            {"study", {{"nodes", "n.csv"}, {"traces", {"w.csv"}}, {"seeds", "42"}, {"tune", 1.3}}},
                            {"shard", {{"index", 0}, {"count", 1}}},
                            {"runs_total", 1},
                            {"runs", {run}}};
  return j.dump(2);
}

TEST_F(StudyFiles, MergeWritesAWholeRunAndRefusesCurvesWithoutEveryLevel) {
  testing::internal::CaptureStdout();
  EXPECT_EQ(merge_study_command({write("whole.json", study_shard(kStudyLevels))}, (dir / "out").string()), 0);
  const std::string table = testing::internal::GetCapturedStdout();
  EXPECT_NE(table.find("50.00%"), std::string::npos) << table;  // allocation at level 100: 0.5 * 100
  EXPECT_TRUE(std::filesystem::exists(dir / "out" / "summary.csv"));
  // Fewer levels than a run has (a fuzzer's shard read the table's level 100 past the end of the curve) or more.
  for (const int levels : {0, 101, kStudyLevels - 1, kStudyLevels + 1}) {
    const std::string part = write(fmt::format("short-{}.json", levels), study_shard(levels));
    try {
      testing::internal::CaptureStdout();
      merge_study_command({part}, "");
      testing::internal::GetCapturedStdout();
      ADD_FAILURE() << levels << " levels were merged";
    } catch (const InputError& e) {
      testing::internal::GetCapturedStdout();
      EXPECT_NE(std::string(e.what()).find(fmt::format("runs[0].allocation: expected {} levels (arrived GPU 0..130%), "
                                                       "found {}",
                                                       kStudyLevels, levels)),
                std::string::npos)
          << e.what();
    }
  }
}

TEST(StudySeeds, RangesAndListsAndErrors) {
  EXPECT_EQ(parse_seed_list("42-51").size(), 10u);
  EXPECT_EQ(parse_seed_list("1,3,7-8"), (std::vector<uint64_t>{1, 3, 7, 8}));
  for (const char* bad : {"", "5-3", "a", "1,1", "1-", "-2", "0-100000"})
    EXPECT_THROW(parse_seed_list(bad), InputError) << bad;
}

TEST(StudyCommand, RefusesBadArguments) {
  StudyOptions o;
  o.quiet = true;
  EXPECT_THROW(study_command(o), InputError);  // no nodes
  o.nodes = std::string(VGPUSIM_OPENB_TRACES) + "/openb_node_list_gpu_node.csv";
  o.traces = {std::string(VGPUSIM_OPENB_TRACES) + "/openb_pod_list_default.csv"};
  o.out = (std::filesystem::temp_directory_path() / "vgpusim-study-cmd-never-written").string();
  o.policies = "fgd,nope";
  EXPECT_THROW(study_command(o), InputError);
  o.policies = "fgd,fgd";
  EXPECT_THROW(study_command(o), InputError);
  o.policies = "fgd";
  o.tune = 0;
  EXPECT_THROW(study_command(o), InputError);
  o.tune = 1.3;
  o.traces.push_back(o.traces[0]);
  EXPECT_THROW(study_command(o), InputError);  // two workloads of one name
}

}  // namespace
}  // namespace vgpusim::unit_reference_study
