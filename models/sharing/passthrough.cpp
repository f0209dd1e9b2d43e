// `passthrough`: the whole GPU handed to one VM (PCI passthrough, VFIO / DirectPath I/O). Its only cost is a
// constant virtualization overhead on every kernel (IOMMU translation, interrupt remapping).
#include "models/sharing/registry_entries.hpp"

namespace vgpusim {
namespace {

class Passthrough final : public SharingModel {
 public:
  explicit Passthrough(double overhead) : rate_(1.0 / (1.0 + overhead)) {}
  void decide(double /*now*/, std::span<const ContextLoad> contexts, ShareDecision& out) override {
    for (size_t i = 0; i < contexts.size(); ++i) out.rate[i] = contexts[i].active > 0 ? rate_ : 0.0;
  }

 private:
  double rate_;  // fraction of bare-metal speed
};

}  // namespace

SharingModelInfo passthrough_model_info() {
  SharingModelInfo info;
  info.name = "passthrough";
  info.description = "whole GPU passed through to one VM; kernels run at bare-metal speed less a constant overhead";
  info.citation = "PCI passthrough (VFIO / VMware DirectPath I/O): the guest drives the device directly";
  info.params = {
      {"overhead", units::Dim::Ratio, kPassthroughOverhead,
       "fractional slowdown of every kernel against bare metal (time x (1 + overhead))", kPassthroughOverheadSource,
       0.0, 10.0},
  };
  info.max_contexts = 1;
  info.memory_isolation = true;
  info.create = [](const ModelSetup& s) -> std::unique_ptr<SharingModel> {
    return std::make_unique<Passthrough>(s.params.get("overhead"));
  };
  return info;
}

std::unique_ptr<SharingModel> make_bare_metal_model() { return std::make_unique<Passthrough>(0.0); }

}  // namespace vgpusim
