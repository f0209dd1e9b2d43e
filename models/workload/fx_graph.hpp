// A model as a torch.fx graph: one node per op with its input and output shapes, and the kernels each node launches
// (forward, backward and gradient accumulation) for the operator model (models/gpu/op_model.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/gpu/op_model.hpp"

namespace vgpusim {

using TensorShape = std::vector<int64_t>;

struct FxNode {
  std::string name;    // the node's name, e.g. "bert_encoder_layer_0_attention_self_query"
  std::string op;      // placeholder, get_attr, call_module, call_function, call_method, output
  std::string target;  // call_function: the function ("addmm"); call_method: the method ("view"); else the target
  std::string module;  // call_module: the module's class ("Linear", "LayerNorm", "Conv2d")
  std::vector<TensorShape> inputs;        // the tensor inputs' shapes, in order
  std::vector<std::string> input_dtypes;  // their producers' dtypes ("float32"), where known
  std::vector<bool> input_contiguous;
  std::optional<TensorShape> output;  // none: the node yields no tensor (a size, a python scalar)
  std::string dtype;                  // of the output, e.g. "float32"
  // Embedding: rows of its table (the backward's dense gradient); 0 = unknown.
  double table_rows = 0;
  // Conv: kernel height x width (from the weight's shape when the profile has none); 0 = unknown.
  double kernel_area = 0;
};

// What a node launches. `op_class` names the op ("linear", "bmm", "softmax", ..., "none" for views and metadata).
struct FxNodeKernels {
  std::string op_class = "none";
  std::vector<OpKernel> forward, backward, accumulate;
};

// The node's kernels. `training`: also the backward and accumulation kernels (the backward's shapes from the
// forward's), and dropout runs.
FxNodeKernels fx_node_kernels(const FxNode& node, bool training);

// Bytes per element of a dtype name ("float32" 4, "float16"/"bfloat16" 2, "int64" 8, "bool" 1; unknown 4).
double fx_dtype_bytes(const std::string& dtype);
double shape_elements(const TensorShape& s);

}  // namespace vgpusim
