// Scenario-format pieces inside other files (pieces.hpp).
#include "sim/scenario/pieces.hpp"

#include "sim/scenario/loader_state.hpp"

namespace vgpusim {

ScenarioPieces::ScenarioPieces(std::string file, const Catalog& catalog)
    : file_(std::move(file)), loader_(new Loader{file_, catalog, ScenarioBuilder(file_), {}, {}, {}}) {}

ScenarioPieces::~ScenarioPieces() = default;

WorkloadRef ScenarioPieces::workload(const YAML::Node& node, const std::string& path, const ScenarioGpu& gpu) {
  return loader_->workload(node, path, gpu);
}

SharingConfig ScenarioPieces::sharing(const YAML::Node& node, const std::string& path, const GpuSpec& device,
                                      const SharingModeInfo*& info, const ParamOverrides& calibrated,
                                      bool layout_searched) {
  return loader_->sharing_config(node, path, device, info, calibrated, layout_searched);
}

double ScenarioPieces::positive(const MapReader& r, const std::string& key, units::Dim dim) {
  return loader_->positive(r, key, dim);
}

double ScenarioPieces::nonnegative(const MapReader& r, const std::string& key, units::Dim dim) {
  return loader_->nonnegative(r, key, dim);
}

void ScenarioPieces::unknown_gpu_model(const YAML::Node& node, const std::string& path, const std::string& name) {
  loader_->unknown_gpu_model(node, path, name);
}

}  // namespace vgpusim
