// Calibration: fitting recovers known parameters from a raw file the simulator made with them plus noise; the
// co-run list and the re-simulation agree on each experiment; the checked-in raw file parses and validates; the
// calibration file round-trips; bad raw files are refused clearly.
#include <gtest/gtest.h>

#include "models/gpu/roofline.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "sim/io/hwcal_raw.hpp"
#include "sim/io/calibration_file.hpp"
#include "sim/io/gpu_catalog.hpp"
#include "sim/studies/calibration/corun_replay.hpp"
#include "sim/studies/calibration/paced_replay.hpp"
#include "sim/scenario/loader.hpp"
#include "sim/run/metrics.hpp"
#include "sim/run/runs.hpp"
#include "sim/studies/calibration/calibrate.hpp"
#include "sim/studies/calibration/fit.hpp"

namespace unit_calibration {

using namespace vgpusim;

namespace {
double fitted(const Calibration& c, const std::string& name) {
  for (const FittedValue& v : c.values)
    if (v.name == name) return v.value;
  ADD_FAILURE() << "not fitted: " << name;
  return 0;
}
}  // namespace

TEST(Calibration, FitRecoversKnownParametersWithin2Percent) {
  // Sanitizer builds fit one GPU (each fit re-simulates the co-runs hundreds of times).
  const std::vector<const char*> gpus =
      VGPUSIM_SANITIZE_BUILD ? std::vector<const char*>{"H200"} : std::vector<const char*>{"H200", "A100-80GB"};
  for (const char* gpu : gpus) {
    SyntheticTruth truth;
    const RawFile raw = parse_raw(synthetic_raw(gpu, truth, 0.003, 7), "synthetic.json");
    const Calibration c = fit_calibration(raw, gpu);
    EXPECT_NEAR(fitted(c, "roofline.compute_efficiency"), truth.compute_efficiency,
                0.02 * truth.compute_efficiency)
        << gpu;
    EXPECT_NEAR(fitted(c, "roofline.memory_efficiency"), truth.memory_efficiency, 0.02 * truth.memory_efficiency)
        << gpu;
    EXPECT_NEAR(fitted(c, "contention.bw_saturation_fraction"), truth.bw_saturation_fraction,
                0.02 * truth.bw_saturation_fraction)
        << gpu;
    EXPECT_NEAR(fitted(c, "contention.l2_interference"), truth.l2_interference, 0.02 * truth.l2_interference) << gpu;
    EXPECT_NEAR(fitted(c, "timeslice.slice"), truth.slice, 0.02 * truth.slice) << gpu;
    EXPECT_NEAR(fitted(c, "timeslice.switch_cost"), truth.switch_cost, 0.02 * truth.switch_cost) << gpu;
    EXPECT_NEAR(fitted(c, "timeslice.idle_grace"), truth.idle_grace, 1e-12) << gpu;
    EXPECT_NEAR(fitted(c, "timeslice.idle_switch_cost"), truth.idle_switch_cost, 0.02 * truth.idle_grace) << gpu;
    EXPECT_NEAR(fitted(c, "measured.busy_per_util"), truth.busy_per_util, 0.02 * truth.busy_per_util) << gpu;
  }
}

// telemetry.util_duty: NVML's utilization.gpu beside the kernels' known share of the run gives busy_per_util, the
// median ratio over the points seen 5-95% busy; null reads are left out with a warning; no points, no value.
TEST(Calibration, UtilDutyPointsFitBusyPerUtil) {
  nlohmann::json j = nlohmann::json::parse(synthetic_raw("H200", SyntheticTruth{}, 0.0, 1));
  for (auto& e : j["experiments"])
    if (e["name"] == "telemetry.util_duty") {
      auto& p = e["summary"]["points"];
      p = nlohmann::json::array();
      p.push_back({{"busy_share", 0.2}, {"nvml_gpu_util", 0.25}});    // 0.8
      p.push_back({{"busy_share", 0.45}, {"nvml_gpu_util", 0.5}});    // 0.9
      p.push_back({{"busy_share", 0.7}, {"nvml_gpu_util", 0.7}});     // 1.0
      p.push_back({{"busy_share", 0.9}, {"nvml_gpu_util", 1.0}});     // NVML saturated: says nothing
      p.push_back({{"busy_share", 0.01}, {"nvml_gpu_util", 0.02}});   // below 5%: says nothing
      p.push_back({{"busy_share", 0.5}, {"nvml_gpu_util", nullptr}});  // a failed read
    }
  const RawFile raw = parse_raw(j.dump(), "s.json");
  EXPECT_EQ(raw.util_duty.size(), 5u);
  ASSERT_EQ(raw.warnings.size(), 1u);
  EXPECT_NE(raw.warnings[0].find("nvml_gpu_util"), std::string::npos);
  const Calibration cal = fit_calibration(raw, "H200");
  EXPECT_NEAR(fitted(cal, "measured.busy_per_util"), 0.9, 1e-12);
  // The measured ratio stands alone: the shipped exponent's curve (fitted on another GPU's jobs) is set to 1.
  EXPECT_EQ(fitted(cal, "measured.busy_exponent"), 1.0);
  auto& ex = j["experiments"];
  ex.erase(std::remove_if(ex.begin(), ex.end(),
                          [](const nlohmann::json& e) { return e["name"] == "telemetry.util_duty"; }),
           ex.end());
  for (const FittedValue& v : fit_calibration(parse_raw(j.dump(), "old.json"), "H200").values) {
    EXPECT_NE(v.name, "measured.busy_per_util");
    EXPECT_NE(v.name, "measured.busy_exponent");
  }
}

TEST(Calibration, TheHandoffExperimentIsReadByNameAndLeavesTheProbeAlone) {
  // Both timeslice experiments have kind "timeslice": the handoff must not overwrite the probe's slice.
  const RawFile raw = parse_raw(synthetic_raw("H200", SyntheticTruth{}, 0.0, 1), "s.json");
  ASSERT_TRUE(raw.slice && raw.switch_cost && raw.handoff && raw.grace_crossing);
  EXPECT_NEAR(raw.slice->median, 2e-3, 1e-12);
  EXPECT_NEAR(raw.handoff->median, 85e-6, 1e-12);
  // An old raw file without it fits no idle values.
  nlohmann::json j = nlohmann::json::parse(synthetic_raw("H200", SyntheticTruth{}, 0.0, 1));
  auto& ex = j["experiments"];
  ex.erase(std::remove_if(ex.begin(), ex.end(), [](const nlohmann::json& e) { return e["name"] == "timeslice.handoff"; }),
           ex.end());
  const Calibration c = fit_calibration(parse_raw(j.dump(), "old.json"), "H200");
  for (const FittedValue& v : c.values) EXPECT_EQ(v.name.find("idle"), std::string::npos) << v.name;
  // A sweep that did not bracket a crossing (hwcal writes null) fits neither idle value, and says why.
  nlohmann::json unbracketed = nlohmann::json::parse(synthetic_raw("H200", SyntheticTruth{}, 0.0, 1));
  for (auto& e : unbracketed["experiments"])
    if (e["name"] == "timeslice.handoff") e["summary"]["grace_crossing_s"] = nullptr;
  const RawFile u = parse_raw(unbracketed.dump(), "u.json");
  EXPECT_FALSE(u.handoff || u.grace_crossing);
  EXPECT_TRUE(u.warnings.empty());
  ASSERT_FALSE(u.not_measured.empty());
  EXPECT_NE(u.not_measured.back().find("timeslice.handoff: no grace crossing"), std::string::npos);
  for (const FittedValue& v : fit_calibration(u, "H200").values) EXPECT_EQ(v.name.find("idle"), std::string::npos);
}


TEST(Calibration, AnotherTruthIsRecoveredToo) {
  SyntheticTruth truth;
  truth.compute_efficiency = 0.6;
  truth.memory_efficiency = 0.93;
  truth.bw_saturation_fraction = 0.7;
  truth.l2_interference = 0.1;
  truth.slice = 1e-3;
  truth.switch_cost = 80e-6;
  // A small l2_interference is pinned down to 2% only with low noise: slowdowns move by about half the coefficient.
  const Calibration c = fit_calibration(parse_raw(synthetic_raw("H100-SXM", truth, 0.001, 3), "s.json"), "H100-SXM");
  EXPECT_NEAR(fitted(c, "roofline.compute_efficiency"), 0.6, 0.012);
  EXPECT_NEAR(fitted(c, "roofline.memory_efficiency"), 0.93, 0.0186);
  EXPECT_NEAR(fitted(c, "contention.bw_saturation_fraction"), 0.7, 0.014);
  EXPECT_NEAR(fitted(c, "contention.l2_interference"), 0.1, 0.002);
  EXPECT_NEAR(fitted(c, "timeslice.slice"), 1e-3, 2e-5);
  EXPECT_NEAR(fitted(c, "timeslice.switch_cost"), 80e-6, 1.6e-6);
}

TEST(Calibration, EveryCorunExperimentMapsOntoAModel) {
  const RawFile raw = parse_raw(synthetic_raw("H200", SyntheticTruth{}, 0.0, 1), "s.json");
  ASSERT_EQ(raw.coruns.size(), 7u * 6u);  // 7 forms and partitions x 6 pairs, as hwcal runs them
  const GpuSpec& h200 = builtin_catalog().find("H200")->spec;
  for (const CorunExperiment& e : raw.coruns) {
    const CorunPrediction p = predict_corun(e, h200, {});
    EXPECT_EQ(p.model, e.form == "processes" ? "timeslice" : "mps") << e.name;
    EXPECT_GE(p.slowdown_a, 1.0 - 1e-9) << e.name;  // sharing never speeds a kernel up
    EXPECT_GE(p.slowdown_b, 1.0 - 1e-9) << e.name;
  }
  CorunExperiment unknown = raw.coruns.front();
  unknown.form = "telepathy";
  EXPECT_THROW(predict_corun(unknown, h200, {}), std::invalid_argument);
}

TEST(Calibration, TwoComputeProcessesTimeSliceToTwiceTheTime) {
  const RawFile raw = parse_raw(synthetic_raw("H200", SyntheticTruth{}, 0.0, 1), "s.json");
  for (const CorunExperiment& e : raw.coruns)
    if (e.name == "corun.processes.compute+compute") {
      const CorunPrediction p = predict_corun(e, builtin_catalog().find("H200")->spec,
                                              {{"timeslice.slice", 2e-3}, {"timeslice.switch_cost", 0}});
      EXPECT_NEAR(p.slowdown_a, 2.0, 0.05);
      return;
    }
  FAIL() << "no processes compute+compute co-run";
}

TEST(Calibration, PacedExperimentIsReadWithItsPointsAndBadPointsLeftOut) {
  nlohmann::json j = nlohmann::json::parse(synthetic_raw("H200", SyntheticTruth{}, 0.0, 1));
  const auto stat = [](double median) { return nlohmann::json{{"n", 2}, {"median", median}}; };
  nlohmann::json points = nlohmann::json::array();
  points.push_back({{"host_gap_s", 40e-6}, {"sync_every", 1}, {"launches", 2500}, {"speed", stat(0.2)},
                    {"gpu_share_alone", stat(0.33)}});
  points.push_back({{"host_gap_s", 40e-6}, {"sync_every", 0}, {"launches", 2500}, {"speed", nullptr},
                    {"gpu_share_alone", stat(0.33)}});
  points.push_back({{"host_gap_s", 40e-6}, {"sync_every", 0}, {"launches", 2500}, {"speed", stat(0.9)},
                    {"gpu_share_alone", stat(-1.0)}});  // a utilization below 0 would make the rule infinite
  j["experiments"].push_back({{"name", "timeslice.paced"},
                              {"kind", "timeslice"},
                              {"params", {{"light_kernel_s", 20e-6}, {"busy_kernel_s", 0.5e-3},
                                          {"busy_lead_s", 0.02}, {"busy_launches", 1000}}},
                              {"summary", {{"points", points}}}});
  const RawFile raw = parse_raw(j.dump(), "p.json");
  ASSERT_TRUE(raw.paced);
  ASSERT_EQ(raw.paced->points.size(), 1u);  // the points without a speed or a utilization are left out, with warnings
  EXPECT_EQ(raw.paced->points[0].sync_every, 1);
  EXPECT_EQ(raw.paced->points[0].launches, 2500);
  EXPECT_DOUBLE_EQ(raw.paced->points[0].speed, 0.2);
  EXPECT_DOUBLE_EQ(raw.paced->busy_kernel_s, 0.5e-3);
  EXPECT_FALSE(raw.warnings.empty());
  ASSERT_TRUE(raw.slice);  // the probe's slice is not touched by another timeslice experiment
  // A busy run of hours (a damaged file) would take the re-simulation as long: left out.
  j["experiments"].back()["params"]["busy_kernel_s"] = 0.9;
  EXPECT_FALSE(parse_raw(j.dump(), "p.json").paced);
  EXPECT_NEAR(raw.slice->median, 2e-3, 1e-12);
}

TEST(Calibration, PacedLightProcessWaitsASliceAtEverySyncAndKeepsUpWithoutThem) {
  // Light: 20 us kernels, a 40 us host gap after each; busy: 0.5 ms kernels queued throughout. Slice q = 1 ms,
  // preemption s = 50 us, a switch away from a context without work free, no grace.
  PacedExperiment x;
  x.light_kernel_s = 20e-6;
  x.busy_kernel_s = 0.5e-3;
  x.busy_lead_s = 0.02;
  x.busy_launches = 2000;
  const ParamOverrides params{{"timeslice.slice", 1e-3}, {"timeslice.switch_cost", 50e-6},
                              {"timeslice.idle_switch_cost", 0.0}, {"timeslice.idle_grace", 0.0}};
  const GpuSpec& h200 = builtin_catalog().find("H200")->spec;
  // Waiting after every launch: each kernel arrives in a fresh busy slice and waits for its end, then the switch:
  // a period of q + s + k instead of k + g alone.
  PacedPoint every{40e-6, 1, 100, 0, 0};
  const PacedPrediction p = predict_paced(x, every, h200, params);
  EXPECT_NEAR(p.speed, (20e-6 + 40e-6) / (1e-3 + 50e-6 + 20e-6), 0.02 * p.speed);
  EXPECT_NEAR(p.gpu_share_alone, 100 * 20e-6 / (100 * 60e-6 - 40e-6), 1e-9);
  // Waiting only at the end: the host runs ahead and the queued kernels run in the light process's turns; it needs
  // a third of the GPU and gets it, losing at most about a slice at the end of its 60 ms.
  PacedPoint once{40e-6, 0, 1000, 0, 0};
  const PacedPrediction q = predict_paced(x, once, h200, params);
  EXPECT_GT(q.speed, 0.95);
  EXPECT_LT(q.speed, 1.0 + 1e-9);
}

TEST(Calibration, CheckedInRawFileParsesAndValidates) {
  const std::string path = std::string(VGPUSIM_SOURCE_DIR) + "/hwcal/data/synthetic/h200-synthetic-raw.json";
  const RawFile raw = read_raw_file(path);
  EXPECT_EQ(raw.device.sm_count, 132);
  EXPECT_EQ(raw.coruns.size(), 42u);
  const Calibration c = fit_calibration(raw, raw_catalog_gpu(raw, "H200"));
  // six, the two idle time-slice values from timeslice.handoff, and fp32_efficiency (a GEMM and an FP32 FMA
  // measured); no overlap: the synthetic file records no whole-GPU solo times.
  EXPECT_EQ(c.values.size(), 9u);
  // Validation on the experiments the fit did not use: the synthetic noise is 0.3%.
  const GpuSpec& h200 = builtin_catalog().find("H200")->spec;
  double worst = 0;
  for (const CorunExperiment& e : raw.coruns) {
    if (e.form == "green_ctx") continue;
    const CorunPrediction p = predict_corun(e, h200, c.overrides());
    worst = std::max({worst, std::fabs(p.slowdown_a / e.slowdown_a - 1), std::fabs(p.slowdown_b / e.slowdown_b - 1)});
  }
  EXPECT_LT(worst, 0.02);
}

TEST(Calibration, Fp32EfficiencyAndOverlapComeFromTheFmaAndTheMixedKernelsSoloTime) {
  const GpuSpec& h200 = builtin_catalog().find("H200")->spec;
  RawFile raw;
  raw.gemm_flops_per_s = RawStats{0.8 * h200.fp16_tensor, 0, 0, 10};
  raw.fp32_flops_per_s = RawStats{0.95 * h200.fp32, 0, 0, 10};
  raw.copy_bytes_per_s = RawStats{0.9 * h200.memory_bandwidth, 0, 0, 10};
  CorunExperiment e;
  e.a = {"mixed", 2e12, 1.5e11, 32768, 100};
  e.b = {"memory", 0, 1.5e11, 65536, 100};
  // Its sides at the efficiencies above, 40% of the shorter one not hidden.
  const double compute = 2e12 / (0.95 * h200.fp32), memory = 1.5e11 / (0.9 * h200.memory_bandwidth);
  const double launch = RooflineParams::table().defaults().launch_overhead;
  e.solo_full_a = 100 * launch + std::max(compute, memory) + 0.4 * std::min(compute, memory);
  e.solo_full_b = 1;  // not a mixed kernel: not used
  raw.coruns = {e, e};  // the same solo run repeated in two experiments counts once
  const std::vector<FittedValue> v = fit_direct(raw, h200);
  auto value = [&](const std::string& name) -> const FittedValue& {
    for (const FittedValue& f : v)
      if (f.name == name) return f;
    throw std::runtime_error("not fitted: " + name);
  };
  EXPECT_NEAR(value("roofline.compute_efficiency").value, 0.8, 1e-12);
  EXPECT_NEAR(value("roofline.fp32_efficiency").value, 0.95, 1e-12);
  EXPECT_NEAR(value("roofline.overlap").value, 0.6, 1e-9);
  EXPECT_EQ(value("roofline.overlap").points, 1);
  // The roofline with these values gives the solo time back.
  RooflineParams p = RooflineParams::table().defaults();
  p.fp32_efficiency = 0.95;
  p.memory_efficiency = 0.9;
  p.overlap = 0.6;
  KernelSpec k;
  k.flops_fp32 = 2e12;
  k.bytes = 1.5e11;
  k.kernels = 100;
  EXPECT_NEAR(solo_time(k, h200, p), e.solo_full_a, 1e-12);
}

TEST(Calibration, FileRoundTrips) {
  const Calibration c = fit_calibration(parse_raw(synthetic_raw("H200", SyntheticTruth{}, 0.003, 9), "s.json"), "H200");
  const std::string path = testing::TempDir() + "/cal.yaml";
  {
    std::ofstream out(path);
    out << calibration_yaml(c);
  }
  const Calibration back = read_calibration_file(path);
  EXPECT_EQ(back.gpu, "H200");
  ASSERT_EQ(back.values.size(), c.values.size());
  for (const FittedValue& v : c.values) EXPECT_NEAR(fitted(back, v.name), v.value, 1e-8 * std::fabs(v.value)) << v.name;
  std::remove(path.c_str());
}

TEST(Calibration, BadRawFilesAreRefusedClearly) {
  EXPECT_THROW(parse_raw("{", "r.json"), RawFormatError);
  try {
    parse_raw(R"({"schema": "something/2"})", "r.json");
    FAIL();
  } catch (const RawFormatError& e) {
    EXPECT_STREQ(e.what(), "r.json: expected schema vgpusim.hwcal.raw/1, found '\"something/2\"'");
  }
  EXPECT_THROW(read_raw_file("/nonexistent/raw.json"), RawFormatError);
}

// A pair hwcal cut by its time budget before the first repeat (older hwcal) has null slowdowns: the reader leaves
// that experiment out with a warning and keeps the rest of the file.
TEST(Calibration, NullSlowdownIsLeftOutWithAWarning) {
  const std::string kernel = R"({"kind": "compute", "kernel": "fma_chain", "launches": 20, "blocks_per_launch": 4224,
                                  "threads_per_block": 256, "flops": 1e12, "bytes": 0})";
  const auto corun = [&](const std::string& name, const std::string& slowdown_a, const std::string& slowdown_b) {
    return R"({"name": ")" + name + R"(", "kind": "corun", "truncated": true, "error": null, "skipped": null,
               "params": {"form": "streams", "partition_label": "", "partition": {"a_sms": 132, "b_sms": 132,
                          "a_active_thread_percentage": null, "b_active_thread_percentage": null},
                          "kernel_a": )" + kernel + R"(, "kernel_b": )" + kernel + R"(},
               "repeats": [],
               "summary": {"solo_a_s": null, "slowdown_a": )" + slowdown_a + R"(, "slowdown_b": )" + slowdown_b +
           R"(, "slowdown_host_a": null}})";
  };
  const std::string text = R"({"schema": "vgpusim.hwcal.raw/1",
    "environment": {"device": {"name": "NVIDIA H200", "sm_count": 132, "total_memory_bytes": null}},
    "experiments": [)" + corun("corun.streams.compute+compute", "1.93", "2.05") + ", " +
                           corun("corun.streams.compute+memory", "null", "null") + "]}";
  const std::string path = testing::TempDir() + "/null-slowdown-raw.json";
  {
    std::ofstream out(path);
    out << text;
  }
  const RawFile raw = read_raw_file(path);
  ASSERT_EQ(raw.coruns.size(), 1u);
  EXPECT_EQ(raw.coruns[0].name, "corun.streams.compute+compute");
  EXPECT_DOUBLE_EQ(raw.coruns[0].slowdown_a, 1.93);
  EXPECT_EQ(raw.coruns[0].a.launches, 20);
  ASSERT_EQ(raw.warnings.size(), 2u);  // slowdown_a and slowdown_b
  EXPECT_NE(raw.warnings[0].find("experiment corun.streams.compute+memory.summary: expected a number at "
                                 "'slowdown_a', found null: experiment left out"),
            std::string::npos)
      << raw.warnings[0];
  EXPECT_NE(raw.warnings[1].find("'slowdown_b'"), std::string::npos) << raw.warnings[1];
  EXPECT_EQ(raw.device.memory, 0);
  std::remove(path.c_str());
}

// Counts no int holds (launches 1e12, a statistic's n of 1e30) leave their experiment or value out instead of an
// undefined conversion.
TEST(Calibration, OutOfRangeCountsAreLeftOut) {
  const std::string text = R"({"schema": "vgpusim.hwcal.raw/1",
    "environment": {"device": {"name": "NVIDIA H200", "sm_count": 132}},
    "experiments": [
      {"name": "bandwidth.copy", "kind": "bandwidth", "summary": {"bytes_per_s": {"median": 4e12, "n": 1e30}}},
      {"name": "corun.streams.compute+compute", "kind": "corun",
       "params": {"form": "streams", "partition_label": "", "partition": {},
                  "kernel_a": {"kind": "compute", "launches": 1e12, "blocks_per_launch": 4224, "flops": 1e12},
                  "kernel_b": {"kind": "compute", "launches": 20, "blocks_per_launch": 4224, "flops": 1e12}},
       "summary": {"slowdown_a": 2, "slowdown_b": 2}}]})";
  const RawFile raw = parse_raw(text, "r.json");
  EXPECT_FALSE(raw.copy_bytes_per_s.has_value());
  EXPECT_TRUE(raw.coruns.empty());
  ASSERT_EQ(raw.warnings.size(), 2u);
  EXPECT_NE(raw.warnings[0].find("bandwidth.copy: statistics out of range (median 4e+12, n 1e+30): left out"),
            std::string::npos)
      << raw.warnings[0];
  EXPECT_NE(raw.warnings[1].find("launches 1e+12, blocks_per_launch 4224, flops 1e+12 or bytes 0 out of range"),
            std::string::npos)
      << raw.warnings[1];
  // Wrong JSON types and numbers no double holds are bad input, not internal errors.
  for (const char* bad : {"[1, 2]", R"({"schema": 5})", R"({"schema": "vgpusim.hwcal.raw/1", "x": 1e400})"})
    EXPECT_THROW(parse_raw(bad, "r.json"), RawFormatError) << bad;
}

TEST(Calibration, UnknownCorunFormsAndPartitionsAreLeftOutAndHugeFilesRefused) {
  auto corun = [](const std::string& form, const std::string& partition) {
    return R"({"name": "corun.x", "kind": "corun", "params": {"form": ")" + form + R"(", "partition_label": "", )" +
           R"("partition": )" + partition + R"(, "kernel_a": {"kind": "compute", "launches": 20, "blocks_per_launch": )" +
           R"(4224, "flops": 1e12}, "kernel_b": {"kind": "compute", "launches": 20, "blocks_per_launch": 4224, )" +
           R"("flops": 1e12}}, "summary": {"slowdown_a": 2, "slowdown_b": 2}})";
  };
  const std::string head = R"({"schema": "vgpusim.hwcal.raw/1", "environment": {"device": {"name": "NVIDIA H200", )"
                           R"("sm_count": 132}}, "experiments": [)";
  // An empty form once reached the co-run replay as an internal error; MPS caps above 100% or green contexts of
  // no SMs are no partition either.
  const RawFile raw = parse_raw(head + corun("", "{}") + ", " +
                                    corun("mps", R"({"a_active_thread_percentage": 250})") + ", " +
                                    corun("green_ctx", R"({"a_sms": 0, "b_sms": 8})") + "]}",
                                "r.json");
  EXPECT_TRUE(raw.coruns.empty());
  ASSERT_EQ(raw.warnings.size(), 3u);
  EXPECT_NE(raw.warnings[0].find("unknown co-run form '': left out"), std::string::npos) << raw.warnings[0];
  EXPECT_NE(raw.warnings[1].find("partition out of range (active threads 250%"), std::string::npos) << raw.warnings[1];
  EXPECT_NE(raw.warnings[2].find("SMs 0 and 8): left out"), std::string::npos) << raw.warnings[2];
  // Thousands of copies of one experiment would keep `fit` busy for hours.
  std::string many = head;
  for (size_t i = 0; i <= kMaxRawExperiments; ++i) many += (i ? ", " : "") + corun("streams", "{}");
  try {
    parse_raw(many + "]}", "r.json");
    FAIL();
  } catch (const RawFormatError& e) {
    EXPECT_NE(std::string(e.what()).find("2001 experiments; a hwcal raw file holds at most 2000"), std::string::npos);
  }
}

TEST(Calibration, ScenariosUseACalibrationFileAndTheirOwnValuesWin) {
  const std::string dir = testing::TempDir();
  {
    std::ofstream cal(dir + "/h100.yaml");
    cal << "version: 1\ngpu: H100-SXM\nparameters:\n  timeslice.slice: {value: 3ms}\n"
           "  timeslice.switch_cost: {value: 11us}\n  roofline.compute_efficiency: {value: 0.5}\n";
  }
  const std::string gpu_line = "gpus: [{id: g0, model: H100-SXM, calibration: h100.yaml}]\n";
  const std::string rest =
      "tenants:\n  - {name: a, on: g0, workload: {training: {iterations: 1, step: {flops: 1TFLOP}}}}\n";
  auto load = [&](const std::string& sharing, const std::string& gpus) {
    const std::string path = dir + "/s.yaml";
    std::ofstream(path) << "version: 1\nname: c\n" << gpus << sharing << rest;
    return load_scenario_file(path, builtin_catalog());
  };
  const Scenario sc = load("sharing: {g0: {mode: timeslice}}\n", gpu_line);
  EXPECT_DOUBLE_EQ(sc.targets[0].sharing.params.get("slice"), 3e-3);
  EXPECT_DOUBLE_EQ(sc.targets[0].sharing.params.get("switch_cost"), 11e-6);
  EXPECT_DOUBLE_EQ(sc.gpus[0].performance.compute_efficiency, 0.5);
  const Scenario own = load("sharing: {g0: {mode: timeslice, slice: 1ms}}\n", gpu_line);
  EXPECT_DOUBLE_EQ(own.targets[0].sharing.params.get("slice"), 1e-3);
  EXPECT_DOUBLE_EQ(own.targets[0].sharing.params.get("switch_cost"), 11e-6);
  // The calibrated timeslice.slice is the timeslice mode's: vgpu keeps its own slice (the type's default).
  const Scenario vgpu = load("sharing: {g0: {mode: vgpu, profile: H100-10C}}\n", gpu_line);
  EXPECT_DOUBLE_EQ(vgpu.targets[0].sharing.params.get("slice"), 0.0);
  EXPECT_DOUBLE_EQ(vgpu.targets[0].sharing.params.get("switch_cost"), 40e-6);
  try {
    load("", "gpus: [{id: g0, model: A100-80GB, calibration: h100.yaml}]\n");
    FAIL() << "a calibration of another GPU was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("is a calibration of H100-SXM, but this GPU is A100-80GB"), std::string::npos)
        << e.what();
  }
}

// A vGPU scheduler given as the driver's RmPVMRL register runs with a calibration that holds a fitted
// `timeslice.slice`: the slice belongs to process time-slicing, not to vgpu (it used to override vgpu's slice too
// and the scenario was refused: "give the scheduler either as rmpvmrl or as scheduler/slice/frequency").
TEST(Calibration, AVgpuScenarioWithRmpvmrlRunsWithAFittedTimesliceSlice) {
  const std::string dir = testing::TempDir();
  const Calibration fitted_h100 =
      fit_calibration(parse_raw(synthetic_raw("H100-SXM", SyntheticTruth{}, 0.003, 5), "s.json"), "H100-SXM");
  ASSERT_GT(fitted(fitted_h100, "timeslice.slice"), 0.0);
  std::ofstream(dir + "/h100-fitted.yaml") << calibration_yaml(fitted_h100);
  const std::string path = dir + "/vgpu.yaml";
  std::ofstream(path) << "version: 1\nname: vgpu with a calibration\nduration: 1s\n"
                         "gpus: [{id: g0, model: H100-SXM, calibration: h100-fitted.yaml}]\n"
                         "sharing: {g0: {mode: vgpu, profile: H100-40C, rmpvmrl: 0x00180011}}\n"
                         "tenants:\n  - {name: a, on: g0, workload: {training: {step: {flops: 1TFLOP}}}}\n"
                         "  - {name: b, on: g0, workload: {training: {step: {flops: 1TFLOP}}}}\n";
  const Scenario sc = load_scenario_file(path, builtin_catalog());
  EXPECT_DOUBLE_EQ(sc.targets[0].sharing.params.get("rmpvmrl"), 0x00180011);
  EXPECT_DOUBLE_EQ(sc.targets[0].sharing.params.get("slice"), 0.0);  // set by the register, not the calibration
  const Results r = run_scenario(sc);
  ASSERT_EQ(r.tenants.size(), 2u);
  EXPECT_GT(r.tenants[0].shared.units, 0);
  EXPECT_GT(r.tenants[1].shared.units, 0);
}

TEST(Calibration, BareParameterNamesAreRefusedWithTheirQualifiedNames) {
  const std::string path = testing::TempDir() + "/old.yaml";
  std::ofstream(path) << "version: 1\ngpu: H200\nparameters:\n  slice: {value: 2ms}\n";
  try {
    read_calibration_file(path);
    FAIL() << "a bare parameter name was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              path + ":4:3: parameters.slice: parameters are named model.parameter: did you mean 'timeslice.slice' or "
                     "'vgpu.slice' or 'sriov.slice'?");
  }
  std::ofstream(path) << "version: 1\ngpu: H200\nparameters:\n  timeslice.slcie: {value: 2ms}\n";
  try {
    read_calibration_file(path);
    FAIL() << "a misspelt parameter was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("did you mean 'timeslice.slice'?"), std::string::npos) << e.what();
  }
}

}  // namespace unit_calibration
