// The ScenarioBuilder is the one way to a Scenario: a plan's candidate built from a search result and the same
// setup loaded from a scenario file are the same Scenario, field by field; and the builder's own defaults.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "sim/io/gpu_catalog.hpp"
#include "sim/scenario/builder.hpp"
#include "sim/scenario/loader.hpp"
#include "sim/studies/plan/candidate.hpp"
#include "sim/studies/plan/plan_loader.hpp"

namespace unit_builder {

using namespace vgpusim;

namespace {

void expect_same(const Scenario& a, const Scenario& b) {
  EXPECT_EQ(a.file, b.file);
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.version, b.version);
  EXPECT_EQ(a.seed, b.seed);
  EXPECT_EQ(a.replications, b.replications);
  EXPECT_EQ(a.duration, b.duration);
  EXPECT_EQ(a.fidelity, b.fidelity);
  EXPECT_EQ(a.metrics_interval, b.metrics_interval);
  ASSERT_EQ(a.gpus.size(), b.gpus.size());
  for (size_t g = 0; g < a.gpus.size(); ++g) {
    EXPECT_EQ(a.gpus[g].id, b.gpus[g].id);
    EXPECT_EQ(a.gpus[g].spec, b.gpus[g].spec);
    EXPECT_EQ(a.gpus[g].calibrated, b.gpus[g].calibrated);
    EXPECT_EQ(RooflineParams::table().values(a.gpus[g].performance),
              RooflineParams::table().values(b.gpus[g].performance));
    EXPECT_EQ(a.sharing[g].mode, b.sharing[g].mode);
    EXPECT_EQ(a.sharing[g].params, b.sharing[g].params);
  }
  ASSERT_EQ(a.targets.size(), b.targets.size());
  for (size_t k = 0; k < a.targets.size(); ++k) {
    const Target &x = a.targets[k], &y = b.targets[k];
    EXPECT_EQ(x.id, y.id);
    EXPECT_EQ(x.gpu, y.gpu);
    EXPECT_EQ(x.partition, y.partition);
    EXPECT_EQ(x.slot, y.slot);
    EXPECT_EQ(x.spec, y.spec);
    EXPECT_EQ(x.sharing.mode, y.sharing.mode) << x.id;
    EXPECT_EQ(x.sharing.params, y.sharing.params) << x.id;
    EXPECT_EQ(x.present_at_start, y.present_at_start);
    EXPECT_EQ(x.setup.params, y.setup.params);
    EXPECT_EQ(x.setup.fidelity, y.setup.fidelity);
    EXPECT_EQ(x.setup.gpu, y.setup.gpu);
    EXPECT_EQ(x.setup.tenants, y.setup.tenants);
    EXPECT_EQ(x.setup.tenant_start, y.setup.tenant_start);
  }
  ASSERT_EQ(a.tenants.size(), b.tenants.size());
  for (size_t i = 0; i < a.tenants.size(); ++i) {
    const TenantSpec &x = a.tenants[i], &y = b.tenants[i];
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.gpu, y.gpu);
    EXPECT_EQ(x.target, y.target);
    EXPECT_EQ(x.memory, y.memory) << x.name;
    EXPECT_EQ(x.start, y.start);
    EXPECT_EQ(x.start_distribution, y.start_distribution);
    EXPECT_EQ(x.stream, y.stream);
    EXPECT_EQ(x.share, y.share);
    EXPECT_EQ(x.workload->kind(), y.workload->kind());
    EXPECT_EQ(x.workload->device_memory(), y.workload->device_memory());
  }
  EXPECT_EQ(a.faults.size(), b.faults.size());
  EXPECT_EQ(a.layout_changes.size(), b.layout_changes.size());
  EXPECT_EQ(a.compare.size(), b.compare.size());
}

// A plan's candidate: `sharing` on one `gpu`, two replicas of `workload`, built as the planner builds it.
Scenario candidate(const std::string& gpu, const std::string& sharing, const std::string& workload,
                   const std::vector<std::string>& profiles, Candidate& c) {
  const std::string text = fmt::format(R"(version: 1
kind: plan
name: same
seed: 7
duration: 20s
instances: [{{name: box, gpu: {}, price: $1/h}}]
sharing: [{}]
workloads:
  - {{name: w, replicas: 2, memory: 10GiB, workload: {}}}
)",
                                       gpu, sharing, workload);
  const PlanSpec plan = load_plan_text(text, "same.yaml", nullptr);
  c.instance = "box";
  c.count = 1;
  c.sharing = plan.sharing.front().label;
  plan_detail::CandidateSetup s;
  EXPECT_EQ(plan_detail::resolve(plan, c, s), "");
  Scenario sc;
  EXPECT_EQ(plan_detail::build(plan, c, s, 1, plan_detail::replicas_of(plan), {0, 0}, sc, profiles), "");
  return sc;
}

}  // namespace

TEST(ScenarioBuilder, APlanCandidateIsTheScenarioItsFileWouldLoad) {
  const std::string work = "{training: {step: {flops: 1TFLOP, bytes: 1GB}, iterations: 5}}";
  Candidate c;
  // Time-slicing on one whole GPU.
  const Scenario planned = candidate("A100-80GB", "{mode: timeslice, slice: 2ms}", work, {}, c);
  const std::string file = fmt::format(R"(version: 1
name: "same: 1 x box, {}"
seed: 7
replications: 1
duration: 20s
fidelity: fluid  # a plan's default
gpus: [{{id: i0g0, model: A100-80GB}}]
sharing: {{i0g0: {{mode: timeslice, slice: 2ms}}}}
tenants:
  - {{name: "w#1", on: i0g0, memory: 10GiB, workload: {}}}
  - {{name: "w#2", on: i0g0, memory: 10GiB, workload: {}}}
)",
                                       c.sharing, work, work);
  expect_same(planned, load_scenario_text(file, "same.yaml", builtin_catalog()));

  // MIG: each replica on its own instance, time-sliced as a partition without a sharing of its own.
  Candidate m;
  const Scenario mig = candidate("A100-80GB", "{mode: mig}", work, {"2g.20gb", "1g.10gb"}, m);
  const std::string mig_file = fmt::format(R"(version: 1
name: "same: 1 x box, {}"
seed: 7
replications: 1
duration: 20s
fidelity: fluid  # a plan's default
gpus: [{{id: i0g0, model: A100-80GB}}]
sharing: {{i0g0: {{mode: mig, partitions: [{{id: "0", profile: 2g.20gb}}, {{id: "1", profile: 1g.10gb}}]}}}}
tenants:
  - {{name: "w#1", on: i0g0/0, memory: 10GiB, workload: {}}}
  - {{name: "w#2", on: i0g0/1, memory: 10GiB, workload: {}}}
)",
                                           m.sharing, work, work);
  expect_same(mig, load_scenario_text(mig_file, "same.yaml", builtin_catalog()));
}

TEST(ScenarioBuilder, AppliesTheScenarioDefaultsOnce) {
  ScenarioBuilder b("b.yaml", "defaults");
  b.set_duration(50);
  const size_t g = b.add_gpu(catalog_gpu("g0", *builtin_catalog().find("A100-80GB")));
  const auto made = find_sharing_mode("mig")->make_partitions(b.draft().gpus[g].spec, {"3g.40gb"}, {});
  const size_t k = b.add_partition(g, "a", std::get<std::vector<Partition>>(made).front());
  TenantSpec t;
  t.name = "t";
  t.target = k;
  auto w = std::make_shared<TrainingWorkload>();
  w->iterations = 1;
  t.workload = w;
  b.add_tenant(t, {});
  ASSERT_TRUE(b.finish().empty());
  const Scenario sc = b.take();
  EXPECT_EQ(sc.metrics_interval, 0.5);                        // the duration / 100
  EXPECT_EQ(sc.targets[k].sharing.mode_name(), "timeslice");  // a partition without a sharing of its own
  EXPECT_EQ(sc.targets[k].id, "g0/a");
  EXPECT_EQ(sc.tenants[0].stream, "t");
  EXPECT_EQ(sc.tenants[0].start_distribution, Distribution::uniform(0, ScenarioBuilder::kStartJitter));
  EXPECT_GE(sc.tenants[0].start, 0);
  EXPECT_LT(sc.tenants[0].start, ScenarioBuilder::kStartJitter);
  ASSERT_EQ(sc.targets[k].setup.tenant_start.size(), 1u);
  EXPECT_EQ(sc.targets[k].setup.tenant_start[0], sc.tenants[0].start);
  EXPECT_EQ(sc.targets[k].setup.gpu, sc.targets[k].spec);
}

TEST(ScenarioBuilder, ReportsAModeThatRefusesItsTenantsByTarget) {
  ScenarioBuilder b("b.yaml", "too many");
  const size_t g = b.add_gpu(catalog_gpu("g0", *builtin_catalog().find("A100-80GB")));
  const SharingModeInfo* vgpu = find_sharing_mode("vgpu");
  ParamValues p = ParamValues::defaults(vgpu->mode_params());
  p.set_word("profile", "A100-40C");
  b.share_gpu(g, {vgpu, p});
  const size_t k = b.add_whole_gpu(g);
  for (int i = 0; i < 3; ++i) {
    TenantSpec t;
    t.name = fmt::format("t{}", i);
    t.target = k;
    auto w = std::make_shared<TrainingWorkload>();
    w->iterations = 1;
    t.workload = w;
    b.add_tenant(t, {});
  }
  const auto problems = b.finish();
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].where, ScenarioBuilder::Problem::Where::Target);
  EXPECT_EQ(problems[0].index, k);
  EXPECT_NE(problems[0].message.find("at most 2 vGPUs of type A100-40C"), std::string::npos) << problems[0].message;
}

}  // namespace unit_builder
