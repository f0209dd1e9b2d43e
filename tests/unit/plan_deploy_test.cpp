// A plan's chosen candidate as deployment files (sim/studies/plan/deploy_configs.hpp): the mig-parted layout and the
// device plugin's time-slicing and MPS configs read back through the project's own importers to the sharing the
// plan simulated; pods and README name each replica's node and GPU resource.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "sim/io/gpu_catalog.hpp"
#include "sim/scenario/document.hpp"
#include "sim/scenario/loader.hpp"
#include "sim/studies/plan/deploy_configs.hpp"
#include "sim/studies/plan/plan_command.hpp"
#include "tests/unit/scenario_helpers.hpp"

namespace unit_plan_deploy {

using namespace vgpusim;
using testing_support::error_of;

namespace {

// The files of `c` written to a fresh folder; returns the folder.
std::filesystem::path write_deploy(const Candidate& c, const std::string& folder) {
  const auto dir = std::filesystem::temp_directory_path() / folder;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  for (const DeployFile& f : deploy_files("test plan", c)) std::ofstream(dir / f.name) << f.text;
  return dir;
}

const DeployFile* find(const std::vector<DeployFile>& files, const std::string& name) {
  for (const DeployFile& f : files)
    if (f.name == name) return &f;
  return nullptr;
}

std::string tenant_line(const std::string& name, const std::string& on) {
  return "  - {name: " + name + ", on: " + on +
         ", memory: 4GiB, workload: {inference: {rate: 10/s, request: {flops: 0.1TFLOP, bytes: 1GB}}}}\n";
}

// A scenario of one `model` GPU named i0g0 with `sharing` and `tenants`, beside the deploy files in `dir`.
std::string scenario_text(const std::string& model, const std::string& sharing, const std::string& tenants) {
  return "version: 1\nname: deploy\nduration: 1s\nreplications: 1\ngpus:\n  - {id: i0g0, model: " + model +
         "}\nsharing:\n  i0g0: " + sharing + "\ntenants:\n" + tenants;
}

PlacedReplica replica(const std::string& tenant, const std::string& gpu, const std::string& profile = "") {
  PlacedReplica p;
  p.tenant = tenant;
  p.workload = tenant.substr(0, tenant.find('#'));
  p.gpu = gpu;
  p.profile = profile;
  return p;
}

Candidate shared_candidate(const std::string& mode) {
  Candidate c;
  c.index = 7;
  c.instance = "g5.xlarge";
  c.count = 2;
  c.sharing = mode;
  c.mode = mode;
  c.gpu = "A10G";
  c.cost_per_hour = 2.012;
  c.feasible = c.meets_all = true;
  c.placement = {replica("chat#1", "i0g0"), replica("chat#2", "i0g0"), replica("Fine Tune", "i1g0")};
  return c;
}

}  // namespace

// scenarios/plan-mig.yaml's decision (one A100-40GB: 4g.20gb for chat, 3g.20gb for the trainer) as a mig-parted
// layout that `import: mig-parted` reads back to the same partitions; pods request the profiles' resources.
TEST(PlanDeploy, MigPartedLayoutReadsBackToThePlansPartitions) {
  const std::string path = std::string(VGPUSIM_SOURCE_DIR) + "/scenarios/plan-mig.yaml";
  const PlanSpec plan = load_plan(read_scenario_document(path, "plan file"), builtin_instance_lookup());
  const PlanOutcome o = summarize_plan(evaluate_plan(plan, 0, 1, 2));
  ASSERT_GE(o.best, 0);
  const Candidate& best = o.candidates[static_cast<size_t>(o.best)];
  ASSERT_EQ(best.mode, "mig");
  ASSERT_EQ(best.gpu, "A100-40GB");
  const std::vector<DeployFile> files = deploy_files(plan.name, best);
  ASSERT_TRUE(find(files, "mig-parted.yaml"));
  ASSERT_TRUE(find(files, "device-plugin.yaml"));
  ASSERT_TRUE(find(files, "pods.yaml"));
  ASSERT_TRUE(find(files, "README.md"));
  const auto dir = write_deploy(best, "vgpusim-plan-deploy-mig");

  std::string tenants;
  std::map<std::string, int> seen;
  for (const PlacedReplica& p : best.placement)
    tenants += tenant_line(p.tenant, "i0g0/" + p.profile + "-" + std::to_string(seen[p.profile]++));
  const Scenario sc = load_scenario_text(
      scenario_text(best.gpu,
                    "{import: mig-parted, file: " + (dir / "mig-parted.yaml").string() + ", config: " +
                        deploy_mig_layout(0) + "}",
                    tenants),
      (dir / "s.yaml").string(), builtin_catalog());
  std::vector<std::string> imported, planned;
  for (const Target& t : sc.targets) imported.push_back(t.partition);
  for (const PlacedReplica& p : best.placement) planned.push_back(p.profile);
  std::sort(imported.begin(), imported.end());
  std::sort(planned.begin(), planned.end());
  EXPECT_EQ(imported, planned);
  EXPECT_EQ(sc.targets.at(0).sharing.mode_name(), "timeslice");  // a partition without its own sharing

  // The plugin's mixed strategy names a resource per profile; each pod asks for its replica's.
  const YAML::Node plugin = YAML::Load(find(files, "device-plugin.yaml")->text);
  EXPECT_EQ(plugin["flags"]["migStrategy"].as<std::string>(), "mixed");
  const std::vector<YAML::Node> pods = YAML::LoadAll(find(files, "pods.yaml")->text);
  ASSERT_EQ(pods.size(), best.placement.size());
  for (size_t i = 0; i < pods.size(); ++i) {
    EXPECT_EQ(pods[i]["kind"].as<std::string>(), "Pod");
    EXPECT_EQ(pods[i]["spec"]["nodeSelector"]["vgpusim.io/node"].as<std::string>(), "i0");
    const YAML::Node limits = pods[i]["spec"]["containers"][0]["resources"]["limits"];
    EXPECT_EQ(limits["nvidia.com/mig-" + best.placement[i].profile].as<int>(), 1) << pods[i];
  }
  EXPECT_NE(find(files, "README.md")->text.find("nvidia.com/mig.config=vgpusim-i0"), std::string::npos);
}

// Time-slicing: as many replicas as the busiest GPU holds (two); importing it gives timeslice with at most two
// tenants per GPU, as the plan placed them.
TEST(PlanDeploy, TimeSlicingConfigReadsBackWithTheBusiestGpusReplicas) {
  const Candidate c = shared_candidate("timeslice");
  const auto dir = write_deploy(c, "vgpusim-plan-deploy-ts");
  const std::string import = "{import: device-plugin, file: " + (dir / "device-plugin.yaml").string() + "}";
  const Scenario sc = load_scenario_text(
      scenario_text("A10G", import, tenant_line("chat1", "i0g0") + tenant_line("chat2", "i0g0")),
      (dir / "s.yaml").string(), builtin_catalog());
  EXPECT_EQ(sc.targets.at(0).sharing.mode_name(), "timeslice");
  const std::string e = error_of(scenario_text("A10G", import,
                                               tenant_line("a", "i0g0") + tenant_line("b", "i0g0") +
                                                   tenant_line("c", "i0g0")),
                                 (dir / "s.yaml").string());
  EXPECT_NE(e.find("as 2 replica(s)"), std::string::npos) << e;

  const std::vector<DeployFile> files = deploy_files("test plan", c);
  EXPECT_FALSE(find(files, "mig-parted.yaml"));
  const std::vector<YAML::Node> pods = YAML::LoadAll(find(files, "pods.yaml")->text);
  ASSERT_EQ(pods.size(), 3u);
  EXPECT_EQ(pods[0]["metadata"]["name"].as<std::string>(), "chat-1");
  EXPECT_EQ(pods[2]["metadata"]["name"].as<std::string>(), "fine-tune");
  EXPECT_EQ(pods[2]["metadata"]["annotations"]["vgpusim.io/tenant"].as<std::string>(), "Fine Tune");
  EXPECT_EQ(pods[2]["spec"]["nodeSelector"]["vgpusim.io/node"].as<std::string>(), "i1");
  EXPECT_EQ(pods[2]["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"].as<int>(), 1);
  const std::string& readme = find(files, "README.md")->text;
  EXPECT_NE(readme.find("NODE-i1 --overwrite vgpusim.io/node=i1 nvidia.com/device-plugin.config=vgpusim"),
            std::string::npos)
      << readme;
  EXPECT_NE(readme.find("- i1g0 (instance i1, GPU 0): Fine Tune"), std::string::npos) << readme;
}

// MPS: the plugin's MPS with two replicas; importing it gives mps, each client at the plugin's 50% active threads,
// which the README says the plan did not simulate.
TEST(PlanDeploy, MpsConfigReadsBackAndTheReadmeNamesThePluginsLimits) {
  const Candidate c = shared_candidate("mps");
  const auto dir = write_deploy(c, "vgpusim-plan-deploy-mps");
  const Scenario sc = load_scenario_text(
      scenario_text("A10G", "{import: device-plugin, file: " + (dir / "device-plugin.yaml").string() + "}",
                    tenant_line("chat1", "i0g0") + tenant_line("chat2", "i0g0")),
      (dir / "s.yaml").string(), builtin_catalog());
  EXPECT_EQ(sc.targets.at(0).sharing.mode_name(), "mps");
  ASSERT_EQ(sc.tenants.size(), 2u);
  EXPECT_DOUBLE_EQ(sc.tenants[0].share.get("active_threads"), 0.5);
  const std::string readme = find(deploy_files("test plan", c), "README.md")->text;
  EXPECT_NE(readme.find("limits each of the 2 replicas of a GPU to 50% of its SMs"), std::string::npos) << readme;
}

// One replica per GPU: no sharing in the plugin's config, read back as passthrough. Modes the plugin does not set
// up get a README saying so and no config.
TEST(PlanDeploy, OneReplicaPerGpuIsNoSharingAndOtherModesGetTheReadmeOnly) {
  Candidate c = shared_candidate("timeslice");
  c.placement = {replica("a", "i0g0"), replica("b", "i1g0")};
  const auto dir = write_deploy(c, "vgpusim-plan-deploy-one");
  const Scenario sc = load_scenario_text(
      scenario_text("A10G", "{import: device-plugin, file: " + (dir / "device-plugin.yaml").string() + "}",
                    tenant_line("a", "i0g0")),
      (dir / "s.yaml").string(), builtin_catalog());
  EXPECT_EQ(sc.targets.at(0).sharing.mode_name(), "passthrough");

  c.mode = "vgpu";
  c.sharing = "vgpu A10-12Q";
  const std::vector<DeployFile> files = deploy_files("test plan", c);
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].name, "README.md");
  EXPECT_NE(files[0].text.find("No Kubernetes configuration is written for `vgpu`"), std::string::npos);
}

TEST(PlanDeploy, PodNamesAreDnsLabels) {
  EXPECT_EQ(deploy_pod_name("chat#2"), "chat-2");
  EXPECT_EQ(deploy_pod_name("  Big_Model  "), "big-model");
  EXPECT_EQ(deploy_pod_name("###"), "replica");
  EXPECT_EQ(deploy_pod_name(std::string(100, 'a')).size(), 63u);
  EXPECT_EQ(deploy_pod_name("\xff\xfe" "x"), "x");
}

// `plan --out` writes them in DIR/deploy with plan.json, and removes an earlier decision's configs it does not
// write.
TEST(PlanDeploy, PlanOutWritesTheDeployFolder) {
  const auto dir = std::filesystem::temp_directory_path() / "vgpusim-plan-deploy-out";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir / "deploy");
  std::ofstream(dir / "deploy" / "mig-parted.yaml") << "stale\n";
  const std::string text = "version: 1\nkind: plan\nname: one\nduration: 5s\ninstances: [g5.xlarge]\n"
                           "max_instances: 1\nsharing:\n  - {mode: timeslice}\nworkloads:\n"
                           "  - {name: w, memory: 1GiB, workload: {training: {step: {flops: 1TFLOP}}}, "
                           "slo: {throughput: 0.1/s}}\n";
  const std::string file = (dir / "p.yaml").string();
  std::ofstream(file) << text;
  ASSERT_EQ(plan_command(read_scenario_document(file, "plan file"), PlanRun{}, dir.string(), true), 0);
  EXPECT_TRUE(std::filesystem::exists(dir / "plan.json"));
  EXPECT_TRUE(std::filesystem::exists(dir / "deploy" / "device-plugin.yaml"));
  EXPECT_TRUE(std::filesystem::exists(dir / "deploy" / "pods.yaml"));
  EXPECT_TRUE(std::filesystem::exists(dir / "deploy" / "README.md"));
  EXPECT_FALSE(std::filesystem::exists(dir / "deploy" / "mig-parted.yaml"));
}

}  // namespace unit_plan_deploy
