// The list of models: sharing modes from their registry, the component models, and registered ones.
#include "models/descriptions/model_descriptions.hpp"

#include <fmt/format.h>

#include <deque>
#include <set>
#include <stdexcept>

#include "models/gpu/op_model.hpp"
#include "models/gpu/roofline.hpp"
#include "models/sharing/contention.hpp"
#include "models/sharing/mode_registry.hpp"
#include "models/workload/llm.hpp"
#include "models/workload/telemetry.hpp"

namespace vgpusim {
namespace {

std::deque<ModelDescription>& registered() {
  static std::deque<ModelDescription> extra;
  return extra;
}

std::vector<ModelDescription> component_models() {
  return {
      {"roofline", "kernel performance", roofline_description(),
       "Williams, Waterman and Patterson, Roofline: an insightful visual performance model, CACM 52(4), 2009",
       "roofline.md", "set per GPU in gpus[]", roofline_params()},
      {"ops", "kernel performance", op_model_description(),
       "Lee, Phanishayee and Mahajan, Forecasting GPU Performance for Deep Learning Training and Inference "
       "(NeuSight), ASPLOS 2025, for the tile and wave view and the measurements it is fitted on",
       "op-model.md", "one set for every GPU: fitted jointly over GPUs, never per GPU", op_model_params()},
      {"contention", "contention", contention_description(),
       "a declared model; its coefficients come from the hwcal co-run experiments (docs/calibration.md)",
       "contention.md", "set beside the mode of a spatial sharing mode (mps)", contention_params()},
      {"llm", "LLM serving", llm_server_description(),
       "Kwon et al., Efficient Memory Management for Large Language Model Serving with PagedAttention (vLLM), SOSP "
       "2023; Agrawal et al., Vidur, MLSys 2024",
       "llm.md", "set per tenant under tenants[].workload.llm, or per GPU in its calibration file", llm_server_params()},
      {"measured", "workload", telemetry_description(),
       "nvidia-smi utilization.gpu and DCGM field definitions; kernel and gap statistics of the shipped Kineto "
       "training traces (scenarios/traces/kineto)",
       "telemetry-workload.md", "set per tenant under tenants[].workload.measured, or per GPU in its calibration file",
       telemetry_params()},
  };
}

}  // namespace

std::vector<ModelDescription> model_descriptions() {
  std::vector<ModelDescription> all;
  for (const SharingModeInfo& m : sharing_modes())
    all.push_back(
        {m.name, "sharing mode", m.description, m.citation, m.doc,
         fmt::format("tenants per GPU: {}; memory isolation: {}",
                     m.max_contexts > 0 ? std::to_string(m.max_contexts) : "any", m.memory_isolation ? "yes" : "no"),
         m.params});
  for (ModelDescription& d : component_models()) all.push_back(std::move(d));
  for (const ModelDescription& d : registered()) all.push_back(d);
  return all;
}

void register_model_description(ModelDescription description) {
  for (const ModelDescription& d : model_descriptions())
    if (d.name == description.name) throw std::invalid_argument("model '" + description.name + "' is registered twice");
  registered().push_back(std::move(description));
}

namespace {
DataParallelEfficiency& data_parallel_slot() {
  static DataParallelEfficiency fn;
  return fn;
}
}  // namespace

void register_data_parallel_efficiency(DataParallelEfficiency fn) { data_parallel_slot() = std::move(fn); }
const DataParallelEfficiency& data_parallel_efficiency() { return data_parallel_slot(); }

std::vector<ParamSpec> calibratable_params() {
  std::vector<ParamSpec> out;
  std::set<std::string> seen;
  for (const ModelDescription& d : model_descriptions())
    for (const ParamSpec& p : d.params)
      if (p.type == ParamType::Number && !p.per_tenant && seen.insert(p.qualified()).second) out.push_back(p);
  return out;
}

}  // namespace vgpusim
