// The registry of sharing modes: the one place a new mode is listed.
#include "models/sharing/sharing_mode.hpp"

#include "models/sharing/registry_entries.hpp"

namespace vgpusim {

const std::vector<SharingModelInfo>& sharing_models() {
  static const std::vector<SharingModelInfo> models = {
      passthrough_model_info(),
      timeslice_model_info(),
      mps_model_info(),
      mig_model_info(),
      vgpu_model_info(),
      sriov_model_info(),
      software_model_info(),
  };
  return models;
}

const SharingModelInfo* find_sharing_model(const std::string& name) {
  for (const SharingModelInfo& m : sharing_models())
    if (m.name == name) return &m;
  return nullptr;
}

}  // namespace vgpusim
