// Trust bands: the table's reader and writer, the tenant situation -> validated class mapping, the band in vGPU
// loss points, the table built from validation cases, and the band in every run format.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "sim/core/errors.hpp"
#include "sim/report/run_formats.hpp"
#include "sim/run/trust.hpp"
#include "sim/studies/validation/published.hpp"
#include "tests/unit/scenario_helpers.hpp"

namespace vgpusim {
extern const char* const kBuiltinTrustText;  // models/catalog/trust.csv, compiled in
}  // namespace vgpusim

namespace vgpusim::unit_trust {

namespace {

std::string pair_scenario(const std::string& gpu, const std::string& sharing, const std::string& work) {
  return fmt::format(
      "version: 1\nname: t\nduration: 0.5s\nfidelity: fluid\ngpus: [{{id: g0, model: {}}}]\nsharing: {{g0: {}}}\n"
      "tenants:\n  - {{name: a, on: g0, memory: 1GiB, workload: {}}}\n  - {{name: b, on: g0, memory: 1GiB, "
      "workload: {}}}\n",
      gpu, sharing, work, work);
}

const std::string kMeasured = "{measured: {gpu: RTX-3090, throughput: 100/s, gpu_util: 50%, mem_util: 10%}}";
const std::string kTraining = "{training: {step: {flops: 1TFLOP, bytes: 1GB}}}";

TrustBand band_of(const std::string& text, size_t tenant = 0) {
  return trust_band(load_scenario_text(text, "t.yaml", builtin_catalog()), tenant);
}

TEST(TrustTable, BuiltinParsesAndWritesBackTheSameText) {
  const std::vector<TrustClass>& t = builtin_trust_table();
  ASSERT_FALSE(t.empty());
  EXPECT_EQ(trust_table_csv(t), std::string(kBuiltinTrustText));
  for (const TrustClass& r : t) {
    EXPECT_GT(r.cases, 0u) << r.id;
    EXPECT_GE(r.p90, 0) << r.id;
  }
}

TEST(TrustTable, RefusesMalformedTables) {
  const std::string header =
      "class,situation,quantity,datasets,gpus,cases,mape,p90,best_baseline,best_baseline_mape,source\n";
  EXPECT_THROW(parse_trust_table("class,situation\n", "x.csv"), InputError);
  EXPECT_THROW(parse_trust_table(header + "nope,s,q,d,g,1,1,1,,,shipped\n", "x.csv"), InputError);
  EXPECT_THROW(parse_trust_table(header + "mps-pair,s,q,d,g,1,1\n", "x.csv"), InputError);
  EXPECT_THROW(parse_trust_table(header + "mps-pair,s,q,d,g,one,1,1,,,shipped\n", "x.csv"), InputError);
  EXPECT_THROW(parse_trust_table(header + "mps-pair,s,q,d,g,1,1,1,,,shipped\nmps-pair,s,q,d,g,1,1,1,,,shipped\n",
                                 "x.csv"),
               InputError);
  EXPECT_EQ(parse_trust_table(header + "mps-pair,s,q,d,g,3,1.5,2,half,4,shipped\n", "x.csv").at(0).cases, 3u);
}

TEST(TrustBand, SituationsMapToTheirClass) {
  // Two telemetry-described jobs time-sliced on the GPU the class's pairs ran on: exact; on another GPU: other-gpu.
  TrustBand b = band_of(pair_scenario("RTX-3090", "{mode: timeslice}", kMeasured));
  EXPECT_EQ(b.cls, "timeslice-pair");
  EXPECT_EQ(b.match, "exact");
  b = band_of(pair_scenario("A100-80GB", "{mode: timeslice}", kMeasured));
  EXPECT_EQ(b.cls, "timeslice-pair");
  EXPECT_EQ(b.match, "other-gpu");
  // Work given as FLOPs under MPS: the MPS pairs are the closest class.
  b = band_of(pair_scenario("V100", "{mode: mps}", kTraining));
  EXPECT_EQ(b.cls, "mps-pair");
  EXPECT_EQ(b.match, "closest");
  EXPECT_NE(trust_text(b).find("[mps-pair, closest]"), std::string::npos);
  // A limiter's pairs were never measured.
  b = band_of(pair_scenario("A100-80GB", "{mode: hami}", kTraining));
  EXPECT_EQ(b.cls, "");
  EXPECT_NE(trust_text(b).find("no validation covers this case"), std::string::npos);
  // Alone on a MIG slice, and alone on a whole GPU with a calibration.
  const std::string mig =
      "version: 1\nname: t\nduration: 0.5s\ngpus: [{id: g0, model: A100-80GB}]\nsharing: {g0: {mode: mig, "
      "partitions: [{id: a, profile: 3g.40gb}, {id: b, profile: 1g.10gb}]}}\ntenants:\n"
      "  - {name: x, on: g0/a, memory: 1GiB, workload: " + kMeasured + "}\n"
      "  - {name: y, on: g0/b, memory: 1GiB, workload: " + kMeasured + "}\n";
  b = band_of(mig, 1);
  EXPECT_EQ(b.cls, "mig-slice-telemetry");
  EXPECT_EQ(b.match, "exact");
  EXPECT_NE(b.situation.find("MIG 1g.10gb slice"), std::string::npos);
  const std::string alone =
      "version: 1\nname: t\nduration: 0.5s\ngpus: [{id: g0, model: H200}]\nsharing: {g0: {mode: passthrough}}\n"
      "tenants:\n  - {name: x, on: g0, memory: 1GiB, workload: " + kTraining + "}\n";
  b = band_of(alone);
  EXPECT_EQ(b.cls, "kernels-alone");
  EXPECT_EQ(b.match, "exact");
}

TEST(TrustBand, LossPointsFollowTheRelativePerformance) {
  TrustBand b = band_of(pair_scenario("RTX-3090", "{mode: timeslice}", kMeasured));
  set_loss_band(b, 0.5);
  EXPECT_DOUBLE_EQ(b.loss_mape, 0.5 * b.row.mape / 100);
  EXPECT_DOUBLE_EQ(b.loss_p90, 0.5 * b.row.p90 / 100);
  EXPECT_NE(trust_text(b).find("vGPU loss \u00b1"), std::string::npos);
  // An alone class's error is one of throughput and latency, not of the loss.
  const std::string alone =
      "version: 1\nname: t\nduration: 0.5s\ngpus: [{id: g0, model: H200}]\nsharing: {g0: {mode: passthrough}}\n"
      "tenants:\n  - {name: x, on: g0, memory: 1GiB, workload: " + kTraining + "}\n";
  b = band_of(alone);
  set_loss_band(b, 1.0);
  EXPECT_TRUE(std::isnan(b.loss_mape));
  EXPECT_EQ(trust_text(b).rfind("throughput and latency [kernels-alone, exact]", 0), 0u);
}

TEST(TrustTable, PoolsHeldOutCasesAndCarriesAbsentClasses) {
  ValidationRun run;
  run.dataset = "migperf";
  run.quantity = "throughput (samples/s)";
  auto add = [&](const std::string& split, double measured, double predicted, double rule) {
    ValidationCase c;
    c.gpu = "A100-80GB";
    c.split = split;
    c.measured = measured;
    c.predicted = predicted;
    c.baseline["proportional to SMs"] = rule;
    c.baseline["NeuSight"] = measured;  // a published model, not a naive baseline
    run.cases.push_back(c);
  };
  add("no fit", 100, 110, 150);  // 10%, rule 50%
  add("no fit", 100, 70, 120);   // 30%, rule 20%
  add("fitted on itself", 100, 100, 100);  // no class: not held out
  TrustClass carried;
  carried.id = "timeslice-pair";
  carried.cases = 7;
  carried.source = "not shipped";
  const std::vector<TrustClass> rows = trust_table({run}, {carried});
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].id, "timeslice-pair");
  EXPECT_EQ(rows[0].cases, 7u);
  EXPECT_EQ(rows[1].id, "mig-slice-telemetry");
  EXPECT_EQ(rows[1].cases, 2u);
  EXPECT_NEAR(rows[1].mape, 20, 1e-9);
  EXPECT_EQ(rows[1].best_baseline, "proportional to SMs");
  EXPECT_NEAR(rows[1].best_baseline_mape, 35, 1e-9);
  EXPECT_EQ(rows[1].source, "shipped");
}

TEST(TrustBand, EveryRunFormatCarriesIt) {
  const Results r = testing_support::run_text(pair_scenario("RTX-3090", "{mode: timeslice}", kMeasured));
  const auto j = nlohmann::json::parse(results_json(r));
  const auto& t = j.at("tenants").at(0).at("trust");
  EXPECT_EQ(t.at("class"), "timeslice-pair");
  EXPECT_EQ(t.at("match"), "exact");
  EXPECT_GT(t.at("cases").get<double>(), 0);
  EXPECT_TRUE(t.at("vgpu_loss_band").at("mape").is_number());
  EXPECT_NE(results_csv(r).find(",trust_mape,"), std::string::npos);
  EXPECT_NE(results_table(r).find("a: vGPU loss \u00b1"), std::string::npos);
}

}  // namespace
}  // namespace vgpusim::unit_trust
