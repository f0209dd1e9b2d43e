// Op graphs of common models built from their published shapes (for the operator model, models/gpu/op_model.hpp),
// as torch.fx nodes the eager PyTorch model would run: transformer encoders (BERT and its relatives, ViT) and
// ResNet-50. One pass at a batch and sequence; FP32 unless told.
#pragma once

#include <string>
#include <vector>

#include "models/workload/fx_graph.hpp"

namespace vgpusim {

struct TransformerShape {
  int layers = 12;
  double hidden = 768;
  double heads = 12;
  double ffn = 3072;
  double vocabulary = 30522;  // 0: no token embedding (ViT: a patch embedding instead)
  bool pre_norm = false;      // ViT: the norm before each block; BERT: after
  double pooler = 0;          // a dense layer on the output (BERT's pooler, distiluse's 768->512); 0 none
};

// A named model's shape; false when the name is not one of them. Names as benchmarks write them (case and
// punctuation ignored): bert-base(-multilingual-cased), bert-large, distiluse-base-multilingual-cased(-v1/-v2),
// paraphrase-multilingual-minilm-l12-v2, paraphrase-multilingual-mpnet-base-v2, vit-b/16 (vision_transformer).
bool transformer_shape(const std::string& name, TransformerShape& out);
bool is_resnet50(const std::string& name);  // resnet50, resnet50_moco, ...

// The nodes of one forward pass (`dtype` "float32" or "float16"). A ViT's sequence is its patches + 1 (seq is then
// the image side: 224 -> 197 tokens).
std::vector<FxNode> transformer_nodes(const TransformerShape& s, double batch, double seq, bool vision,
                                      const std::string& dtype = "float32");
std::vector<FxNode> resnet50_nodes(double batch, double image = 224, const std::string& dtype = "float32");
// ResNet-18 for CIFAR-10 (32 x 32 images, 10 classes) as the common PyTorch CIFAR recipe builds it (kuangliu's
// pytorch-cifar `ResNet18`, which Gavel's image_classification/cifar10 workload runs): a 3 x 3 stem without max
// pooling, two basic blocks a stage, 1 x 1 convolution shortcuts where the shape changes.
std::vector<FxNode> resnet18_cifar_nodes(double batch, const std::string& dtype = "float32");
// The encoder-decoder Transformer of "Attention is all you need" as Gavel's translation workload trains it
// (jadore801120's attention-is-all-you-need-pytorch: 6 + 6 layers, d_model 512, 8 heads of 64, inner 2048, the
// padding mask multiplied in after every sublayer, a projection to the target vocabulary): one pass at a batch of
// sentences padded to src_len and tgt_len tokens.
std::vector<FxNode> translation_transformer_nodes(double batch, double src_len, double tgt_len, double vocabulary,
                                                 const std::string& dtype = "float32");
// One training step of CycleGAN as Gavel's cyclegan workload runs it (eriklindernoren's PyTorch-GAN: two ResNet
// generators of 9 residual blocks, two PatchGAN discriminators, images of `image` pixels): the generators' six
// passes (identity, translation, cycle) and the discriminators' six (two for the generators' loss, two each for
// their own), every one of them differentiated in training.
std::vector<FxNode> cyclegan_step_nodes(double batch, double image = 256, const std::string& dtype = "float32");

// Every node's kernels of one pass, each with how often it runs (node i `repeats[i]` times; none given: once), the
// same kernel merged (forward; training: forward, backward and accumulation).
std::vector<std::pair<OpKernel, double>> graph_kernels(const std::vector<FxNode>& nodes, bool training,
                                                       const std::vector<double>& repeats = {});

}  // namespace vgpusim
