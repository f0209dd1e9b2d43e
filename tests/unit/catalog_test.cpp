// The shipped catalog: every required device, every value sourced, and strict parsing of catalog files.
#include <gtest/gtest.h>

#include "sim/io/gpu_catalog.hpp"
#include "sim/io/yaml_reader.hpp"

using namespace vgpusim;

TEST(Catalog, HasEveryRequiredDeviceWithSources) {
  const Catalog& c = builtin_catalog();
  for (const char* name : {"A100-40GB", "A100-80GB", "H100-SXM", "H200", "L4", "T4", "A10", "A10G", "V100", "L40S",
                           "RTX-4090", "M60", "MI25", "MI300X", "llvmpipe"}) {
    const CatalogEntry* e = c.find(name);
    ASSERT_NE(e, nullptr) << name;
    EXPECT_EQ(e->source.size(), gpu_fields().size() + 1) << name;  // every numeric field plus `mig`
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
