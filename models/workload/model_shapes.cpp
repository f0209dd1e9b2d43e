// Op graphs of common models from their shapes (models/workload/model_shapes.hpp).
#include "models/workload/model_shapes.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>

namespace vgpusim {

namespace {

std::string key(const std::string& name) {
  std::string k;
  for (char c : name)
    if (std::isalnum(static_cast<unsigned char>(c))) k += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return k;
}

TensorShape shape(std::initializer_list<double> dims) {
  TensorShape s;
  for (double d : dims) s.push_back(static_cast<int64_t>(d));
  return s;
}

// Builds nodes in order, each with the dtype of the graph.
class Graph {
 public:
  explicit Graph(std::string dtype) : dtype_(std::move(dtype)) {}
  void module(const std::string& cls, const std::string& name, std::vector<TensorShape> in, TensorShape out,
              double kernel_area = 0, double table_rows = 0) {
    FxNode n = base("call_module", name, std::move(in), std::move(out));
    n.module = cls;
    n.target = name;
    n.kernel_area = kernel_area;
    n.table_rows = table_rows;
    if (cls == "Embedding") n.input_dtypes = {"int64"};
    nodes_.push_back(std::move(n));
  }
  void function(const std::string& f, std::vector<TensorShape> in, TensorShape out) {
    FxNode n = base("call_function", f, std::move(in), std::move(out));
    n.target = f;
    nodes_.push_back(std::move(n));
  }
  void method(const std::string& m, std::vector<TensorShape> in, TensorShape out, bool contiguous_input) {
    FxNode n = base("call_method", m, std::move(in), std::move(out));
    n.target = m;
    std::fill(n.input_contiguous.begin(), n.input_contiguous.end(), contiguous_input);
    nodes_.push_back(std::move(n));
  }
  std::vector<FxNode> take() { return std::move(nodes_); }

 private:
  FxNode base(const std::string& op, const std::string& name, std::vector<TensorShape> in, TensorShape out) {
    FxNode n;
    n.name = name + "_" + std::to_string(nodes_.size());
    n.op = op;
    n.inputs = std::move(in);
    n.input_dtypes.assign(n.inputs.size(), dtype_);
    n.input_contiguous.assign(n.inputs.size(), true);
    n.output = std::move(out);
    n.dtype = dtype_;
    return n;
  }
  std::string dtype_;
  std::vector<FxNode> nodes_;
};

// An image network's ops on batch x channels x side x side tensors (square images).
class ImageOps {
 public:
  ImageOps(Graph& g, double batch) : g_(g), b_(batch) {}
  TensorShape at(double c, double side) const { return shape({b_, c, side, side}); }
  void conv(const char* name, double cin, double cout, double in_side, double out_side, double area) {
    g_.module("Conv2d", name, {at(cin, in_side)}, at(cout, out_side), area);
  }
  // A module whose output has its input's shape (a norm, an activation).
  void same(const char* module, const char* name, double c, double side) {
    g_.module(module, name, {at(c, side)}, at(c, side));
  }
  // A module that changes the side only (pooling, padding, upsampling).
  void resize(const char* module, const char* name, double c, double in_side, double out_side) {
    g_.module(module, name, {at(c, in_side)}, at(c, out_side));
  }
  void add(double c, double side) { g_.function("add", {at(c, side), at(c, side)}, at(c, side)); }

 private:
  Graph& g_;
  double b_;
};

// One encoder block of Hugging Face's eager attention: Q, K, V projections, scores, scale, mask, softmax, dropout,
// values, the heads merged (a copy), the output projection, residual and norm, the MLP with its activation.
void encoder_block(Graph& g, const TransformerShape& s, double b, double t) {
  const double h = s.hidden, heads = s.heads, d = h / heads;
  const TensorShape x = shape({b, t, h}), scores = shape({b, heads, t, t}), head = shape({b, heads, t, d});
  if (s.pre_norm) g.module("LayerNorm", "norm1", {x}, x);
  for (const char* p : {"query", "key", "value"}) g.module("Linear", p, {x}, x);
  g.function("matmul", {head, shape({b, heads, d, t})}, scores);
  g.function("truediv", {scores}, scores);
  g.function("add", {scores, shape({b, 1, 1, t})}, scores);
  g.function("softmax", {scores}, scores);
  g.module("Dropout", "attention_dropout", {scores}, scores);
  g.function("matmul", {scores, head}, head);
  g.method("contiguous", {head}, head, false);
  g.module("Linear", "attention_output", {x}, x);
  g.module("Dropout", "output_dropout", {x}, x);
  g.function("add", {x, x}, x);
  if (!s.pre_norm) g.module("LayerNorm", "attention_norm", {x}, x);
  if (s.pre_norm) g.module("LayerNorm", "norm2", {x}, x);
  const TensorShape up = shape({b, t, s.ffn});
  g.module("Linear", "intermediate", {x}, up);
  g.module("GELU", "activation", {up}, up);
  g.module("Linear", "output", {up}, x);
  g.module("Dropout", "mlp_dropout", {x}, x);
  g.function("add", {x, x}, x);
  if (!s.pre_norm) g.module("LayerNorm", "output_norm", {x}, x);
}

}  // namespace

bool transformer_shape(const std::string& name, TransformerShape& out) {
  const std::string k = key(name);
  TransformerShape s;
  if (k == "bertbase" || k == "bertbaseuncased" || k == "bertbasecased") {
    s.pooler = 768;
  } else if (k == "bertbasemultilingualcased") {  // vocabulary 119547
    s.vocabulary = 119547;
    s.pooler = 768;
  } else if (k == "bertlarge" || k == "bertlargeuncased") {
    s.layers = 24;
    s.hidden = 1024;
    s.heads = 16;
    s.ffn = 4096;
    s.pooler = 1024;
  } else if (k.starts_with("distilusebasemultilingualcased")) {  // DistilBERT multilingual + a 768 -> 512 dense
    s.layers = 6;
    s.vocabulary = 119547;
    s.pooler = 512;
  } else if (k == "paraphrasemultilingualminilml12v2") {  // XLM-R vocabulary
    s.hidden = 384;
    s.ffn = 1536;
    s.vocabulary = 250002;
  } else if (k == "paraphrasemultilingualmpnetbasev2") {
    s.vocabulary = 250002;
  } else if (k == "visiontransformer" || k == "vitb16" || k == "vitbase" || k == "vitbasepatch16224") {
    s.vocabulary = 0;
    s.pre_norm = true;
  } else {
    return false;
  }
  out = s;
  return true;
}

bool is_resnet50(const std::string& name) { return key(name).starts_with("resnet50"); }

std::vector<FxNode> transformer_nodes(const TransformerShape& s, double batch, double seq, bool vision,
                                      const std::string& dtype) {
  Graph g(dtype);
  const double h = s.hidden;
  double t = seq;
  if (vision) {  // 16 x 16 patches of a seq x seq image, a class token
    const double side = std::floor(seq / 16);
    t = side * side + 1;
    g.module("Conv2d", "patch_embedding", {shape({batch, 3, seq, seq})}, shape({batch, h, side, side}), 256);
    g.method("contiguous", {shape({batch, side * side, h})}, shape({batch, side * side, h}), false);
    g.function("cat", {shape({batch, 1, h}), shape({batch, side * side, h})}, shape({batch, t, h}));
    g.function("add", {shape({batch, t, h}), shape({1, t, h})}, shape({batch, t, h}));
  } else {
    const TensorShape ids = shape({batch, t}), x = shape({batch, t, h});
    g.module("Embedding", "word_embeddings", {ids}, x, 0, s.vocabulary);
    g.module("Embedding", "position_embeddings", {shape({1, t})}, shape({1, t, h}), 0, t);
    g.function("add", {x, shape({1, t, h})}, x);
    g.module("LayerNorm", "embeddings_norm", {x}, x);
    g.module("Dropout", "embeddings_dropout", {x}, x);
  }
  std::vector<FxNode> nodes = g.take();
  Graph layer(dtype);
  encoder_block(layer, s, batch, t);
  const std::vector<FxNode> block = layer.take();
  for (int l = 0; l < s.layers; ++l) nodes.insert(nodes.end(), block.begin(), block.end());
  Graph tail(dtype);
  if (vision) {
    tail.module("LayerNorm", "final_norm", {shape({batch, t, h})}, shape({batch, t, h}));
    tail.module("Linear", "head", {shape({batch, h})}, shape({batch, 1000}));
  } else if (s.pooler > 0) {
    tail.module("Linear", "pooler", {shape({batch, h})}, shape({batch, s.pooler}));
    tail.module("Tanh", "pooler_activation", {shape({batch, s.pooler})}, shape({batch, s.pooler}));
  }
  for (FxNode& n : tail.take()) nodes.push_back(std::move(n));
  return nodes;
}

std::vector<FxNode> resnet50_nodes(double batch, double image, const std::string& dtype) {
  Graph g(dtype);
  ImageOps net(g, batch);
  double side = std::floor(image / 2);
  const auto conv = [&](const char* name, double cin, double cout, double in_side, double out_side, double area) {
    net.conv(name, cin, cout, in_side, out_side, area);
    net.same("BatchNorm2d", "bn", cout, out_side);
  };
  conv("conv1", 3, 64, image, side, 49);
  net.same("ReLU", "relu", 64, side);
  net.resize("MaxPool2d", "maxpool", 64, side, side / 2);
  side /= 2;
  double cin = 64;
  const int blocks[] = {3, 4, 6, 3};
  for (int stage = 0; stage < 4; ++stage) {
    const double width = 64 * std::pow(2.0, stage), cout = 4 * width;
    for (int b = 0; b < blocks[stage]; ++b) {
      const bool first = b == 0;
      const double out_side = first && stage > 0 ? side / 2 : side;  // torchvision: the stride on the 3 x 3 conv
      conv("conv_a", cin, width, side, side, 1);
      net.same("ReLU", "relu", width, side);
      conv("conv_b", width, width, side, out_side, 9);
      net.same("ReLU", "relu", width, out_side);
      conv("conv_c", width, cout, out_side, out_side, 1);
      if (first) conv("downsample", cin, cout, side, out_side, 1);
      net.add(cout, out_side);
      net.same("ReLU", "relu", cout, out_side);
      cin = cout;
      side = out_side;
    }
  }
  net.resize("AdaptiveAvgPool2d", "avgpool", 2048, side, 1);
  g.module("Linear", "fc", {shape({batch, 2048})}, shape({batch, 1000}));
  return g.take();
}

std::vector<FxNode> resnet18_cifar_nodes(double batch, const std::string& dtype) {
  Graph g(dtype);
  ImageOps net(g, batch);
  const auto conv = [&](double cin, double cout, double in_side, double out_side, double area) {
    net.conv("conv", cin, cout, in_side, out_side, area);
    net.same("BatchNorm2d", "bn", cout, out_side);
  };
  double side = 32, cin = 64;
  conv(3, 64, side, side, 9);  // a 3 x 3 stem at stride 1, no max pooling: CIFAR's 32 x 32 images
  net.same("ReLU", "relu", 64, side);  // F.relu there: the same kernel
  for (int stage = 0; stage < 4; ++stage) {
    const double planes = 64 * std::pow(2.0, stage);
    for (int b = 0; b < 2; ++b) {  // two basic blocks a stage, the first of stages 2-4 at stride 2
      const double out_side = b == 0 && stage > 0 ? side / 2 : side;
      conv(cin, planes, side, out_side, 9);
      net.same("ReLU", "relu", planes, out_side);
      conv(planes, planes, out_side, out_side, 9);
      if (out_side != side || cin != planes) conv(cin, planes, side, out_side, 1);  // the 1 x 1 shortcut
      net.add(planes, out_side);
      net.same("ReLU", "relu", planes, out_side);
      cin = planes;
      side = out_side;
    }
  }
  net.resize("AvgPool2d", "avg_pool2d", 512, side, 1);
  g.module("Linear", "linear", {shape({batch, 512})}, shape({batch, 10}));
  return g.take();
}

std::vector<FxNode> translation_transformer_nodes(double batch, double src_len, double tgt_len, double vocabulary,
                                                 const std::string& dtype) {
  Graph g(dtype);
  const double h = 512, heads = 8, d = 64, inner = 2048, b = batch;
  // A sublayer's end on its output x of length t: dropout, the residual add, layer norm, then the padding mask
  // multiplied in.
  const auto close = [&](double t) {
    const TensorShape x = shape({b, t, h});
    g.module("Dropout", "dropout", {x}, x);
    g.function("add", {x, x}, x);
    g.module("LayerNorm", "layer_norm", {x}, x);
    g.function("mul", {x, shape({b, t, 1})}, x);
  };
  // Multi-head attention of queries of length tq over keys of length tk (q, k, v projections, heads split by
  // permute + contiguous, scaled scores masked, softmax, dropout, the weighted sum, heads merged, the output
  // projection), then the sublayer's end.
  const auto attention = [&](double tq, double tk) {
    const TensorShape xq = shape({b, tq, h}), xk = shape({b, tk, h});
    const TensorShape q = shape({heads, b, tq, d}), k = shape({heads, b, tk, d}), scores = shape({heads, b, tq, tk});
    g.module("Linear", "w_qs", {xq}, xq);
    g.module("Linear", "w_ks", {xk}, xk);
    g.module("Linear", "w_vs", {xk}, xk);
    g.method("contiguous", {q}, q, false);
    g.method("contiguous", {k}, k, false);
    g.method("contiguous", {k}, k, false);
    g.method("repeat", {shape({b, tq, tk})}, scores, true);  // the mask, once per head
    g.function("matmul", {q, shape({heads, b, d, tk})}, scores);
    g.function("truediv", {scores}, scores);
    g.function("masked_fill", {scores, scores}, scores);
    g.function("softmax", {scores}, scores);
    g.module("Dropout", "attention_dropout", {scores}, scores);
    g.function("matmul", {scores, k}, q);
    g.method("contiguous", {shape({b, tq, heads, d})}, shape({b, tq, heads, d}), false);
    g.module("Linear", "fc", {xq}, xq);
    close(tq);
  };
  // The position-wise feed-forward (two 1 x 1 convolutions: linear layers over the positions), then the sublayer's
  // end.
  const auto feed_forward = [&](double t) {
    const TensorShape x = shape({b, t, h}), up = shape({b, t, inner});
    g.module("Linear", "w_1", {x}, up);
    g.module("ReLU", "relu", {up}, up);
    g.module("Linear", "w_2", {up}, x);
    close(t);
  };
  const auto embed = [&](double t) {
    const TensorShape x = shape({b, t, h});
    g.module("Embedding", "word_emb", {shape({b, t})}, x, 0, vocabulary);
    g.module("Embedding", "position_enc", {shape({b, t})}, x, 0, t + 1);
    g.function("add", {x, x}, x);
    g.function("ne", {shape({b, t})}, shape({b, t}));  // the padding masks
    g.function("eq", {shape({b, t})}, shape({b, t}));
  };
  embed(src_len);
  for (int l = 0; l < 6; ++l) {
    attention(src_len, src_len);
    feed_forward(src_len);
  }
  embed(tgt_len);
  g.function("gt", {shape({b, tgt_len, tgt_len})}, shape({b, tgt_len, tgt_len}));  // the subsequent-position mask
  for (int l = 0; l < 6; ++l) {
    attention(tgt_len, tgt_len);
    attention(tgt_len, src_len);
    feed_forward(tgt_len);
  }
  const TensorShape logits = shape({b, tgt_len, vocabulary});
  g.module("Linear", "tgt_word_prj", {shape({b, tgt_len, h})}, logits);
  g.function("mul", {logits}, logits);
  return g.take();
}

std::vector<FxNode> cyclegan_step_nodes(double batch, double image, const std::string& dtype) {
  Graph g(dtype);
  ImageOps net(g, batch);
  const auto norm_relu = [&](double c, double side, bool relu) {
    net.same("InstanceNorm2d", "norm", c, side);
    if (relu) net.same("ReLU", "relu", c, side);
  };
  const auto pad = [&](double c, double side, double by) {
    net.resize("ReflectionPad2d", "pad", c, side, side + 2 * by);
  };
  // GeneratorResNet: a 7 x 7 stem, two stride-2 downsamplings, 9 residual blocks at 256 channels, two nearest
  // upsamplings with 3 x 3 convolutions, a 7 x 7 output convolution and tanh.
  const auto generator = [&] {
    double side = image;
    pad(3, side, 3);
    net.conv("conv", 3, 64, side + 6, side, 49);
    norm_relu(64, side, true);
    double c = 64;
    for (int i = 0; i < 2; ++i) {
      net.conv("conv", c, 2 * c, side, side / 2, 9);
      c *= 2;
      side /= 2;
      norm_relu(c, side, true);
    }
    for (int r = 0; r < 9; ++r) {
      pad(c, side, 1);
      net.conv("conv", c, c, side + 2, side, 9);
      norm_relu(c, side, true);
      pad(c, side, 1);
      net.conv("conv", c, c, side + 2, side, 9);
      norm_relu(c, side, false);
      net.add(c, side);
    }
    for (int i = 0; i < 2; ++i) {
      net.resize("Upsample", "upsample", c, side, 2 * side);
      side *= 2;
      net.conv("conv", c, c / 2, side, side, 9);
      c /= 2;
      norm_relu(c, side, true);
    }
    pad(c, side, 3);
    net.conv("conv", c, 3, side + 6, side, 49);
    net.same("Tanh", "tanh", 3, side);
  };
  // The PatchGAN discriminator: four stride-2 4 x 4 convolutions (64 to 512 channels, instance norm after all but
  // the first, leaky ReLU), a zero pad and a 4 x 4 convolution to one channel.
  const auto discriminator = [&] {
    double side = image, c = 3;
    for (const double out : {64.0, 128.0, 256.0, 512.0}) {
      net.conv("conv", c, out, side, side / 2, 16);
      side /= 2;
      c = out;
      if (out > 64) net.same("InstanceNorm2d", "norm", c, side);
      net.same("LeakyReLU", "leaky_relu", c, side);
    }
    net.resize("ZeroPad2d", "pad", c, side, side + 1);
    net.conv("conv", c, 1, side + 1, side, 16);
  };
  // One step: the generators' identity, translation and cycle passes (six), the discriminators on the fakes (two)
  // for the generators' loss, then each discriminator on a real and a fake (four); every pass is differentiated.
  for (int i = 0; i < 6; ++i) generator();
  for (int i = 0; i < 6; ++i) discriminator();
  return g.take();
}

std::vector<std::pair<OpKernel, double>> graph_kernels(const std::vector<FxNode>& nodes, bool training,
                                                       const std::vector<double>& repeats) {
  std::vector<std::pair<OpKernel, double>> out;
  std::map<OpKernel, size_t> index;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const FxNodeKernels k = fx_node_kernels(nodes[i], training);
    const double repeat = i < repeats.size() ? repeats[i] : 1.0;
    for (const auto* list : {&k.forward, &k.backward, &k.accumulate})
      for (const OpKernel& x : *list) {
        auto [it, fresh] = index.try_emplace(x, out.size());
        if (fresh) out.push_back({x, 0.0});
        out[it->second].second += repeat;
      }
  }
  return out;
}

}  // namespace vgpusim
