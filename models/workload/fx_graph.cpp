// torch.fx nodes -> the kernels they launch (docs/models/op-model.md, "Ops and their kernels").
#include "models/workload/fx_graph.hpp"

#include <algorithm>
#include <set>

#include "sim/core/text.hpp"

namespace vgpusim {

namespace {

using K = OpKernelClass;

bool in(const std::string& s, std::initializer_list<const char*> words) {
  for (const char* w : words)
    if (s == w) return true;
  return false;
}

double prefix_elements(const TensorShape& s, size_t drop) {
  double n = 1;
  for (size_t i = 0; i + drop < s.size(); ++i) n *= static_cast<double>(s[i]);
  return n;
}

double last(const TensorShape& s, size_t from_end = 1) {
  return s.size() >= from_end ? static_cast<double>(s[s.size() - from_end]) : 1.0;
}

OpKernel mem(K cls, double bytes) { return OpKernel::memory(cls, bytes); }

OpDtype gemm_dtype(const std::string& dtype) {
  return dtype == "float16" || dtype == "bfloat16" || dtype == "half" ? OpDtype::Fp16 : OpDtype::Fp32;
}

// A linear's forward and backward products and its parameter gradients' accumulation (bias: when it has one).
void linear_kernels(FxNodeKernels& out, double m, double k, double n, bool bias, bool weight_gradient, OpDtype dt) {
  const double eb = dtype_bytes(dt);
  out.op_class = "linear";
  out.forward.push_back(OpKernel::gemm(K::Linear, 1, m, n, k, dt));
  out.backward.push_back(OpKernel::gemm(K::Linear, 1, m, k, n, dt));  // dX = dY W
  out.backward.push_back(OpKernel::gemm(K::Linear, 1, n, k, m, dt));  // dW = dY^T X, a reduction over M
  if (weight_gradient) out.accumulate.push_back(mem(K::Accumulate, 3 * eb * k * n));
  if (bias) {
    out.backward.push_back(mem(K::Reduce, eb * m * n));
    if (weight_gradient) out.accumulate.push_back(mem(K::Accumulate, 3 * eb * n));
  }
}

// The gradient kernels of an element-wise function (`full`: inputs of the output's size, which carry a gradient).
std::vector<OpKernel> eltwise_backward(const std::string& f, size_t full, double ob) {
  if (f == "sub") return full >= 2 ? std::vector<OpKernel>{mem(K::Eltwise, 2 * ob)} : std::vector<OpKernel>{};
  if (in(f, {"mul", "truediv", "div"}))
    return std::vector<OpKernel>(std::max<size_t>(full, 1), mem(K::Eltwise, (full >= 2 ? 3 : 2) * ob));
  if (f == "pow") return {mem(K::Eltwise, 2 * ob), mem(K::Eltwise, 3 * ob), mem(K::Eltwise, 2 * ob)};
  if (in(f, {"tanh", "where", "relu", "max", "sigmoid", "exp"})) return {mem(K::Eltwise, 3 * ob)};
  return {};  // add and the comparisons: the gradient passes through or there is none
}

const std::set<std::string>& view_methods() {
  static const std::set<std::string> m = {"size",      "dim",   "view",    "permute", "transpose", "expand",
                                          "unsqueeze", "split", "squeeze", "chunk",   "unbind",    "narrow",
                                          "flatten",   "t",     "stride",  "numel",   "unflatten", "view_as"};
  return m;
}

const std::set<std::string>& cast_methods() {
  static const std::set<std::string> m = {"to", "type", "bool", "long", "float", "half", "int", "type_as", "bfloat16"};
  return m;
}

const std::set<std::string>& eltwise_functions() {
  static const std::set<std::string> m = {"add",     "sub",     "mul",     "truediv",     "div",   "pow",
                                          "tanh",    "where",   "max",     "lt",          "gt",    "eq",
                                          "ne",      "le",      "ge",      "masked_fill", "relu",  "rsqrt",
                                          "exp",     "neg",     "minimum", "maximum",     "sqrt",  "sigmoid",
                                          "clamp",   "abs",     "log",     "masked_fill_", "iadd", "floordiv"};
  return m;
}

// One node's classification: what it launches, by the kind of op it is.
class NodeKernels {
 public:
  NodeKernels(const FxNode& of, bool train)
      : node(of), training(train), o(*of.output), n(shape_elements(o)), ob(n * fx_dtype_bytes(of.dtype)),
        dt(gemm_dtype(of.dtype)), f(of.target), module(of.op == "call_module"), function(of.op == "call_function") {
    for (size_t i = 0; i < of.inputs.size(); ++i) {  // each input at its producer's dtype; scalars left out
      const double e = shape_elements(of.inputs[i]);
      if (e > 1) ib += e * fx_dtype_bytes(i < of.input_dtypes.size() ? of.input_dtypes[i] : "float32");
    }
  }
  FxNodeKernels result() {
    if (!matrix_product()) {
      if (module)
        module_op();
      else
        function_op();
    }
    return out;
  }

 private:
  // A memory-bound op of one forward kernel of its bytes in and out, and `bw` as its backward in training.
  bool simple(const char* name, K fw, std::vector<OpKernel> bw) {
    out.op_class = name;
    out.forward = {mem(fw, ib + ob)};
    if (training) out.backward = std::move(bw);
    return true;
  }

  // Linears, batched products, fused attention and convolutions; false for any other op.
  bool matrix_product() {
  if ((module && node.module == "Linear") || (function && in(f, {"addmm", "linear"}))) {
    if (node.inputs.empty()) return true;
    const TensorShape& a = f == "addmm" && node.inputs.size() >= 3 ? node.inputs[1] : node.inputs[0];
    const double m = prefix_elements(a, 1), k = last(a), cols = last(o);
    const bool bias = f == "addmm" || (f == "linear" ? node.inputs.size() >= 3
                                                     : !contains(node.name, "lm_head") && !node.name.ends_with("decoder"));
    linear_kernels(out, m, k, cols, bias, true, dt);
    if (!training) out.backward.clear(), out.accumulate.clear();
    return true;
  }
  if (function && in(f, {"matmul", "bmm", "baddbmm"})) {
    if (node.inputs.size() < 2) return true;
    const TensorShape& a = node.inputs[node.inputs.size() - 2];
    const TensorShape& b = node.inputs.back();
    if (b.size() == 2) {  // activation x weight: a linear without parameter gradients of its own here
      linear_kernels(out, prefix_elements(a, 1), last(a), last(b), false, false, dt);
      if (!training) out.backward.clear();
      return true;
    }
    const double batch = prefix_elements(a, 2), m = last(a, 2), k = last(a), cols = last(b);
    out.op_class = "bmm";
    out.forward.push_back(OpKernel::gemm(K::Bmm, batch, m, cols, k, dt));
    if (f == "baddbmm") out.forward.push_back(mem(K::Eltwise, 2 * fx_dtype_bytes(node.dtype) * batch * m * cols));
    if (training) {
      out.backward.push_back(OpKernel::gemm(K::Bmm, batch, m, k, cols, dt));
      out.backward.push_back(OpKernel::gemm(K::Bmm, batch, k, cols, m, dt));
    }
    return true;
  }
  if (function && f == "scaled_dot_product_attention") {
    // Fused attention: QK^T and PV in one kernel, the S x S scores never written: one batched product of 4 B H Sq Sk
    // D FLOPs (backward 2.5x) over the query tiles. Not checked against a measurement (docs/models/op-model.md).
    if (node.inputs.size() < 3) return true;
    const TensorShape& q = node.inputs[0];
    const TensorShape& kk = node.inputs[1];
    const double batch = prefix_elements(q, 2), sq = last(q, 2), d = last(q), sk = last(kk, 2);
    out.op_class = "attention";
    out.forward.push_back(OpKernel::gemm(K::Bmm, batch, sq, d, 2 * sk, dt));
    if (training) out.backward.push_back(OpKernel::gemm(K::Bmm, batch, sq, d, 5 * sk, dt));
    return true;
  }
  if ((module && contains(node.module, "Conv")) || (function && in(f, {"conv1d", "conv2d"}))) {
    // Implicit GEMM: M = N x output pixels, N = output channels, K = input channels x kernel area.
    if (node.inputs.empty() || o.size() < 3) return true;
    const TensorShape& x = node.inputs[0];
    const double area = node.kernel_area > 0 ? node.kernel_area : (o.size() == 4 ? 9.0 : 3.0);
    const double m = static_cast<double>(o[0]) * prefix_elements(TensorShape(o.begin() + 2, o.end()), 0);
    const double cout = static_cast<double>(o[1]), k = (x.size() >= 2 ? static_cast<double>(x[1]) : 1.0) * area;
    linear_kernels(out, m, k, cout, true, true, dt);
    out.op_class = "conv";
    if (!training) out.backward.clear(), out.accumulate.clear();
    return true;
  }
    return false;
  }

  // A call_module node that is not a matrix product.
  bool module_op() {
  const std::string& mc = node.module;
  if (contains(mc, "InstanceNorm")) {  // affine=False by default: statistics per sample and channel, no weights
    const double h = last(o);
    return simple("norm", K::Norm, {mem(K::NormBackward, 3 * ob + 8 * n / h), mem(K::Reduce, 2 * ob)});
  }
  if (mc == "LayerNorm" || contains(mc, "RMSNorm") || mc == "T5LayerNorm" || contains(mc, "BatchNorm") ||
      mc == "GroupNorm") {
    const double h = last(o);
    out.op_class = "norm";
    out.forward = {mem(K::Norm, ib + ob)};
    if (training) {
      out.backward = {mem(K::NormBackward, 3 * ob + 8 * n / h), mem(K::Reduce, 2 * ob)};
      out.accumulate = {mem(K::Accumulate, 12 * h), mem(K::Accumulate, 12 * h)};
    }
    return true;
  }
  if (mc == "Embedding") {
    const double h = last(o);
    out.op_class = "embedding";
    out.forward = {mem(K::Embedding, ib + ob)};
    if (training && node.table_rows > 0) {
      out.backward = {mem(K::Fill, 4 * node.table_rows * h), mem(K::EmbeddingBackward, 2 * ob + ib)};
      out.accumulate = {mem(K::Accumulate, 12 * node.table_rows * h)};
    }
    return true;
  }
  if (mc == "Dropout") {
    if (!training) return true;
    out.op_class = "dropout";
    out.forward = {mem(K::Dropout, ib + ob + n)};
    out.backward = {mem(K::DropoutBackward, 2 * ob + n)};
    return true;
  }
  if (contains(mc, "GELU") || contains(mc, "SiLU") || mc == "Mish" || mc == "Swish")
    return simple("activation", K::Activation, {mem(K::Activation, 3 * ob)});
  if (in(mc, {"ReLU", "Tanh", "Sigmoid", "ReLU6", "LeakyReLU"}))
    return simple("eltwise", K::Eltwise, {mem(K::Eltwise, 3 * ob)});
  if (contains(mc, "Softmax")) return simple("softmax", K::Softmax, {mem(K::SoftmaxBackward, 3 * ob)});
  if (contains(mc, "Pool")) return simple("reduce", K::Reduce, {mem(K::Eltwise, 2 * ob + ib)});
  out.op_class = "other";
  out.forward = {mem(K::Eltwise, ib + ob)};
  return true;
  }

  // A call_function or call_method node that is not a matrix product.
  bool function_op() {
  if (f == "softmax" || f == "log_softmax") return simple("softmax", K::Softmax, {mem(K::SoftmaxBackward, 3 * ob)});
  if (function && in(f, {"layer_norm", "rms_norm"})) {
    const double h = last(o);
    return simple("norm", K::Norm, {mem(K::NormBackward, 3 * ob + 8 * n / h), mem(K::Reduce, 2 * ob)});
  }
  if (f == "embedding") {
    out.op_class = "embedding";
    out.forward = {mem(K::Embedding, ib + ob)};
    return true;
  }
  if (f == "dropout") {
    if (!training) return true;
    out.op_class = "dropout";
    out.forward = {mem(K::Dropout, ib + ob + n)};
    out.backward = {mem(K::DropoutBackward, 2 * ob + n)};
    return true;
  }
  if (in(f, {"gelu", "silu", "mish"})) return simple("activation", K::Activation, {mem(K::Activation, 3 * ob)});
  if (eltwise_functions().count(f)) {
    if (n <= 1) return true;
    out.op_class = "eltwise";
    out.forward = {mem(K::Eltwise, ib + ob)};
    if (training && function) {
      size_t full = 0;
      for (const TensorShape& s : node.inputs) full += shape_elements(s) == n ? 1 : 0;
      out.backward = eltwise_backward(f, full, ob);
    }
    return true;
  }
  if (in(f, {"ones", "full", "arange", "zeros", "tensor", "ones_like", "zeros_like", "full_like", "empty"})) {
    out.op_class = "fill";
    out.forward = {mem(K::Fill, ob)};
    return true;
  }
  if (in(f, {"cumsum", "sum", "mean", "count_nonzero", "amax", "argmax"})) {
    out.op_class = "reduce";
    out.forward = {mem(K::Reduce, ib + ob)};
    return true;
  }
  if (node.op == "call_method") {
    if (view_methods().count(f)) return true;
    const bool copies = (f == "contiguous" || f == "reshape") &&
                        std::find(node.input_contiguous.begin(), node.input_contiguous.end(), false) !=
                            node.input_contiguous.end();
    const bool casts = cast_methods().count(f) && !node.input_dtypes.empty() && node.input_dtypes[0] != node.dtype;
    if (f == "contiguous" || f == "reshape" || cast_methods().count(f)) {
      if (!copies && !casts) return true;
      out.op_class = "copy";
      out.forward = {mem(K::Copy, ib + ob)};
      return true;
    }
  }
  if (f == "getitem" || f == "getattr") return true;
  if (in(f, {"cat", "stack"})) {
    out.op_class = "copy";
    out.forward = {mem(K::Copy, ib + ob)};
    return true;
  }
  if (n <= 1) return true;
  out.op_class = "other";
  out.forward = {mem(K::Eltwise, ib + ob)};
  return true;
  }

  const FxNode& node;
  const bool training;
  const TensorShape& o;
  const double n, ob;
  double ib = 0;
  const OpDtype dt;
  const std::string& f;
  const bool module, function;
  FxNodeKernels out;
};

}  // namespace

double fx_dtype_bytes(const std::string& dtype) {
  if (in(dtype, {"float16", "bfloat16", "half", "int16"})) return 2;
  if (in(dtype, {"int64", "float64", "long", "double"})) return 8;
  if (in(dtype, {"bool", "uint8", "int8"})) return 1;
  return 4;
}

double shape_elements(const TensorShape& s) { return prefix_elements(s, 0); }

FxNodeKernels fx_node_kernels(const FxNode& node, bool training) {
  if (in(node.op, {"placeholder", "get_attr", "output"}) || !node.output) return {};
  return NodeKernels(node, training).result();
}

}  // namespace vgpusim
