// Every model of the world vgpusim knows, as `vgpusim list models`, calibration files and the docs see it: what it
// is, where it comes from, and its declared parameters. Sharing modes come from their own registry
// (models/sharing/mode_registry.hpp); the component models (roofline, contention) are listed here; optional rooms
// (the network model) register theirs when they are linked in.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "models/gpu/gpu_spec.hpp"
#include "models/gpu/roofline.hpp"
#include "sim/core/params.hpp"

namespace vgpusim {

struct ModelDescription {
  std::string name;               // the owner of its parameters, e.g. "roofline"
  std::string family;             // what kind of model: "sharing mode", "kernel performance", "contention", "network"
  std::string description;        // one line
  std::string citation;           // where it comes from
  std::string doc;                // its page under docs/models, e.g. "roofline.md"; "" for none
  std::string note;               // one more line for the listing (a sharing mode's limits); may be ""
  std::vector<ParamSpec> params;  // what it reads, per-tenant ones included
};

// The sharing modes, then the component models, then registered ones.
std::vector<ModelDescription> model_descriptions();
// Adds a model (an optional room's). Throws std::invalid_argument when its name is taken.
void register_model_description(ModelDescription description);

// The data-parallel scaling model, which the network room registers when it is linked in: the parallel efficiency
// (compute time / iteration time, 0..1] of a data-parallel training job with this step on `gpus` GPUs of one node
// joined by links of kind `link` (a network preset). Cluster studies reach the network model through it.
struct DataParallelQuery {
  KernelSpec step;                // one replica's forward + backward
  double parameters = 0;          // model parameters (gradients all-reduced each step)
  double bytes_per_gradient = 4;  // fp32
  GpuSpec gpu;
  int gpus = 1;
  std::string link;               // e.g. "nvlink3", "pcie4"
};
// Throws std::invalid_argument on an unknown link kind.
using DataParallelEfficiency = std::function<double(const DataParallelQuery&)>;
void register_data_parallel_efficiency(DataParallelEfficiency fn);
// Empty when the network model is not linked in (VGPUSIM_NETWORK off).
const DataParallelEfficiency& data_parallel_efficiency();

// Every number parameter that is not per tenant, once per qualified name: what a calibration file may set.
std::vector<ParamSpec> calibratable_params();

}  // namespace vgpusim
