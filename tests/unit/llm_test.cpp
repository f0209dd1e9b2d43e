// LLM serving: the transformer ops, the server's scheduler (batches, chunked prefill, KV blocks, preemption), its
// memory from what the process sees, the request sources, its metrics, bad input, and the op model against Vidur.
#include <gtest/gtest.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <numeric>

#include "models/gpu/roofline.hpp"
#include "models/workload/distribution.hpp"
#include "models/workload/llm.hpp"
#include "sim/core/errors.hpp"
#include "sim/io/gpu_catalog.hpp"
#include "sim/io/llm_catalog.hpp"
#include "sim/report/timeline.hpp"
#include "sim/run/metrics.hpp"
#include "sim/run/simulation.hpp"
#include "sim/scenario/loader.hpp"
#include "sim/studies/validation/published.hpp"
#include "tests/unit/scenario_helpers.hpp"

namespace unit_llm {

using namespace vgpusim;
using testing_support::error_of;

namespace {

std::string scenario(const std::string& workload, const std::string& sharing = "{mode: timeslice}",
                     const std::string& gpu = "H100-SXM", const std::string& tenant_extra = "",
                     const std::string& top = "duration: 600s\nstart_jitter: 0s\nreplications: 1\n") {
  return "version: 1\nname: llm\n" + top + "gpus: [{id: g0, model: " + gpu + "}]\nsharing: {g0: " + sharing +
         "}\ntenants:\n  - name: s\n    on: g0\n" + tenant_extra + "    workload:\n      llm: " + workload + "\n";
}

Scenario load(const std::string& text) { return load_scenario_text(text, "l.yaml", builtin_catalog()); }

const LlmWorkload& llm_of(const Scenario& sc, size_t t = 0) {
  return dynamic_cast<const LlmWorkload&>(*sc.tenants[t].workload);
}

// Solo time of one iteration's kernels on the tenant's GPU.
double iteration_time(const Scenario& sc, const LlmBatch& b) {
  const LlmWorkload& w = llm_of(sc);
  double t = 0;
  for (const KernelSpec& k : llm_iteration(w.model, w.server, b))
    t += solo_time(k, sc.gpus[0].spec, sc.gpus[0].performance);
  return t;
}

const std::vector<double>& samples(const RunRecord& r, const std::string& name) {
  for (const auto& [n, v] : r.tenants[0].samples)
    if (n == name) return v;
  static const std::vector<double> none;
  return none;
}
double count(const RunRecord& r, const std::string& name) {
  for (const auto& [n, v] : r.tenants[0].counts)
    if (n == name) return v;
  return 0;
}

std::string write_trace(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / name;
  std::ofstream(path) << text;
  return path.string();
}

}  // namespace

TEST(LlmOps, GemmTilesRunInWholeWaves) {
  const GpuSpec& h100 = builtin_catalog().find("H100-SXM")->spec;  // 132 SMs
  const RooflineParams p = RooflineParams::table().defaults();
  // 64 x 8448 outputs = 132 tiles: one full wave; one more row of tiles doubles the waves, not the work.
  const KernelSpec one = gemm_kernel(64, 8192, 132 * 64, 2);
  const KernelSpec two = gemm_kernel(128, 8192, 132 * 64, 2);
  EXPECT_EQ(one.blocks, 132);
  EXPECT_EQ(two.blocks, 264);
  const KernelSpec just_over = gemm_kernel(65, 8192, 132 * 64, 2);  // padded to 128 rows: 264 tiles, 2 waves
  EXPECT_DOUBLE_EQ(kernel_times(just_over, h100, p).compute, kernel_times(two, h100, p).compute);
  // 133 tiles: two waves, the second nearly empty, as long as 264 tiles.
  const KernelSpec tail = gemm_kernel(64, 8192, 133 * 64, 2);
  EXPECT_NEAR(kernel_times(tail, h100, p).compute, kernel_times(gemm_kernel(64, 8192, 264 * 64, 2), h100, p).compute,
              1e-15);
  EXPECT_DOUBLE_EQ(kernel_times(tail, h100, p).sm_fill, 1.0);  // its first wave fills the GPU
  // A generic kernel with the same work has no waves: 133 blocks fill the GPU.
  KernelSpec generic = tail;
  generic.op = OpClass::Generic;
  EXPECT_LT(kernel_times(generic, h100, p).compute, 0.6 * kernel_times(tail, h100, p).compute);
}

TEST(LlmOps, OpClassParametersScaleOnlyTheirClass) {
  const GpuSpec& a100 = builtin_catalog().find("A100-80GB")->spec;
  RooflineParams p = RooflineParams::table().defaults();
  LlmShape s = find_llm_model("Llama-2-7B")->shape;
  const KernelSpec norm = llm_op_kernel(LlmOp::InputNorm, s, 4096, 1);
  const KernelSpec add = llm_op_kernel(LlmOp::Add, s, 4096, 1);
  const double norm_before = kernel_times(norm, a100, p).memory, add_before = kernel_times(add, a100, p).memory;
  p.traffic[static_cast<size_t>(OpClass::Norm)] = 2.5;
  p.class_overhead[static_cast<size_t>(OpClass::Norm)] = 0.5;
  EXPECT_DOUBLE_EQ(kernel_times(norm, a100, p).memory, 2.5 * norm_before);
  EXPECT_DOUBLE_EQ(kernel_times(norm, a100, p).overhead, 0.5 * p.launch_overhead);
  EXPECT_DOUBLE_EQ(kernel_times(add, a100, p).memory, add_before);
  // gemm_efficiency replaces compute_efficiency for GEMMs only.
  const KernelSpec up = llm_op_kernel(LlmOp::MlpUp, s, 8192, 1);
  const double up_before = kernel_times(up, a100, p).compute;
  p.gemm_efficiency = p.compute_efficiency / 2;
  EXPECT_DOUBLE_EQ(kernel_times(up, a100, p).compute, 2 * up_before);
}

TEST(LlmOps, ShapesAndMemory) {
  const LlmShape s = find_llm_model("llama-2-7b")->shape;  // names are case-insensitive
  EXPECT_NEAR(s.weight_bytes() / 2, 6.74e9, 0.01e9);     // 6.74 B parameters
  EXPECT_DOUBLE_EQ(s.kv_bytes_per_token(1), 2 * 2 * 32 * 32 * 128.0);  // 512 KiB
  EXPECT_DOUBLE_EQ(find_llm_model("Llama-3-8B")->shape.kv_bytes_per_token(2), 2 * 2 * 32 * 8 * 128.0 / 2);
  EXPECT_EQ(llm_shape_error(s, 1), "");
  LlmShape bad = s;
  bad.heads = 30;
  EXPECT_EQ(llm_shape_error(bad, 1), "heads (30) do not divide hidden_size (4096)");
  bad = s;
  bad.kv_heads = 5;
  EXPECT_EQ(llm_shape_error(bad, 1), "kv_heads (5) do not divide heads (32)");
  EXPECT_EQ(llm_shape_error(find_llm_model("Llama-3-8B")->shape, 16),
            "tensor_parallel 16 does not divide heads (32) and kv_heads (8)");
  EXPECT_GE(builtin_llm_models().size(), 10u);
  for (const LlmModelEntry& e : builtin_llm_models()) EXPECT_FALSE(e.source.empty()) << e.shape.name;
}

TEST(LlmOps, TensorParallelIterationsAllReduceTwicePerLayer) {
  const LlmShape s = find_llm_model("Llama-2-70B")->shape;
  LlmServerParams e = LlmServerParams::table().defaults();
  e.tensor_parallel = 4;
  const auto kernels = llm_iteration(s, e, {0, 0, 0, 8, 8 * 1000, 8});
  double allreduce_time = 0, allreduce_kernels = 0;
  for (const KernelSpec& k : kernels)
    if (k.fixed_time > 0) allreduce_time += k.fixed_time, allreduce_kernels += k.kernels;
  EXPECT_EQ(allreduce_kernels, 2 * 80);
  // Ring: 2 (N - 1) / N x bytes / bandwidth + 2 (N - 1) x latency per all-reduce.
  const double bytes = 8 * 8192 * 2.0;
  EXPECT_NEAR(allreduce_time, 160 * (1.5 * bytes / e.link_bandwidth + 6 * e.link_latency), 1e-12);
  e.tensor_parallel = 1;
  for (const KernelSpec& k : llm_iteration(s, e, {0, 0, 0, 8, 8000, 8})) EXPECT_EQ(k.fixed_time, 0);
}

TEST(LlmServer, OneRequestTakesItsPrefillAndDecodeIterations) {
  const Scenario sc = load(scenario(
      "{model: Llama-2-7B, rate: 1/s, requests: 1, prompt_tokens: 100, output_tokens: 3, cpu_per_iteration: 1ms, "
      "cpu_per_sequence: 0.5ms}"));
  const RunRecord r = simulate(sc);
  ASSERT_EQ(r.tenants[0].units, 1);
  const double cpu = 1.5e-3;
  const double prefill = cpu + iteration_time(sc, {100, 100 * (0 + 101.0 / 2), 0, 0, 0, 1});
  const double decode1 = cpu + iteration_time(sc, {0, 0, 0, 1, 101, 1});
  const double decode2 = cpu + iteration_time(sc, {0, 0, 0, 1, 102, 1});
  ASSERT_EQ(samples(r, "ttft").size(), 1u);
  EXPECT_NEAR(samples(r, "ttft")[0], prefill, 1e-9);
  EXPECT_NEAR(samples(r, "tpot")[0], (decode1 + decode2) / 2, 1e-9);
  EXPECT_NEAR(r.tenants[0].unit_times[0], prefill + decode1 + decode2, 1e-9);
  EXPECT_EQ(count(r, "output_tokens"), 3);
  EXPECT_EQ(count(r, "preemptions"), 0);
}

TEST(LlmServer, ItsParametersComeFromTheCalibrationThenTheScenario) {
  // The server's CPU costs and limits are the `llm` model's parameters: their defaults, a GPU calibration's
  // llm.* values, then the tenant's own keys.
  const Scenario defaults = load(scenario("{model: Llama-2-7B, rate: 1/s}"));
  EXPECT_EQ(llm_of(defaults).server.cpu_per_iteration, 2.02e-3);
  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / "vgpusim-llm-cal";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "h100.yaml") << "version: 1\ngpu: H100-SXM\nparameters:\n"
                                      "  llm.cpu_per_iteration: {value: 1ms}\n  llm.max_seqs: {value: 32}\n";
  std::string text = scenario("{model: Llama-2-7B, rate: 1/s}");
  text.replace(text.find("model: H100-SXM}"), 16, "model: H100-SXM, calibration: h100.yaml}");
  const Scenario calibrated = load_scenario_text(text, (dir / "l.yaml").string(), builtin_catalog());
  const LlmWorkload& cal = llm_of(calibrated);
  EXPECT_DOUBLE_EQ(cal.server.cpu_per_iteration, 1e-3);
  EXPECT_EQ(cal.server.max_seqs, 32);
  std::string own = scenario("{model: Llama-2-7B, rate: 1/s, max_seqs: 8}");
  own.replace(own.find("model: H100-SXM}"), 16, "model: H100-SXM, calibration: h100.yaml}");
  const Scenario own_values = load_scenario_text(own, (dir / "l.yaml").string(), builtin_catalog());
  EXPECT_EQ(llm_of(own_values).server.max_seqs, 8);
  // A whole-number parameter is read as an integer.
  EXPECT_NE(error_of(scenario("{model: Llama-2-7B, rate: 1/s, max_seqs: 2.5}"), "l.yaml").find("expected an integer"),
            std::string::npos);
}

TEST(LlmServer, TheTimelineNamesEachOpAndItsBatch) {
  const Scenario sc = load(scenario("{model: Llama-2-7B, rate: 1/s, requests: 1, prompt_tokens: 100, output_tokens: 2}"));
  Timeline timeline;
  simulate(sc, nullptr, &timeline);
  std::map<std::string, int> ops;
  const nlohmann::json j = nlohmann::json::parse(timeline.to_json());
  for (const auto& e : j["traceEvents"])
    if (e["ph"] == "X" && e.contains("args") && e["args"].contains("iteration")) ++ops[e["name"].get<std::string>()];
  // Two iterations (the prefill, one decode), every op once each; attention of each kind once.
  for (const char* op : {"emb", "attn_pre_proj", "mlp_up_proj", "add", "lm_head"}) EXPECT_EQ(ops[op], 2) << op;
  EXPECT_EQ(ops["attn_prefill"], 1);
  EXPECT_EQ(ops["attn_decode"], 1);
  EXPECT_EQ(ops.count("all_reduce"), 0u);
}

TEST(LlmServer, ChunkedPrefillSplitsALongPromptAndUnchunkedDoesNot) {
  const std::string w = "{model: Llama-3-8B, rate: 1/s, requests: 1, prompt_tokens: 5000, output_tokens: 2, "
                        "max_batched_tokens: 2048, cpu_per_iteration: 10ms, cpu_per_sequence: 0s";
  const Scenario chunked = load(scenario(w + "}"));
  const RunRecord a = simulate(chunked);
  // Three iterations (2048 + 2048 + 904 tokens) before the first token, each with its 10 ms of CPU.
  // The later chunks read the keys and values the earlier ones cached.
  const double expected = 30e-3 + iteration_time(chunked, {2048, 2048 * 1024.5, 0, 0, 0, 0}) +
                          iteration_time(chunked, {2048, 2048 * (2048 + 1024.5), 2048, 0, 0, 0}) +
                          iteration_time(chunked, {904, 904 * (4096 + 452.5), 4096, 0, 0, 1});
  EXPECT_NEAR(samples(a, "ttft")[0], expected, 1e-9);
  const RunRecord b = simulate(load(scenario(w + ", chunked_prefill: false}")));
  EXPECT_NEAR(samples(b, "ttft")[0], 10e-3 + iteration_time(chunked, {5000, 5000 * 2500.5, 0, 0, 0, 1}), 1e-9);
  EXPECT_LT(samples(b, "ttft")[0], samples(a, "ttft")[0]);
}

TEST(LlmServer, KvCacheFromWhatTheProcessSees) {
  // Whole H100 (80 GiB), a MIG 3g.40gb instance (39.5 GiB), an MPS client limited to 20 GiB, a tenant's own memory.
  const std::string w = "{model: Llama-3-8B, rate: 1/s, requests: 1, max_model_len: 4096}";
  const Scenario whole = load(scenario(w));
  const double per_block = find_llm_model("Llama-3-8B")->shape.kv_bytes_per_token(1) * 16;
  const LlmWorkload& a = llm_of(whole);
  EXPECT_DOUBLE_EQ(a.allocated, 0.9 * 80 * std::pow(1024.0, 3));
  EXPECT_DOUBLE_EQ(whole.tenants[0].memory, a.allocated);
  EXPECT_EQ(a.kv_blocks, static_cast<long long>((a.allocated - a.weight_bytes() - a.activation_bytes()) / per_block));
  std::string mig_text = scenario(w, "{mode: mig, partitions: [{id: a, profile: 3g.40gb}]}");
  mig_text.replace(mig_text.find("on: g0"), 6, "on: g0/a");
  const Scenario mig = load(mig_text);
  EXPECT_DOUBLE_EQ(llm_of(mig).allocated, 0.9 * 39.5 * std::pow(1024.0, 3));
  const Scenario mps = load(scenario(w, "{mode: mps}", "H100-SXM", "    share: {memory_limit: 20GiB}\n"));
  EXPECT_DOUBLE_EQ(llm_of(mps).allocated, 0.9 * 20 * std::pow(1024.0, 3));
  // A vGPU's usable framebuffer: its type's 40 GiB less the hypervisor's reservation (size / 16 + 16 MiB + 128 MiB
  // / 2 vGPUs of the type).
  const Scenario vgpu = load(scenario(w, "{mode: vgpu, profile: H100-40C}"));
  const double usable = 40 * std::pow(1024.0, 3) * 15 / 16 - 16 * std::pow(1024.0, 2) - 64 * std::pow(1024.0, 2);
  EXPECT_NEAR(llm_of(vgpu).allocated, 0.9 * usable, 1.0);
  const Scenario own = load(scenario(w, "{mode: timeslice}", "H100-SXM", "    memory: 30GiB\n"));
  EXPECT_DOUBLE_EQ(llm_of(own).allocated, 0.9 * 30 * std::pow(1024.0, 3));
  EXPECT_DOUBLE_EQ(own.tenants[0].memory, 30 * std::pow(1024.0, 3));  // what the tenant said it takes
}

TEST(LlmServer, TooLittleKvCachePreemptsAndStillServesEveryRequest) {
  // 20 GiB x 0.9 leaves ~2.8 GiB of KV cache for Llama-3-8B: 22,000 tokens. 40 requests of 1,500 + 500 tokens
  // arriving at once need 80,000.
  const std::string w = "{model: Llama-3-8B, rate: 1000/s, requests: 40, prompt_tokens: 1500, output_tokens: 500, "
                        "max_model_len: 4096}";
  const RunRecord tight = simulate(load(scenario(w, "{mode: timeslice}", "H100-SXM", "    memory: 20GiB\n")));
  EXPECT_EQ(tight.tenants[0].units, 40);
  EXPECT_GT(count(tight, "preemptions"), 0);
  EXPECT_EQ(count(tight, "output_tokens"), 40 * 500);
  const RunRecord roomy = simulate(load(scenario(w)));
  EXPECT_EQ(count(roomy, "preemptions"), 0);
  // Reported as 0, not left out.
  EXPECT_TRUE(std::any_of(roomy.tenants[0].counts.begin(), roomy.tenants[0].counts.end(),
                          [](const auto& c) { return c.first == "preemptions"; }));
  // KV cache busy time: a share of the run, larger when the cache is small.
  const double busy_tight = count(tight, "kv_cache_busy_s") / (tight.tenants[0].finish - tight.tenants[0].start);
  const double busy_roomy = count(roomy, "kv_cache_busy_s") / (roomy.tenants[0].finish - roomy.tenants[0].start);
  EXPECT_GT(busy_tight, 0.5);
  EXPECT_LE(busy_tight, 1.0 + 1e-9);
  EXPECT_LT(busy_roomy, busy_tight);
}

TEST(LlmServer, ContinuousBatchingServesConcurrentRequestsTogether) {
  // 32 requests at once: batched decodes make the whole far shorter than 32 requests one after another.
  const std::string w = "{model: Llama-2-7B, rate: 100000/s, requests: 32, prompt_tokens: 200, output_tokens: 100}";
  const Scenario sc = load(scenario(w));
  const RunRecord r = simulate(sc);
  ASSERT_EQ(r.tenants[0].units, 32);
  const RunRecord one = simulate(load(scenario(
      "{model: Llama-2-7B, rate: 100000/s, requests: 1, prompt_tokens: 200, output_tokens: 100}")));
  EXPECT_LT(r.tenants[0].finish - r.tenants[0].start, 4 * (one.tenants[0].finish - one.tenants[0].start));
  // max_seqs 4: at most four sequences at a time, so the batch takes longer.
  const RunRecord four = simulate(load(scenario(
      "{model: Llama-2-7B, rate: 100000/s, requests: 32, prompt_tokens: 200, output_tokens: 100, max_seqs: 4}")));
  EXPECT_GT(four.tenants[0].finish, 3 * r.tenants[0].finish);
}

TEST(LlmServer, ClosedLoopClientsFollowLittlesLaw) {
  const Scenario sc = load(scenario(
      "{model: Llama-2-7B, clients: 6, think: 0.5s, prompt_tokens: {distribution: gamma, mean: 400, sd: 200}, "
      "output_tokens: {distribution: gamma, mean: 50, sd: 30}}",
      "{mode: timeslice}", "H100-SXM", "", "duration: 120s\nstart_jitter: 0s\nreplications: 1\n"));
  const RunRecord r = simulate(sc);
  const auto& t = r.tenants[0].unit_times;
  ASSERT_GT(t.size(), 500u);
  const double mean = std::accumulate(t.begin(), t.end(), 0.0) / static_cast<double>(t.size());
  const double throughput = static_cast<double>(t.size()) / 120;
  EXPECT_NEAR(throughput * (mean + 0.5), 6, 0.3);
}

TEST(LlmServer, TraceRequestsArriveWhenTheTraceSays) {
  const std::string path = write_trace("vgpusim_llm_trace.csv",
                                       "# test\narrived_at,num_prefill_tokens,num_decode_tokens\n0.5,100,4\n2.0,50,"
                                       "1\n2.0,9000,5\n");
  const Scenario sc = load(scenario(fmt::format("{{model: Llama-2-7B, trace: {}, trace_speed: 2}}", path)));
  const RunRecord r = simulate(sc);
  // The third prompt is longer than Llama-2-7B's 4096 tokens: refused.
  EXPECT_EQ(r.tenants[0].units, 2);
  EXPECT_EQ(count(r, "rejected"), 1);
  EXPECT_EQ(count(r, "output_tokens"), 5);
  // At double speed the first arrives at 0.25 s; its latency runs from then.
  EXPECT_NEAR(r.tenants[0].finish, 1.0 + r.tenants[0].unit_times.back(), 1e-9);
  EXPECT_LT(r.tenants[0].unit_times.front(), 0.5);
}

TEST(LlmServer, AMigSliceServesSlowerThanTheWholeGpu) {
  const std::string w = "{model: Llama-3-8B, rate: 2/s, requests: 200, prompt_tokens: 800, output_tokens: 150, "
                        "max_model_len: 4096}";
  const Results whole = testing_support::run_text(scenario(w));
  std::string text = scenario(w, "{mode: mig, partitions: [{id: a, profile: 2g.20gb}]}");
  text.replace(text.find("on: g0"), 6, "on: g0/a");
  const Results mig = testing_support::run_text(text);
  auto p50 = [](const Results& r, const std::string& name) {
    for (const SampleSummary& s : r.tenants[0].shared.samples)
      if (s.name == name) return s.p50;
    return 0.0;
  };
  EXPECT_GT(p50(mig, "tpot"), 1.5 * p50(whole, "tpot"));
  EXPECT_GT(p50(mig, "ttft"), 1.5 * p50(whole, "ttft"));
  // The vGPU loss compares with the same server alone on the whole GPU... the MIG tenant's baseline is its GPU's.
  EXPECT_GT(mig.tenants[0].vgpu_loss, 0.2);
}

TEST(LlmServer, SlosOnTtftAndTpotAreJudgedAndReported) {
  const Results r = testing_support::run_text(
      scenario("{model: Llama-2-7B, rate: 2/s, requests: 100, prompt_tokens: 500, output_tokens: 50, "
               "slo: {ttft_p99: 10s, tpot_p50: 1us}}",
               "{mode: timeslice}", "H100-SXM", "", "duration: 600s\nreplications: 2\n"));
  const TenantResult& t = r.tenants[0];
  ASSERT_EQ(t.slo.size(), 2u);
  EXPECT_EQ(t.slo[0].metric, "ttft");
  EXPECT_TRUE(t.slo[0].met);
  EXPECT_EQ(t.slo[1].metric, "tpot");
  EXPECT_FALSE(t.slo[1].met);
  // Every request misses the tpot bound: none is good.
  double good = -1, tokens = 0;
  for (const CountSummary& c : t.shared.counts) {
    if (c.name == "good_requests") good = c.total;
    if (c.name == "output_tokens") tokens = c.total;
  }
  EXPECT_EQ(good, 0);  // reported, as none
  EXPECT_DOUBLE_EQ(tokens, 100 * 50);
  // Two replications: p50 and p99 of the named figures carry intervals.
  for (const SampleSummary& s : t.shared.samples) {
    EXPECT_TRUE(std::isfinite(s.p50_ci95)) << s.name;
    EXPECT_GT(s.count, 80) << s.name;
  }
}

TEST(LlmServer, ATargetOnAFigureNoRequestHasIsMet) {
  // One-token answers have no tpot: the target is met (nothing missed it), the ttft one is judged.
  const Results r = testing_support::run_text(
      scenario("{model: Llama-2-7B, rate: 2/s, requests: 20, prompt_tokens: 100, output_tokens: 1, "
               "slo: {ttft_p99: 10s, tpot_p99: 1us}}"));
  ASSERT_EQ(r.tenants[0].slo.size(), 2u);
  EXPECT_TRUE(r.tenants[0].slo[1].met);
  EXPECT_DOUBLE_EQ(r.tenants[0].slo[1].attainment, 1);
  EXPECT_TRUE(std::isnan(r.tenants[0].slo[1].achieved));
}

TEST(LlmServer, BadInputIsRefusedWithItsPosition) {
  auto err = [](const std::string& w, const std::string& extra = "") {
    return error_of(scenario(w, "{mode: timeslice}", "H100-SXM", extra), "l.yaml");
  };
  EXPECT_EQ(err("{model: Llama-4, rate: 1/s}"),
            "l.yaml:12:20: tenants[0].workload.llm.model: unknown model 'Llama-4'; known: "
            "Llama-2-7B, Llama-2-13B, Llama-2-70B, Llama-3-8B, Llama-3-70B, Llama-3.1-8B, Mistral-7B, Qwen2.5-7B, "
            "CodeLlama-34B, phi-2");
  EXPECT_EQ(err("{model: {layers: 2, hidden: 1000, heads: 3, intermediate: 100, vocab: 10}, rate: 1/s}"),
            "l.yaml:12:20: tenants[0].workload.llm.model: heads (3) do not divide hidden_size (1000)");
  EXPECT_EQ(err("{model: {layers: 2, hidden: 1024, heads: 8, kv_heads: 3, intermediate: 100, vocab: 10}, rate: 1/s}"),
            "l.yaml:12:20: tenants[0].workload.llm.model: kv_heads (3) do not divide heads (8)");
  EXPECT_EQ(err("{model: Llama-2-7B, rate: 1/s, max_seqs: 0}"),
            "l.yaml:12:53: tenants[0].workload.llm.max_seqs: expected an integer from 1 to 1048576, found 0");
  EXPECT_EQ(err("{model: Llama-2-7B, rate: 1/s, clients: 3}"),
            "l.yaml:12:12: tenants[0].workload.llm: give one of `trace`, `rate` (open loop) or `clients` (closed loop)");
  EXPECT_EQ(err("{model: Llama-3-8B, rate: 1/s, tensor_parallel: 3}"),
            "l.yaml:12:60: tenants[0].workload.llm.tensor_parallel: tensor_parallel 3 does not divide heads (32) and "
            "kv_heads (8)");
  // A 70B model on one 80 GB GPU: the numbers say why.
  const std::string big = err("{model: Llama-2-70B, rate: 1/s}");
  EXPECT_NE(big.find("l.yaml:12:7: tenants[0].workload: on g0: Llama-2-70B does not fit: 0.9 x 80 GiB it sees = 72 "
                     "GiB for the server, of which the weights take 128.5 GiB (tensor_parallel 1) and activations "
                     "431.2 MiB, leaving 0 B for the KV cache; one sequence of max_model_len 4096 tokens needs 1.25 GiB "
                     "(320 KiB per token)"),
            std::string::npos)
      << big;
  // Memory the tenant gives beyond what it sees: refused at `memory`.
  std::string mig = scenario("{model: Llama-3-8B, rate: 1/s, max_model_len: 4096}",
                             "{mode: mig, partitions: [{id: a, profile: 3g.40gb}]}", "H100-SXM", "    memory: 60GiB\n");
  mig.replace(mig.find("on: g0"), 6, "on: g0/a");
  EXPECT_EQ(error_of(mig, "l.yaml"),
            "l.yaml:11:13: tenants[0].memory: on g0/a: 60 GiB is more than the 39.5 GiB the tenant sees");
  // A trace with a negative token count, then one out of order.
  const std::string neg = write_trace("vgpusim_llm_neg.csv", "arrived_at,num_prefill_tokens,num_decode_tokens\n0,10,"
                                                             "2\n1,-5,2\n");
  EXPECT_NE(err(fmt::format("{{model: Llama-2-7B, trace: {}}}", neg))
                .find(neg + ":3: num_prefill_tokens: expected a number >= 0, found '-5'"),
            std::string::npos);
  const std::string unsorted = write_trace("vgpusim_llm_unsorted.csv",
                                           "arrived_at,num_prefill_tokens,num_decode_tokens\n2,10,2\n1,5,2\n");
  EXPECT_NE(err(fmt::format("{{model: Llama-2-7B, trace: {}}}", unsorted))
                .find(unsorted + ":3: arrived_at: 1 s is before the request above (2 s): arrivals must be sorted"),
            std::string::npos);
}

TEST(Distributions, GammaHasItsMeanAndSd) {
  Rng rng(3);
  for (const auto& [mean, sd] : {std::pair{2.0, 1.0}, std::pair{1.0, 3.0}}) {
    const Distribution d{Distribution::Kind::Gamma, mean, sd};
    double s = 0, s2 = 0;
    const int n = 200000;
    for (int i = 0; i < n; ++i) {
      const double x = d.sample(rng);
      ASSERT_GE(x, 0);
      s += x, s2 += x * x;
    }
    const double m = s / n;
    EXPECT_NEAR(m, mean, 0.02 * mean);
    EXPECT_NEAR(std::sqrt(s2 / n - m * m), sd, 0.05 * sd);
  }
}

// The op model against Vidur's profiled ops, each model predicted with parameters fitted on the GPU's others.
TEST(LlmOps, VidurOpsWithinTenPercentLeavingOneModelOut) {
  const auto runs = validate_vidur(std::string(VGPUSIM_SOURCE_DIR) + "/scenarios/measurements/vidur", {});
  ASSERT_EQ(runs.size(), 1u);
  std::map<std::string, std::pair<double, int>> by_gpu;
  for (const ValidationCase& c : runs[0].cases) {
    EXPECT_EQ(c.split, "leave one model out");
    by_gpu[c.gpu].first += std::abs(c.predicted - c.measured) / c.measured;
    by_gpu[c.gpu].second += 1;
  }
  ASSERT_EQ(by_gpu.size(), 2u);
  for (const auto& [gpu, e] : by_gpu) {
    const double mape = e.first / e.second;
    std::cout << gpu << ": leave-one-model-out MAPE " << 100 * mape << "% over " << e.second << " ops\n";
    EXPECT_LE(mape, 0.10) << gpu;
  }
}

}  // namespace unit_llm
