// Capacity planning: candidate enumeration, the decision on a plan whose answer is known, sharding and merging,
// and plan-file errors.
#include <gtest/gtest.h>

#include <cstdlib>

#include "sim/studies/plan/plan_loader.hpp"
#include "sim/io/yaml_reader.hpp"
#include "sim/studies/plan/plan_command.hpp"

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
  EXPECT_EQ(error_of(bad), "p.yaml:12:5: sharing[2]: plans do not search partition layouts yet");
  std::string unknown = kPlan;
  unknown.replace(unknown.find("  - {name: small-t4, gpu: T4, price: $0.53/h}"), 45, "  - p9.mega");
  EXPECT_EQ(error_of(unknown), "p.yaml:6:5: instances[0]: unknown instance type 'p9.mega' (see `vgpusim list instances`)");
  std::string typo = kPlan;
  typo.replace(typo.find("max_instances"), 13, "max_instance");
  EXPECT_EQ(error_of(typo).substr(0, 83), "p.yaml:8:1: max_instance: unknown key 'max_instance'; did you mean 'max_instances'?");
}
