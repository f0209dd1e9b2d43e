// The published-measurement importers, the validation summaries, the telemetry workload and the Gavel fold fit.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <map>
#include <set>

#include <fmt/format.h>

#include "models/workload/model_shapes.hpp"
#include "models/workload/telemetry.hpp"
#include "sim/core/errors.hpp"
#include "sim/io/calibration_file.hpp"
#include "sim/io/gpu_catalog.hpp"
#include "sim/io/published.hpp"
#include "sim/io/text_fields.hpp"
#include "sim/run/simulation.hpp"
#include "sim/studies/calibration/calibrate.hpp"
#include "sim/studies/calibration/published_fit.hpp"
#include "sim/studies/calibration/vidur_fit.hpp"
#include "sim/studies/validation/published.hpp"
#include "tests/unit/scenario_helpers.hpp"

namespace unit_published {

namespace fs = std::filesystem;
using namespace vgpusim;
using vgpusim::testing_support::error_of;
using vgpusim::testing_support::run_text;

namespace {

fs::path temp_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("vgpusim-published-" + name);
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

std::string write(const fs::path& path, const std::string& text) {
  std::ofstream(path) << text;
  return path.string();
}

std::string error_reading(const std::function<void()>& read) {
  try {
    read();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST(PublishedImport, StreamTable) {
  const fs::path d = temp_dir("stream");
  const std::string path = write(d / "x.txt",
                                 "blockSize   threads       %occ  |                init       read\n"
                                 "       32        4224      3 %  |  GB/s:         297        123\n"
                                 "       64        8448    6.2 %  |  GB/s:         590        244\n");
  const StreamTable t = read_gpu_stream(path);
  ASSERT_EQ(t.kernels, (std::vector<std::string>{"init", "read"}));
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_DOUBLE_EQ(t.rows[1].occupancy, 0.062);
  EXPECT_DOUBLE_EQ(t.rows[1].bandwidth[1], 244e9);
  const std::string bad = write(d / "bad.txt",
                                "blockSize   threads       %occ  |   init\n"
                                "       32        4224      3 %  |  GB/s:   x97\n");
  EXPECT_EQ(error_reading([&] { read_gpu_stream(bad); }), bad + ":2: init: expected a number >= 0, found 'x97'");
}

TEST(PublishedImport, SmallKernelsAcceptKibOrMibButNotNonsense) {
  const fs::path d = temp_dir("small");
  const auto rows = read_small_kernels(write(d / "a.txt", "4096  64kB     26     26\n22657553  345kB  100 200\n"));
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_DOUBLE_EQ(rows[0].volume, 65536);
  EXPECT_DOUBLE_EQ(rows[1].bandwidth[1], 200e9);
  const std::string bad = write(d / "b.txt", "4096  640kB     26     26\n");
  EXPECT_NE(error_reading([&] { read_small_kernels(bad); }).find(bad + ":1: size 640kB does not match"),
            std::string::npos);
}

TEST(PublishedImport, L2CacheTableReadsDataSetAndBandwidth) {
  const fs::path d = temp_dir("l2");
  const auto rows = read_l2_cache(write(d / "a.txt",
                                        "     data set   exec time     spread       Eff. bw\n"
                                        "       512 kB      1536 kB        10ms       0.4%    5195.6 GB/s        0 GB/s\n"
                                        "       512 kB    110080 kB        49ms       0.9%    1075.4 GB/s        0 GB/s\n"));
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_DOUBLE_EQ(rows[0].data_set, 1536 * 1024.0);
  EXPECT_DOUBLE_EQ(rows[1].bandwidth, 1075.4e9);
  const std::string bad = write(d / "b.txt", "512 kB 1536 MB 10ms 0.4% 5195.6 GB/s\n");
  EXPECT_EQ(error_reading([&] { read_l2_cache(bad); }),
            bad + ":1: expected 'BLOCK kB  DATASET kB  TIME  SPREAD  BANDWIDTH GB/s ...'");
}

TEST(PublishedFit, L2BandwidthComesFromSmallKernelsAndItsCapacityFromTheL2Table) {
  // The shipped L40 calibration: the small kernels' slope (a scale kernel in L2) and the data set where
  // gpu-l2-cache's bandwidth falls half way to DRAM (~102 MiB of the catalog's 96 MiB).
  const Calibration* l40 = builtin_calibration("L40");
  ASSERT_NE(l40, nullptr);
  const ParamOverrides o = l40->overrides();
  ASSERT_TRUE(o.count("roofline.l2_bandwidth") && o.count("roofline.l2_capacity_fraction"));
  EXPECT_NEAR(o.at("roofline.l2_bandwidth"), 4.03e12, 0.01e12);
  EXPECT_NEAR(o.at("roofline.l2_capacity_fraction"), 1.06, 0.01);
  for (const FittedValue& v : l40->values) {
    if (v.name == "roofline.l2_bandwidth") {
      EXPECT_NE(v.from.find("gpu-small-kernels l40.txt"), std::string::npos);
    }
    if (v.name == "roofline.l2_capacity_fraction") {
      EXPECT_NE(v.from.find("gpu-l2-cache l40.txt"), std::string::npos);
    }
  }
  // A40 has no gpu-l2-cache table: a bandwidth, no capacity.
  const ParamOverrides a40 = builtin_calibration("A40")->overrides();
  EXPECT_TRUE(a40.count("roofline.l2_bandwidth"));
  EXPECT_FALSE(a40.count("roofline.l2_capacity_fraction"));
}

TEST(PublishedFit, LaunchVariantsGetTheirOwnOverheads) {
  // Rows made by the model itself with a known overhead come back with it: a = 1.2 us beyond a DRAM stream.
  const GpuSpec& a100 = builtin_catalog().find("A100-80GB")->spec;
  RooflineParams roof = RooflineParams::table().defaults();
  std::vector<SmallKernelRow> rows;
  for (double v : {64e3, 128e3, 256e3, 512e3, 1e6, 2e6}) {
    KernelSpec k;
    k.bytes = v;
    k.working_set = v;
    k.launch = LaunchKind::Graph;
    RooflineParams p = roof;
    p.graph_launch_overhead = 1.2e-6;
    SmallKernelRow r;
    r.volume = v;
    r.bandwidth = {v / solo_time(k, a100, p)};
    rows.push_back(r);
  }
  EXPECT_NEAR(small_kernel_overhead(rows, a100, roof, [](size_t) { return true; }), 1.2e-6, 1e-12);
  EXPECT_TRUE(std::isnan(small_kernel_overhead(rows, a100, roof, [](size_t i) { return i < 2; })));
  // The shipped calibrations: a CUDA graph's kernel nodes and a persistent kernel's grid sync cost less than a
  // launch on a stream, on every GPU whose tables have them (the A40 has no gsync table).
  for (const char* gpu : {"A100-80GB", "A40", "H200", "L40"}) {
    const ParamOverrides o = builtin_calibration(gpu)->overrides();
    ASSERT_TRUE(o.count("roofline.graph_launch_overhead")) << gpu;
    EXPECT_LT(o.at("roofline.graph_launch_overhead"), o.at("roofline.launch_overhead")) << gpu;
    EXPECT_EQ(o.count("roofline.grid_sync_overhead"), std::string(gpu) == "A40" ? 0u : 1u) << gpu;
  }
}

TEST(PublishedImport, VidurOpsAndGavelHeader) {
  const fs::path d = temp_dir("vidur");
  const std::string path = write(
      d / "a100_x_mlp_median_ms.csv",
      "# source line\n"
      "n_head,n_kv_head,n_embd,n_expanded_embd,vocab_size,use_gated_mlp,num_tokens,num_tensor_parallel_workers,"
      "emb_ms,add_ms,post_attention_layernorm_ms\n"
      "32,8,4096,14336,128256,True,16,2,0.5,0.25,\n");
  const auto rows = read_vidur_ops(path);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].tensor_parallel, 2);
  EXPECT_TRUE(rows[0].gated_mlp);
  EXPECT_DOUBLE_EQ(rows[0].op_time.at("emb"), 0.5e-3);
  EXPECT_EQ(rows[0].op_time.count("post_attention_layernorm"), 0u);  // left empty: not measured
  const std::string gavel = write(d / "g.csv", "gpu,job_a,scale_a\nv100,A,1\n");
  EXPECT_NE(error_reading([&] { read_gavel_pairs(gavel); }).find(gavel + ":1: the header lacks the column 'job_b'"),
            std::string::npos);
}

// The one CSV reader every importer uses (sim/io/text_fields.hpp): fields cut plainly or with RFC 4180's quotes,
// cells by column name, and errors that name the file and line.
TEST(CsvReader, QuotesHeaderLookupAndErrorsNameTheLine) {
  EXPECT_EQ(csv_fields("a,\"b,c\",\"d\"\"e\",", CsvQuotes::rfc4180),
            (std::vector<std::string>{"a", "b,c", "d\"e", ""}));
  EXPECT_EQ(csv_fields("a,\"b,c\"", CsvQuotes::none), (std::vector<std::string>{"a", "\"b", "c\""}));
  EXPECT_EQ(csv_fields(",x,", CsvQuotes::none), (std::vector<std::string>{"", "x", ""}));

  const fs::path d = temp_dir("csv");
  const std::string good = write(d / "good.csv", "# provenance\nb,a,extra\n1,2.5,z\n\n3,4,\n");
  std::vector<std::pair<int, double>> rows;
  std::vector<size_t> lines;
  read_csv(good, {"a", "b"}, [&](const CsvRow& r) {
    rows.emplace_back(r.integer("b"), r.number("a"));
    lines.push_back(r.line);
    EXPECT_EQ(r[2], r["extra"]);
    EXPECT_FALSE(r.has("missing"));
  });
  EXPECT_EQ(rows, (std::vector<std::pair<int, double>>{{1, 2.5}, {3, 4.0}}));
  EXPECT_EQ(lines, (std::vector<size_t>{3, 5}));

  const std::string short_row = write(d / "short.csv", "a,b\n1,2\n3\n");
  EXPECT_EQ(error_reading([&] { read_csv(short_row, {"a"}, [](const CsvRow&) {}); }),
            short_row + ":3: expected 2 columns, found 1");
  const std::string lacking = write(d / "lacking.csv", "a,b\n1,2\n");
  EXPECT_EQ(error_reading([&] { read_csv(lacking, {"a", "c"}, [](const CsvRow&) {}); }),
            lacking + ":1: the header lacks the column 'c' (found 'a,b')");
  const std::string bad_number = write(d / "bad.csv", "a\nx\n");
  EXPECT_EQ(error_reading([&] { read_csv(bad_number, {"a"}, [](const CsvRow& r) { r.number("a"); }); }),
            bad_number + ":2: a: expected a number >= 0, found 'x'");
  const std::string empty = write(d / "empty.csv", "# nothing but a comment\n");
  EXPECT_EQ(error_reading([&] { read_csv(empty, {}, [](const CsvRow&) {}); }), empty + ": no header line");
  EXPECT_EQ(error_reading([&] { read_csv((d / "absent.csv").string(), {}, [](const CsvRow&) {}); }),
            (d / "absent.csv").string() + ": cannot open the file");
}

TEST(PublishedImport, FileStemsNameCatalogGpus) {
  // The stems the published files carry (gpu-benches' result files, Vidur's profiling folders), including GPUs no
  // shipped file has yet: Vidur's h100 (its device configuration: 1000 TFLOPS FP16, 80 GB, DGX nodes: the SXM board).
  const std::pair<const char*, const char*> stems[] = {{"a100", "A100-80GB"}, {"a40", "A40"},
                                                       {"h100", "H100-SXM"},   {"h100_pcie", "H100-PCIe"},
                                                       {"mi100", "MI100"},     {"mi210", "MI210"}};
  for (const auto& [stem, gpu] : stems) {
    EXPECT_EQ(published_gpu_name(stem), gpu) << stem;
    EXPECT_NE(builtin_catalog().find(gpu), nullptr) << gpu;
  }
  EXPECT_EQ(published_gpu_name("rx6900xt"), "");  // a Radeon the catalog does not hold
  // A Vidur file of a GPU no shipped file profiled is read, not skipped.
  const fs::path d = temp_dir("vidur-h100");
  write(d / "h100_x_mlp_median_ms.csv",
        "n_head,n_kv_head,n_embd,n_expanded_embd,vocab_size,use_gated_mlp,num_tokens,num_tensor_parallel_workers,"
        "emb_ms,add_ms\n"
        "32,8,4096,14336,128256,True,16,1,0.5,0.25\n");
  std::vector<VidurSkip> skipped;
  const std::vector<VidurCase> cases = read_vidur_cases(d.string(), "", skipped);
  ASSERT_FALSE(cases.empty());
  EXPECT_EQ(cases[0].gpu, "H100-SXM");
  EXPECT_TRUE(skipped.empty());
}

TEST(PublishedImport, MigPerfExperimentFilesNameTheirProfileByInstanceSize) {
  const fs::path d = temp_dir("migperf");
  const std::string bsz = write(d / "m_bsz.csv",
                                "Unnamed: 0,model_name,total_params,seq_length,batch_size,latency,latency_std,"
                                "throughput,start_timestamp,end_timestamp,gract_mean,gract_std,fb_used_mean,"
                                "fb_used_std,instance_memory\n"
                                "0,bert,1,64,8,20.0,0.1,400.0,0,0,0.5,0.1,2000.0,0.0,10\n");
  const auto rows = read_migperf_experiment(bsz, "infer", "nlp");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].gpu, "A100-40GB");
  EXPECT_EQ(rows[0].profile, "2g.10gb");
  EXPECT_EQ(rows[0].seq, 64);
  EXPECT_DOUBLE_EQ(rows[0].gract, 0.5);
  const std::string ft = write(d / "f.csv",
                               "Unnamed: 0,model_name,batch_size,latency,latency_std,throughput,start_timestamp,"
                               "end_timestamp,gract_mean,gract_std,fb_used_mean,fb_used_std,mig\n"
                               "0,vit,8,157.7,0.04,50.73,0,0,0.931,0.1,3934.0,0.0,40\n"
                               "1,vit,8,157.7,0.04,50.73,0,0,0.931,0.1,3934.0,0.0,15\n");
  EXPECT_EQ(error_reading([&] { read_migperf_experiment(ft, "finetune", "cv"); }),
            ft + ":3: mig: expected 5, 10, 20 or 40 (GB), found 15");
}

TEST(PublishedSummary, ErrorsPerGpuAndSplitWithBaselinesAndSkips) {
  ValidationRun run;
  run.dataset = "toy";
  const double predicted[] = {1.1, 0.8, 1.0, 1.5};
  for (double p : predicted) run.cases.push_back({"A", "s", "case", 1.0, p, {{"half", 0.5}}});
  run.cases.push_back({"B", "s", "case", 2.0, 2.0, {}});
  run.skipped.push_back({"A", "why", "s"});
  run.skipped.push_back({"C", "not in the catalog"});
  const auto s = summarize(run);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0].gpu, "A");
  EXPECT_EQ(s[0].cases, 4u);
  EXPECT_EQ(s[0].skipped, 1u);
  EXPECT_NEAR(s[0].mape, (10 + 20 + 0 + 50) / 4.0, 1e-9);
  EXPECT_NEAR(s[0].median_ape, 15, 1e-9);
  EXPECT_NEAR(s[0].p90_ape, 20 + 0.7 * 30, 1e-9);  // between 20% and 50%, 0.7 of the way
  EXPECT_NEAR(s[0].baseline_mape.at("half"), 50, 1e-9);
  EXPECT_EQ(s[1].mape, 0);
  EXPECT_EQ(s[2].gpu, "C");
  EXPECT_EQ(s[2].cases, 0u);
  EXPECT_EQ(s[2].skip_reasons.at("not in the catalog"), 1u);
  const std::string json = summaries_json(s);
  EXPECT_NE(json.find("\"p90_ape\": 41"), std::string::npos) << json;
}

TEST(TelemetryWorkload, KeepsItsKernelTimeWhenComputeAndMemoryOverlapOnlyInPart) {
  const GpuSpec& v100 = builtin_catalog().find("V100")->spec;
  RooflineParams roof = RooflineParams::table().defaults();
  roof.overlap = 0.6;
  SoloTelemetry t;
  t.throughput = 40;
  t.gpu_util = 0.6;
  // Memory busy for 30% and for 90% of the kernel time: the compute side is the longer, then the shorter one.
  for (double mem : {0.18, 0.54}) {
    t.mem_util = mem;
    const TelemetryWork w = telemetry_work(t, v100, roof, busy_share_mapping());  // gpu_util at its word
    EXPECT_NEAR(solo_time(w.unit, v100, roof), 0.6 / 40, 1e-12) << mem;
    const KernelTimes k = kernel_times(w.unit, v100, roof);
    EXPECT_NEAR(k.memory / (0.6 / 40 - k.overhead), mem / 0.6, 1e-9) << mem;
  }
}

TEST(TelemetryWorkload, ReplaysItsOwnThroughputOnTheMeasuredGpu) {
  const GpuSpec& v100 = builtin_catalog().find("V100")->spec;
  const RooflineParams roof = RooflineParams::table().defaults();
  SoloTelemetry t;
  t.throughput = 40;
  t.gpu_util = 0.6;
  t.mem_util = 0.3;
  t.sm_active = 0.3;
  const TelemetryWork w = telemetry_work(t, v100, roof, busy_share_mapping());  // gpu_util at its word
  EXPECT_NEAR(w.host_time, 0.4 / 40, 1e-12);
  EXPECT_NEAR(solo_time(w.unit, v100, roof), 0.6 / 40, 1e-12);
  EXPECT_NEAR(w.sm_fill, 0.5, 1e-12);
  EXPECT_NEAR(w.memory_share, 0.5, 1e-12);
  const KernelTimes k = kernel_times(w.unit, v100, roof);
  const double ovh = roof.launch_overhead;  // one kernel per unit
  EXPECT_NEAR(k.memory, 0.5 * (0.6 / 40 - ovh), 1e-12);
  EXPECT_NEAR(k.sm_fill, 0.5, 1e-12);
  // On a GPU with twice the FP32 rate and bandwidth the kernel's work halves; its launch overhead and the host
  // time do not change.
  GpuSpec twice = v100;
  twice.fp32 *= 2;
  twice.memory_bandwidth *= 2;
  EXPECT_NEAR(solo_time(w.unit, twice, roof), (0.6 / 40 - ovh) / 2 + ovh, 1e-12);
}

// The exclusive GPU time per unit: busy_per_util x gpu_util ^ busy_exponent x T; a job busy all the time keeps it
// whatever the exponent, the rest host time.
TEST(TelemetryWorkload, BusyExponentShrinksTheGpuTimeOfJobsThatIdle) {
  const GpuSpec& v100 = builtin_catalog().find("V100")->spec;
  const RooflineParams roof = RooflineParams::table().defaults();
  SoloTelemetry t;
  t.throughput = 10;
  t.gpu_util = 0.5;
  // The shipped exponent (fitted on the Lucid pairs) and 1, taking nvidia-smi at its word.
  TelemetryMapping m = TelemetryMapping::table().defaults();
  EXPECT_EQ(m.busy_exponent, 1.75);
  EXPECT_NEAR(telemetry_work(t, v100, roof, m).gpu_time, std::pow(0.5, 1.75) * 0.1, 1e-12);
  m = busy_share_mapping();
  EXPECT_EQ(m.busy_exponent, 1.0);
  EXPECT_NEAR(telemetry_work(t, v100, roof, m).gpu_time, 0.05, 1e-12);
  m.busy_exponent = 2;
  EXPECT_NEAR(telemetry_work(t, v100, roof, m).gpu_time, 0.025, 1e-12);
  EXPECT_NEAR(telemetry_work(t, v100, roof, m).host_time, 0.075, 1e-12);
  m.busy_per_util = 0.8;
  EXPECT_NEAR(telemetry_work(t, v100, roof, m).gpu_time, 0.02, 1e-12);
  m.busy_per_util = 1;
  t.gpu_util = 1;
  EXPECT_NEAR(telemetry_work(t, v100, roof, m).gpu_time, 0.1, 1e-12);
}

TEST(TelemetryWorkload, ProblemsNameTheField) {
  SoloTelemetry t;
  t.throughput = 10;
  t.gpu_util = 0;
  auto p = telemetry_problems(t);
  ASSERT_FALSE(p.empty());
  EXPECT_EQ(p[0].first, "gpu_util");
  t.gpu_util = 0.5;
  t.mem_util = 0.7;
  p = telemetry_problems(t);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].first, "mem_util");
  t.mem_util = 1.2;
  p = telemetry_problems(t);
  ASSERT_EQ(p.size(), 2u);  // over 100% and above gpu_util
  EXPECT_NE(p[0].second.find("over 100%"), std::string::npos);
}

namespace {
// A job's profiles at several batch sizes with GPU time g(b) and host time h(b) per unit (ms).
std::vector<BatchProfile> profiles_of(const std::vector<double>& batches, double (*gpu)(double),
                                      double (*host)(double)) {
  std::vector<BatchProfile> out;
  for (double b : batches) {
    const double g = gpu(b) * 1e-3, h = host(b) * 1e-3;
    out.push_back({b, 1 / (g + h), g / (g + h)});
  }
  return out;
}
}  // namespace

TEST(TelemetryWorkload, InputPipelineShareIsTheHostTimeThatGrowsWithTheBatch) {
  const auto gpu = [](double b) { return 2 + 0.1 * b; };
  // Host time in proportion to the batch (a data loader's per-sample work): all of it.
  auto p = profiles_of({32, 64, 128}, gpu, [](double b) { return 0.05 * b; });
  EXPECT_NEAR(input_pipeline_share(p, 64), 1.0, 1e-9);
  // The same host time at every batch (the framework's dispatch per step): none.
  p = profiles_of({32, 64, 128}, gpu, [](double) { return 4.0; });
  EXPECT_NEAR(input_pipeline_share(p, 64), 0.0, 1e-9);
  // 2 ms per step plus 0.05 ms per sample: at batch 40 half of the 4 ms, at batch 120 0.75 of 8 ms.
  p = profiles_of({20, 40, 80}, gpu, [](double b) { return 2 + 0.05 * b; });
  EXPECT_NEAR(input_pipeline_share(p, 40), 0.5, 1e-9);
  EXPECT_NEAR(input_pipeline_share(p, 120), 0.75, 1e-9);
  // Host time that shrinks as the batch grows: none; one batch size (twice): nothing to tell, none.
  p = profiles_of({32, 64, 128}, gpu, [](double b) { return 8 - 0.05 * b; });
  EXPECT_EQ(input_pipeline_share(p, 64), 0.0);
  p = profiles_of({64, 64}, gpu, [](double b) { return 0.05 * b; });
  EXPECT_EQ(input_pipeline_share(p, 64), 0.0);
  EXPECT_EQ(input_pipeline_share({}, 64), 0.0);
}

namespace {
std::string measured_scenario(const std::string& workload, const std::string& on = "g0",
                              const std::string& sharing = "{mode: timeslice}") {
  return "version: 1\nname: t\nduration: 20s\nfidelity: exact\ngpus:\n  - {id: g0, model: A100-80GB}\nsharing:\n  g0: " +
         sharing + "\ntenants:\n  - name: job\n    on: " + on + "\n    workload:\n      measured: " + workload + "\n";
}
}  // namespace

TEST(TelemetryWorkload, ScenarioAloneGivesTheMeasuredThroughputAndAllocatesItsMemory) {
  const Results r = run_text(measured_scenario(
      "{gpu: A100-80GB, throughput: 50/s, gpu_util: 70%, mem_util: 20%, memory: 10GiB, kernels_per_unit: 4}"));
  ASSERT_EQ(r.tenants.size(), 1u);
  EXPECT_NEAR(r.tenants[0].shared.throughput, 50, 50 * 1e-3);
  EXPECT_EQ(r.tenants[0].unit, "units");
  const Scenario sc = load_scenario_text(
      measured_scenario("{gpu: A100-80GB, throughput: 50/s, gpu_util: 70%, mem_util: 20%, memory: 10GiB}"), "t.yaml",
      builtin_catalog());
  EXPECT_DOUBLE_EQ(sc.tenants[0].memory, 10.0 * (1 << 30));
}

TEST(TelemetryWorkload, OnAnotherGpuTheKernelTimeScalesAndHostTimeStays) {
  // Compute-bound (mem_util 0) at 50% GPU time (busy_exponent 1: nvidia-smi at its word) on a V100, replayed on an
  // A100: kernel time x fp32 ratio, the host time unchanged. In one kernel the step is the host phase, a launch and
  // the faster kernel; in the default 962 kernels of 52 us the host's 30 us launches stay ahead of them, so the step
  // speeds up the same (less the launch overheads, which do not scale).
  const GpuSpec& v100 = builtin_catalog().find("V100")->spec;
  const GpuSpec& a100 = builtin_catalog().find("A100-80GB")->spec;
  const std::string job = "gpu: V100, throughput: 10/s, gpu_util: 50%, mem_util: 0%, busy_exponent: 1";
  const Results one = run_text(measured_scenario("{" + job + ", kernels_per_unit: 1}"));
  const double expected = 1.0 / (0.05 + 0.05 * v100.fp32 / a100.fp32);
  EXPECT_NEAR(one.tenants[0].shared.throughput, expected, expected * 5e-3);  // whole units in 20 s
  const Results many = run_text(measured_scenario("{" + job + "}"));
  EXPECT_NEAR(many.tenants[0].shared.throughput, expected, expected * 0.02);
  // Launches slower than the kernels on the A100 (100 us apart) hold the job to its launches: no faster there.
  const Results paced = run_text(measured_scenario("{" + job + ", launch_cost: 100us}"));
  EXPECT_LT(paced.tenants[0].shared.throughput, 10.0 + 0.3 * (expected - 10.0));
}

namespace {
// 25 units/s at 65% busy (10% memory), kernels of the mapping's kernel_time.
SoloTelemetry job_at_25_per_s() {
  SoloTelemetry t;
  t.throughput = 25;
  t.gpu_util = 0.65;
  t.mem_util = 0.1;
  t.kernels_per_unit = 0;
  return t;
}
}  // namespace

TEST(TelemetryWorkload, KernelsPaceAtTheLaunchRateAndKeepTheSoloThroughput) {
  // 500 kernels of 52 us by default (26 ms of GPU time at 65% of 40 ms), launched 30 us apart (the host runs
  // ahead), the rest of the host time one phase; random gaps included, alone it still runs 25 units/s.
  const Results r =
      run_text(measured_scenario("{gpu: A100-80GB, throughput: 25/s, gpu_util: 65%, mem_util: 10%}"));
  EXPECT_NEAR(r.tenants[0].shared.throughput, 25, 25 * 5e-3);
  const RooflineParams roof = RooflineParams::table().with(builtin_overrides("A100-80GB"));
  const SoloTelemetry t = job_at_25_per_s();
  const TelemetryWork w = telemetry_work(t, builtin_catalog().find("A100-80GB")->spec, roof, busy_share_mapping());
  EXPECT_EQ(w.kernels, 500);
  EXPECT_DOUBLE_EQ(w.launch_cost, 30e-6);
  EXPECT_NEAR(w.host_phase, 0.04 - 30e-6 - 0.026, 1e-12);
  // A launch-bound job (its launches slower than its kernels) and several synchronisations a unit keep it too.
  for (const char* extra : {"launch_cost: 70us", "syncs_per_unit: 7", "launch_cost: 70us, syncs_per_unit: 7"}) {
    const Results other = run_text(measured_scenario(
        std::string("{gpu: A100-80GB, throughput: 25/s, gpu_util: 65%, mem_util: 10%, ") + extra + "}"));
    EXPECT_NEAR(other.tenants[0].shared.throughput, 25, 25 * 5e-3) << extra;
  }
}

TEST(TelemetryWorkload, AHostPhaseBesideTheGpuKeepsTheSoloThroughputAndTakesUpANeighbour) {
  // host_overlap 1: the phase runs after the launches, while the GPU works through them; 500 kernels of 52 us
  // launched 30 us apart end 11.03 ms after the last launch, inside the phase, so the phase is T - n cost.
  const RooflineParams roof = RooflineParams::table().with(builtin_overrides("A100-80GB"));
  const SoloTelemetry t = job_at_25_per_s();
  TelemetryMapping m = busy_share_mapping();  // 65% taken at its word
  m.host_overlap = 1;
  const TelemetryWork w = telemetry_work(t, builtin_catalog().find("A100-80GB")->spec, roof, m);
  EXPECT_EQ(w.kernels, 500);
  EXPECT_NEAR(w.host_phase, 0.04 - 500 * 30e-6, 1e-12);
  // Alone it still runs 25 units/s, in both fidelities, with part of the phase before the launches, several
  // synchronisations or launches slower than the kernels.
  const std::pair<const char*, const char*> cases[] = {{"host_overlap: 100%", "fluid"},
                                                       {"host_overlap: 50%, syncs_per_unit: 7", "exact"},
                                                       {"host_overlap: 100%, launch_cost: 70us", "exact"}};
  for (const auto& [extra, fidelity] : cases) {
    std::string text = measured_scenario(std::string("{gpu: A100-80GB, throughput: 25/s, gpu_util: 65%, mem_util: "
                                                     "10%, ") + extra + "}");
    text.replace(text.find("fidelity: exact"), 15, std::string("fidelity: ") + fidelity);
    const Results r = run_text(text);
    EXPECT_NEAR(r.tenants[0].shared.throughput, 25, 25 * 5e-3) << extra << " " << fidelity;
  }
  // Two such jobs at 40% each, time-sliced: with the phase beside the GPU each one's kernels fit in the time its
  // host spends on the next batch, and neither slows down much; with the phase serial (0) their GPU stretches
  // meet and both lose more.
  const auto pair = [](const char* overlap) {
    std::string job = std::string("{gpu: A100-80GB, throughput: 25/s, gpu_util: 40%, mem_util: 10%, "
                                  "busy_exponent: 1, host_overlap: ") +
                      overlap + "}";
    std::string text = measured_scenario(job);
    text.replace(text.find("duration: 20s"), 13, "duration: 4s");
    text += "  - name: other\n    on: g0\n    workload:\n      measured: " + job + "\n";
    const Results r = run_text(text);
    return std::min(r.tenants[0].relative_performance, r.tenants[1].relative_performance);
  };
  const double beside = pair("100%"), serial = pair("0%");
  EXPECT_GT(beside, 0.97);
  EXPECT_LT(serial, beside - 0.05);
}

// Profiles at other batch sizes set host_overlap: a job whose host time per step grows in proportion to its batch
// (batch 32: 4.5 ms, 64: 9 ms, with 6 ms of kernels at both: 40% busy at 64) is an input pipeline, beside the GPU; one
// whose host time stays at 9 ms is serial. Beside the same busy job the first loses less; a given host_overlap wins.
TEST(TelemetryWorkload, BatchProfilesSetTheInputPipelineShare) {
  const auto pair = [](const std::string& own) {
    std::string text = measured_scenario("{gpu: A100-80GB, throughput: 66.667/s, gpu_util: 40%, mem_util: 10%, "
                                         "batch: 64, " + own + "}");
    text.replace(text.find("duration: 20s"), 13, "duration: 4s");
    text += "  - name: busy\n    on: g0\n    workload:\n      measured: {gpu: A100-80GB, throughput: 40/s, "
            "gpu_util: 90%, mem_util: 10%}\n";
    return run_text(text).tenants[0].relative_performance;
  };
  const std::string pipeline = "profiles: [{batch: 32, throughput: 95.238/s, gpu_util: 57.143%}]";
  const std::string serial = "profiles: [{batch: 32, throughput: 66.667/s, gpu_util: 40%}]";
  EXPECT_NEAR(input_pipeline_share({{64, 66.667, 0.4}, {32, 95.238, 0.57143}}, 64), 1.0, 1e-3);
  EXPECT_EQ(input_pipeline_share({{64, 66.667, 0.4}, {32, 66.667, 0.4}}, 64), 0.0);
  const double beside = pair(pipeline), alone_phase = pair(serial);
  EXPECT_GT(beside, alone_phase + 0.05);
  EXPECT_NEAR(pair(pipeline + ", host_overlap: 0%"), alone_phase, 1e-9);
  EXPECT_NE(error_of(measured_scenario("{gpu: V100, throughput: 10/s, gpu_util: 40%, mem_util: 0%, " + pipeline + "}"),
                     "t.yaml")
                .find("tenants[0].workload.measured.profiles: needs `batch`"),
            std::string::npos);
  EXPECT_NE(error_of(measured_scenario("{gpu: V100, throughput: 10/s, gpu_util: 40%, mem_util: 0%, batch: 8, "
                                       "profiles: [{batch: 4, throughput: 12/s, gpu_util: 0%}]}"),
                     "t.yaml")
                .find("profiles[0].gpu_util: expected a share above 0% and at most 100%"),
            std::string::npos);
}

TEST(TelemetryWorkload, ContradictionsAreFileLineColErrors) {
  EXPECT_EQ(error_of(measured_scenario("{gpu: V100, throughput: 10/s, gpu_util: 0%, mem_util: 0%}"), "t.yaml"),
            "t.yaml:13:57: tenants[0].workload.measured.gpu_util: 0% with a positive throughput: the job would do no "
            "GPU work (give the share of time a kernel runs, nvidia-smi utilization.gpu)");
  const std::string above =
      error_of(measured_scenario("{gpu: V100, throughput: 10/s, gpu_util: 40%, mem_util: 60%}"), "t.yaml");
  EXPECT_NE(above.find("t.yaml:13:72: tenants[0].workload.measured.mem_util: 60% is above gpu_util 40%"),
            std::string::npos)
      << above;
  const std::string over =
      error_of(measured_scenario("{gpu: V100, throughput: 10/s, gpu_util: 140%, mem_util: 0%}"), "t.yaml");
  EXPECT_NE(over.find("gpu_util: 140% is over 100%"), std::string::npos) << over;
  const std::string gpu = error_of(measured_scenario("{gpu: V1000, throughput: 10/s, gpu_util: 40%, mem_util: 0%}"),
                                   "t.yaml");
  EXPECT_NE(gpu.find("tenants[0].workload.measured.gpu"), std::string::npos) << gpu;
}

// A Gavel-format file made by the simulator from known gpu_util values on the fit's grid: the 5-fold held-out
// predictions must recover the co-located throughputs (and would not if folds, fit or replay broke).
TEST(GavelValidation, HeldOutFoldsRecoverKnownUtilizations) {
  const std::vector<std::pair<std::string, std::pair<double, double>>> jobs = {
      {"J1", {20, 0.9}}, {"J2", {8, 0.5}}, {"J3", {30, 0.3}}, {"J4", {5, 0.75}}, {"J5", {12, 0.6}}, {"J6", {3, 1.0}}};
  // Each GPU's pairs as its validation plays them: the V100's under MPS (Gavel's V100 workers ran MPS), the P100's
  // time-sliced on the catalog's P100-PCIe-16GB (Gavel's label "p100"); each job with the same solo throughput and
  // gpu_util on both.
  const auto pairs_on = [&](const std::string& label, const std::string& mode) {
    std::string rows;
    const std::string model = label == "v100" ? "V100" : "P100-PCIe-16GB";
    const std::string head = "version: 1\nname: p\nduration: 1s\nfidelity: fluid\ngpus:\n  - {id: g0, model: " + model +
                             "}\nsharing:\n  g0: {mode: " + mode + "}\ntenants:\n";
    for (size_t a = 0; a < jobs.size(); ++a)
      for (size_t b = a; b < jobs.size(); ++b) {
        std::string text = head;
        const size_t pair[2] = {a, b};
        // busy_exponent 1: the validation takes a job's gpu_util as its busy share (busy_share_mapping).
        for (int i = 0; i < 2; ++i)
          text += fmt::format("  - {{name: t{}, on: g0, workload: {{measured: {{gpu: {}, throughput: {}/s, "
                              "gpu_util: {}%, mem_util: 0%, busy_exponent: 1}}}}}}\n",
                              i, model, jobs[pair[i]].second.first,
                              jobs[pair[i]].second.second * 100);
        Scenario sc = load_scenario_text(text, "p.yaml", builtin_catalog());
        sc.duration = 40 / std::min(jobs[a].second.first, jobs[b].second.first);
        const RunRecord rec = simulate(sc);
        double tput[2];
        for (int i = 0; i < 2; ++i) {
          const auto& u = rec.tenants[i].unit_times;
          double sum = 0;
          for (size_t k = 1; k < u.size(); ++k) sum += u[k];
          tput[i] = static_cast<double>(u.size() - 1) / sum;
        }
        rows += fmt::format("{},{},1,{},1,{},{},{:.17g},{:.17g}\n", label, jobs[a].first, jobs[b].first,
                            jobs[a].second.first, jobs[b].second.first, tput[0], tput[1]);
        if (a != b)
          rows += fmt::format("{},{},1,{},1,{},{},{:.17g},{:.17g}\n", label, jobs[b].first, jobs[a].first,
                              jobs[b].second.first, jobs[a].second.first, tput[1], tput[0]);
      }
    return rows;
  };
  const std::string both = "gpu,job_a,scale_a,job_b,scale_b,solo_tput_a,solo_tput_b,coloc_tput_a,coloc_tput_b\n" +
                           pairs_on("v100", "mps") + pairs_on("p100", "timeslice");
  const fs::path d = temp_dir("gavel");
  write(d / "gavel_pairs_physical.csv", both);
  const auto runs = validate_gavel(d.string(), {});
  ASSERT_EQ(runs.size(), 1u);
  const auto s = summarize(runs[0]);
  ASSERT_EQ(s.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(s[i].gpu, i == 0 ? "V100" : "P100-PCIe-16GB") << s[i].mape;
    EXPECT_EQ(s[i].split, "5-fold held-out (physical_cluster_throughputs)");
    EXPECT_EQ(s[i].cases, 2u * 21u);
    EXPECT_LT(s[i].mape, 1.0);
    EXPECT_GT(s[i].baseline_mape.at("half"), 10.0);
    EXPECT_TRUE(s[i].baseline_mape.count("train_mean"));
  }
}

// Gavel replaced the Recommendation jobs' solo throughputs in the physical file after their pairs were measured: their
// own co-located speeds there are skipped (as a partner they stay), in the simulation file they are used; another
// job's co-located speed under a tenth of its solo is skipped in either file as in other units.
TEST(GavelValidation, SkipsSpeedsWhoseSoloWasMeasuredAgain) {
  const std::string rows =
      "gpu,job_a,scale_a,job_b,scale_b,solo_tput_a,solo_tput_b,coloc_tput_a,coloc_tput_b\n"
      "k80,Recommendation (batch size 512),1,J1,1,20,10,8,6\n"
      "k80,J1,1,Recommendation (batch size 512),1,10,20,6,8\n"
      "k80,J1,1,J2,1,10,4,5,0.3\n"
      "k80,J2,1,J1,1,4,10,0.3,5\n"
      "k80,J1,1,J1,1,10,10,5,5\n";
  for (const std::string file : {"gavel_pairs_physical.csv", "gavel_pairs_simulation.csv"}) {
    const fs::path d = temp_dir("gavel-skip");
    write(d / file, rows);
    const auto runs = validate_gavel(d.string(), {});
    ASSERT_EQ(runs.size(), 1u);
    size_t remeasured = 0, units = 0;
    for (const auto& k : runs[0].skipped) {
      remeasured += k.reason.find("solo measured again") != std::string::npos;
      units += k.reason.find("other units") != std::string::npos;
    }
    const bool physical = file == std::string("gavel_pairs_physical.csv");
    EXPECT_EQ(remeasured, physical ? 1u : 0u) << file;
    EXPECT_EQ(units, 1u) << file;
    size_t recommendation = 0;
    for (const auto& c : runs[0].cases) recommendation += c.id.find(": Recommendation") != std::string::npos;
    EXPECT_EQ(recommendation, physical ? 0u : 1u) << file;
    EXPECT_EQ(runs[0].cases.size(), physical ? 4u : 5u) << file;  // J1 beside each, J1 twice beside itself
  }
}

// Under MPS the SMs go to the clients kernel by kernel: a step of a job type whose layers the model knows (the two
// ResNets, the translation Transformer) launches its op graph's kernels (forward, backward, accumulation), any
// other job type the telemetry mapping's 52 us kernels.
TEST(GavelValidation, StepsOfKnownModelsLaunchTheirOpGraphsKernels) {
  const auto launches = [](const std::vector<FxNode>& nodes) {  // counted here, not through OpGraph
    double n = 0;
    for (const auto& [kernel, count] : graph_kernels(nodes, true)) n += count;
    return n;
  };
  const double expected = launches(resnet50_nodes(64));
  EXPECT_DOUBLE_EQ(gavel_kernels_per_step("ResNet-50 (batch size 64)"), expected);
  EXPECT_GT(expected, 300);  // 53 convolutions, 53 batch norms, ... forward, twice that backward
  const double cifar = launches(resnet18_cifar_nodes(64));
  EXPECT_DOUBLE_EQ(gavel_kernels_per_step("ResNet-18 (batch size 64)"), cifar);
  EXPECT_GT(cifar, 100);  // 20 convolutions and as many batch norms forward
  EXPECT_LT(cifar, expected);
  const double translation = launches(translation_transformer_nodes(64, 25, 25, 10000));
  EXPECT_DOUBLE_EQ(gavel_kernels_per_step("Transformer (batch size 64)"), translation);
  EXPECT_GT(translation, expected);  // 6 + 6 layers of some 20 kernels forward each, and their backward
  EXPECT_DOUBLE_EQ(gavel_kernels_per_step("CycleGAN"), launches(cyclegan_step_nodes(1)));
  EXPECT_EQ(gavel_kernels_per_step("LM (batch size 20)"), 0);  // an LSTM: no layer graph in the model
  EXPECT_EQ(gavel_kernels_per_step("A3C"), 0);
  EXPECT_EQ(gavel_kernels_per_step("ResNet-50 (batch size x)"), 0);
  EXPECT_EQ(gavel_kernels_per_step("ResNet-50 (batch size "), 0);
}

TEST(PublishedImport, InfiniteAndMissingNumbersAreRefusedOrLeftOut) {
  const fs::path d = temp_dir("inf");
  const std::string gavel = write(d / "g.csv",
                                  "gpu,job_a,scale_a,job_b,scale_b,solo_tput_a,solo_tput_b,coloc_tput_a,coloc_tput_b\n"
                                  "v100,A,1,B,1,inf,2,1,1\n");
  EXPECT_EQ(error_reading([&] { read_gavel_pairs(gavel); }),
            gavel + ":2: solo_tput_a: expected a number >= 0, found 'inf'");
  // A zero bandwidth (not measured) does not spoil the stream fit.
  const std::vector<std::pair<double, double>> points = {{0.1, 1e11}, {0.2, 2e11}, {0.3, 0}, {0.5, 4e11}, {0.9, 4e11}};
  const StreamFit fit = fit_stream(points, 5e11);
  EXPECT_NEAR(fit.efficiency, 0.8, 0.01);
  EXPECT_NEAR(fit.saturation, 0.4, 0.01);  // 1e11 per 10% of occupancy reaches 4e11 at 40%
  EXPECT_THROW(fit_stream({{0.5, 0}}, 5e11), InputError);
}

// Each shipped file is what its command writes: `vgpusim fit --gpu-benches DIR -o models/calibration` for those
// fitted from gpu-benches alone, `vgpusim fit RAW --gpu-benches DIR -o FILE` for those fitted from an hwcal raw file
// in the repository (the file names it).
TEST(BuiltinCalibration, ShippedFilesAreWhatFitWrites) {
  const std::string source_dir = VGPUSIM_SOURCE_DIR;
  const std::string benches = source_dir + "/scenarios/measurements/gpu-benches";
  const auto all = fit_gpu_benches(benches);
  std::vector<VidurSkip> skipped;
  const std::vector<VidurCase> vidur = read_vidur_cases(source_dir + "/scenarios/measurements/vidur", "", skipped);
  auto shipped_text = [&](const std::string& name) {
    std::ifstream in(source_dir + "/models/calibration/" + name);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  auto check_builtin = [](const Calibration& c) {
    ASSERT_NE(builtin_calibration(c.gpu), nullptr) << c.gpu;
    for (const auto& [param, value] : c.overrides())  // the file holds 9 significant digits
      EXPECT_NEAR(builtin_calibration(c.gpu)->overrides().at(param), value, 1e-8 * value) << param;
    EXPECT_EQ(builtin_calibration(c.gpu)->facts.size(), c.facts.size());
  };
  std::set<std::string> expected, shipped;
  int from_raw = 0;
  for (const Calibration& published : all) {
    const std::string name = calibration_file_name(published.gpu);
    expected.insert(name);
    const Calibration file = read_calibration_text(shipped_text(name), name);
    Calibration c = published;
    if (!from_gpu_benches(file) && VGPUSIM_SANITIZE_BUILD) {
      // Sanitizer builds: the raw file's fit (minutes there) is re-derived by the Release build only.
      ++from_raw;
      continue;
    }
    if (!from_gpu_benches(file)) {
      // Fitted from an hwcal raw file, with the published facts added.
      ASSERT_TRUE(fs::exists(source_dir + "/" + file.raw)) << name << " names " << file.raw;
      c = fit_calibration(read_raw_file(source_dir + "/" + file.raw), published.gpu);
      c.raw = file.raw;  // the file names its raw file relative to the repository
      add_published(c, published);
      ++from_raw;
      // Compared by value: the bootstrap's uncertainties differ in the last printed digit between optimisation
      // levels (a sanitizer build).
      const std::string stale = "models/calibration/" + name + " is stale: vgpusim fit " + file.raw +
                                " --gpu-benches scenarios/measurements/gpu-benches -o models/calibration/" + name;
      EXPECT_EQ(file.gpu, c.gpu) << stale;
      EXPECT_EQ(file.device + file.driver + file.date, c.device + c.driver + c.date) << stale;
      ASSERT_EQ(file.values.size(), c.values.size()) << stale;
      for (const FittedValue& v : c.values) {
        const auto in_file = std::find_if(file.values.begin(), file.values.end(),
                                          [&](const FittedValue& f) { return f.name == v.name; });
        ASSERT_NE(in_file, file.values.end()) << v.name << ": " << stale;
        EXPECT_EQ(in_file->from, v.from) << stale;
        EXPECT_NEAR(in_file->value, v.value, 1e-7 * std::abs(v.value)) << v.name << ": " << stale;
        EXPECT_NEAR(in_file->uncertainty, v.uncertainty, 1e-6 * std::abs(v.uncertainty)) << v.name << ": " << stale;
      }
      ASSERT_EQ(file.facts.size(), c.facts.size()) << stale;
      for (size_t i = 0; i < c.facts.size(); ++i) EXPECT_EQ(file.facts[i].from, c.facts[i].from) << stale;
    } else {
      std::vector<const VidurCase*> ops;  // the op classes, fitted on Vidur's ops of this GPU
      for (const VidurCase& v : vidur)
        if (v.gpu == c.gpu) ops.push_back(&v);
      if (!ops.empty()) add_vidur_fit(c, ops);
      EXPECT_EQ(shipped_text(name), calibration_yaml(c))
          << "models/calibration/" << name
          << " is stale: vgpusim fit --gpu-benches scenarios/measurements/gpu-benches --vidur "
             "scenarios/measurements/vidur -o models/calibration";
    }
    check_builtin(c);
  }
  for (const auto& e : fs::directory_iterator(source_dir + "/models/calibration"))
    shipped.insert(e.path().filename().string());
  EXPECT_EQ(expected, shipped);
  EXPECT_GE(expected.size(), 5u);
  EXPECT_GE(from_raw, 1);  // H200, measured with hwcal (hwcal/data/h200/2026-11-30)
}

TEST(BuiltinCalibration, OwnMeasurementsWinOverPublishedOnesAndFactsAreAdded) {
  Calibration own;
  own.gpu = "H200";
  own.raw = "hwcal/data/x.json";
  own.values.push_back({"roofline.memory_efficiency", units::Dim::Ratio, 0.9, 0, 0, 20, "hwcal"});
  Calibration published;
  published.gpu = "H200";
  published.raw = std::string(kGpuBenchesSource) + " abc gpu-stream/h200.txt";
  published.values.push_back({"roofline.memory_efficiency", units::Dim::Ratio, 0.7, 0, 0, 9, "gpu-stream"});
  published.values.push_back({"contention.bw_saturation_fraction", units::Dim::Ratio, 0.3, 0, 0, 9, "gpu-stream"});
  published.facts.push_back({"launch_overhead", units::Dim::Time, 2.5e-6, "gpu-small-kernels"});
  EXPECT_TRUE(from_gpu_benches(published));
  EXPECT_FALSE(from_gpu_benches(own));
  add_published(own, published);
  ASSERT_EQ(own.values.size(), 2u);
  EXPECT_DOUBLE_EQ(own.overrides().at("roofline.memory_efficiency"), 0.9);
  EXPECT_DOUBLE_EQ(own.overrides().at("contention.bw_saturation_fraction"), 0.3);
  ASSERT_EQ(own.facts.size(), 1u);
  published.gpu = "A40";
  EXPECT_THROW(add_published(own, published), InputError);
}

TEST(BuiltinCalibration, FactsRoundTripAndUnknownFactsAreRefused) {
  const Calibration* c = builtin_calibration("A40");
  ASSERT_NE(c, nullptr);
  ASSERT_FALSE(c->facts.empty());
  const Calibration back = read_calibration_text(calibration_yaml(*c), "x.yaml");
  ASSERT_EQ(back.facts.size(), c->facts.size());
  for (size_t i = 0; i < back.facts.size(); ++i) EXPECT_NEAR(back.facts[i].value, c->facts[i].value, 1e-12);
  const std::string bad = "version: 1\ngpu: A40\nparameters: {}\nfacts:\n  launch_overhed: {value: 2us}\n";
  EXPECT_NE(error_reading([&] { read_calibration_text(bad, "b.yaml"); }).find("b.yaml:5:3: facts.launch_overhed"),
            std::string::npos);
}

TEST(BuiltinCalibration, ScenariosUseTheShippedCalibrationUnlessTheyOptOut) {
  const Calibration* c = builtin_calibration("A100-80GB");
  ASSERT_NE(c, nullptr);
  const auto scenario = [](const std::string& gpu_extra) {
    return "version: 1\nname: t\nduration: 1s\ngpus:\n  - {id: g0, model: A100-80GB" + gpu_extra +
           "}\nsharing:\n  g0: {mode: mps}\ntenants:\n  - {name: a, on: g0, workload: {training: {step: {bytes: "
           "1GB}}}}\n";
  };
  const Scenario shipped = load_scenario_text(scenario(""), "t.yaml", builtin_catalog());
  EXPECT_DOUBLE_EQ(shipped.gpus[0].performance.memory_efficiency,
                   c->overrides().at("roofline.memory_efficiency"));
  EXPECT_DOUBLE_EQ(shipped.sharing[0].params.get("bw_saturation_fraction"),
                   c->overrides().at("contention.bw_saturation_fraction"));
  const Scenario none = load_scenario_text(scenario(", calibration: none"), "t.yaml", builtin_catalog());
  EXPECT_DOUBLE_EQ(none.gpus[0].performance.memory_efficiency, 0.9);
  EXPECT_DOUBLE_EQ(none.sharing[0].params.get("bw_saturation_fraction"), 1.0);
  // The scenario's own value still wins over the shipped one.
  const Scenario own = load_scenario_text(scenario(", memory_efficiency: 50%"), "t.yaml", builtin_catalog());
  EXPECT_DOUBLE_EQ(own.gpus[0].performance.memory_efficiency, 0.5);
}

// Lucid's format: pairs joined to their solo profiles, a pair without one skipped, every baseline on every case, the
// constant-mean baseline from the pairs of the other families only, and the table by band.
TEST(PublishedLucid, FixtureCasesCarryEveryBaselineAndTheBands) {
  const std::vector<ValidationRun> runs =
      validate_lucid(std::string(VGPUSIM_SOURCE_DIR) + "/tests/data/lucid-fixture", {});
  ASSERT_EQ(runs.size(), 1u);
  const ValidationRun& run = runs[0];
  ASSERT_EQ(run.cases.size(), 96u);  // each job-speed in the three splits, then in the in-sample split
  ASSERT_EQ(run.skipped.size(), 2u);
  EXPECT_EQ(run.skipped[0].reason, "a job of the pair has no solo profile");
  // Two data-parallel jobs of two GPUs each: the solo profiles are one GPU's, so the pair is not predicted.
  EXPECT_EQ(run.skipped[1].reason,
            "a job of the pair spans several GPUs (gpu_num > 1; the solo profiles are one GPU's)");
  for (const ValidationCase& c : run.cases) {
    for (const char* b : {"no_interference", "half", "util_rule", "train_mean"}) EXPECT_TRUE(c.baseline.count(b)) << b;
    EXPECT_GT(c.predicted, 0);
    EXPECT_LE(c.predicted, 1.02) << c.id;  // random launch gaps over 30 steps
    EXPECT_FALSE(c.band.empty());
  }
  // ConvA (85%) beside ConvA: the utilization rule gives 1 / 1.7.
  EXPECT_NEAR(run.cases[0].baseline.at("util_rule"), 1 / 1.7, 1e-12);
  EXPECT_EQ(run.cases[0].band, "summed solo gpu_util >= 160%");
  // Agent beside Agent: seven families dealt into 5 folds in name order put Agent and Rnn in one, so its training
  // pairs are the five with neither (ConvA-ConvA, Gan-ConvA, Mlp-Gan, Loader-ConvA, Twin-ConvA).
  const ValidationCase& agents = run.cases[30];  // pair 5, its first job, shipped defaults
  ASSERT_NE(agents.id.find("Agent/Game/16 beside Agent/Game/16"), std::string::npos) << agents.id;
  EXPECT_NEAR(agents.baseline.at("train_mean"), (1.23 + 1.45 + 1.65 + 1.65 + 1.55) / 10, 1e-12);
  // Two 25% jobs lose something when their GPU phases meet, never as much as half.
  EXPECT_GT(agents.predicted, 0.7);
  EXPECT_LT(agents.predicted, 1.0);
  // Loader and Twin show the same telemetry at batch 64, but Loader's host time grows in proportion to its batch
  // (32: 3 ms, 64: 6 ms: its input pipeline, beside the GPU) where Twin's does not (6 ms at both: serial with its
  // kernels). Beside the same ConvA, Loader's host phase hides part of its wait for ConvA's slices.
  for (size_t split = 0; split < 2; ++split) {
    const ValidationCase& loader = run.cases[60 + split];  // pair 11, its first job
    const ValidationCase& twin = run.cases[66 + split];    // pair 12, its first job
    ASSERT_NE(loader.id.find("Loader/Images/64 beside ConvA"), std::string::npos) << loader.id;
    ASSERT_NE(twin.id.find("Twin/Images/64 beside ConvA"), std::string::npos) << twin.id;
    EXPECT_GT(loader.predicted, twin.predicted + 0.05) << loader.id;
  }
  // As a scenario with one profile per job: the two alike (their phase serial), and the split named for the trust band.
  EXPECT_EQ(run.cases[62].split, kLucidOneProfileSplit);
  EXPECT_EQ(std::string(kLucidOneProfileSplit),
            "busy_exponent fitted on the other families, one profile per job (host phase serial)");
  EXPECT_NEAR(run.cases[62].predicted, run.cases[68].predicted, 1e-9);
  // The in-sample split (the shipped default's source) after the others, pair by pair: the grid value with the
  // smallest error over every pair, so no larger an error than the shipped value's (on the grid), and the constant
  // mean of every pair.
  for (size_t k = 72; k < run.cases.size(); ++k) EXPECT_EQ(run.cases[k].split, kLucidInSampleSplit);
  EXPECT_EQ(run.cases[72].id.substr(0, run.cases[0].id.size()), run.cases[0].id);
  double speeds = 0;
  for (size_t k = 72; k < run.cases.size(); ++k) speeds += run.cases[k].measured;
  EXPECT_NEAR(run.cases[72].baseline.at("train_mean"), speeds / 24, 1e-12);
  bool banded = false;
  double shipped = -1, in_sample = -1;
  for (const ValidationSummary& s : summarize(run)) {
    banded = banded || s.split == "shipped defaults, no fit, summed solo gpu_util < 100%";
    if (s.split == "shipped defaults, no fit") shipped = s.mape;
    if (s.split == kLucidInSampleSplit) in_sample = s.mape;
  }
  EXPECT_TRUE(banded);
  ASSERT_GT(shipped, 0);
  ASSERT_GT(in_sample, 0);
  EXPECT_LE(in_sample, shipped + 1e-9);
}

// MIGPerf through the op model: a full-GPU step the CPU bound (the same 11 ms at batch 1 and 8) is not taken for GPU
// time on a slice; the slice's GPU part comes from the model's time there at the workload's kernel speed, which the
// full GPU's largest batch (the GPU bound it) gives.
TEST(PublishedMigPerf, TheFittedStepRecoversTheOverlapThatMadeTheRows) {
  // Steps made by a known CPU part, kernel speed and overlap over model times from 2 to 200 ms; the fit finds them.
  for (const double p : {2.0, 4.0, std::numeric_limits<double>::infinity()}) {
    std::vector<std::pair<double, double>> rows;
    for (const double model : {0.002, 0.005, 0.01, 0.02, 0.04, 0.08, 0.2})
      rows.emplace_back(overlapped(0.010, 0.5 * model, p), model);
    const StepFit f = fit_step(rows);
    EXPECT_EQ(f.sharpness, p);
    EXPECT_NEAR(f.cpu / 0.010, 1.0, 0.02) << p;
    EXPECT_NEAR(f.speed / 0.5, 1.0, 0.02) << p;
  }
  // Two rows: nothing fitted, the smallest measured / model ratio.
  const StepFit two = fit_step({{0.011, 0.004}, {0.030, 0.150}});
  EXPECT_EQ(two.cpu, 0.0);
  EXPECT_NEAR(two.speed, 0.2, 1e-12);
}

TEST(PublishedMigPerf, AFullGpuStepTheCpuBoundStaysCpuBoundOnASlice) {
  const fs::path d = temp_dir("migperf-op");
  fs::create_directories(d / "data" / "A100-40g" / "mocel_compare");
  write(d / "migperf_consolidated_A100-80g.csv",
        "gpu,task,domain,file,model,batch_size,seq_length,mig_profile,latency_ms,throughput,gract_mean,"
        "fb_used_mean_MiB\n");
  std::string rows =
      "Unnamed: 0,model_name,total_params,seq_length,batch_size,latency,latency_std,throughput,start_timestamp,"
      "end_timestamp,gract_mean,gract_std,fb_used_mean,fb_used_std,instance_memory\n";
  int line = 0;
  const auto row = [&](int batch, double latency_ms, int instance_gb) {
    rows += fmt::format("{},bert-base-multilingual-cased,1,64,{},{},0.1,{},0,0,0.5,0.1,2000.0,0.0,{}\n", line++, batch,
                        latency_ms, batch * 1000.0 / latency_ms, instance_gb);
  };
  row(1, 11.0, 40);
  row(8, 11.0, 40);
  row(256, 30.0, 40);
  row(1, 11.0, 5);
  row(8, 14.0, 5);
  row(256, 200.0, 5);
  write(d / "data" / "A100-40g" / "mocel_compare" / "bert_bsz.csv", rows);
  const std::vector<ValidationRun> runs = validate_migperf(d.string(), PublishedOptions{});
  ASSERT_EQ(runs.size(), 1u);
  std::map<std::string, double> op;
  for (const ValidationCase& c : runs[0].cases)
    if (c.split == "op model by shapes, step fitted on the full GPU") op[c.id] = c.predicted;
  ASSERT_EQ(op.size(), 3u);
  const std::string id = "infer nlp bert-base-multilingual-cased batch ";
  // Batch 1 and 8: the slice runs the CPU's 11 ms step (its GPU part is shorter there).
  EXPECT_NEAR(op.at(id + "1 seq 64 on 1g.5gb"), 1000.0 / 11.0, 1e-6);
  EXPECT_NEAR(op.at(id + "8 seq 64 on 1g.5gb"), 8000.0 / 11.0, 1e-6);
  // Batch 256, GPU-bound: slower on the 14-SM slice than the whole 98-SM GPU, by less than the SMs' ratio allows
  // for and more than nothing.
  const double whole = 256000.0 / 30.0, slice = op.at(id + "256 seq 64 on 1g.5gb");
  EXPECT_LT(slice, whole / 3);
  EXPECT_GT(slice, whole * 14.0 / 98.0 * 0.8);
  // The baselines of that split: proportional to SMs, and the SM share of the workload's peak (batch 256 here),
  // which keeps the launch-bound batches at their full-GPU speed; the no-fit split has only the first.
  std::map<std::string, std::map<std::string, double>> baseline;
  for (const ValidationCase& c : runs[0].cases) {
    if (c.split == "op model by shapes, step fitted on the full GPU") baseline[c.id] = c.baseline;
    if (c.split == "no fit") {
      EXPECT_EQ(c.baseline.size(), 1u) << c.id;
    }
  }
  const std::map<std::string, double>& b1 = baseline.at(id + "1 seq 64 on 1g.5gb");
  EXPECT_NEAR(b1.at("proportional to SMs"), 1000.0 / 11.0 * 14.0 / 98.0, 1e-6);
  EXPECT_NEAR(b1.at("SM share of the peak"), 1000.0 / 11.0, 1e-6);
  EXPECT_NEAR(baseline.at(id + "256 seq 64 on 1g.5gb").at("SM share of the peak"), whole * 14.0 / 98.0, 1e-6);
}

}  // namespace unit_published
