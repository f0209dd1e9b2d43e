// Capacity planning: candidate enumeration, the decision on a plan whose answer is known, sharding and merging,
// and plan-file errors.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "sim/studies/plan/plan_loader.hpp"
#include "sim/io/yaml_reader.hpp"
#include "sim/scenario/document.hpp"
#include "sim/studies/plan/plan_command.hpp"

namespace unit_plan {

using namespace vgpusim;

namespace {

// Two chat replicas (6 GiB each, p99 100 ms) and a trainer (8 GiB, at least 0.5 iterations/s). A T4 is cheaper
// per hour but two are needed (16 GiB each: 6 + 6 + 8 does not fit on one); one A10 (24 GiB) holds all three.
const char* kPlan = R"(version: 1
kind: plan
name: test plan
duration: 20s
instances:
  - {name: small-t4, gpu: T4, price: $0.53/h}
  - {name: a10-box, gpu: A10, price: $1.01/h}
max_instances: 3
sharing:
  - {mode: passthrough}
  - {mode: timeslice}
  - {mode: mps}
workloads:
  - name: chat
    replicas: 2
    memory: 6GiB
    workload: {inference: {rate: 20/s, request: {flops: 0.2TFLOP, bytes: 2GB}, slo: {p99: 100ms}}}
  - name: trainer
    memory: 8GiB
    workload: {training: {step: {flops: 8TFLOP, bytes: 20GB}}}
    slo: {throughput: 0.5/s}
)";

PlanSpec load(const std::string& text) { return load_plan_text(text, "p.yaml", nullptr); }

std::string error_of(const std::string& text) {
  try {
    load(text);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST(Plan, EnumeratesInstanceCountSharingInOrder) {
  const PlanSpec plan = load(kPlan);
  const std::vector<Candidate> c = enumerate_candidates(plan);
  ASSERT_EQ(c.size(), 2u * 3u * 3u);
  EXPECT_EQ(c[0].instance, "small-t4");
  EXPECT_EQ(c[0].count, 1);
  EXPECT_EQ(c[0].sharing, "passthrough");
  EXPECT_EQ(c[4].count, 2);
  EXPECT_EQ(c[4].sharing, "timeslice");
  EXPECT_DOUBLE_EQ(c[4].cost_per_hour, 1.06);
}

TEST(Plan, PicksTheCheapestConfigurationMeetingEverySlo) {
  const PlanSpec plan = load(kPlan);
  const PlanOutcome o = summarize_plan(evaluate_plan(plan, 0, 1, 2));
  ASSERT_GE(o.best, 0);
  const Candidate& best = o.candidates[static_cast<size_t>(o.best)];
  EXPECT_EQ(best.instance, "a10-box");
  EXPECT_EQ(best.count, 1);
  EXPECT_TRUE(best.meets_all);
  // One T4 cannot hold the three replicas; passthrough needs a GPU per replica.
  EXPECT_FALSE(o.candidates[1].feasible);
  EXPECT_EQ(o.candidates[1].note, "not enough GPU memory for chat replica 2");
  EXPECT_FALSE(o.candidates[9].feasible);
  EXPECT_EQ(o.candidates[9].note, "passthrough allows 1 tenant(s) per GPU; no GPU left for chat replica 1");
  // The frontier is sorted by cost and holds no dominated candidate.
  ASSERT_FALSE(o.pareto.empty());
  EXPECT_EQ(o.pareto.front(), static_cast<size_t>(o.best));
}

TEST(Plan, ShardsCoverEveryCandidateOnceAndMergeToTheSameDecision) {
  const PlanSpec plan = load(kPlan);
  const PlanOutcome whole = summarize_plan(evaluate_plan(plan, 0, 1, 1));
  std::vector<Candidate> joined;
  for (unsigned s = 0; s < 4; ++s) {
    const std::vector<Candidate> part = evaluate_plan(plan, s, 4, 1);
    for (const Candidate& c : part) EXPECT_EQ(c.index % 4, s);
    joined.insert(joined.end(), part.begin(), part.end());
  }
  const PlanOutcome merged = summarize_plan(joined);
  ASSERT_EQ(merged.candidates.size(), whole.candidates.size());
  EXPECT_EQ(merged.best, whole.best);
  EXPECT_EQ(merged.pareto, whole.pareto);
  EXPECT_EQ(plan_json("test plan", "p.yaml", merged, 18, 0, 1), plan_json("test plan", "p.yaml", whole, 18, 0, 1));
}

TEST(Plan, ShardComesFromTheFlagOrTheJobArray) {
  EXPECT_EQ(resolve_shard("2/8", 1), std::make_pair(2u, 8u));
  EXPECT_THROW(resolve_shard("8/8", 1), InputError);
  EXPECT_THROW(resolve_shard("two", 1), InputError);
  ::setenv("JOB_COMPLETION_INDEX", "3", 1);
  EXPECT_EQ(resolve_shard("", 5), std::make_pair(3u, 5u));
  ::unsetenv("JOB_COMPLETION_INDEX");
  ::setenv("SLURM_ARRAY_TASK_ID", "1", 1);
  ::setenv("SLURM_ARRAY_TASK_COUNT", "4", 1);
  EXPECT_EQ(resolve_shard("", 1), std::make_pair(1u, 4u));
  ::unsetenv("SLURM_ARRAY_TASK_ID");
  ::unsetenv("SLURM_ARRAY_TASK_COUNT");
  EXPECT_EQ(resolve_shard("", 1), std::make_pair(0u, 1u));
}

TEST(Plan, FileErrorsNameTheirPlace) {
  std::string bad = kPlan;
  bad.replace(bad.find("  - {mode: mps}"), 15, "  - {mode: mig, partitions: [{id: a, profile: 1g.5gb}]}");
  EXPECT_EQ(error_of(bad), "p.yaml:12:29: sharing[2].partitions: a plan searches mig layouts itself: give {mode: mig} "
                          "without partitions");
  std::string unknown = kPlan;
  unknown.replace(unknown.find("  - {name: small-t4, gpu: T4, price: $0.53/h}"), 45, "  - p9.mega");
  EXPECT_EQ(error_of(unknown), "p.yaml:6:5: instances[0]: unknown instance type 'p9.mega' (see `vgpusim list instances`)");
  std::string typo = kPlan;
  typo.replace(typo.find("max_instances"), 13, "max_instance");
  EXPECT_EQ(error_of(typo).substr(0, 83), "p.yaml:8:1: max_instance: unknown key 'max_instance'; did you mean 'max_instances'?");
}

// A duration no run could finish is refused with the estimate, as `vgpusim run` refuses one, instead of simulating
// every candidate for it.
TEST(Plan, ACandidateRunTooLongToFinishIsRefused) {
  std::string endless = kPlan;
  endless.replace(endless.find("duration: 20s"), 13, "duration: 1e12s");
  try {
    evaluate_plan(load(endless), 0, 1, 1);
    FAIL() << "a plan of 1e12 s per candidate ran";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("a candidate's run would take about"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("shorten the plan's `duration`"), std::string::npos) << e.what();
  }
}

// The case of issue 16: five services on one-GPU instances, where the fixed placement rule needs 5 instances and a
// search of groupings finds that 4 meet every SLO (scenarios/plan-five-services.yaml).
TEST(Plan, SearchFindsTheGroupingTheFixedRuleMisses) {
  const std::string path = std::string(VGPUSIM_SOURCE_DIR) + "/scenarios/plan-five-services.yaml";
  const PlanSpec searched = load_plan(read_scenario_document(path, "plan file"), builtin_instance_lookup());
  ASSERT_TRUE(searched.search_placement);
  const PlanOutcome s = summarize_plan(evaluate_plan(searched, 0, 1, 2));
  ASSERT_GE(s.best, 0);
  const Candidate& best = s.candidates[static_cast<size_t>(s.best)];
  EXPECT_EQ(best.count, 4);
  EXPECT_NEAR(best.cost_per_hour, 4.024, 1e-9);
  EXPECT_EQ(best.search.rfind("exact", 0), 0u) << best.search;
  // The two small services share a GPU; every other service is alone, and each has a positive margin.
  std::map<std::string, std::string> gpu_of;
  for (const PlacedReplica& p : best.placement) {
    gpu_of[p.tenant] = p.gpu;
    EXPECT_TRUE(p.met) << p.tenant;
    EXPECT_GT(p.margin, 0) << p.tenant;
    EXPECT_GT(p.p99, 0) << p.tenant;
  }
  EXPECT_EQ(gpu_of.at("small1"), gpu_of.at("small2"));
  std::set<std::string> others = {gpu_of.at("big"), gpu_of.at("mid1"), gpu_of.at("mid2"), gpu_of.at("small1")};
  EXPECT_EQ(others.size(), 4u);
  ASSERT_GE(s.runner_up, 0);
  EXPECT_EQ(s.candidates[static_cast<size_t>(s.runner_up)].count, 5);
  const std::string table = plan_table(searched.name, s, s.candidates.size());
  EXPECT_NE(table.find("placement (exact"), std::string::npos);
  EXPECT_NE(table.find("runner-up: #4: 5 x g5.xlarge"), std::string::npos);
  EXPECT_NE(table.find("margin +"), std::string::npos);

  PlanSpec fixed = searched;
  fixed.search_placement = false;
  const PlanOutcome f = summarize_plan(evaluate_plan(fixed, 0, 1, 2));
  ASSERT_GE(f.best, 0);
  EXPECT_EQ(f.candidates[static_cast<size_t>(f.best)].count, 5);
  EXPECT_FALSE(f.candidates[3].meets_all);  // 4 GPUs: a small service lands beside a mid one
  EXPECT_EQ(f.candidates[3].search, "fewest tenants");
}

TEST(Plan, MergeKeepsPlacementsAndWritesTheCsv) {
  const PlanSpec plan = load(kPlan);
  const PlanOutcome whole = summarize_plan(evaluate_plan(plan, 0, 1, 2));
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "vgpusim-plan-merge-test";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string json = plan_json("test plan", "p.yaml", whole, whole.candidates.size(), 0, 1);
  std::ofstream(dir / "part.json") << json;
  testing::internal::CaptureStdout();
  merge_command({(dir / "part.json").string()}, (dir / "out").string());
  testing::internal::GetCapturedStdout();
  std::ifstream in(dir / "out" / "plan.json");
  const std::string merged((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(merged, json);
  EXPECT_NE(json.find("\"placement\""), std::string::npos);
  EXPECT_TRUE(std::filesystem::exists(dir / "out" / "plan.csv"));
  std::filesystem::remove_all(dir);
}

TEST(Plan, MergeRefusesBrokenShardsAndShardsOfAnotherPlan) {
  const PlanSpec plan = load(kPlan);
  const PlanOutcome whole = summarize_plan(evaluate_plan(plan, 0, 1, 2));
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "vgpusim-plan-merge-bad";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string json = plan_json("test plan", "p.yaml", whole, whole.candidates.size(), 0, 1);
  auto merge_error = [&](const std::string& a, const std::string& b = "") {
    std::ofstream(dir / "a.json") << a;
    std::vector<std::string> parts{(dir / "a.json").string()};
    if (!b.empty()) {
      std::ofstream(dir / "b.json") << b;
      parts.push_back((dir / "b.json").string());
    }
    try {
      testing::internal::CaptureStdout();
      merge_command(parts, (dir / "out").string());
      testing::internal::GetCapturedStdout();
    } catch (const InputError& e) {
      testing::internal::GetCapturedStdout();
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  // The first `from` in the candidates (the shard's own index and count come before them), or anywhere.
  auto replaced = [&](const std::string& from, const std::string& to, bool in_candidates = true) {
    std::string t = json;
    t.replace(t.find(from, in_candidates ? t.find("\"candidates\": [") : 0), from.size(), to);
    return t;
  };
  EXPECT_NE(merge_error(replaced("\"instance\": ", "\"instanc\": ")).find("candidates[0]: missing \"instance\""),
            std::string::npos);
  EXPECT_NE(merge_error(replaced("\"count\": 1", "\"count\": 1e300")).find("candidates[0].count: expected a whole "
                                                                          "number from 0 to 1000000"),
            std::string::npos);
  EXPECT_NE(merge_error(replaced("\"index\": 0", "\"index\": -1")).find("candidates[0].index: expected a whole number"),
            std::string::npos);
  EXPECT_NE(merge_error(json, replaced("\"name\": \"test plan\"", "\"name\": \"other plan\"", false))
                .find("a shard of another plan ('other plan' from p.yaml"),
            std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(dir / "out"));
  std::filesystem::remove_all(dir);
}

TEST(Plan, TooManyGroupingsFallBackToTheFixedRule) {
  // 13 distinct workloads: 2^13 groupings of their replica counts, over the search's 4096.
  std::string text = "version: 1\nkind: plan\nname: many\nduration: 2s\ninstances: [g5.xlarge]\nmax_instances: 1\n"
                     "sharing:\n  - {mode: timeslice}\nworkloads:\n";
  text.replace(text.find("[g5.xlarge]"), 11, "[{name: a10-box, gpu: A10, price: $1/h}]");
  for (int i = 0; i < 13; ++i)
    text += fmt::format("  - {{name: w{}, memory: 1GiB, workload: {{training: {{step: {{flops: 1TFLOP}}}}}}{}}}\n", i,
                        i == 0 ? ", slo: {throughput: 1000/s}" : i == 1 ? ", slo: {throughput: 1/s}" : "");
  const PlanSpec plan = load(text);
  const std::vector<Candidate> c = evaluate_plan(plan, 0, 1, 1);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_TRUE(c[0].feasible) << c[0].note;
  // The bound: w0 cannot reach 1000 steps/s even alone; w1 reaches 1/s alone.
  EXPECT_EQ(c[0].search, "fewest tenants (too many groups to search; at most 1/2 replicas could meet their SLOs)");
  EXPECT_EQ(c[0].placement.size(), 13u);
}

// MIG layouts searched (scenarios/plan-mig.yaml): one A100 split 3g.20gb + 4g.20gb meets both SLOs where
// time-slicing and MPS on one GPU miss chat's p99.
TEST(Plan, SearchesMigLayouts) {
  const std::string path = std::string(VGPUSIM_SOURCE_DIR) + "/scenarios/plan-mig.yaml";
  const PlanSpec plan = load_plan(read_scenario_document(path, "plan file"), builtin_instance_lookup());
  const PlanOutcome o = summarize_plan(evaluate_plan(plan, 0, 1, 2));
  ASSERT_GE(o.best, 0);
  const Candidate& best = o.candidates[static_cast<size_t>(o.best)];
  EXPECT_EQ(best.sharing, "mig");
  EXPECT_EQ(best.count, 1);
  std::map<std::string, std::string> profile;
  for (const PlacedReplica& p : best.placement) {
    profile[p.tenant] = p.profile;
    EXPECT_TRUE(p.met) << p.tenant;
    EXPECT_EQ(p.gpu.substr(0, 5), "i0g0/") << p.gpu;
  }
  EXPECT_EQ(profile.at("chat"), "4g.20gb");
  EXPECT_EQ(profile.at("batch"), "3g.20gb");
  EXPECT_FALSE(o.candidates[0].meets_all);  // one GPU, time-sliced
  EXPECT_FALSE(o.candidates[1].meets_all);  // one GPU, MPS
  // A GPU without MIG profiles cannot take the option.
  std::string text = "version: 1\nkind: plan\nname: t4\ninstances: [g4dn.xlarge]\nmax_instances: 1\n"
                     "sharing:\n  - {mode: mig}\nworkloads:\n  - {name: w, memory: 1GiB, workload: {training: "
                     "{step: {flops: 1TFLOP}}}}\n";
  const std::vector<Candidate> c =
      evaluate_plan(load_plan_text(text, "p.yaml", builtin_instance_lookup()), 0, 1, 1);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_FALSE(c[0].feasible);
  EXPECT_EQ(c[0].note, "T4 has no mig profiles");
}

// Spot capacity: every candidate also at the catalog's spot discount; interruptions take each replica away for the
// restart time, which a p99 SLO cannot absorb past 1% of the time, and redo half a checkpoint interval of work.
TEST(Plan, SpotCandidatesPayForTheirInterruptions) {
  const std::string base = R"(version: 1
kind: plan
name: spot
seed: 3
duration: 20s
instances: [g5.xlarge]
max_instances: 2
sharing:
  - {mode: timeslice}
workloads:
  - name: chat
    memory: 5GiB
    workload: {inference: {rate: 25/s, request: {flops: 0.5TFLOP, bytes: 4GB}, slo: {p99: 80ms}}}
  - name: finetune
    memory: 10GiB
    workload: {training: {step: {flops: 40TFLOP, bytes: 60GB}}}
    slo: {throughput: 0.5/s}
)";
  const auto run = [&](const std::string& spot) {
    return summarize_plan(evaluate_plan(load_plan_text(base + spot, "p.yaml", builtin_instance_lookup()), 0, 1, 2));
  };
  // Rare interruptions: the spot candidate is the cheapest meeting every SLO, at 30% off (the catalog's low end).
  const PlanOutcome rare = run("spot: {interruptions: 0.1/day, restart: 5min, checkpoint_interval: 30min}\n");
  ASSERT_EQ(rare.candidates.size(), 4u);
  EXPECT_FALSE(rare.candidates[0].spot);
  EXPECT_TRUE(rare.candidates[1].spot);
  EXPECT_NEAR(rare.candidates[1].cost_per_hour, 1.006 * 0.7, 1e-9);
  ASSERT_GE(rare.best, 0);
  EXPECT_TRUE(rare.candidates[static_cast<size_t>(rare.best)].spot);
  // Frequent ones: away 2 x 10 min a day (1.4% of requests unserved) breaks chat's p99; the trainer keeps up.
  const PlanOutcome often = run("spot: {interruptions: 2/day, restart: 10min, checkpoint_interval: 30min, discount: 60%}\n");
  EXPECT_NEAR(often.candidates[1].cost_per_hour, 1.006 * 0.4, 1e-9);
  const Candidate& two_spot = often.candidates[3];
  ASSERT_TRUE(two_spot.spot && two_spot.count == 2);
  EXPECT_FALSE(two_spot.meets_all);
  for (const PlacedReplica& p : two_spot.placement) {
    if (p.tenant == "chat") {
      EXPECT_FALSE(p.met);
    }
    if (p.tenant == "finetune") {
      EXPECT_TRUE(p.met);
    }
  }
  ASSERT_GE(often.best, 0);
  EXPECT_FALSE(often.candidates[static_cast<size_t>(often.best)].spot);
  // An instance type of one's own has no spot discount unless given.
  std::string own = base;
  own.replace(own.find("[g5.xlarge]"), 11, "[{name: mine, gpu: A10, price: $1/h}]");
  EXPECT_NE(error_of(own + "spot: {interruptions: 1/day, restart: 5min}\n").find("no spot discount is known for mine"),
            std::string::npos);
}

// Instance types with a slice of a GPU (Azure NVv4, SR-IOV): one replica per instance, simulated with the slice's
// fixed share of the GPU's time and memory; the plan's sharing options do not multiply them.
TEST(Plan, GpuSliceInstancesHoldOneReplicaAtTheirShare) {
  const std::string text = R"(version: 1
kind: plan
name: slices
duration: 20s
instances: [NV4as_v4, NV8as_v4, NV32as_v4]
max_instances: 2
sharing:
  - {mode: timeslice}
  - {mode: mps}
workloads:
  - name: render
    replicas: 2
    memory: 1.5GiB
    workload: {inference: {rate: 10/s, request: {flops: 0.1TFLOP, bytes: 1GB}, slo: {p99: 100ms}}}
)";
  const PlanOutcome o = summarize_plan(evaluate_plan(load_plan_text(text, "p.yaml", builtin_instance_lookup()), 0, 1, 2));
  ASSERT_EQ(o.candidates.size(), 2u + 2u + 4u);  // slices: one option per count; the whole MI25: two
  EXPECT_EQ(o.candidates[0].sharing, "sriov slice 0.125 GPU");
  EXPECT_FALSE(o.candidates[2].feasible);  // one 1/4 slice cannot hold two replicas
  ASSERT_GE(o.best, 0);
  const Candidate& best = o.candidates[static_cast<size_t>(o.best)];
  EXPECT_EQ(best.instance, "NV8as_v4");
  EXPECT_EQ(best.count, 2);
  // A 1/8 slice serves the same requests slower than a 1/4 slice: its p99 is higher.
  const Candidate& eighth = o.candidates[1];
  ASSERT_TRUE(eighth.feasible);
  ASSERT_EQ(eighth.placement.size(), 2u);
  ASSERT_EQ(best.placement.size(), 2u);
  EXPECT_GT(eighth.placement[0].p99, best.placement[0].p99);
}

// Passthrough gives its one replica the whole GPU: a replica that needs more memory than the GPU has is infeasible
// there (it used to be simulated and fail), and an LLM replica in a plan gives its memory.
TEST(Plan, PassthroughChecksTheGpusMemoryAndLlmReplicasGiveTheirs) {
  const std::string text = R"(version: 1
kind: plan
name: passthrough memory
duration: 20s
instances: [g4dn.xlarge, g5.xlarge]
max_instances: 1
sharing:
  - {mode: passthrough}
workloads:
  - name: chat
    memory: 20GiB
    workload: {llm: {model: Llama-3-8B, max_model_len: 4096, rate: 0.5/s, prompt_tokens: 300, output_tokens: 50}}
)";
  const PlanOutcome o = summarize_plan(evaluate_plan(load_plan_text(text, "p.yaml", builtin_instance_lookup()), 0, 1, 1));
  ASSERT_EQ(o.candidates.size(), 2u);
  EXPECT_FALSE(o.candidates[0].feasible);  // a T4 has 15 GiB
  EXPECT_NE(o.candidates[0].note.find("not enough GPU memory for chat replica 1"), std::string::npos)
      << o.candidates[0].note;
  EXPECT_TRUE(o.candidates[1].feasible);  // an A10G has 22 GiB
  std::string without = text;
  without.replace(without.find("    memory: 20GiB\n"), 18, "");
  std::string error = "(no error)";
  try {
    load_plan_text(without, "p.yaml", builtin_instance_lookup());
  } catch (const InputError& e) {
    error = e.what();
  }
  EXPECT_EQ(error, "p.yaml:10:5: workloads[0]: an llm workload in a plan needs `memory`: what each replica's server "
                   "takes of a GPU (weights, activations and KV cache)");
}

TEST(Plan, MigNamesAWorkloadNoProfileHoldsAndCsvQuotes) {
  const std::string text = "version: 1\nkind: plan\nname: big\ninstances: [a2-highgpu-1g]\nmax_instances: 1\n"
                           "sharing:\n  - {mode: mig}\nworkloads:\n  - {name: \"huge, \\\"really\\\"\", memory: 60GiB, "
                           "workload: {training: {step: {flops: 1TFLOP}}}}\n";
  const PlanOutcome o =
      summarize_plan(evaluate_plan(load_plan_text(text, "p.yaml", builtin_instance_lookup()), 0, 1, 1));
  ASSERT_EQ(o.candidates.size(), 1u);
  EXPECT_FALSE(o.candidates[0].feasible);
  EXPECT_NE(o.candidates[0].note.find("needs 60.0 GiB; the largest mig profile of A100-40GB holds"), std::string::npos)
      << o.candidates[0].note;
  // Names with commas and quotes stay one CSV field each.
  PlanOutcome q = o;
  q.candidates[0].instance = "my, \"box\"";
  const std::string csv = plan_csv(q);
  EXPECT_NE(csv.find(",\"my, \"\"box\"\"\","), std::string::npos) << csv;
}

}  // namespace unit_plan
