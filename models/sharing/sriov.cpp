// `sriov`: SR-IOV virtual functions with hardware time-slicing (AMD MxGPU as in Azure NVv4): each tenant is a VF
// holding a fraction of the GPU's time slots and the same fraction of its memory; a world switch costs time at
// the start of each VF's turn.
#include <fmt/format.h>

#include <cmath>

#include "models/sharing/mode_registry.hpp"
#include "models/sharing/slot_scheduler.hpp"

namespace vgpusim {
namespace {

struct SriovParams {
  double vfs;           // virtual functions (time slots per cycle)
  double slice;         // s, one VF's slot
  double world_switch;  // s
  std::string scheduler;
};
struct SriovTenant {
  double fraction;  // of the GPU; 0 = one slot
};

const ParamTable<SriovParams>& sriov_params() {
  static const ParamTable<SriovParams> table = ParamTable<SriovParams>()
      .add(&SriovParams::vfs, number_param("sriov", "vfs", units::Dim::Count, 16, 1, 16,
                   "virtual functions the GPU is split into (time slots per cycle)",
                   "AMD MxGPU: up to 16 VFs per GPU (GIM vf_num 1 to 16)"))
      .add(&SriovParams::slice, number_param("sriov", "slice", units::Dim::Time, 6e-3, 1e-4, 2.0, "time slot of one VF",
                   "AMD GIM runtime configuration: sched_interval default 6 ms (documented for the FirePro S7150 "
                   "driver; no MI25-specific value published)"))
      .add(&SriovParams::world_switch, number_param("sriov", "world_switch", units::Dim::Time, 87e-6, 0, 0.1,
                   "time lost when the GPU switches from one VF to another",
                   "not published; estimate: saving and restoring the vector registers and LDS of an MI25 (64 CUs "
                   "x (256 KiB + 64 KiB) = 21 MB each way) at 484 GB/s takes ~87 us"))
      .add(&SriovParams::scheduler, choice_param("sriov", "scheduler", {"fixed", "active"},
                   "fixed: every VF keeps its slots whether or not it has work (GIM sched_option 1); active: slots "
                   "of idle VFs are skipped (GIM sched_option 0)",
                   "AMD GIM runtime configuration (sched_option)"));
  return table;
}

const ParamTable<SriovTenant>& sriov_tenant_params() {
  static const ParamTable<SriovTenant> table = ParamTable<SriovTenant>()
      .add(&SriovTenant::fraction, per_tenant(number_param(
          "sriov", "fraction", units::Dim::Ratio, 0, 0, 1,
          "the VF's share of the GPU (time and framebuffer), a multiple of 1/vfs, e.g. 1/8 as 12.5%; 0 = one slot",
          "Azure NVv4 sizes: 1/8, 1/4, 1/2 and 1 GPU (Standard_NV4as_v4: 1/8 GPU, 2 GiB)")));
  return table;
}

// Slots per tenant: its fraction of the VF count (0 = one slot), or an error.
std::variant<std::vector<int>, std::string> slots_of(const ModelSetup& s) {
  const int vfs = static_cast<int>(sriov_params().read(s.params).vfs);
  std::vector<int> slots;
  int used = 0;
  for (size_t i = 0; i < s.tenants.size(); ++i) {
    const double f = sriov_tenant_params().read(s.tenants[i]).fraction;
    const double exact = f == 0 ? 1.0 : f * vfs;
    const int n = static_cast<int>(std::lround(exact));
    if (n < 1 || std::fabs(exact - n) > 1e-6)
      return fmt::format("tenant {}'s fraction {:g} is not a whole number of the {} VF slots (multiples of 1/{})",
                         i + 1, f, vfs, vfs);
    slots.push_back(n);
    used += n;
  }
  if (used > vfs)
    return fmt::format("the tenants' fractions add up to {} of {} VF slots", used, vfs);
  return slots;
}

}  // namespace

SharingModeInfo sriov_sharing_mode() {
  SharingModeInfo info;
  info.name = "sriov";
  info.description =
      "SR-IOV virtual functions (AMD MxGPU): hardware time-slicing at fixed shares, a framebuffer slice per VF, a "
      "world switch between VFs";
  info.citation = "AMD MxGPU GIM driver documentation (GPUOpen MxGPU-Virtualization, gim_runtime_configuration); "
                  "Azure NVv4 sizes (1/8 to 1 GPU)";
  info.doc = "sriov.md";
  info.params = sriov_params().specs();
  for (const ParamSpec& p : sriov_tenant_params().specs()) info.params.push_back(p);
  info.memory_isolation = true;
  info.validate = [](const ModelSetup& s) -> std::string {
    auto r = slots_of(s);
    if (const auto* e = std::get_if<std::string>(&r)) return *e;
    const SriovParams p = sriov_params().read(s.params);
    if (p.world_switch >= p.slice) return "the world switch must be shorter than a slot";
    return "";
  };
  info.memory_partitions = [](const ModelSetup& s) {
    const std::vector<int> slots = std::get<std::vector<int>>(slots_of(s));
    const double vfs = sriov_params().read(s.params).vfs;
    std::vector<double> bytes;
    for (int n : slots) bytes.push_back(s.gpu.memory * n / vfs);
    return bytes;
  };
  info.create = [](const ModelSetup& s) -> std::unique_ptr<SharingModel> {
    const std::vector<int> slots = std::get<std::vector<int>>(slots_of(s));
    const SriovParams p = sriov_params().read(s.params);
    SlotCycle cycle;
    cycle.slot = p.slice;
    cycle.switch_cost = p.world_switch;
    cycle.skip_idle = p.scheduler == "active";
    for (size_t i = 0; i < slots.size(); ++i)
      for (int k = 0; k < slots[i]; ++k) cycle.owners.push_back(static_cast<int>(i));
    while (cycle.owners.size() < static_cast<size_t>(p.vfs)) cycle.owners.push_back(-1);
    return make_slot_scheduler(std::move(cycle), s.fidelity);
  };
  return info;
}

}  // namespace vgpusim
