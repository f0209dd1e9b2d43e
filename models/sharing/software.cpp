// `software`: rendering on the CPU (Mesa llvmpipe) when there is no GPU. The device is the host (catalog kind cpu:
// cores, per-core FLOP rate, DRAM bandwidth); tenants share its cores equally, as the OS scheduler does.
#include "models/sharing/mode_registry.hpp"

namespace vgpusim {
namespace {

class ProcessorSharing final : public SharingModel {
 public:
  void decide(double, std::span<const ContextLoad> contexts, ShareDecision& out) override {
    int busy = 0;
    for (const ContextLoad& c : contexts) busy += c.active > 0 ? 1 : 0;
    for (size_t i = 0; i < contexts.size(); ++i) out.rate[i] = contexts[i].active > 0 ? 1.0 / busy : 0.0;
  }
};

}  // namespace

SharingModeInfo software_sharing_mode() {
  SharingModeInfo info;
  info.name = "software";
  info.description =
      "CPU software rendering (Mesa llvmpipe): work runs on the host's cores at their FLOP rate and the host's "
      "memory bandwidth; tenants share the cores equally";
  info.citation = "Mesa documentation, LLVMpipe driver (multithreaded JIT rasterizer on all cores)";
  info.doc = "software.md";
  info.device_kind = "cpu";
  info.create = [](const ModelSetup&) -> std::unique_ptr<SharingModel> { return std::make_unique<ProcessorSharing>(); };
  return info;
}

}  // namespace vgpusim
