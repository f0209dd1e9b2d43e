// The shipped instance catalog: every required instance, every value sourced and dated, GPU models that exist in
// the GPU catalog, and strict FILE:LINE:COL errors for a bad file.
#include <gtest/gtest.h>

#include "sim/io/gpu_catalog.hpp"
#include "sim/io/instance_catalog.hpp"
#include "sim/io/yaml_reader.hpp"

namespace unit_instance_catalog {

using namespace vgpusim;

namespace {

const char* const kGoodHead = R"(version: 1
sources:
  s: "a source"
instances:
  - name: x.large
    provider: aws
)";

std::string error_of(const std::string& text) {
  try {
    parse_instance_catalog(text, "bad.yaml", builtin_catalog());
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

std::string instance_body(const std::string& gpu_model, const std::string& price_extra) {
  return std::string(kGoodHead) + "    gpu_model: {value: " + gpu_model + ", source: s}\n" +
         "    gpu_count: {value: 1, source: s}\n    vcpus: {value: 4, source: s}\n" +
         "    memory: {value: 16GiB, source: s}\n    region: {value: us-east-1, source: s}\n" +
         "    on_demand: {value: \"$1/h\", source: s" + price_extra + "}\n" +
         "    spot_discount: {min: 30%, max: 70%, source: s}\n";
}

}  // namespace

TEST(InstanceCatalog, HasEveryRequiredInstanceWithSources) {
  const InstanceCatalog& c = builtin_instance_catalog();
  for (const char* name : {"p4d.24xlarge", "p3dn.24xlarge", "g5.xlarge", "g5.12xlarge", "g4dn.xlarge", "p5.48xlarge",
                           "a2-highgpu-1g", "NC6s_v3", "ND96asr_v4", "NV4as_v4", "NV8as_v4", "NV16as_v4",
                           "NV32as_v4"}) {
    const Instance* i = c.find(name);
    ASSERT_NE(i, nullptr) << name;
    for (const char* field : {"gpu_model", "gpu_count", "vcpus", "memory", "region", "on_demand", "spot_discount"})
      EXPECT_TRUE(i->source.count(field)) << name << "." << field;
    EXPECT_EQ(i->network > 0, i->source.count("network") == 1) << name;
    for (const auto& [field, key] : i->source) EXPECT_TRUE(c.sources.count(key)) << name << "." << field;
    EXPECT_FALSE(i->price_date.empty()) << name;
    EXPECT_NE(builtin_catalog().find(i->gpu_model), nullptr) << name << " " << i->gpu_model;
    EXPECT_GT(i->on_demand, 0) << name;
  }
}

TEST(InstanceCatalog, SeedFactsLandInSI) {
  const InstanceCatalog& c = builtin_instance_catalog();
  const Instance& p4d = *c.find("p4d.24xlarge");
  EXPECT_EQ(p4d.gpu_model, "A100-40GB");
  EXPECT_EQ(p4d.gpu_count, 8);
  EXPECT_DOUBLE_EQ(p4d.memory, 1152.0 * 1024 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(p4d.network, 400e9 / 8);
  EXPECT_NEAR(p4d.on_demand * 3600, 32.77, 1e-9);
  EXPECT_DOUBLE_EQ(p4d.spot_discount_min, 0.3);
  const Instance& a2 = *c.find("a2-highgpu-1g");
  EXPECT_EQ(a2.gpu_model, "A100-40GB");
  EXPECT_EQ(a2.vcpus, 12);
  EXPECT_TRUE(a2.uncertain.count("memory"));  // 85 GB (Google) vs 90 GB (seeds)
  EXPECT_DOUBLE_EQ(c.find("NV4as_v4")->gpu_count, 0.125);
}

TEST(InstanceCatalog, AGoodMinimalFileParses) {
  const InstanceCatalog c = parse_instance_catalog(instance_body("T4", ", date: 2026-11"), "ok.yaml", builtin_catalog());
  ASSERT_EQ(c.instances.size(), 1u);
  EXPECT_EQ(c.instances[0].price_date, "2026-11");
}

TEST(InstanceCatalog, UnknownGpuModelNamesFileLineColumn) {
  const std::string e = error_of(instance_body("A100-40G", ", date: 2026-11"));
  EXPECT_NE(e.find("bad.yaml:7:"), std::string::npos) << e;
  EXPECT_NE(e.find("instances[0].gpu_model.value"), std::string::npos) << e;
  EXPECT_NE(e.find("did you mean 'A100-40GB'"), std::string::npos) << e;
}

TEST(InstanceCatalog, PriceWithoutDateIsRefused) {
  const std::string e = error_of(instance_body("T4", ""));
  EXPECT_NE(e.find("bad.yaml:12:"), std::string::npos) << e;
  EXPECT_NE(e.find("date"), std::string::npos) << e;
}

TEST(InstanceCatalog, UnknownKeyAndUnknownSourceAreRefused) {
  std::string text = instance_body("T4", ", date: 2026-11") + "    gpu_modle: {value: T4, source: s}\n";
  std::string e = error_of(text);
  EXPECT_NE(e.find("bad.yaml:14:5"), std::string::npos) << e;
  EXPECT_NE(e.find("gpu_model"), std::string::npos) << e;  // did you mean
  text = instance_body("T4", ", date: 2026-11");
  const std::string vcpus = "vcpus: {value: 4, source: s}";
  text.replace(text.find(vcpus), vcpus.size(), "vcpus: {value: 4, source: nowhere}");
  e = error_of(text);
  EXPECT_NE(e.find("bad.yaml:9:"), std::string::npos) << e;
  EXPECT_NE(e.find("unknown source key 'nowhere'"), std::string::npos) << e;
}

}  // namespace unit_instance_catalog
