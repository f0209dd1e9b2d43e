// Kernels' work from evidence: a launch is linked to the innermost framework op on its thread, the op's shapes
// become an operator-model kernel (TF32 when the kernel's name says so), the recorded time calibrates it on the
// source GPU and the op model's ratio moves it to another; kernels without shapes keep the name rule.
#include <gtest/gtest.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "models/workload/trace_graph.hpp"
#include "models/workload/trace_kernels.hpp"
#include "sim/io/calibration_file.hpp"
#include "sim/io/gpu_catalog.hpp"
#include "sim/io/kineto_reader.hpp"
#include "sim/scenario/loader.hpp"
#include "sim/run/simulation.hpp"

namespace unit_trace_kernels {

using namespace vgpusim;
namespace fs = std::filesystem;

namespace {

// Thread 1: aten::linear [0, 100) encloses aten::addmm [10, 60) whose launch (10 us in) starts a TF32 CUTLASS GEMM;
// aten::mm [100, 150) launches an FP32 SIMT GEMM; a launch outside every op starts an elementwise kernel; aten::cat of
// a tensor list (no sizes recorded) launches a copy kernel.
const char* kTrace = R"json({
  "deviceProperties": [{"id": 0, "name": "NVIDIA A100-SXM4-40GB", "totalGlobalMem": 42505273344, "numSms": 108}],
  "traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": 1, "tid": 1, "ts": 0, "dur": 100,
     "args": {"Input Dims": [[4096, 1024], [2048, 1024], [2048]], "Input type": ["float", "float", "float"]}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::addmm", "pid": 1, "tid": 1, "ts": 10, "dur": 50,
     "args": {"Input Dims": [[2048], [4096, 1024], [1024, 2048], [], []],
              "Input type": ["float", "float", "float", "Scalar", "Scalar"]}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 20, "dur": 5,
     "args": {"correlation": 1}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 100, "dur": 50,
     "args": {"Input Dims": [[512, 256], [256, 128]], "Input type": ["float", "float"]}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 110, "dur": 5,
     "args": {"correlation": 2}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 160, "dur": 5,
     "args": {"correlation": 3}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::cat", "pid": 1, "tid": 1, "ts": 170, "dur": 20,
     "args": {"Input Dims": [[], []], "Input type": ["TensorList", "Scalar"]}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 175, "dur": 5,
     "args": {"correlation": 4}},
    {"ph": "X", "cat": "kernel", "name": "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4>",
     "pid": 0, "tid": 7, "ts": 200, "dur": 300, "args": {"device": 0, "stream": 7, "correlation": 1, "grid": [16, 32, 1],
     "block": [128, 1, 1]}},
    {"ph": "X", "cat": "kernel", "name": "ampere_sgemm_128x64_nn", "pid": 0, "tid": 7, "ts": 500, "dur": 20,
     "args": {"device": 0, "stream": 7, "correlation": 2, "grid": [2, 4, 1], "block": [256, 1, 1]}},
    {"ph": "X", "cat": "kernel", "name": "void at::native::vectorized_elementwise_kernel<4>", "pid": 0, "tid": 7,
     "ts": 520, "dur": 10, "args": {"device": 0, "stream": 7, "correlation": 3, "grid": [64, 1, 1], "block": [128, 1, 1]}},
    {"ph": "X", "cat": "kernel", "name": "void at::native::CatArrayBatchedCopy<float>", "pid": 0, "tid": 7,
     "ts": 530, "dur": 10, "args": {"device": 0, "stream": 7, "correlation": 4, "grid": [64, 1, 1], "block": [128, 1, 1]}}
  ]
})json";

fs::path write_trace() {
  const fs::path p = fs::path(testing::TempDir()) /
                     (std::string(testing::UnitTest::GetInstance()->current_test_info()->name()) + "-trace.json");
  std::ofstream(p) << kTrace;
  return p;
}

Scenario load(const std::string& gpu, const fs::path& trace, const std::string& extra = "",
              const std::string& source = "A100-40GB") {
  const std::string s = "version: 1\nname: k\nfidelity: exact\ngpus: [{id: g0, model: " + gpu +
                        "}]\nsharing: {g0: {mode: passthrough, overhead: 0%}}\ntenants:\n  - name: t\n    on: g0\n"
                        "    workload:\n      trace: {path: " + trace.string() + ", source: " + source + extra + "}\n";
  return load_scenario_text(s, "s.yaml", builtin_catalog());
}

const TraceWorkload& workload_of(const Scenario& sc) {
  return dynamic_cast<const TraceWorkload&>(*sc.tenants.at(0).workload);
}

}  // namespace

TEST(TraceKernels, LaunchesLinkToTheInnermostOpAndItsShapes) {
  const KinetoTrace t = read_kineto_trace(write_trace().string());
  ASSERT_EQ(t.ops.size(), 4u);
  ASSERT_GE(t.ops[0].cpu_op, 0);
  EXPECT_EQ(t.cpu_ops[static_cast<size_t>(t.ops[0].cpu_op)].name, "aten::addmm");  // not the enclosing linear
  EXPECT_EQ(t.cpu_ops[static_cast<size_t>(t.ops[1].cpu_op)].name, "aten::mm");
  EXPECT_EQ(t.ops[2].cpu_op, -1);  // launched outside every op
  const KinetoCpuOp& cat = t.cpu_ops[static_cast<size_t>(t.ops[3].cpu_op)];
  EXPECT_EQ(cat.name, "aten::cat");
  ASSERT_EQ(cat.dims.size(), cat.types.size());

  const auto addmm = op_kernel_from_shapes(t.cpu_ops[static_cast<size_t>(t.ops[0].cpu_op)], t.ops[0]);
  ASSERT_TRUE(addmm);
  EXPECT_EQ(*addmm, OpKernel::gemm(OpKernelClass::Linear, 1, 4096, 2048, 1024, OpDtype::Tf32));
  const auto mm = op_kernel_from_shapes(t.cpu_ops[static_cast<size_t>(t.ops[1].cpu_op)], t.ops[1]);
  ASSERT_TRUE(mm);
  EXPECT_EQ(*mm, OpKernel::gemm(OpKernelClass::Linear, 1, 512, 128, 256, OpDtype::Fp32));
  EXPECT_FALSE(op_kernel_from_shapes(cat, t.ops[3]));  // a tensor list without sizes: no shapes

  KinetoCpuOp add{"aten::add_", {{1024, 256}, {1024, 256}, {}}, {"float", "float", "Scalar"}};
  const auto eltwise = op_kernel_from_shapes(add, t.ops[2]);
  ASSERT_TRUE(eltwise);
  EXPECT_EQ(eltwise->cls, OpKernelClass::Eltwise);
  EXPECT_DOUBLE_EQ(eltwise->bytes, 3 * 4.0 * 1024 * 256);  // two reads, one write
  EXPECT_FALSE(op_kernel_from_shapes(KinetoCpuOp{"fbgemm::unknown_op", {{8}}, {"float"}}, t.ops[2]));
  KinetoCpuOp dmm{"aten::mm", {{64, 64}, {64, 64}}, {"double", "double"}};
  EXPECT_FALSE(op_kernel_from_shapes(dmm, t.ops[1]));  // FP64 GEMMs are outside the model
}

TEST(TraceKernels, TF32RunsOnTensorCoresWhereTheGpuHasThem) {
  const OpDevice a100 = op_device(builtin_catalog().find("A100-40GB")->spec);
  const OpDevice v100 = op_device(builtin_catalog().find("V100")->spec);
  EXPECT_DOUBLE_EQ(a100.tf32_tensor, a100.fp16_tensor / 2);
  EXPECT_EQ(v100.tf32_tensor, 0);
  const OpModelParams p = OpModelParams::table().defaults();
  const OpKernel tf32 = OpKernel::gemm(OpKernelClass::Linear, 1, 4096, 4096, 4096, OpDtype::Tf32);
  const OpKernel fp32 = OpKernel::gemm(OpKernelClass::Linear, 1, 4096, 4096, 4096, OpDtype::Fp32);
  EXPECT_LT(op_kernel_time(tf32, a100, p), 0.5 * op_kernel_time(fp32, a100, p));
  EXPECT_DOUBLE_EQ(op_kernel_time(tf32, v100, p), op_kernel_time(fp32, v100, p));  // no TF32: the FP32 pipes
}

TEST(TraceKernels, RecordedTimeCalibratesAndTheOpModelScales) {
  const fs::path path = write_trace();
  // On the source GPU every op takes its recorded time, whatever its evidence.
  const Scenario source = load("A100-40GB", path);
  const TraceWorkload& w = workload_of(source);
  ASSERT_TRUE(w.graph);
  const std::vector<std::pair<std::string, double>> named = w.facts();
  const std::map<std::string, double> facts(named.begin(), named.end());
  EXPECT_EQ(facts.at("ops_from_shapes"), 2);
  EXPECT_EQ(facts.at("ops_from_launch"), 2);
  const GpuSpec& a100 = builtin_catalog().find("A100-40GB")->spec;
  const GpuSpec& v100 = builtin_catalog().find("V100")->spec;
  const RooflineParams perf = RooflineParams::table().defaults();
  const TraceGraph& g = *w.graph;
  ASSERT_TRUE(g.ops[0].kernel.graph);
  EXPECT_NEAR(solo_time(g.ops[0].kernel, a100, perf), 300e-6, 1e-12);
  EXPECT_NEAR(solo_time(g.ops[1].kernel, a100, perf), 20e-6, 1e-12);
  EXPECT_FALSE(g.ops[2].kernel.graph);
  // On a V100 the TF32 GEMM moves to the FP32 pipes: the op model's ratio, far more than the tensor-rate ratio the
  // name rule gives it.
  const OpModelParams p = OpModelParams::table().defaults();
  const OpKernel k = OpKernel::gemm(OpKernelClass::Linear, 1, 4096, 2048, 1024, OpDtype::Tf32);
  const double ratio = op_kernel_time(k, op_device(v100), p) / op_kernel_time(k, op_device(a100), p);
  EXPECT_NEAR(solo_time(g.ops[0].kernel, v100, perf) / 300e-6, ratio, 1e-9);
  const Scenario names = load("A100-40GB", path, ", kernels: names");
  const TraceGraph& by_name = *workload_of(names).graph;
  EXPECT_FALSE(by_name.ops[0].kernel.graph);
  EXPECT_GT(solo_time(g.ops[0].kernel, v100, perf), 1.5 * solo_time(by_name.ops[0].kernel, v100, perf));
  // Replayed on its own GPU the pass is the recorded one with either rule.
  for (const Scenario* sc : {&source, &names}) {
    const RunRecord r = simulate(*sc);
    ASSERT_EQ(r.tenants[0].units, 1);
    EXPECT_NEAR(r.gpus[0].busy_time, 340e-6, 1e-9);
  }
}

TEST(TraceKernels, ACalibratedSourceTimesItsOpsWithItsMeasuredRate) {
  // Recorded on an H200 (whose shipped calibration measured its FP32 rate): on the H200 each op keeps its recorded
  // time; on a V100 the FP32 GEMM scales by the op model's ratio to the H200 at its measured rate.
  const fs::path path = write_trace();
  const Scenario h200 = load("H200", path, "", "H200");
  const TraceGraph& g = *workload_of(h200).graph;
  ASSERT_TRUE(g.ops[1].kernel.graph);
  const RooflineParams h200_perf = RooflineParams::table().with(builtin_overrides("H200"));
  ASSERT_GT(h200_perf.fp32_efficiency, 0);
  const GpuSpec& h200_spec = builtin_catalog().find("H200")->spec;
  const GpuSpec& v100 = builtin_catalog().find("V100")->spec;
  EXPECT_NEAR(solo_time(g.ops[1].kernel, h200_spec, h200_perf), 20e-6, 1e-12);
  const OpModelParams p = OpModelParams::table().defaults();
  const OpKernel k = OpKernel::gemm(OpKernelClass::Linear, 1, 512, 128, 256);
  const double ratio = op_kernel_time(k, op_device(v100), p) / op_kernel_time(k, op_device(h200_spec, h200_perf), p);
  EXPECT_NEAR(solo_time(g.ops[1].kernel, v100, RooflineParams::table().defaults()) / 20e-6, ratio, 1e-9);
  EXPECT_NE(ratio, op_kernel_time(k, op_device(v100), p) / op_kernel_time(k, op_device(h200_spec), p));
  const RunRecord r = simulate(h200);
  EXPECT_NEAR(r.gpus[0].busy_time, 340e-6, 1e-9);
}

TEST(TraceKernels, UnknownKernelsKeyIsRefused) {
  try {
    load("A100-40GB", write_trace(), ", kernels: sizes");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("expected shapes or names"), std::string::npos) << e.what();
  }
}

}  // namespace unit_trace_kernels
