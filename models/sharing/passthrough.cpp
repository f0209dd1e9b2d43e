// `passthrough`: the whole GPU handed to one VM (PCI passthrough, VFIO / DirectPath I/O). Its only cost is a
// constant virtualization overhead on every kernel (IOMMU translation, interrupt remapping).
#include "models/sharing/mode_registry.hpp"

namespace vgpusim {
namespace {

// Walters, Younge et al., "GPU Passthrough Performance: A Comparison of KVM, Xen, VMWare ESXi, and LXC for CUDA and
// OpenCL Applications", IEEE CLOUD 2014 (doi:10.1109/CLOUD.2014.90): KVM 98-100%, Xen and ESXi 96-99% of bare
// metal. 2% is the middle of the 96-100% span.
constexpr double kPassthroughOverhead = 0.02;
constexpr const char* kPassthroughOverheadSource =
    "Walters, Younge et al., GPU Passthrough Performance: KVM, Xen, VMware ESXi and LXC for CUDA and OpenCL, IEEE "
    "CLOUD 2014 (doi:10.1109/CLOUD.2014.90): 96-100% of bare metal; 2% is the middle of that span";

class Passthrough final : public SharingModel {
 public:
  explicit Passthrough(double overhead) : rate_(1.0 / (1.0 + overhead)) {}
  void decide(double /*now*/, std::span<const ContextLoad> contexts, ShareDecision& out) override {
    for (size_t i = 0; i < contexts.size(); ++i) out.rate[i] = contexts[i].active > 0 ? rate_ : 0.0;
  }

 private:
  double rate_;  // fraction of bare-metal speed
};

struct PassthroughParams {
  double overhead;  // fractional slowdown of every kernel
};

const ParamTable<PassthroughParams>& passthrough_params() {
  static const ParamTable<PassthroughParams> table = ParamTable<PassthroughParams>().add(
      &PassthroughParams::overhead,
      number_param("passthrough", "overhead", units::Dim::Ratio, kPassthroughOverhead, 0.0, 10.0,
                   "fractional slowdown of every kernel against bare metal (time x (1 + overhead))",
                   kPassthroughOverheadSource));
  return table;
}

}  // namespace

SharingModeInfo passthrough_sharing_mode() {
  SharingModeInfo info;
  info.name = "passthrough";
  info.description = "whole GPU passed through to one VM; kernels run at bare-metal speed less a constant overhead";
  info.citation = "PCI passthrough (VFIO / VMware DirectPath I/O): the guest drives the device directly";
  info.doc = "passthrough.md";
  info.params = passthrough_params().specs();
  info.max_contexts = 1;
  info.memory_isolation = true;
  info.create = [](const ModelSetup& s) -> std::unique_ptr<SharingModel> {
    return std::make_unique<Passthrough>(passthrough_params().read(s.params).overhead);
  };
  return info;
}

std::unique_ptr<SharingModel> make_bare_metal_model() { return std::make_unique<Passthrough>(0.0); }

}  // namespace vgpusim
