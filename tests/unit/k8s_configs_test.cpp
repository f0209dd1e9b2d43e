// Real cluster configurations as a scenario's sharing: the NVIDIA device plugin's time-slicing and MPS configs and
// mig-parted layouts (docs/k8s-configs.md), with the shipped examples and the errors for what cannot be expressed.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "sim/io/gpu_catalog.hpp"
#include "sim/scenario/loader.hpp"
#include "tests/unit/scenario_helpers.hpp"

namespace unit_k8s_configs {

using namespace vgpusim;
using testing_support::error_of;

namespace {

const std::string kK8s = VGPUSIM_SOURCE_DIR "/scenarios/k8s/";

// A scenario (written beside the configs it imports) with `gpus` H100s, `sharing` and `tenants` as given.
std::string scenario(const std::string& sharing, const std::string& tenants, int gpus = 1) {
  std::string text = "version: 1\nname: k8s\nduration: 2s\nreplications: 1\ngpus:\n";
  for (int g = 0; g < gpus; ++g) text += "  - {id: g" + std::to_string(g) + ", model: H100-SXM}\n";
  return text + "sharing:\n" + sharing + "tenants:\n" + tenants;
}

std::string tenant(const std::string& name, const std::string& on, const std::string& extra = "") {
  return "  - {name: " + name + ", on: " + on + ", memory: 8GiB" + extra +
         ", workload: {inference: {rate: 20/s, request: {flops: 0.1TFLOP, bytes: 1GB}}}}\n";
}

Scenario load(const std::string& text) { return load_scenario_text(text, kK8s + "test.yaml", builtin_catalog()); }

// A config file of our own in a temporary folder; returns its path.
std::string write_config(const std::string& name, const std::string& text) {
  const auto dir = std::filesystem::temp_directory_path() / "vgpusim-k8s-test";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / name) << text;
  return (dir / name).string();
}

std::string device_plugin_error(const std::string& config_text) {
  const std::string path = write_config("dp.yaml", config_text);
  return error_of(scenario("  g0: {import: device-plugin, file: " + path + "}\n", tenant("a", "g0")),
                  kK8s + "test.yaml");
}

}  // namespace

TEST(K8sConfigs, DevicePluginTimeSlicingIsTimesliceWithAtMostItsReplicas) {
  const Scenario sc = load(scenario("  g0: {import: device-plugin, file: time-slicing.yaml}\n",
                                    tenant("a", "g0") + tenant("b", "g0")));
  EXPECT_EQ(sc.targets.at(0).sharing.mode_name(), "timeslice");
  std::string five;
  for (const char* n : {"a", "b", "c", "d", "e"}) five += tenant(n, "g0");
  const std::string e =
      error_of(scenario("  g0: {import: device-plugin, file: time-slicing.yaml}\n", five), kK8s + "test.yaml");
  EXPECT_NE(e.find("tenants[4].on: 'g0' is shared by the imported device plugin config as 4 replica(s) ("), std::string::npos)
      << e;
  EXPECT_NE(e.find("time-slicing.yaml:13:19): Kubernetes would not place more containers on it"), std::string::npos) << e;
}

TEST(K8sConfigs, DevicePluginMpsGivesEachReplicaAnEqualShareOfSmsAndMemory) {
  const Scenario sc =
      load(scenario("  g0: {import: device-plugin, file: mps.yaml}\n", tenant("a", "g0") + tenant("b", "g0")));
  EXPECT_EQ(sc.targets.at(0).sharing.mode_name(), "mps");
  for (const TenantSpec& t : sc.tenants) {
    EXPECT_DOUBLE_EQ(t.share.get("active_threads"), 0.5);
    EXPECT_DOUBLE_EQ(t.share.get("memory_limit"), sc.gpus[0].spec.memory / 2);
  }
  // A client may lower its share, not raise it above the daemon's default.
  const Scenario lower = load(scenario("  g0: {import: device-plugin, file: mps.yaml}\n",
                                       tenant("a", "g0", ", share: {active_threads: 25%}") + tenant("b", "g0")));
  EXPECT_DOUBLE_EQ(lower.tenants[0].share.get("active_threads"), 0.25);
  const std::string e = error_of(scenario("  g0: {import: device-plugin, file: mps.yaml}\n",
                                          tenant("a", "g0", ", share: {active_threads: 80%}") + tenant("b", "g0")),
                                 kK8s + "test.yaml");
  EXPECT_NE(e.find("tenants[0].share.active_threads: above the 50% the imported device plugin config gives each of "
                   "its 2 replicas"),
            std::string::npos)
      << e;
  // A tenant that needs more than its replica's memory runs out of it when it starts.
  const Results r = testing_support::run_text(
      scenario("  g0: {import: device-plugin, file: mps.yaml}\n",
               "  - {name: big, on: g0, memory: 60GiB, workload: {inference: {rate: 20/s, request: {flops: 0.1TFLOP, "
               "bytes: 1GB}}}}\n"),
      kK8s + "test.yaml");
  ASSERT_EQ(r.tenants.at(0).failures.size(), 1u);
  EXPECT_EQ(r.tenants[0].failures[0].kind, "out_of_memory");
  EXPECT_NE(r.tenants[0].failures[0].message.find("MPS pinned device memory limit"), std::string::npos)
      << r.tenants[0].failures[0].message;
}

TEST(K8sConfigs, DevicePluginConfigsThatCannotBeExpressedAreRefused) {
  EXPECT_NE(device_plugin_error("version: v2\n").find("dp.yaml:1:10: version: vgpusim reads device plugin config "
                                                      "files of version v1"),
            std::string::npos);
  EXPECT_NE(device_plugin_error("version: v1\nsharing:\n  timeSlicing:\n    resources:\n      - name: "
                                "nvidia.com/mig-1g.10gb\n        replicas: 2\n")
                .find("sharing.timeSlicing.resources[0].name: 'nvidia.com/mig-1g.10gb' cannot be expressed"),
            std::string::npos);
  EXPECT_NE(device_plugin_error("version: v1\nsharing:\n  mps:\n    resources:\n      - name: nvidia.com/gpu\n"
                                "        replicas: 2\n        devices: [\"0\"]\n")
                .find("sharing.mps.resources[0].devices: the device plugin does not apply a resource to some devices"),
            std::string::npos);
  EXPECT_NE(device_plugin_error("version: v1\nsharing:\n  timeSlicing:\n    resources:\n      - {name: nvidia.com/gpu, "
                                "replicas: 2}\n  mps:\n    resources:\n      - {name: nvidia.com/gpu, replicas: 2}\n")
                .find("time-slicing and MPS cannot both be configured"),
            std::string::npos);
  EXPECT_NE(device_plugin_error("version: v1\nsharing:\n  timeSlicing:\n    resources:\n      - {name: nvidia.com/gpu, "
                                "replicas: 0}\n")
                .find("replicas: expected an integer from 1 to 1000"),
            std::string::npos);
  EXPECT_NE(device_plugin_error("version: v1\nsharing:\n  timeSlicing:\n    resourcs: []\n")
                .find("sharing.timeSlicing.resourcs: vgpusim does not read this key"),
            std::string::npos);
  // No sharing section: one container per GPU.
  const std::string path = write_config("none.yaml", "version: v1\nflags: {migStrategy: none}\n");
  EXPECT_EQ(load(scenario("  g0: {import: device-plugin, file: " + path + "}\n", tenant("a", "g0")))
                .targets.at(0)
                .sharing.mode_name(),
            "passthrough");
}

TEST(K8sConfigs, MigPartedLayoutsBecomePartitionsNamedByProfile) {
  const Scenario sc = load(scenario("  g0: {import: mig-parted, file: mig-parted.yaml, config: all-balanced}\n",
                                    tenant("a", "g0/3g.40gb-0") + tenant("b", "g0/1g.10gb-1")));
  ASSERT_EQ(sc.targets.size(), 4u);
  EXPECT_EQ(sc.targets[0].id, "g0/1g.10gb-0");
  EXPECT_EQ(sc.targets[1].id, "g0/1g.10gb-1");
  EXPECT_EQ(sc.targets[2].id, "g0/2g.20gb-0");
  EXPECT_EQ(sc.targets[3].id, "g0/3g.40gb-0");
  EXPECT_EQ(sc.targets[3].partition, "3g.40gb");
  // Entries by device index: device 0 without MIG, device 1 with two partitions.
  const Scenario half =
      load(scenario("  g0: {import: mig-parted, file: mig-parted.yaml, config: half-balanced}\n"
                    "  g1: {import: mig-parted, file: mig-parted.yaml, config: half-balanced}\n",
                    tenant("a", "g0") + tenant("b", "g1/4g.40gb-0"), 2));
  ASSERT_EQ(half.targets.size(), 3u);
  EXPECT_EQ(half.targets[0].sharing.mode_name(), "passthrough");
  EXPECT_EQ(half.targets[2].id, "g1/4g.40gb-0");
}

TEST(K8sConfigs, MigPartedErrorsNameTheFileAndTheLayout) {
  const std::string unknown = error_of(
      scenario("  g0: {import: mig-parted, file: mig-parted.yaml, config: all-balance}\n", tenant("a", "g0")),
      kK8s + "test.yaml");
  EXPECT_NE(unknown.find("mig-parted.yaml:6:3: mig-configs: no layout named 'all-balance'; did you mean "
                         "'all-balanced'?"),
            std::string::npos)
      << unknown;
  const std::string a100 = write_config("a100.yaml", "version: v1\nmig-configs:\n  x:\n    - devices: all\n"
                                                     "      mig-enabled: true\n      mig-devices: {\"1g.5gb\": 7}\n");
  const std::string wrong = error_of(
      scenario("  g0: {import: mig-parted, file: " + a100 + ", config: x}\n", tenant("a", "g0/1g.5gb-0")),
      kK8s + "test.yaml");
  EXPECT_NE(wrong.find("a100.yaml:4:7: mig-configs.x on GPU 'g0' (H100-SXM): "), std::string::npos) << wrong;
  const std::string twice = write_config("twice.yaml", "version: v1\nmig-configs:\n  x:\n    - devices: all\n"
                                                       "      mig-enabled: false\n    - devices: [0]\n"
                                                       "      mig-enabled: false\n");
  EXPECT_NE(error_of(scenario("  g0: {import: mig-parted, file: " + twice + ", config: x}\n", tenant("a", "g0")),
                     kK8s + "test.yaml")
                .find("two entries apply to device 0"),
            std::string::npos);
  EXPECT_NE(error_of(scenario("  g0: {import: mig-parted, file: mig-parted.yaml}\n", tenant("a", "g0")),
                     kK8s + "test.yaml")
                .find("mig-parted needs the layout's name: `config`"),
            std::string::npos);
}

}  // namespace unit_k8s_configs
