// The shipped catalog: every required device, every value sourced, and strict parsing of catalog files.
#include <gtest/gtest.h>

#include "models/gpu/device_names.hpp"
#include "sim/io/gpu_catalog.hpp"
#include "sim/io/yaml_reader.hpp"

namespace unit_catalog {

using namespace vgpusim;

TEST(Catalog, HasEveryRequiredDeviceWithSources) {
  const Catalog& c = builtin_catalog();
  for (const char* name : {"A100-40GB", "A100-80GB", "H100-SXM", "H100-PCIe", "H100-NVL", "H200", "B200", "A30", "L4",
                           "T4", "A10", "A10G", "A40", "V100", "L40", "L40S", "RTX-3090", "RTX-4090", "RTX-PRO-6000",
                           "M60", "K80", "MI25", "MI100", "MI210", "MI250", "MI250X", "MI300X", "llvmpipe", "P4",
                           "P100-PCIe-16GB", "V100-PCIe-32GB", "A100-PCIe-40GB", "A100-80GB-PCIe"}) {
    const CatalogEntry* e = c.find(name);
    ASSERT_NE(e, nullptr) << name;
    // Every numeric field plus `mig`, and resident threads (and blocks) per SM on NVIDIA GPUs, by compute capability
    // (the resident blocks of 12.0, the RTX PRO 6000, are not in the catalog).
    const bool nvidia = e->spec.vendor == "NVIDIA";
    const bool blocks = nvidia && std::string(name) != "RTX-PRO-6000";
    EXPECT_EQ(e->source.size(), gpu_fields().size() + 1 + (nvidia ? 1 : 0) + (blocks ? 1 : 0)) << name;
    EXPECT_EQ(e->spec.threads_per_sm > 0, nvidia) << name;
    EXPECT_EQ(e->spec.blocks_per_sm > 0, blocks) << name;
    for (const auto& [field, key] : e->source) EXPECT_TRUE(c.sources.count(key)) << name << "." << field;
  }
  EXPECT_EQ(c.find("llvmpipe")->spec.kind, "cpu");
}

TEST(Catalog, DatasheetValuesLandInSI) {
  const GpuSpec& h100 = builtin_catalog().find("H100-SXM")->spec;
  EXPECT_EQ(h100.compute_units, 132);
  EXPECT_DOUBLE_EQ(h100.memory_bandwidth, 3.35e12);
  EXPECT_DOUBLE_EQ(h100.fp16_tensor, 989e12);
  EXPECT_TRUE(h100.mig);
  EXPECT_FALSE(builtin_catalog().find("T4")->spec.mig);
  EXPECT_EQ(h100.threads_per_sm, 2048);
  EXPECT_EQ(builtin_catalog().find("T4")->spec.threads_per_sm, 1024);  // compute capability 7.5
  EXPECT_EQ(builtin_catalog().find("A40")->spec.threads_per_sm, 1536);  // 8.6
  EXPECT_EQ(builtin_catalog().find("A40")->spec.blocks_per_sm, 16);
  EXPECT_EQ(builtin_catalog().find("L40")->spec.blocks_per_sm, 24);  // 8.9
}

TEST(Catalog, AddedGpusCarryTheirDatasheetFigures) {
  const Catalog& c = builtin_catalog();
  const GpuSpec& a30 = c.find("A30")->spec;
  EXPECT_EQ(a30.compute_units, 56);
  EXPECT_DOUBLE_EQ(a30.fp16_tensor, 165e12);
  EXPECT_DOUBLE_EQ(a30.memory, 24.0 * 1073741824.0);
  EXPECT_TRUE(a30.mig);
  EXPECT_DOUBLE_EQ(c.find("H100-PCIe")->spec.fp16_tensor, 756e12);
  EXPECT_DOUBLE_EQ(c.find("H100-NVL")->spec.memory_bandwidth, 3.9e12);
  EXPECT_EQ(c.find("B200")->spec.compute_units, 148);
  EXPECT_DOUBLE_EQ(c.find("L40")->spec.fp16_tensor, 181.05e12);  // FP32 accumulate, half the FP16-accumulate rate
  EXPECT_DOUBLE_EQ(c.find("RTX-3090")->spec.fp16_tensor, 71e12);
  EXPECT_DOUBLE_EQ(c.find("RTX-PRO-6000")->spec.memory_bandwidth, 1597e9);  // Server Edition
  for (const char* name : {"A40", "L40", "RTX-3090"}) EXPECT_FALSE(c.find(name)->spec.mig) << name;
  // Derived values say so.
  EXPECT_TRUE(c.find("A30")->uncertain.count("boost_clock"));
  EXPECT_TRUE(c.find("RTX-PRO-6000")->uncertain.count("fp16_tensor"));
  EXPECT_FALSE(c.find("L4")->uncertain.count("compute_units"));
}

TEST(Catalog, DeviceNamesMapToTheNewEntries) {
  const std::vector<std::string> names = builtin_catalog().names();
  const auto map = [&](const char* device, double gib) {
    return catalog_name_for_device(device, gib * 1073741824.0, names);
  };
  EXPECT_EQ(map("NVIDIA GeForce RTX 3090", 23.6), "RTX-3090");
  EXPECT_EQ(map("NVIDIA GeForce RTX 3090 Ti", 23.6), "");
  EXPECT_EQ(map("NVIDIA A30", 24), "A30");
  EXPECT_EQ(map("NVIDIA A40", 44.4), "A40");
  EXPECT_EQ(map("NVIDIA L40", 44.4), "L40");
  EXPECT_EQ(map("NVIDIA L40S", 44.5), "L40S");
  EXPECT_EQ(map("NVIDIA H100 PCIe", 79.6), "H100-PCIe");
  EXPECT_EQ(map("NVIDIA H100 NVL", 93.6), "H100-NVL");
  EXPECT_EQ(map("NVIDIA H100 80GB HBM3", 79.6), "H100-SXM");
  EXPECT_EQ(map("NVIDIA B200", 178.4), "B200");
  EXPECT_EQ(map("NVIDIA RTX PRO 6000 Blackwell Server Edition", 95), "RTX-PRO-6000");
  EXPECT_EQ(map("NVIDIA RTX PRO 6000 Blackwell Workstation Edition", 95.6), "");
  EXPECT_EQ(map("NVIDIA RTX 6000 Ada Generation", 47.5), "");
  EXPECT_EQ(map("NVIDIA A100-SXM4-80GB", 79.2), "A100-80GB");
  // The PCIe boards (NeuSight's folder names with '_' as ' '; no memory given: the name's "80GB" tells).
  EXPECT_EQ(map("NVIDIA A100-PCIE-40GB", 39.4), "A100-PCIe-40GB");
  EXPECT_EQ(map("NVIDIA A100 80GB PCIe", 0), "A100-80GB-PCIe");
  EXPECT_EQ(map("NVIDIA A100-SXM4-40GB", 0), "A100-40GB");
  EXPECT_EQ(map("Tesla V100-PCIE-32GB", 0), "V100-PCIe-32GB");
  EXPECT_EQ(map("Tesla V100-SXM2-16GB", 15.8), "V100");
  EXPECT_EQ(map("Tesla P100-PCIE-16GB", 0), "P100-PCIe-16GB");
  EXPECT_EQ(map("Tesla P4", 0), "P4");
  EXPECT_EQ(map("Tesla T4", 0), "T4");
  EXPECT_EQ(map("Tesla K80", 11.17), "K80");  // one GK210 of the board, as CUDA shows it
  // AMD Instinct boards as ROCm names them (NeuSight's folders AMD_Instinct_MI100, ...); an MI250's or MI250X's
  // GCD is the device a process sees, as the catalog's entries are.
  EXPECT_EQ(map("AMD Instinct MI100", 32), "MI100");
  EXPECT_EQ(map("AMD Instinct MI210", 64), "MI210");
  EXPECT_EQ(map("AMD Instinct MI250", 64), "MI250");
  EXPECT_EQ(map("AMD Instinct MI250X", 64), "MI250X");
  EXPECT_EQ(map("AMD Instinct MI250X / MI250", 64), "MI250X");  // ROCm's name for either module's GCD
  EXPECT_EQ(map("AMD Instinct MI300X", 192), "MI300X");
  EXPECT_EQ(map("Radeon Instinct MI25", 16), "MI25");
  // A catalog without the PCIe entries maps them to the SXM ones.
  EXPECT_EQ(catalog_name_for_device("NVIDIA A100-PCIE-40GB", 0, {"A100-40GB", "A100-80GB"}), "A100-40GB");
}

TEST(Catalog, RejectsAValueWithoutSource) {
  const std::string text = R"(version: 1
sources: {ds: "a datasheet"}
gpus:
  - name: X
    vendor: V
    kind: gpu
    architecture: A
    compute_units: {value: 1}
)";
  try {
    parse_catalog(text, "cat.yaml");
    FAIL() << "expected an error";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "cat.yaml:8:20: gpus[0].compute_units: missing required key 'source' in gpus[0].compute_units");
  }
}

TEST(Catalog, RejectsAnUnknownSourceKey) {
  const std::string text = R"(version: 1
sources: {ds: "a datasheet"}
gpus:
  - name: X
    vendor: V
    kind: gpu
    architecture: A
    compute_units: {value: 1, source: dz}
)";
  try {
    parse_catalog(text, "cat.yaml");
    FAIL() << "expected an error";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "cat.yaml:8:39: gpus[0].compute_units.source: unknown source key 'dz'");
  }
}

}  // namespace unit_catalog
