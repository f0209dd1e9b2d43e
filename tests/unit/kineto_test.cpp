// Trace replay: the Kineto importer on a hand-made trace and on the four real traces in scenarios/traces/kineto,
// bare-metal replay against the recording (busy time, span), exact against fluid, and the loader's error messages.
#include <gtest/gtest.h>

#include "models/gpu/device_names.hpp"
#include <zlib.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "sim/io/kineto_reader.hpp"
#include "sim/io/gpu_catalog.hpp"
#include "sim/scenario/loader.hpp"
#include "sim/run/simulation.hpp"
#include "tests/unit/real_traces.hpp"

namespace unit_kineto {

using namespace vgpusim;
namespace fs = std::filesystem;

namespace {

// Stream 7: an FP32 GEMM [0, 100) us on 216 blocks, then an elementwise kernel [150, 200) us. Stream 20: a copy
// [50, 150) us that overlaps the GEMM for 50 us. Device 1 has one kernel; a CPU op must be ignored.
const char* kSmallTrace = R"json({
  "schemaVersion": 1,
  "deviceProperties": [{"id": 0, "name": "NVIDIA A100-SXM4-40GB", "totalGlobalMem": 42505273344, "numSms": 108}],
  "traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 900, "dur": 20},
    {"ph": "X", "cat": "kernel", "name": "ampere_sgemm_128x64_nn", "pid": 0, "tid": 7, "ts": 1000, "dur": 100,
     "args": {"device": 0, "stream": 7, "grid": [108, 2, 1], "block": [256, 1, 1], "registers per thread": 126,
              "shared memory": 32768, "est. achieved occupancy %": 12}},
    {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pinned -> Device)", "pid": 0, "tid": 20, "ts": 1050,
     "dur": 100, "args": {"device": 0, "stream": 20, "bytes": 1048576}},
    {"ph": "X", "cat": "kernel", "name": "void at::native::vectorized_elementwise_kernel<4>", "pid": 0, "tid": 7,
     "ts": 1150, "dur": 50, "args": {"device": 0, "stream": 7, "grid": [1024, 1, 1], "block": [128, 1, 1]}},
    {"ph": "X", "cat": "kernel", "name": "other_device_kernel", "pid": 1, "tid": 7, "ts": 1000, "dur": 10,
     "args": {"device": 1, "stream": 7, "grid": [1, 1, 1], "block": [32, 1, 1]}}
  ]
})json";

// A file in the test's temporary directory, named after the test (ctest runs tests in parallel).
fs::path temp_file(const std::string& name, const std::string& text, bool gzip) {
  const fs::path p = fs::path(testing::TempDir()) /
                     (std::string(testing::UnitTest::GetInstance()->current_test_info()->name()) + "-" + name);
  if (gzip) {
    gzFile f = gzopen(p.string().c_str(), "wb");
    gzwrite(f, text.data(), static_cast<unsigned>(text.size()));
    gzclose(f);
  } else {
    std::ofstream(p) << text;
  }
  return p;
}

std::string scenario(const std::string& gpu, const std::string& trace, const std::string& fidelity = "exact",
                     const std::string& sharing = "{mode: passthrough, overhead: 0%}", int tenants = 1) {
  std::string s = "version: 1\nname: replay\nfidelity: " + fidelity + "\ngpus: [{id: g0, model: " + gpu +
                  "}]\nsharing: {g0: " + sharing + "}\ntenants:\n";
  for (int t = 0; t < tenants; ++t)
    s += "  - name: t" + std::to_string(t) + "\n    on: g0\n    workload:\n      trace: " + trace + "\n";
  return s;
}

Scenario load(const std::string& text) { return load_scenario_text(text, "s.yaml", builtin_catalog()); }

std::string error_of(const std::string& text) {
  try {
    load(text);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

double replay_span(const RunRecord& r) { return r.tenants[0].finish - r.tenants[0].start; }

}  // namespace

TEST(KinetoImport, ReadsGpuOpsOfTheBusiestDevice) {
  for (bool gzip : {false, true}) {
    const KinetoTrace t = read_kineto_trace(temp_file(gzip ? "small.json.gz" : "small.json", kSmallTrace, gzip).string());
    EXPECT_EQ(t.device, 0);
    EXPECT_EQ(t.kernels, 2u);
    EXPECT_EQ(t.memcpys, 1u);
    EXPECT_EQ(t.kernels_per_device.at(1), 1u);
    ASSERT_EQ(t.ops.size(), 3u);
    EXPECT_DOUBLE_EQ(t.ops[0].start, 0);
    EXPECT_DOUBLE_EQ(t.ops[0].duration, 100e-6);
    EXPECT_DOUBLE_EQ(t.ops[0].blocks(), 216);
    EXPECT_DOUBLE_EQ(t.ops[0].occupancy, 0.12);
    EXPECT_EQ(t.ops[1].stream, 20);
    EXPECT_DOUBLE_EQ(t.ops[1].bytes, 1048576);
    ASSERT_NE(t.device_properties(), nullptr);
    EXPECT_EQ(catalog_name_for_device(t.device_properties()->name, t.device_properties()->total_memory, builtin_catalog().names()), "A100-40GB");
    EXPECT_NEAR(busy_time(t.ops), 200e-6, 1e-12);
    // The GEMM and the copy shared [50, 100) us: each keeps half of it as solo time.
    const std::vector<double> solo = solo_durations(t.ops);
    EXPECT_NEAR(solo[0], 75e-6, 1e-12);
    EXPECT_NEAR(solo[1], 75e-6, 1e-12);
    EXPECT_NEAR(solo[2], 50e-6, 1e-12);
  }
  EXPECT_EQ(read_kineto_trace(temp_file("small.json", kSmallTrace, false).string(), 1).ops.size(), 1u);
}

TEST(KinetoImport, BoundFromKernelNames) {
  const auto bound = [](const std::string& name) {
    KinetoOp op;
    op.name = name;
    return op_bound(op);
  };
  EXPECT_EQ(bound("ampere_sgemm_32x32_sliced1x4_tn"), KernelBound::FP32);
  EXPECT_EQ(bound("void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_16x6_nn_align4>"), KernelBound::FP16);
  EXPECT_EQ(bound("sm80_xmma_fprop_implicit_gemm_indexed_tf32f32_tf32f32_f32_nhwckrsc_nchw"), KernelBound::FP16);
  EXPECT_EQ(bound("volta_h884gemm_64x64_ldg8_nn"), KernelBound::FP16);
  EXPECT_EQ(bound("void at::native::vectorized_elementwise_kernel<4>"), KernelBound::Memory);
  EXPECT_EQ(bound("void at::native::convert_kernel"), KernelBound::Memory);
  KinetoOp copy;
  copy.kind = KinetoOp::Kind::Memcpy;
  copy.name = "gemm-looking copy";
  EXPECT_EQ(op_bound(copy), KernelBound::Memory);
  KinetoDevice v100{0, "Tesla V100-SXM2-32GB", 34079637504, 80}, a100{0, "NVIDIA A100-SXM4-80GB", 85e9, 108};
  EXPECT_EQ(catalog_name_for_device(v100.name, v100.total_memory, builtin_catalog().names()), "V100");
  EXPECT_EQ(catalog_name_for_device(a100.name, a100.total_memory, builtin_catalog().names()), "A100-80GB");
  EXPECT_EQ(catalog_name_for_device("NVIDIA H100 PCIe", 80e9, builtin_catalog().names()), "H100-PCIe");
}

TEST(KinetoReplay, SmallTraceReplaysExactlyWithIterationsAndWindow) {
  const std::string path = temp_file("small.json.gz", kSmallTrace, true).string();
  for (const char* fidelity : {"exact", "fluid"}) {
    const RunRecord one = simulate(load(scenario("A100-40GB", "{path: " + path + "}", fidelity)));
    EXPECT_NEAR(replay_span(one), 200e-6, 1e-12) << fidelity;
    EXPECT_NEAR(one.gpus[0].busy_time, 200e-6, 1e-12) << fidelity;
    const RunRecord three = simulate(load(scenario("A100-40GB", "{path: " + path + ", iterations: 3}", fidelity)));
    EXPECT_EQ(three.tenants[0].units, 3);
    EXPECT_NEAR(replay_span(three), 600e-6, 1e-12) << fidelity;
  }
  // From 100 us on only the elementwise kernel starts: 50 us after the window opens, for 50 us.
  const RunRecord window = simulate(load(scenario("A100-40GB", "{path: " + path + ", window: {from: 100us}}")));
  EXPECT_NEAR(replay_span(window), 100e-6, 1e-12);
  EXPECT_NEAR(window.gpus[0].busy_time, 50e-6, 1e-12);
  // On an H100 the FP32 GEMM's 216 blocks fill 216/132 > 1 SMs: it scales with FP32 rate, the rest with bandwidth.
  const RunRecord h100 = simulate(load(scenario("H100-SXM", "{path: " + path + "}")));
  EXPECT_LT(replay_span(h100), 200e-6);
}

TEST(KinetoReplay, LoaderErrorsNameTheTraceKey) {
  const std::string missing = (fs::path(testing::TempDir()) / "missing.json.gz").string();
  EXPECT_EQ(error_of(scenario("A100-40GB", "{path: " + missing + "}")),
            "s.yaml:10:21: tenants[0].workload.trace.path: no trace file '" + missing + "'");
  const std::string bad = temp_file("bad.json", "{\"traceEvents\": [ {\"cat\": kernel} ]}", false).string();
  EXPECT_EQ(error_of(scenario("A100-40GB", "{path: " + bad + "}")),
            "s.yaml:10:21: tenants[0].workload.trace.path: trace '" + bad +
                "' is not valid JSON: parse error at line 1, column 27: syntax error while parsing value - invalid "
                "literal; last read: '\"cat\": k'");
  const std::string small = temp_file("small.json", kSmallTrace, false).string();
  EXPECT_EQ(error_of(scenario("A100-40GB", "{path: " + small + ", source: A100-40G}")),
            "s.yaml:10:" + std::to_string(31 + small.size()) +
                ": tenants[0].workload.trace.source: unknown GPU model 'A100-40G'; did you mean 'A100-40GB'? (see "
                "`vgpusim list gpus`)");
  std::string anonymous = kSmallTrace;
  anonymous.replace(anonymous.find("NVIDIA A100-SXM4-40GB"), 21, "Some Future GPU");
  const std::string unnamed = temp_file("unnamed.json", anonymous, false).string();
  const std::string e = error_of(scenario("A100-40GB", "{path: " + unnamed + "}"));
  EXPECT_EQ(e.rfind("s.yaml:10:14: tenants[0].workload.trace: cannot tell which catalog GPU recorded '" + unnamed +
                        "' (deviceProperties names 'Some Future GPU'); give `source`, one of: ",
                    0),
            0u)
      << e;
  EXPECT_NE(e.find("A100-40GB, A100-80GB, H100-SXM"), std::string::npos) << e;
  EXPECT_EQ(error_of(scenario("A100-40GB", "{path: " + small + ", device: 5}")),
            "s.yaml:10:21: tenants[0].workload.trace.path: trace '" + small +
                "' has no GPU ops on device 5; it has devices 0 (2 kernels), 1 (1 kernels)");
  EXPECT_EQ(error_of(scenario("A100-40GB", "{path: " + small + ", window: {from: 1s}}")),
            "s.yaml:10:" + std::to_string(31 + small.size()) + ": tenants[0].workload.trace: no GPU op of trace '" +
                small + "' (device 0) starts in the window");
}

TEST(KinetoImport, ATraceOverTheDecompressedSizeLimitIsRefused) {
  // 4 MiB of whitespace compresses to a few KiB (a gzip bomb in small); read with a 1 MiB limit.
  const fs::path bomb = temp_file("bomb.json.gz", std::string(4 << 20, ' '), true);
  try {
    read_kineto_trace(bomb.string(), std::nullopt, size_t{1} << 20);
    FAIL();
  } catch (const TraceError& e) {
    EXPECT_EQ(std::string(e.what()), "trace '" + bomb.string() +
                                         "' holds more than 1 MiB once decompressed (a real trace is tens to "
                                         "hundreds); cut it to the steps to replay");
  }
  EXPECT_LT(fs::file_size(bomb), 64u << 10);
}

TEST(KinetoImport, WhitespaceRunsAndHugeTokensKeepTheParserSmall) {
  // Whitespace between tokens reaches the parser one character per run (it used to keep a whole run, so a bomb of
  // spaces inside the event list held gigabytes): 16 MiB of it in the middle of a valid trace still reads the same.
  std::string padded = kSmallTrace;
  padded.insert(padded.find("{\"ph\": \"X\", \"cat\": \"kernel\""), std::string(16 << 20, ' '));
  const KinetoTrace t = read_kineto_trace(temp_file("padded.json.gz", padded, true).string());
  EXPECT_EQ(t.ops.size(), read_kineto_trace(temp_file("small.json", kSmallTrace, false).string()).ops.size());
  // Whitespace inside a string is kept as it is.
  std::string spaced = kSmallTrace;
  spaced.replace(spaced.find("ampere_sgemm"), 12, "ampere    sgemm");
  EXPECT_EQ(read_kineto_trace(temp_file("spaced.json", spaced, false).string()).ops.front().name,
            "ampere    sgemm_128x64_nn");
  // A string of 2 MiB is no kernel name: refused, and read no further.
  std::string huge = kSmallTrace;
  huge.replace(huge.find("aten::mm"), 8, std::string(2 << 20, 'x'));
  try {
    read_kineto_trace(temp_file("huge.json.gz", huge, true).string());
    FAIL();
  } catch (const TraceError& e) {
    EXPECT_NE(std::string(e.what()).find("holds a string or number longer than 1 MiB"), std::string::npos) << e.what();
  }
}

TEST(KinetoImport, OutOfRangeNumbersAreRefusedNamingTheEvent) {
  // A timestamp of 1e300 (it once corrupted the engine's heap), a negative duration, a device no int holds, a grid
  // of 1e20: each is refused with the event's place and name, through the scenario's trace key.
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"\"ts\": 1150,", "\"ts\": 1e300,"},
      {"\"dur\": 50,", "\"dur\": -5,"},
      {"\"ts\": 1150, \"dur\": 50, \"args\": {\"device\": 0,", "\"ts\": 1150, \"dur\": 50, \"args\": {\"device\": 1e12,"},
      {"\"grid\": [1024, 1, 1]", "\"grid\": [1e20, 1, 1]"}};
  // A number no double holds is refused by the JSON reader itself, as bad input.
  {
    std::string text = kSmallTrace;
    text.replace(text.find("\"ts\": 1150,"), 11, "\"ts\": 1e400,");
    const std::string path = temp_file("overflow.json", text, false).string();
    const std::string e = error_of(scenario("A100-40GB", "{path: " + path + "}"));
    EXPECT_EQ(e.rfind("s.yaml:10:21: tenants[0].workload.trace.path: trace '" + path + "' is not valid JSON: ", 0), 0u)
        << e;
  }
  const std::vector<std::string> expected = {"`ts` 1e+300 us is outside -1e+17 to 1e+17", "`dur` -5 us is outside 0 to 1e+12",
                                             "`device` 1e+12 is outside -2.14748e+09 to 2.14748e+09",
                                             "`grid` 1e+20 is outside 0 to 2.14748e+09"};
  for (size_t i = 0; i < cases.size(); ++i) {
    std::string text = kSmallTrace;
    const size_t at = text.find(cases[i].first);
    ASSERT_NE(at, std::string::npos) << cases[i].first;
    text.replace(at, cases[i].first.size(), cases[i].second);
    const std::string path = temp_file("range" + std::to_string(i) + ".json", text, false).string();
    EXPECT_EQ(error_of(scenario("A100-40GB", "{path: " + path + "}")),
              "s.yaml:10:21: tenants[0].workload.trace.path: trace '" + path +
                  "', trace event 4: kernel 'void at::native::vectorized_elementwise_kernel<4>': " + expected[i]);
  }
}

// The four real traces of scenarios/traces/kineto (README counts verified), replayed alone on their source GPU
// in passthrough with 0% overhead (bare metal). Busy time is the engine's (time with work in flight) against the
// union of the recorded op intervals; span is first op start to last op end.
struct RealTrace {
  const char* file;
  const char* source;  // catalog GPU; recsys has no deviceProperties
  int device;
  size_t kernels, memcpys, memsets;
  // Whether exact and fluid time-slicing agree within 2% for two identical copies started together. They do not
  // for the A100 rank-3 trace (4 streams, thousands of 20-100 us host gaps) nor, replayed through its dependency
  // graph, the V100 trace (its host keeps ~1000 launches queued, so the GPU never idles): both copies stay busy
  // through long contention episodes, which fluid averages (+1-7%). See docs/trace-replay.md.
  bool timeslice_agrees;
};
void PrintTo(const RealTrace& t, std::ostream* os) { *os << t.file; }

class KinetoRealTrace : public ::testing::TestWithParam<RealTrace> {};

TEST_P(KinetoRealTrace, BareMetalReplayMatchesTheRecording) {
  const RealTrace& c = GetParam();
  if (testing_support::release_build_only(c.file)) GTEST_SKIP() << "sanitizer build: replayed in the Release build";
  const fs::path path = fs::path(VGPUSIM_KINETO_TRACES) / c.file;
  const KinetoTrace trace = read_kineto_trace(path.string());
  EXPECT_EQ(trace.device, c.device);
  EXPECT_EQ(trace.kernels, c.kernels);
  EXPECT_EQ(trace.memcpys, c.memcpys);
  EXPECT_EQ(trace.memsets, c.memsets);
  if (trace.device_properties()) {
    EXPECT_EQ(catalog_name_for_device(trace.device_properties()->name, trace.device_properties()->total_memory, builtin_catalog().names()), c.source);
  }

  const std::string key = "{path: " + path.string() + ", source: " + c.source + "}";
  const RunRecord exact = simulate(load(scenario(c.source, key, "exact")));
  const RunRecord fluid = simulate(load(scenario(c.source, key, "fluid")));
  ASSERT_EQ(exact.tenants[0].units, 1);
  ASSERT_EQ(fluid.tenants[0].units, 1);
  const double busy = busy_time(trace.ops), recorded_span = span(trace.ops);
  const double busy_error = exact.gpus[0].busy_time / busy - 1;
  const double span_error = replay_span(exact) / recorded_span - 1;
  // One iteration: throughput = 1 / span.
  const double fluid_vs_exact = replay_span(exact) / replay_span(fluid) - 1;
  EXPECT_LT(std::abs(busy_error), 0.02);
  EXPECT_LT(std::abs(span_error), 0.05);
  EXPECT_LT(std::abs(fluid_vs_exact), 0.02);
  RecordProperty("busy_error", std::to_string(busy_error));
  RecordProperty("span_error", std::to_string(span_error));
  RecordProperty("fluid_vs_exact_throughput", std::to_string(fluid_vs_exact));
  std::cout << "[ replay   ] " << c.file << " on " << c.source << ": busy " << busy * 1e3 << " ms recorded, "
            << exact.gpus[0].busy_time * 1e3 << " ms replayed (error " << busy_error * 100 << "%); span "
            << recorded_span * 1e3 << " ms recorded, " << replay_span(exact) * 1e3 << " ms replayed (error "
            << span_error * 100 << "%); fluid vs exact throughput " << fluid_vs_exact * 100 << "%; events exact "
            << exact.events << ", fluid " << fluid.events << "\n";
}

// Two tenants time-sliced on an H100 (the shipped replay-alexnet scenario's setting): exact against fluid.
TEST_P(KinetoRealTrace, TimeSlicedExactAndFluidAgree) {
  const RealTrace& c = GetParam();
  if (testing_support::release_build_only(c.file)) GTEST_SKIP() << "sanitizer build: replayed in the Release build";
  const fs::path path = fs::path(VGPUSIM_KINETO_TRACES) / c.file;
  const std::string key = "{path: " + path.string() + ", source: " + c.source + ", iterations: 2}";
  const std::string sharing = "{mode: timeslice, slice: 2ms, switch_cost: 40us}";
  const RunRecord exact = simulate(load(scenario("H100-SXM", key, "exact", sharing, 2)));
  const RunRecord fluid = simulate(load(scenario("H100-SXM", key, "fluid", sharing, 2)));
  for (size_t t = 0; t < 2; ++t) {
    ASSERT_EQ(exact.tenants[t].units, 2);
    ASSERT_EQ(fluid.tenants[t].units, 2);
    const double x = exact.tenants[t].finish - exact.tenants[t].start, f = fluid.tenants[t].finish - fluid.tenants[t].start;
    if (c.timeslice_agrees) {
      EXPECT_LT(std::abs(x / f - 1), 0.02) << "tenant " << t;
    }
    std::cout << "[ replay   ] " << c.file << " x2 time-sliced on H100-SXM, tenant " << t << ": exact " << x * 1e3
              << " ms, fluid " << f * 1e3 << " ms (fluid vs exact throughput " << (x / f - 1) * 100 << "%)\n";
  }
}

// The shipped replay scenario (two AlexNet copies started together, time-sliced on an H100, 20 passes each) in
// both fidelities: mean throughput within 2%. Fluid used to share the GPU between the two copies' identical bursts
// and kept them in lockstep (2.4% slow); it now plays each contention episode's first slice as exact does.
TEST(KinetoReplay, ShippedReplayScenarioAgreesInBothFidelities) {
  const std::string path = std::string(VGPUSIM_SOURCE_DIR) + "/scenarios/replay-alexnet.yaml";
  Scenario exact = load_scenario_file(path, builtin_catalog());
  ASSERT_EQ(exact.fidelity, Fidelity::Exact);
  Scenario fluid = load_scenario_file(path, builtin_catalog(), {parse_override("fidelity=fluid")});
  ASSERT_EQ(fluid.fidelity, Fidelity::Fluid);
  const RunRecord x = simulate(exact), f = simulate(fluid);
  ASSERT_EQ(x.tenants.size(), 2u);
  for (size_t t = 0; t < 2; ++t) {
    ASSERT_EQ(x.tenants[t].units, 20);
    ASSERT_EQ(f.tenants[t].units, 20);
    const double xs = x.tenants[t].finish - x.tenants[t].start, fs = f.tenants[t].finish - f.tenants[t].start;
    EXPECT_LT(std::abs(xs / fs - 1), 0.02) << "tenant " << t << ": exact " << xs << " s, fluid " << fs << " s";
    std::cout << "[ replay   ] scenarios/replay-alexnet.yaml tenant " << t << ": exact " << 20 / xs << " it/s, fluid "
              << 20 / fs << " it/s (fluid vs exact throughput " << (xs / fs - 1) * 100 << "%)\n";
  }
}

INSTANTIATE_TEST_SUITE_P(KinetoShared, KinetoRealTrace,
                         ::testing::Values(RealTrace{"a100_alexnet_train.json.gz", "A100-40GB", 0, 79, 16, 3, true},
                                           RealTrace{"v100_rank0_train.json.gz", "V100", 0, 4350, 1600, 145, false},
                                           RealTrace{"a100_rank3_control.json.gz", "A100-40GB", 3, 8568, 228, 654, false},
                                           RealTrace{"recsys_sampled_rank0.json.gz", "A100-40GB", 0, 1154, 40, 10,
                                                     true}),
                         [](const auto& param_info) {
                           std::string n = param_info.param.file;
                           return n.substr(0, n.find('.'));
                         });

}  // namespace unit_kineto
