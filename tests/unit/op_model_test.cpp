// The operator model (models/gpu/op_model.hpp), the torch.fx node kernels (models/workload/fx_graph.hpp), NeuSight's
// profile reader, the joint fit and the NeuSight validation against its baselines.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>

#include "models/gpu/op_model.hpp"
#include "models/gpu/roofline.hpp"
#include "models/workload/fx_graph.hpp"
#include "models/workload/model_shapes.hpp"
#include "sim/core/errors.hpp"
#include "sim/io/calibration_file.hpp"
#include "sim/io/gpu_catalog.hpp"
#include "sim/io/neusight.hpp"
#include "sim/studies/calibration/op_model_fit.hpp"
#include "sim/studies/validation/published.hpp"
#include "tests/unit/scenario_helpers.hpp"

namespace unit_op_model {

namespace fs = std::filesystem;
using namespace vgpusim;

namespace {

// Parameters that make the arithmetic plain: no K overhead, no power cap, efficiency 1, no floors.
OpModelParams plain() {
  OpModelParams p = OpModelParams::table().defaults();
  p.power_efficiency = 1e12;
  p.pre_volta_efficiency = 0.5;
  p.gemm_efficiency = 1.0;
  p.bmm_factor = 1.0;
  p.tile_k_overhead = 0;
  p.gemm_memory_efficiency = 1.0;
  p.gemm_floor = 0;
  p.memory_floor = 0;
  for (double& e : p.bandwidth_efficiency) e = 0.5;
  return p;
}

OpDevice device(double sms, double fp32, double bw, double tdp = 0, bool pre_volta = false) {
  OpDevice d;
  d.sms = sms;
  d.fp32 = fp32;
  d.fp16_tensor = 8 * fp32;
  d.bandwidth = bw;
  d.tdp = tdp;
  d.pre_volta = pre_volta;
  return d;
}

FxNode node(const std::string& op, const std::string& target, std::vector<TensorShape> inputs, TensorShape out,
            const std::string& module = "") {
  FxNode n;
  n.name = target;
  n.op = op;
  n.target = target;
  n.module = module;
  n.inputs = std::move(inputs);
  n.output = std::move(out);
  n.dtype = "float32";
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    n.input_dtypes.push_back("float32");
    n.input_contiguous.push_back(true);
  }
  return n;
}

}  // namespace

TEST(OpModel, GemmTilesOverTheSmsAndTheirTime) {
  const OpDevice d = device(108, 19.5e12, 1.5e12);
  const OpModelParams p = plain();
  const OpKernel k = OpKernel::gemm(OpKernelClass::Linear, 1, 4096, 1024, 1024);
  EXPECT_DOUBLE_EQ(k.flops(), 2.0 * 4096 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(k.gemm_bytes(), 4.0 * (4096.0 * 1024 + 1024.0 * 1024 + 4096.0 * 1024));
  const OpKernelTimes t = op_kernel_times(k, d, p);
  EXPECT_DOUBLE_EQ(t.tiles, 32 * 8);
  EXPECT_DOUBLE_EQ(t.tiles_per_sm, 3);  // ceil(256 / 108)
  // Each tile: 2 x 128 x 128 x K FLOPs at one SM's share of the peak.
  EXPECT_NEAR(t.compute, 3 * 2.0 * 128 * 128 * 1024 / (19.5e12 / 108), 1e-15);
  EXPECT_NEAR(t.memory, k.gemm_bytes() / 1.5e12, 1e-15);
  EXPECT_DOUBLE_EQ(t.total(), std::max(t.compute, t.memory));
}

TEST(OpModel, ATailOfTilesIsNotAWholeWave) {
  // 42 SMs (an A100 3g slice): 1344 tiles are 32 per SM; 1400 are 34 on the busiest SM, not a second whole wave.
  const OpDevice d = device(42, 19.5e12 * 42 / 108, 1e15);
  const OpModelParams p = plain();
  const double full = op_kernel_time(OpKernel::gemm(OpKernelClass::Linear, 1344, 128, 128, 512), d, p);
  const double more = op_kernel_time(OpKernel::gemm(OpKernelClass::Linear, 1400, 128, 128, 512), d, p);
  EXPECT_NEAR(more / full, 34.0 / 32.0, 1e-12);
  // One tile more than the SMs: the busiest SM runs two.
  const double one_wave = op_kernel_time(OpKernel::gemm(OpKernelClass::Linear, 42, 128, 128, 512), d, p);
  const double one_more = op_kernel_time(OpKernel::gemm(OpKernelClass::Linear, 43, 128, 128, 512), d, p);
  EXPECT_NEAR(one_more / one_wave, 2.0, 1e-12);
  // Partial tiles count whole: a 129-wide output is two tiles wide.
  EXPECT_DOUBLE_EQ(op_kernel_times(OpKernel::gemm(OpKernelClass::Linear, 1, 129, 128, 64), d, p).tiles, 2);
}

TEST(OpModel, PowerCapArchitectureAndBatchedFactor) {
  OpModelParams p = plain();
  p.power_efficiency = 60e9;
  // A 70 W board sustains 4.2 TFLOP/s of its 8.1; a 300 W one its whole peak.
  EXPECT_DOUBLE_EQ(sustained_fp32(device(40, 8.1e12, 320e9, 70), p), 4.2e12);
  EXPECT_DOUBLE_EQ(sustained_fp32(device(108, 19.5e12, 1.9e12, 400), p), 19.5e12);
  EXPECT_DOUBLE_EQ(sustained_fp32(device(108, 19.5e12, 1.9e12, 0), p), 19.5e12);  // TDP unknown: no cap
  OpDevice measured = device(40, 8.1e12, 320e9, 70);
  measured.fp32_measured = 6e12;  // a calibration's measured rate replaces the cap's estimate, above or below it
  EXPECT_DOUBLE_EQ(sustained_fp32(measured, p), 6e12);
  const OpKernel k = OpKernel::gemm(OpKernelClass::Linear, 1, 1024, 1024, 1024);
  const OpDevice volta = device(80, 14e12, 1e15), pascal = device(80, 14e12, 1e15, 0, true);
  EXPECT_NEAR(op_kernel_times(k, pascal, p).compute / op_kernel_times(k, volta, p).compute, 1 / 0.5, 1e-12);
  p.bmm_factor = 1.25;
  OpKernel b = k;
  b.cls = OpKernelClass::Bmm;
  EXPECT_NEAR(op_kernel_times(k, volta, p).compute / op_kernel_times(b, volta, p).compute, 1.25, 1e-12);
  // Half-precision GEMMs run at the tensor rate, their operands at 2 bytes.
  const OpKernel h = OpKernel::gemm(OpKernelClass::Linear, 1, 1024, 1024, 1024, OpDtype::Fp16);
  EXPECT_NEAR(op_kernel_times(k, volta, p).compute / op_kernel_times(h, volta, p).compute, 8.0, 1e-12);
  EXPECT_DOUBLE_EQ(h.gemm_bytes(), k.gemm_bytes() / 2);
}

TEST(OpModel, MemoryKernelsAtTheirClassBandwidth) {
  OpModelParams p = plain();
  p.memory_floor = 3e-6;
  p.bandwidth_efficiency[static_cast<size_t>(OpKernelClass::Softmax)] = 0.8;
  const OpDevice d = device(80, 14e12, 900e9);
  EXPECT_NEAR(op_kernel_time(OpKernel::memory(OpKernelClass::Softmax, 9e8), d, p), 3e-6 + 9e8 / (0.8 * 900e9), 1e-15);
  // Every memory class has a declared parameter, the GEMM classes none.
  for (size_t i = 0; i < kOpKernelClasses; ++i) {
    const auto c = static_cast<OpKernelClass>(i);
    bool declared = false;
    for (const ParamSpec& s : op_model_params()) declared = declared || s.name == std::string(op_kernel_class_name(c)) + "_bandwidth";
    EXPECT_EQ(declared, !is_gemm(c)) << op_kernel_class_name(c);
  }
}

TEST(OpModel, CatalogFigures) {
  const Catalog& c = builtin_catalog();
  const OpDevice t4 = op_device(c.find("T4")->spec), p100 = op_device(c.find("P100-PCIe-16GB")->spec);
  EXPECT_EQ(t4.sms, 40);
  EXPECT_EQ(t4.tdp, 70);
  EXPECT_FALSE(t4.pre_volta);
  EXPECT_TRUE(p100.pre_volta);
  EXPECT_TRUE(op_device(c.find("P4")->spec).pre_volta);
  EXPECT_FALSE(op_device(c.find("V100-PCIe-32GB")->spec).pre_volta);
  EXPECT_LT(c.find("A100-PCIe-40GB")->spec.tdp, c.find("A100-80GB-PCIe")->spec.tdp);
}

TEST(OpModel, EachArchitectureGroupHasItsOwnPowerEfficiency) {
  const Catalog& c = builtin_catalog();
  OpModelParams p = plain();
  p.power_efficiency = 60e9;
  p.power_efficiency_ada = 130e9;
  p.power_efficiency_hopper = 100e9;
  p.power_efficiency_pascal = 40e9;
  p.wide_sm_efficiency = 0.75;
  const OpDevice t4 = op_device(c.find("T4")->spec), l4 = op_device(c.find("L4")->spec),
                 h100_pcie = op_device(c.find("H100-PCIe")->spec), h100_sxm = op_device(c.find("H100-SXM")->spec),
                 b200 = op_device(c.find("B200")->spec);
  EXPECT_EQ(op_device(c.find("A100-80GB")->spec).power_group, OpPowerGroup::Fitted);
  EXPECT_EQ(op_device(c.find("A40")->spec).power_group, OpPowerGroup::Ga10x);
  EXPECT_EQ(op_device(c.find("RTX-3090")->spec).power_group, OpPowerGroup::Ga10x);
  EXPECT_EQ(op_device(c.find("RTX-4090")->spec).power_group, OpPowerGroup::Ada);
  EXPECT_EQ(b200.power_group, OpPowerGroup::Hopper);
  EXPECT_EQ(op_device(c.find("MI300X")->spec).power_group, OpPowerGroup::Cdna);
  const OpDevice p4 = op_device(c.find("P4")->spec), p100 = op_device(c.find("P100-PCIe-16GB")->spec);
  EXPECT_EQ(p4.power_group, OpPowerGroup::Pascal);
  EXPECT_EQ(p100.power_group, OpPowerGroup::Pascal);
  EXPECT_EQ(op_device(c.find("V100-PCIe-32GB")->spec).power_group, OpPowerGroup::Fitted);
  EXPECT_EQ(op_device(c.find("K80")->spec).power_group, OpPowerGroup::Fitted);  // no figure of Kepler's
  // Pascal's figure caps the 75 W P4 and not the 250 W P100 (9.3 TFLOP/s < 40 GFLOP/J x 250 W).
  EXPECT_DOUBLE_EQ(sustained_fp32(p4, p), 40e9 * 75);
  EXPECT_DOUBLE_EQ(sustained_fp32(p100, p), p100.fp32);
  // Wide SMs (128 FP32 lanes, one instruction per clock per quarter): GA10x, Ada, Hopper, Blackwell; not GA100, not
  // Turing, not the Pascal P4 (128 lanes, two dispatch units per quarter).
  for (const char* wide : {"A10", "A40", "RTX-3090", "L4", "L40S", "H100-SXM", "H100-PCIe", "B200"})
    EXPECT_TRUE(op_device(c.find(wide)->spec).wide_sm) << wide;
  for (const char* narrow : {"A100-80GB", "A30", "V100", "T4", "P4", "P100-PCIe-16GB", "MI300X"})
    EXPECT_FALSE(op_device(c.find(narrow)->spec).wide_sm) << narrow;
  // Capped by its own group's figure: a 70 W Turing board by the fitted one, a 72 W Ada one by Ada's, a 350 W
  // Hopper one by Hopper's; a 700 W Hopper board sustains its issue-limited peak.
  EXPECT_DOUBLE_EQ(sustained_fp32(t4, p), 60e9 * 70);
  EXPECT_DOUBLE_EQ(sustained_fp32(l4, p), 130e9 * l4.tdp);
  EXPECT_DOUBLE_EQ(sustained_fp32(h100_pcie, p), 100e9 * h100_pcie.tdp);
  EXPECT_DOUBLE_EQ(sustained_fp32(h100_sxm, p), 0.75 * h100_sxm.fp32);
  OpDevice calibrated = h100_sxm;
  calibrated.fp32_measured = 60e12;  // a measured FMA rate: GEMMs on wide SMs reach the factor of it
  EXPECT_DOUBLE_EQ(sustained_fp32(calibrated, p), 0.75 * 60e12);
  // The shipped defaults: the 72 W L4 sustains about a third of its 30.3 TFLOP/s (the fitted figure would give a
  // seventh), and the newer groups' figures are not the fit's.
  const OpModelParams shipped = OpModelParams::table().defaults();
  EXPECT_GT(sustained_fp32(l4, shipped), 0.25 * l4.fp32);
  EXPECT_LT(sustained_fp32(l4, shipped), 0.45 * l4.fp32);
  EXPECT_GT(shipped.power_efficiency_ada, shipped.power_efficiency);
  EXPECT_TRUE(op_model_param_fitted("power_efficiency"));
  EXPECT_FALSE(op_model_param_fitted("power_efficiency_ga10x"));
  EXPECT_FALSE(op_model_param_fitted("power_efficiency_ada"));
  EXPECT_FALSE(op_model_param_fitted("power_efficiency_hopper"));
  EXPECT_FALSE(op_model_param_fitted("power_efficiency_cdna"));
  EXPECT_FALSE(op_model_param_fitted("power_efficiency_pascal"));
  EXPECT_FALSE(op_model_param_fitted("wide_sm_efficiency"));
  // DeepBench's P100 PCIe ran FP32 GEMMs at 9.03 TFLOP/s: the shipped Pascal figure must not cap it below that.
  EXPECT_GT(sustained_fp32(p100, shipped), 9.0e12);
  EXPECT_LT(sustained_fp32(p4, shipped), 0.7 * p4.fp32);
}

TEST(FxGraph, LinearForwardBackwardAndAccumulation) {
  const FxNodeKernels k =
      fx_node_kernels(node("call_module", "bert_encoder_layer_0_intermediate_dense", {{8, 512, 1024}}, {8, 512, 4096},
                           "Linear"),
                      true);
  EXPECT_EQ(k.op_class, "linear");
  ASSERT_EQ(k.forward.size(), 1u);
  EXPECT_EQ(k.forward[0], OpKernel::gemm(OpKernelClass::Linear, 1, 4096, 4096, 1024));
  ASSERT_EQ(k.backward.size(), 3u);
  EXPECT_EQ(k.backward[0], OpKernel::gemm(OpKernelClass::Linear, 1, 4096, 1024, 4096));  // dX
  EXPECT_EQ(k.backward[1], OpKernel::gemm(OpKernelClass::Linear, 1, 4096, 1024, 4096));  // dW over M
  EXPECT_EQ(k.backward[2], OpKernel::memory(OpKernelClass::Reduce, 4.0 * 4096 * 4096));  // the bias gradient
  ASSERT_EQ(k.accumulate.size(), 2u);
  EXPECT_EQ(k.accumulate[0], OpKernel::memory(OpKernelClass::Accumulate, 12.0 * 1024 * 4096));
  EXPECT_EQ(k.accumulate[1], OpKernel::memory(OpKernelClass::Accumulate, 12.0 * 4096));
  // Inference: the forward only; an output head has no bias.
  EXPECT_TRUE(fx_node_kernels(node("call_module", "x", {{8, 512, 1024}}, {8, 512, 4096}, "Linear"), false).backward.empty());
  const FxNodeKernels head = fx_node_kernels(node("call_module", "lm_head", {{1, 1024, 1280}}, {1, 1024, 50257}, "Linear"), true);
  EXPECT_EQ(head.backward.size(), 2u);
  // addmm(bias, A, W) is a linear with a bias.
  const FxNodeKernels addmm = fx_node_kernels(node("call_function", "addmm", {{3840}, {4096, 1280}, {1280, 3840}}, {4096, 3840}), true);
  EXPECT_EQ(addmm.forward[0], OpKernel::gemm(OpKernelClass::Linear, 1, 4096, 3840, 1280));
  EXPECT_EQ(addmm.backward.size(), 3u);
}

TEST(FxGraph, BatchedProductsAttentionAndConvolution) {
  const FxNodeKernels qk = fx_node_kernels(node("call_function", "matmul", {{8, 16, 512, 64}, {8, 16, 64, 512}}, {8, 16, 512, 512}), true);
  EXPECT_EQ(qk.op_class, "bmm");
  EXPECT_EQ(qk.forward[0], OpKernel::gemm(OpKernelClass::Bmm, 128, 512, 512, 64));
  ASSERT_EQ(qk.backward.size(), 2u);
  EXPECT_EQ(qk.backward[0], OpKernel::gemm(OpKernelClass::Bmm, 128, 512, 64, 512));
  EXPECT_EQ(qk.backward[1], OpKernel::gemm(OpKernelClass::Bmm, 128, 64, 512, 512));
  // An activation times a 2-D weight is a linear.
  EXPECT_EQ(fx_node_kernels(node("call_function", "matmul", {{4, 1024, 1280}, {1280, 50257}}, {4, 1024, 50257}), false).op_class, "linear");
  // Fused attention: 4 B H Sq Sk D FLOPs in one kernel.
  const FxNodeKernels sdpa = fx_node_kernels(
      node("call_function", "scaled_dot_product_attention", {{2, 16, 1024, 64}, {2, 16, 1024, 64}, {2, 16, 1024, 64}}, {2, 16, 1024, 64}), false);
  EXPECT_EQ(sdpa.op_class, "attention");
  EXPECT_DOUBLE_EQ(sdpa.forward[0].flops(), 4.0 * 32 * 1024 * 1024 * 64);
  // A 3x3 convolution as an implicit GEMM: M = N x output pixels, N = output channels, K = input channels x 9.
  FxNode conv = node("call_module", "layer1_0_conv2", {{32, 64, 56, 56}}, {32, 64, 56, 56}, "Conv2d");
  conv.kernel_area = 9;
  const FxNodeKernels c = fx_node_kernels(conv, false);
  EXPECT_EQ(c.op_class, "conv");
  EXPECT_EQ(c.forward[0], OpKernel::gemm(OpKernelClass::Linear, 1, 32.0 * 56 * 56, 64, 64.0 * 9));
}

TEST(FxGraph, MemoryBoundOpsMoveTheirBytes) {
  const double n = 8.0 * 16 * 512 * 512, b = 4 * n;
  const FxNodeKernels sm = fx_node_kernels(node("call_function", "softmax", {{8, 16, 512, 512}}, {8, 16, 512, 512}), true);
  EXPECT_EQ(sm.forward[0], OpKernel::memory(OpKernelClass::Softmax, 2 * b));
  EXPECT_EQ(sm.backward[0], OpKernel::memory(OpKernelClass::SoftmaxBackward, 3 * b));
  const FxNodeKernels ln = fx_node_kernels(node("call_module", "ln", {{8, 512, 1024}}, {8, 512, 1024}, "LayerNorm"), true);
  const double m = 8.0 * 512 * 1024;
  EXPECT_EQ(ln.forward[0], OpKernel::memory(OpKernelClass::Norm, 8 * m));
  EXPECT_EQ(ln.backward[0], OpKernel::memory(OpKernelClass::NormBackward, 12 * m + 8 * m / 1024));
  EXPECT_EQ(ln.accumulate.size(), 2u);
  EXPECT_EQ(fx_node_kernels(node("call_module", "n", {{8, 512, 1024}}, {8, 512, 1024}, "LlamaRMSNorm"), false).op_class, "norm");
  // Dropout runs in training only, with its 1-byte mask.
  const FxNode drop = node("call_module", "d", {{8, 512, 1024}}, {8, 512, 1024}, "Dropout");
  EXPECT_EQ(fx_node_kernels(drop, false).op_class, "none");
  EXPECT_EQ(fx_node_kernels(drop, true).forward[0], OpKernel::memory(OpKernelClass::Dropout, 9 * m));
  // An embedding's backward: the table's dense gradient zeroed, then the scatter.
  FxNode emb = node("call_module", "wte", {{4, 1024}}, {4, 1024, 1280}, "Embedding");
  emb.input_dtypes = {"int64"};
  emb.table_rows = 50257;
  const FxNodeKernels e = fx_node_kernels(emb, true);
  EXPECT_EQ(e.forward[0], OpKernel::memory(OpKernelClass::Embedding, 8.0 * 4096 + 4.0 * 4096 * 1280));
  EXPECT_EQ(e.backward[0], OpKernel::memory(OpKernelClass::Fill, 4.0 * 50257 * 1280));
  EXPECT_EQ(e.accumulate[0], OpKernel::memory(OpKernelClass::Accumulate, 12.0 * 50257 * 1280));
  // GELU and SiLU are activations; add passes its gradient through, mul of two tensors computes two.
  EXPECT_EQ(fx_node_kernels(node("call_module", "g", {{8, 512, 4096}}, {8, 512, 4096}, "NewGELUActivation"), false).op_class, "activation");
  EXPECT_EQ(fx_node_kernels(node("call_function", "silu", {{8, 512, 4096}}, {8, 512, 4096}), false).op_class, "activation");
  EXPECT_TRUE(fx_node_kernels(node("call_function", "add", {{8, 512}, {8, 512}}, {8, 512}), true).backward.empty());
  EXPECT_EQ(fx_node_kernels(node("call_function", "mul", {{8, 512}, {8, 512}}, {8, 512}), true).backward.size(), 2u);
  // Scalars do nothing.
  EXPECT_EQ(fx_node_kernels(node("call_function", "add", {{1}}, {1}), true).op_class, "none");
}

TEST(FxGraph, ViewsCopiesAndCasts) {
  EXPECT_EQ(fx_node_kernels(node("call_method", "view", {{8, 512, 1024}}, {8, 512, 16, 64}), true).op_class, "none");
  FxNode cont = node("call_method", "contiguous", {{8, 16, 512, 64}}, {8, 16, 512, 64});
  EXPECT_EQ(fx_node_kernels(cont, false).op_class, "none");  // already contiguous: no copy
  cont.input_contiguous = {false};
  EXPECT_EQ(fx_node_kernels(cont, false).forward[0], OpKernel::memory(OpKernelClass::Copy, 2 * 4.0 * 8 * 16 * 512 * 64));
  FxNode cast = node("call_method", "to", {{8, 512}}, {8, 512});
  EXPECT_EQ(fx_node_kernels(cast, false).op_class, "none");  // same dtype
  cast.input_dtypes = {"int64"};
  EXPECT_EQ(fx_node_kernels(cast, false).forward[0], OpKernel::memory(OpKernelClass::Copy, 8.0 * 4096 + 4.0 * 4096));
  EXPECT_EQ(fx_node_kernels(node("call_function", "cat", {{8, 512}, {8, 512}}, {16, 512}), false).op_class, "copy");
  EXPECT_EQ(fx_node_kernels(node("call_function", "ones", {}, {8, 512}), false).forward[0],
            OpKernel::memory(OpKernelClass::Fill, 4.0 * 4096));
  FxNode none = node("placeholder", "input_ids", {}, {8, 512});
  EXPECT_EQ(fx_node_kernels(none, true).op_class, "none");
}

TEST(Neusight, ShapesAsTheProfilesWriteThem) {
  EXPECT_EQ(parse_shape_list("[[8, 512], [1]]"), (std::vector<TensorShape>{{8, 512}, {1}}));
  EXPECT_EQ(parse_shape_list("[[8, 16, 512, 64], [8, 16, 64, 512]]").size(), 2u);
  EXPECT_TRUE(parse_shape_list("[]").empty());
  EXPECT_TRUE(parse_shape_list("").empty());
  EXPECT_EQ(parse_shape("(8, 512)"), (TensorShape{8, 512}));
  EXPECT_EQ(parse_shape("(1,)"), (TensorShape{1}));
  EXPECT_FALSE(parse_shape(""));
  EXPECT_FALSE(parse_shape("(x, 2)"));
}

TEST(Neusight, ReadsACaseAndRepeatsItsTracedLayer) {
  const fs::path d = fs::temp_directory_path() / "vgpusim-neusight-case";
  fs::remove_all(d);
  fs::create_directories(d / "label" / "Tesla_T4");
  {
    std::ofstream csv(d / "label" / "Tesla_T4" / "tiny-train-16-2.csv");
    csv << "op,target,_input_nodes,meta,input_shapes,input_contiguous,fw_latency,bw_latency,acc_latency,output_shape,"
           "dtype,Name\n"
        << "placeholder,x,{},{},[],[],0,0,0,\"(2, 16, 64)\",torch.float32,x\n"
        << "call_module,h.0.fc,{x: None},\"{'nn_module_stack': OrderedDict([('h_0_fc', <class "
           "'torch.nn.modules.linear.Linear'>)])}\",\"[[2, 16, 64]]\",[True],0.5,1.0,0.1,\"(2, 16, 64)\",torch.float32,"
           "h_0_fc\n"
        << "call_function,<built-in function add>,\"{h_0_fc: None, x: None}\",{},\"[[2, 16, 64], [2, 16, 64]]\","
           "\"[True, True]\",0.02,0,0,\"(2, 16, 64)\",torch.float32,add\n"
        << "call_module,ln_f,{add: None},\"{'nn_module_stack': OrderedDict([('ln_f', <class "
           "'torch.nn.modules.normalization.LayerNorm'>)])}\",\"[[2, 16, 64]]\",[True],0.03,0.05,0.01,\"(2, 16, 64)\","
           "torch.float32,ln_f\n";
    std::ofstream(d / "label" / "Tesla_T4" / "tiny-train-16-2.json")
        << R"({"num_layer": 4, "e2e_latency": 9.0, "fw_latency": 3.0, "bwall_latency": 6.0})";
  }
  EXPECT_EQ(neusight_gpus(d.string()), std::vector<std::string>{"Tesla_T4"});
  const std::vector<NeusightCase> cs = read_neusight_cases(d.string(), "Tesla_T4");
  ASSERT_EQ(cs.size(), 1u);
  const NeusightCase& c = cs[0];
  EXPECT_EQ(c.model, "tiny");
  EXPECT_TRUE(c.training);
  EXPECT_EQ(c.seq, 16);
  EXPECT_EQ(c.batch, 2);
  EXPECT_EQ(c.layers, 4);
  EXPECT_DOUBLE_EQ(c.measured(), 9e-3);
  ASSERT_EQ(c.ops.size(), 4u);
  EXPECT_EQ(c.ops[1].node.module, "Linear");
  EXPECT_EQ(c.ops[1].node.inputs, std::vector<TensorShape>{(TensorShape{2, 16, 64})});
  EXPECT_DOUBLE_EQ(c.ops[1].backward, 1e-3);
  EXPECT_EQ(c.ops[2].node.target, "add");
  EXPECT_EQ(c.ops[2].node.input_dtypes, (std::vector<std::string>{"float32", "float32"}));
  // The traced layer (h_0_...) and the residual add after it repeat num_layer times; the final norm once.
  EXPECT_EQ(c.ops[0].repeat, 1);
  EXPECT_EQ(c.ops[1].repeat, 4);
  EXPECT_EQ(c.ops[2].repeat, 4);
  EXPECT_EQ(c.ops[3].repeat, 1);
  // A malformed row names its file and line.
  std::ofstream(d / "label" / "Tesla_T4" / "bad-inf-16-2.csv") << "op,target\nplaceholder\n";
  std::ofstream(d / "label" / "Tesla_T4" / "bad-inf-16-2.json") << R"({"num_layer": 1, "fw_latency": 1.0})";
  try {
    read_neusight_cases(d.string(), "Tesla_T4");
    FAIL() << "expected an error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("bad-inf-16-2.csv:2"), std::string::npos) << e.what();
  }
  fs::remove_all(d);
}

TEST(OpModelFit, RecoversTheParametersThatMadeTheData) {
  // Times made by known parameters on three GPUs; the fit, from its neutral start, predicts them again closely.
  OpModelParams truth = OpModelParams::table().defaults();
  truth.power_efficiency = 70e9;
  truth.tile_k_overhead = 40;
  truth.bandwidth_efficiency[static_cast<size_t>(OpKernelClass::Softmax)] = 0.6;
  const std::vector<OpDevice> devices = {device(40, 8.1e12, 320e9, 70), device(80, 14e12, 900e9, 250),
                                         device(108, 19.5e12, 1.9e12, 300)};
  std::vector<OpObservation> obs;
  for (size_t g = 0; g < devices.size(); ++g)
    for (double m : {512.0, 2048.0, 8192.0})
      for (const OpKernel& k : {OpKernel::gemm(OpKernelClass::Linear, 1, m, 1024, 1024),
                                OpKernel::gemm(OpKernelClass::Linear, 1, m, 4096, 1024),
                                OpKernel::memory(OpKernelClass::Softmax, m * 1e5)}) {
        OpObservation o;
        o.device = g;
        o.kernels = {k};
        o.measured = op_kernel_time(k, devices[g], truth);
        o.weight = 1;
        obs.push_back(o);
      }
  const OpModelFit f = fit_op_model(devices, obs);
  for (const OpObservation& o : obs) {
    const double t = op_kernel_time(o.kernels[0], devices[o.device], f.params) +
                     measurement_overhead(f.overheads, o.phase, o.linear);
    EXPECT_NEAR(t / o.measured, 1.0, 0.05);
  }
  // The power cap binds only on the 70 W board, and is found.
  EXPECT_NEAR(sustained_fp32(devices[0], f.params) / sustained_fp32(devices[0], truth), 1.0, 0.1);
}

TEST(NeusightValidation, BeatsTheRooflineAndThePeakRatioOnHeldOutGpus) {
  const std::vector<ValidationRun> runs =
      validate_neusight(std::string(VGPUSIM_SOURCE_DIR) + "/scenarios/measurements/neusight", {});
  ASSERT_EQ(runs.size(), 1u);
  size_t checked = 0;
  for (const ValidationSummary& s : summarize(runs[0])) {
    if (s.gpu != "all" || s.split.find("from shapes") == std::string::npos) continue;
    ++checked;
    EXPECT_LT(s.mape, s.baseline_mape.at("roofline")) << s.split;
    EXPECT_LT(s.mape, s.baseline_mape.at("FP32 peak ratio")) << s.split;
    EXPECT_LT(s.mape, 10.0) << s.split;  // issue 29's target
  }
  EXPECT_EQ(checked, 2u);  // inference and training
  // Each Pascal board, held out, gets the pre-Volta factor from the other one (its power limit from Pascal's measured
  // figure): the P100 beats the one-line rule (the A100's latency scaled by the FP32 peaks; 15.9% against 9.6% when
  // the factor needed two boards).
  size_t p100 = 0;
  for (const ValidationSummary& s : summarize(runs[0]))
    if (s.gpu == "P100-PCIe-16GB" && s.split == "inference, from shapes, leave one GPU out") {
      ++p100;
      EXPECT_LT(s.mape, s.baseline_mape.at("FP32 peak ratio"));
    }
  EXPECT_EQ(p100, 1u);
  // From the source GPU's profile, the deviation from the model carries to the target by a power fitted without
  // it (nested leave one GPU out): 0 for inference, where four other GPUs ran the source's cases (the plain ratio,
  // carry 1, gave 15.6%; the source's per-op times sum 45-52% above its measured runs), and 1 for training, where
  // only the held-out V100 did.
  for (const ValidationSummary& s : summarize(runs[0])) {
    if (s.gpu != "all" || s.split.find("profile, leave one GPU out") == std::string::npos ||
        s.split.find("per op class") != std::string::npos)
      continue;
    ++checked;
    EXPECT_LT(s.mape, s.baseline_mape.at("FP32 peak ratio")) << s.split;
    EXPECT_LT(s.mape, s.baseline_mape.at("roofline")) << s.split;
    EXPECT_LT(s.mape, 8.0) << s.split;  // issue 29's target
  }
  EXPECT_EQ(checked, 4u);
  EXPECT_NE(runs[0].method.find("T4 inference (leave one GPU out) 0.00 on 16 nested predictions"), std::string::npos);
  EXPECT_NE(runs[0].method.find("V100-PCIe-32GB training (leave one GPU out) 1.00 on 0 nested predictions"),
            std::string::npos);
  // The shipped defaults are the fit on all its GPUs (to the digits they are written with).
  const OpModelFit all = fit_neusight(std::string(VGPUSIM_SOURCE_DIR) + "/scenarios/measurements/neusight");
  const ParamValues fitted = OpModelParams::table().values(all.params);
  const ParamValues shipped = OpModelParams::table().values(OpModelParams::table().defaults());
  for (const ParamSpec& s : op_model_params())
    EXPECT_NEAR(fitted.get(s.name) / shipped.get(s.name), 1.0, 0.005) << s.name;
  for (size_t i = 0; i < all.overheads.size(); ++i) EXPECT_NEAR(all.overheads[i] / kNeusightOverheads[i], 1.0, 0.005);
  // --gpu holds out one GPU only.
  PublishedOptions one;
  one.gpu = "T4";
  const std::vector<ValidationRun> t4 =
      validate_neusight(std::string(VGPUSIM_SOURCE_DIR) + "/scenarios/measurements/neusight", one);
  EXPECT_FALSE(t4[0].cases.empty());
  for (const ValidationCase& c : t4[0].cases) EXPECT_EQ(c.gpu, "T4");
}

// Issue 30's per-kernel check on measured ops: each op class of a case on a held-out GPU, from the source GPU's
// measured ops of the same case. Its time on the target is the measured one (less overheads, so no more than the
// raw sum), the prediction the source's times scaled by the model's ratio (between the class's smallest and largest
// kernel ratio), beside the same time, the peak / bandwidth ratio and the shapes alone.
TEST(NeusightValidation, PerOpClassCheckScalesTheSourceProfileByTheModelsRatio) {
  const std::string dir = std::string(VGPUSIM_SOURCE_DIR) + "/scenarios/measurements/neusight";
  PublishedOptions one;
  one.gpu = "V100-PCIe-32GB";
  const std::vector<ValidationRun> runs = validate_neusight(dir, one);
  std::map<std::string, const ValidationCase*> by_id;
  for (const ValidationCase& c : runs[0].cases)
    if (c.split == "inference, per op class, from the A100-PCIe-40GB profile, leave one GPU out") by_id[c.id] = &c;
  ASSERT_TRUE(by_id.count("bert_large-inf-512-8: linear"));
  ASSERT_TRUE(by_id.count("bert_large-inf-512-8: bmm"));
  ASSERT_TRUE(by_id.count("bert_large-inf-512-8: softmax"));
  const ValidationCase& linear = *by_id["bert_large-inf-512-8: linear"];
  for (const char* b : {"same time", "peak / bandwidth ratio", "shapes alone"})
    EXPECT_GT(linear.baseline.at(b), 0) << b;
  // The target's raw measured linear time bounds the measured figure from above.
  const std::vector<NeusightOp> target =
      read_neusight_profile(dir + "/label/Tesla_V100-PCIE-32GB/bert_large-inf-512-8.csv", 24);
  double raw = 0;
  for (const NeusightOp& op : target)
    if (fx_node_kernels(op.node, false).op_class == "linear") raw += op.repeat * op.forward;
  EXPECT_LE(linear.measured, raw);
  EXPECT_GT(linear.measured, 0.8 * raw);
  // Scaled by the model's ratio of the class's kernels, V100 over A100: above 1 (the V100 is slower on every
  // side), below twice the A100's bandwidth ratio (a GEMM's time is its longer side; a tail wave on the V100's 80 SMs
  // can add up to one more wave).
  const double ratio = linear.predicted / linear.baseline.at("same time");
  const GpuSpec& v100 = builtin_catalog().find("V100-PCIe-32GB")->spec;
  const GpuSpec& a100 = builtin_catalog().find("A100-PCIe-40GB")->spec;
  EXPECT_GT(ratio, 1.0);
  EXPECT_LT(ratio, 2 * a100.memory_bandwidth / v100.memory_bandwidth);
  EXPECT_NE(ratio, linear.baseline.at("peak / bandwidth ratio") / linear.baseline.at("same time"));
}

namespace {

const std::string kBertProfile = std::string(VGPUSIM_SOURCE_DIR) +
                                 "/scenarios/measurements/neusight/label/NVIDIA_A100-PCIE-40GB/bert_large-inf-512-8.csv";

// One closed-loop client sends `requests` passes of the BERT-large graph, back to back, on `on`.
std::string graph_scenario(const std::string& sharing, const std::string& on, const std::string& extra = "",
                           const std::string& gpu = "H100-SXM") {
  return "version: 1\nname: g\nseed: 1\ngpus: [{id: g0, model: " + gpu + "}]\nsharing:\n  g0: " + sharing +
         "\ntenants:\n  - name: bert\n    on: " + on + "\n    memory: 4GiB\n    workload:\n      graph:\n        profile: " +
         kBertProfile + "\n        clients: 1\n        requests: 5\n" + extra;
}

// The BERT-large pass's kernels from the profile, timed directly with the default parameters.
double bert_pass_time(const OpDevice& d) {
  static const std::vector<NeusightOp> ops = read_neusight_profile(kBertProfile, 24);
  const OpModelParams p = OpModelParams::table().defaults();
  double t = 0;
  for (const NeusightOp& op : ops)
    for (const OpKernel& k : fx_node_kernels(op.node, false).forward) t += op.repeat * op_kernel_time(k, d, p);
  return t;
}

}  // namespace

TEST(GraphWorkload, APassTakesTheOpModelsTimeOnWhereItRuns) {
  using vgpusim::testing_support::run_text;
  const GpuSpec h100 = builtin_catalog().find("H100-SXM")->spec;
  const Results alone = run_text(graph_scenario("{mode: passthrough, overhead: 0}", "g0"));
  ASSERT_EQ(alone.tenants.size(), 1u);
  ASSERT_TRUE(alone.tenants[0].shared.latency);
  EXPECT_NEAR(alone.tenants[0].shared.unit_time_mean / bert_pass_time(op_device(h100)), 1.0, 1e-6);
  // On MIG slices: fewer SMs, the tiles spread over them; 3g (60 SMs) is faster than 2g (32), slower than the GPU.
  const Results mig = run_text(graph_scenario("{mode: mig, partitions: [{id: a, profile: 2g.20gb}, {id: b, profile: "
                                              "3g.40gb}]}",
                                              "g0/a") +
                               "  - name: other\n    on: g0/b\n    memory: 4GiB\n    workload:\n      graph:\n"
                               "        profile: " + kBertProfile + "\n        clients: 1\n        requests: 5\n");
  ASSERT_EQ(mig.tenants.size(), 2u);
  const double t2 = mig.tenants[0].shared.unit_time_mean, t3 = mig.tenants[1].shared.unit_time_mean;
  EXPECT_GT(t2, t3);
  EXPECT_GT(t3, alone.tenants[0].shared.unit_time_mean);
  EXPECT_LT(t2 / t3, 60.0 / 32.0 * 1.05);  // no more than the SM ratio (memory-bound ops gain less)
  // Time-sliced beside a busy trainer, a pass takes longer than alone.
  const Results shared = run_text(
      graph_scenario("{mode: timeslice}", "g0") +
      "  - name: trainer\n    on: g0\n    memory: 8GiB\n    workload: {training: {step: {flops: 10TFLOP}, iterations: 50}}\n");
  EXPECT_GT(shared.tenants[0].shared.unit_time_mean, 1.2 * alone.tenants[0].shared.unit_time_mean);
}

TEST(GraphWorkload, ACalibratedGpuRunsFp32GemmsAtItsMeasuredRate) {
  using vgpusim::testing_support::run_text;
  // The shipped H200 calibration measured FP32 FMA work at fp32_efficiency of the peak (hwcal compute.fp32_fma): a
  // graph's FP32 GEMMs run at that rate, not at the power cap's estimate for a 700 W board.
  const RooflineParams perf = RooflineParams::table().with(builtin_overrides("H200"));
  ASSERT_GT(perf.fp32_efficiency, 0.5);
  const GpuSpec h200 = builtin_catalog().find("H200")->spec;
  const OpDevice calibrated = op_device(h200, perf), catalog = op_device(h200);
  const OpModelParams p = OpModelParams::table().defaults();
  // Hopper's wide SMs: GEMMs at wide_sm_efficiency of the FMA rate, measured or the peak (700 W x
  // power_efficiency_hopper is above it).
  EXPECT_DOUBLE_EQ(sustained_fp32(calibrated, p), p.wide_sm_efficiency * perf.fp32_efficiency * h200.fp32);
  EXPECT_DOUBLE_EQ(sustained_fp32(catalog, p), p.wide_sm_efficiency * h200.fp32);
  const Results r = run_text(graph_scenario("{mode: passthrough, overhead: 0}", "g0", "", "H200"));
  ASSERT_EQ(r.tenants.size(), 1u);
  EXPECT_NEAR(r.tenants[0].shared.unit_time_mean / bert_pass_time(calibrated), 1.0, 1e-6);
  // BERT-large's FP32 GEMMs dominate its pass: at 95.8% of the peak it takes longer than at the peak, by less than
  // the rates' ratio (its memory-bound ops keep their time).
  EXPECT_GT(bert_pass_time(calibrated), bert_pass_time(catalog) * 1.01);
  EXPECT_LT(bert_pass_time(calibrated), bert_pass_time(catalog) / perf.fp32_efficiency);
}

TEST(GraphWorkload, TrainingPassesAndErrors) {
  using vgpusim::testing_support::error_of;
  using vgpusim::testing_support::run_text;
  const std::string train =
      "version: 1\nname: g\nseed: 1\ngpus: [{id: g0, model: H100-SXM}]\nsharing: {g0: {mode: passthrough}}\n"
      "tenants:\n  - name: t\n    on: g0\n    memory: 4GiB\n    workload: {graph: {profile: " + kBertProfile +
      ", pass: training, iterations: 3}}\n";
  const Results r = run_text(train);
  EXPECT_EQ(r.tenants[0].shared.units, 3);
  EXPECT_EQ(r.tenants[0].unit, "iterations");
  // A training step (forward, backward, accumulation) takes more than twice the forward alone.
  const Results f = run_text(graph_scenario("{mode: passthrough}", "g0"));
  EXPECT_GT(r.tenants[0].shared.unit_time_mean, 2 * f.tenants[0].shared.unit_time_mean);
  EXPECT_NE(error_of(train + "", "t.yaml").find("(no error)"), std::string::npos);
  std::string bad = train;
  bad.replace(bad.find("iterations: 3"), 13, "rate: 1/s");
  EXPECT_NE(error_of(bad, "t.yaml").find("goes with pass: forward"), std::string::npos) << error_of(bad, "t.yaml");
  std::string missing = train;
  missing.replace(missing.find(kBertProfile), kBertProfile.size(), "/nonexistent/profile.csv");
  EXPECT_NE(error_of(missing, "t.yaml").find("no such file"), std::string::npos) << error_of(missing, "t.yaml");
}

TEST(ModelShapes, TransformerAndResNetFlopsFromTheirShapes) {
  const auto flops = [](const std::vector<FxNode>& nodes, OpKernelClass cls) {
    double f = 0;
    for (const auto& [k, n] : graph_kernels(nodes, false))
      if (k.cls == cls) f += n * k.flops();
    return f;
  };
  TransformerShape bert;
  ASSERT_TRUE(transformer_shape("bert-base-multilingual-cased", bert));
  EXPECT_EQ(bert.vocabulary, 119547);
  // BERT-base at batch 1 and 128 tokens: per layer four 768 x 768 projections and the 768 <-> 3072 MLP (2 FLOPs
  // per multiply-add), the pooler once; attention's two products of 128 x 128 x 64 per head.
  const double t = 128, h = 768;
  const std::vector<FxNode> nodes = transformer_nodes(bert, 1, t, false);
  EXPECT_NEAR(flops(nodes, OpKernelClass::Linear), 12 * 2 * t * (4 * h * h + 2 * h * 3072) + 2 * h * h, 1);
  EXPECT_NEAR(flops(nodes, OpKernelClass::Bmm), 12 * 2 * (2 * 12 * t * t * 64), 1);
  // ViT-B/16 at 224 x 224: 197 tokens, the patch embedding a 16 x 16 convolution (K = 3 x 256).
  TransformerShape vit;
  ASSERT_TRUE(transformer_shape("vision_transformer", vit));
  const std::vector<FxNode> v = transformer_nodes(vit, 1, 224, true);
  EXPECT_NEAR(flops(v, OpKernelClass::Linear),
              2 * 196 * h * 768 + 12 * 2 * 197 * (4 * h * h + 2 * h * 3072) + 2 * h * 1000, 1);
  // ResNet-50: 4.09 G multiply-adds per 224 x 224 image (torchvision's figure), within 2%.
  EXPECT_TRUE(is_resnet50("resnet50_moco"));
  EXPECT_NEAR(flops(resnet50_nodes(1), OpKernelClass::Linear) / 2 / 4.09e9, 1.0, 0.02);
  // CIFAR-10's ResNet-18, by hand: the 3 x 3 stem 32^2 x 64 x 27, stage 1's four 3 x 3 convolutions 32^2 x 64 x 576;
  // each later stage (side s = 16, 8, 4 with C = 128, 256, 512 planes: s^2 C^2 = 2^22) one from C/2 channels
  // s^2 C (9 C/2), three s^2 C (9 C) and the 1 x 1 shortcut s^2 C (C/2): (18 + 3 x 36 + 2) 2^20; the 512 x 10 layer.
  const double mib = 1024.0 * 1024.0;
  EXPECT_NEAR(flops(resnet18_cifar_nodes(1), OpKernelClass::Linear) / 2,
              1024.0 * 64 * 27 + 4 * 1024.0 * 64 * 576 + 3 * (18 + 3 * 36 + 2) * mib + 5120, 1);
  // The translation Transformer, source 20 and target 24 tokens, 1000 words: per position 4 h^2 + 2 h x inner
  // multiply-adds in each encoder and decoder layer, the cross-attention's query and output over the target and its
  // key and value over the source, the projection; attention products 2 x heads x lq x lk x 64 each.
  const double hd = 512, in = 2048, src = 20, tgt = 24;
  const std::vector<FxNode> tr = translation_transformer_nodes(1, src, tgt, 1000);
  EXPECT_NEAR(flops(tr, OpKernelClass::Linear) / 2,
              6 * (src + tgt) * (4 * hd * hd + 2 * hd * in) + 6 * 2 * hd * hd * (tgt + src) + tgt * hd * 1000, 1);
  EXPECT_NEAR(flops(tr, OpKernelClass::Bmm) / 2, 6 * 2 * 8 * 64 * (src * src + tgt * tgt + tgt * src), 1);
  // CycleGAN at 256 x 256: a generator's convolutions (output pixels x channels x input channels x area) add up to
  // the 56.8 G multiply-adds usually quoted, a PatchGAN discriminator's to 1.66 G; a step runs six of each.
  const double p = 65536;  // 256^2
  const double generator = p * 64 * 3 * 49 + p / 4 * 128 * 64 * 9 + p / 16 * 256 * 128 * 9 +
                           18 * (p / 16 * 256 * 256 * 9) + p / 4 * 128 * 256 * 9 + p * 64 * 128 * 9 + p * 3 * 64 * 49;
  const double discriminator = p / 4 * 64 * 3 * 16 + p / 16 * 128 * 64 * 16 + p / 64 * 256 * 128 * 16 +
                               p / 256 * 512 * 256 * 16 + p / 256 * 512 * 16;
  EXPECT_NEAR(generator / 56.8e9, 1.0, 0.001);
  EXPECT_NEAR(flops(cyclegan_step_nodes(1), OpKernelClass::Linear) / 2, 6 * (generator + discriminator), 1);
  EXPECT_FALSE(transformer_shape("gpt-7", bert));
  // Training adds each product's two gradients: three times the forward's GEMM FLOPs.
  double train = 0;
  for (const auto& [k, n] : graph_kernels(resnet50_nodes(1), true))
    if (k.cls == OpKernelClass::Linear) train += n * k.flops();
  EXPECT_NEAR(train / flops(resnet50_nodes(1), OpKernelClass::Linear), 3.0, 1e-9);
}

TEST(OpModel, SplitKFillsTheSmsOfASmallOutput) {
  // A weight gradient: 64 x 576 output (5 tiles) over a 200704-long reduction, on 98 SMs: split 19 ways.
  const OpDevice d = device(98, 17.7e12, 2e12);
  const OpModelParams p = plain();
  const OpKernelTimes t = op_kernel_times(OpKernel::gemm(OpKernelClass::Linear, 1, 64, 576, 200704), d, p);
  EXPECT_DOUBLE_EQ(t.tiles, 5);
  EXPECT_DOUBLE_EQ(t.splits, 19);
  EXPECT_DOUBLE_EQ(t.tiles_per_sm, 1);
  EXPECT_NEAR(t.compute, 2.0 * 128 * 128 * (200704.0 / 19) / (17.7e12 / 98), 1e-12);
  // Each part keeps at least a tile's depth; a full output is not split.
  EXPECT_DOUBLE_EQ(op_kernel_times(OpKernel::gemm(OpKernelClass::Linear, 1, 64, 64, 300), d, p).splits, 2);
  EXPECT_DOUBLE_EQ(op_kernel_times(OpKernel::gemm(OpKernelClass::Linear, 1, 4096, 4096, 1 << 20), d, p).splits, 1);
}

TEST(NeusightValidation, AFolderOfNewGpusIsPredictedWithTheShippedDefaults) {
  // One GPU the defaults were not fitted on, alone in its folder (the layout the held-out GPUs come in).
  const fs::path d = fs::temp_directory_path() / "vgpusim-neusight-new";
  fs::remove_all(d);
  fs::create_directories(d / "label" / "NVIDIA_H100_PCIe");
  const fs::path src = fs::path(VGPUSIM_SOURCE_DIR) / "scenarios/measurements/neusight/label/Tesla_T4";
  for (const char* ext : {".csv", ".json"})
    fs::copy_file(src / (std::string("bert_large-inf-512-8") + ext),
                  d / "label" / "NVIDIA_H100_PCIe" / (std::string("bert_large-inf-512-8") + ext));
  const std::vector<ValidationRun> runs = validate_neusight(d.string(), {});
  ASSERT_EQ(runs[0].cases.size(), 1u);
  EXPECT_EQ(runs[0].cases[0].gpu, "H100-PCIe");
  EXPECT_NE(runs[0].cases[0].split.find("shipped defaults"), std::string::npos) << runs[0].cases[0].split;
  EXPECT_GT(runs[0].cases[0].predicted, 0);
  fs::remove_all(d);
}

TEST(NeusightValidation, AmdFoldersArePredictedFromTheCatalogOrTheirDeviceConfig) {
  // NeuSight's AMD folders: one the catalog knows (an MI210), one it does not, described by a device config in
  // AMD's form (FP32 vector and matrix rates, no single FP32 figure): both are predicted, none skipped.
  const fs::path d = fs::temp_directory_path() / "vgpusim-neusight-amd";
  fs::remove_all(d);
  const fs::path src = fs::path(VGPUSIM_SOURCE_DIR) / "scenarios/measurements/neusight/label/Tesla_T4";
  for (const char* gpu : {"AMD_Instinct_MI210", "AMD_Instinct_MI999"}) {
    fs::create_directories(d / "label" / gpu);
    for (const char* ext : {".csv", ".json"})
      fs::copy_file(src / (std::string("bert_large-inf-512-8") + ext),
                    d / "label" / gpu / (std::string("bert_large-inf-512-8") + ext));
  }
  fs::create_directories(d / "device_configs");
  std::ofstream(d / "device_configs" / "AMD_Instinct_MI999.json")
      << R"({"Device": "AMD Instinct MI999", "Dev_Mem": 64, "Mem_Bw": 1640, "Num_Sm": 104, "Core_Per_SM": 4,
             "Freq": 1700, "SingleFLOPsMM": 45300, "SingleFLOPsVEC": 22600, "L2Cache": 8})";
  const std::optional<NeusightDevice> config = read_neusight_device(d.string(), "AMD_Instinct_MI999");
  ASSERT_TRUE(config);
  EXPECT_DOUBLE_EQ(config->fp32, 45.3e12);  // the matrix rate: FP32 GEMMs run on the matrix cores
  const std::vector<ValidationRun> runs = validate_neusight(d.string(), {});
  std::set<std::string> gpus;
  for (const ValidationCase& c : runs[0].cases) {
    gpus.insert(c.gpu);
    EXPECT_GT(c.predicted, 0) << c.gpu;
  }
  EXPECT_EQ(gpus, (std::set<std::string>{"MI210", "AMD_Instinct_MI999"}));
  EXPECT_TRUE(runs[0].skipped.empty());
  fs::remove_all(d);
}

TEST(OpModel, AmdCdnaGemmsRunOnTheMatrixCoresUnderTheirOwnPowerFigure) {
  const Catalog& c = builtin_catalog();
  OpModelParams p = plain();
  p.power_efficiency = 60e9;
  p.power_efficiency_cdna = 120e9;
  // CDNA and CDNA2: FP32 GEMMs at the matrix rate, twice the catalog's vector FP32; CDNA3's vector rate is already it.
  const OpDevice mi100 = op_device(c.find("MI100")->spec), mi210 = op_device(c.find("MI210")->spec),
                 mi250 = op_device(c.find("MI250")->spec), mi300x = op_device(c.find("MI300X")->spec);
  EXPECT_DOUBLE_EQ(mi100.fp32, 2 * c.find("MI100")->spec.fp32);
  EXPECT_DOUBLE_EQ(mi210.fp32, 45.2e12);
  EXPECT_DOUBLE_EQ(mi300x.fp32, c.find("MI300X")->spec.fp32);
  for (const OpDevice& d : {mi100, mi210, mi250, mi300x}) {
    EXPECT_EQ(d.power_group, OpPowerGroup::Cdna);
    EXPECT_FALSE(d.wide_sm);
    EXPECT_FALSE(d.pre_volta);
    EXPECT_EQ(d.tf32_tensor, 0);
  }
  // Capped by the CDNA figure, not the fitted one: a 300 W MI210 at 36 of its 45.2 TFLOP/s (the fitted figure would
  // allow 18, below its vector peak); a 750 W MI300X at 90 of 163.4.
  EXPECT_DOUBLE_EQ(sustained_fp32(mi210, p), 120e9 * 300);
  EXPECT_DOUBLE_EQ(sustained_fp32(mi300x, p), 120e9 * 750);
  EXPECT_FALSE(op_model_param_fitted("power_efficiency_cdna"));
  // A calibration's measured share of the FP32 peak is a share of the peak FP32 GEMMs run at.
  RooflineParams roof = RooflineParams::table().defaults();
  roof.fp32_efficiency = 0.8;
  EXPECT_DOUBLE_EQ(op_device(c.find("MI210")->spec, roof).fp32_measured, 0.8 * 45.2e12);
  // The Radeon MI25 (GCN5) is not CDNA: no matrix cores, the fitted figure.
  EXPECT_EQ(op_device(c.find("MI25")->spec).power_group, OpPowerGroup::Fitted);
  EXPECT_DOUBLE_EQ(op_device(c.find("MI25")->spec).fp32, c.find("MI25")->spec.fp32);
}

}  // namespace unit_op_model
