// `vgpu`: NVIDIA time-sliced vGPU. Each tenant is a vGPU of one type (framebuffer size -> how many fit); the
// framebuffer is statically partitioned; the GPU is time-sliced by the best effort, equal share or fixed share
// scheduler.
#include <fmt/format.h>

#include <cmath>

#include "models/sharing/mode_registry.hpp"
#include "models/sharing/timeslice.hpp"
#include "models/sharing/slot_scheduler.hpp"
#include "models/sharing/vgpu_profiles.hpp"

namespace vgpusim {
namespace {

// The mode's parameters, read once where the mode resolves its setup.
struct VgpuParams {
  std::string profile;
  std::string scheduler;
  double slice;  // s; 0 = the type's default
  double frequency;  // Hz; 0 = unset
  double averaging_factor;
  double switch_cost;       // s
  double idle_switch_cost;  // s
  double idle_grace;        // s
  double rmpvmrl;           // the registry value; -1 = unset
  std::string framebuffer_reservation;
  bool ecc;
  double overhead;  // fractional slowdown of every kernel against bare metal
};

// A vGPU's kernels run through the hypervisor's vGPU manager: every rate the scheduler gives is 1 + overhead times
// slower than on bare metal, a lone VM's too.
class ManagedVgpu final : public SharingModel {
 public:
  ManagedVgpu(std::unique_ptr<SharingModel> scheduler, double overhead)
      : scheduler_(std::move(scheduler)), factor_(1.0 / (1.0 + overhead)) {}
  void decide(double now, std::span<const ContextLoad> contexts, ShareDecision& out) override {
    scheduler_->decide(now, contexts, out);
    for (size_t i = 0; i < contexts.size(); ++i)
      if (contexts[i].active > contexts[i].holds) out.rate[i] *= factor_;
  }
  bool keeps_idle_grace() const override { return scheduler_->keeps_idle_grace(); }
  double idle_hold(double gap) const override { return scheduler_->idle_hold(gap); }

 private:
  std::unique_ptr<SharingModel> scheduler_;
  double factor_;
};

const ParamTable<VgpuParams>& vgpu_params() {
  static const ParamTable<VgpuParams> table = ParamTable<VgpuParams>()
      .add(&VgpuParams::profile, text_param("vgpu", "profile", "", "the vGPU type, e.g. T4-4C, A100-10C, L40S-12Q, M60-2Q",
                 "NVIDIA AI Enterprise 5.0 User Guide, appendix A/B (see docs/models/vgpu.md)"))
      .add(&VgpuParams::scheduler, choice_param("vgpu", "scheduler", {"best_effort", "equal_share", "fixed_share"},
                   "best_effort: share among busy vGPUs; equal_share: equal slots for every vGPU on the GPU, idle "
                   "ones' slots stay idle; fixed_share: 1 / (max vGPUs of the type) each, whether or not the others "
                   "are busy",
                   "NVIDIA AI Enterprise 5.0 User Guide section 7; the vGPU FAQ (idle slots are not given to other "
                   "VMs)"))
      .add(&VgpuParams::slice, number_param("vgpu", "slice", units::Dim::Time, 0, 0, 30e-3,
                   "time slice; 0 = the type's default: 2 ms up to 8 vGPUs per GPU, 1 ms above",
                   "NVIDIA AI Enterprise 5.0 User Guide section 7 (default slices; range 1 to 30 ms)"))
      .add(&VgpuParams::frequency, number_param("vgpu", "frequency", units::Dim::Count, 0, 0, 960,
                   "strict round-robin scheduling frequency in Hz (slice = 1 / frequency); 0 = unset",
                   "NVIDIA AI Enterprise 5.0 User Guide section 7 (63 to 960 Hz; 480 Hz default up to 8 vGPUs, "
                   "960 Hz above)"))
      .add(&VgpuParams::averaging_factor, number_param("vgpu", "averaging_factor", units::Dim::Count, 33, 1, 60,
                   "strict round robin's averaging of slice overshoot; accepted for completeness, without effect "
                   "here: the model preempts exactly at slice ends, so there is no overshoot to average",
                   "NVIDIA AI Enterprise 5.0 User Guide section 7 (1 to 60, default 33)"))
      .add(&VgpuParams::switch_cost, number_param("vgpu", "switch_cost", units::Dim::Time, kContextSwitchCost, 0, 1e-3,
                   "time lost when the GPU switches between vGPUs (best effort: preempting one with work in flight)",
                   kContextSwitchCostSource))
      .add(&VgpuParams::idle_switch_cost, number_param("vgpu", "idle_switch_cost", units::Dim::Time, kIdleSwitchCost, 0, 1e-3,
                   "time lost by a switch away from a vGPU with no work in flight (it ran out, or the GPU was idle); "
                   "the fixed-share schedulers' fluid fidelity charges every switch switch_cost",
                   kIdleSwitchCostSource))
      .add(&VgpuParams::idle_grace, number_param("vgpu", "idle_grace", units::Dim::Time, kIdleGrace, 0, 1.0,
                   "best effort: how long a vGPU that runs out of work keeps the GPU (within its slice) before a "
                   "switch",
                   kIdleGraceSource))
      .add(&VgpuParams::rmpvmrl, number_param("vgpu", "rmpvmrl", units::Dim::Count, -1, -1, 4294967295.0,
                   "the driver's RmPVMRL registry value, e.g. 0x00180011, instead of scheduler/slice/frequency; "
                   "-1 = unset",
                   "NVIDIA open-gpu-kernel-modules src/nvidia/interface/nvrm_registry.h (bit layout)"))
      .add(&VgpuParams::framebuffer_reservation, choice_param(
      "vgpu", "framebuffer_reservation", {"nvidia", "none"},
      "nvidia: a vGPU's usable framebuffer is its type's size less what the hypervisor reserves out of it (size / "
      "16 + 16 MiB + 128 MiB / max vGPUs of the type, more with ECC or compression); none: the type's full size",
      kVgpuReservationSource))
      .add(&VgpuParams::ecc, flag_param("vgpu", "ecc", false,
                                   "ECC is on: on GPUs without HBM it reserves another 1/16 of each vGPU's framebuffer",
                                   kVgpuReservationSource))
      .add(&VgpuParams::overhead,
           number_param("vgpu", "overhead", units::Dim::Ratio, 0.04, 0.0, 10.0,
                        "fractional slowdown of every kernel against bare metal (time x (1 + overhead)), a lone VM's "
                        "too: the vGPU manager's cost, the same for every scheduler",
                        "published comparisons of a lone vGPU: within 2-5% of PCIe passthrough on a T4 under ESXi 8 "
                        "(Whisper 6%, a 7B LLM 4%; Lazarus Labs, https://www.lazarus-labs.com/blog4.html) and under 5% "
                        "of bare metal for ResNet training (Dell/VMware white paper, Virtualizing GPUs for AI with "
                        "VMware and NVIDIA): 4%, passthrough's 2% (Walters et al., IEEE CLOUD 2014) and 2% more; no "
                        "figure per scheduler is published"));
  return table;
}

struct Resolved {
  VgpuProfile profile;
  std::string scheduler;
  double slice = 0;  // s
  VgpuParams params;
};

// The profile and the effective scheduler settings, or an error message.
std::variant<Resolved, std::string> resolve(const ModelSetup& s) {
  const VgpuGpuTable* table = vgpu_table(s.gpu.name);
  if (!table) {
    std::string names;
    for (const VgpuGpuTable& t : vgpu_tables()) names += (names.empty() ? "" : ", ") + t.gpu;
    return fmt::format("{} has no time-sliced vGPU types in vgpusim (GPUs with vGPU types: {}){}", s.gpu.name, names,
                       s.gpu.vendor == "AMD" ? "; AMD GPUs are shared with mode: sriov" : "");
  }
  const VgpuParams p = vgpu_params().read(s.params);
  const std::string& profile_name = p.profile;
  if (profile_name.empty()) return std::string("`profile` is required, e.g. profile: " + table->prefixes.front() + "-4C");
  auto found = find_vgpu_profile(*table, s.gpu.memory, profile_name);
  if (const auto* e = std::get_if<std::string>(&found)) return *e;
  Resolved r{std::get<VgpuProfile>(found), p.scheduler, p.slice, p};
  double frequency = p.frequency;
  const double register_value = p.rmpvmrl;
  if (register_value >= 0) {
    if (r.scheduler != "best_effort" || r.slice > 0 || frequency > 0)
      return std::string("give the scheduler either as `rmpvmrl` or as `scheduler`/`slice`/`frequency`, not both");
    auto decoded = decode_rmpvmrl(static_cast<unsigned long long>(register_value));
    if (const auto* e = std::get_if<std::string>(&decoded)) return *e;
    const RmPvmrl& d = std::get<RmPvmrl>(decoded);
    r.scheduler = d.scheduler;
    r.slice = d.slice;
    frequency = d.frequency;
  }
  if (r.slice > 0 && frequency > 0) return std::string("give either `slice` or `frequency`, not both");
  if (r.slice > 0 && (r.slice < 1e-3 - 1e-12 || r.slice > 30e-3 + 1e-12))
    return fmt::format("slice {} ms is outside the scheduler's 1 to 30 ms", r.slice * 1e3);
  if (frequency > 0) r.slice = 1.0 / frequency;
  // NVIDIA's defaults: 2 ms (480 Hz) for types allowing up to 8 vGPUs per GPU, 1 ms (960 Hz) above.
  if (r.slice == 0) r.slice = r.profile.max_count <= 8 ? 2e-3 : 1e-3;
  if (table->best_effort_only && r.scheduler != "best_effort")
    return fmt::format("{} supports only the best_effort scheduler (equal and fixed share need a GPU after "
                       "Maxwell)",
                       s.gpu.name);
  if (static_cast<int>(s.tenants.size()) > r.profile.max_count)
    return fmt::format("at most {} vGPUs of type {} fit on {}, {} tenants are on it", r.profile.max_count,
                       r.profile.name, s.gpu.name, s.tenants.size());
  return r;
}

}  // namespace

SharingModeInfo vgpu_sharing_mode() {
  SharingModeInfo info;
  info.name = "vgpu";
  info.description =
      "NVIDIA time-sliced vGPU: every tenant a vGPU of one type with its own framebuffer; best_effort, equal_share "
      "or fixed_share scheduling";
  info.citation = "NVIDIA Virtual GPU Software / AI Enterprise User Guide, vGPU types and time-sliced scheduling";
  info.doc = "vgpu.md";
  info.params = vgpu_params().specs();
  info.memory_isolation = true;
  info.validate = [](const ModelSetup& s) -> std::string {
    auto r = resolve(s);
    if (const auto* e = std::get_if<std::string>(&r)) return *e;
    if (std::get<Resolved>(r).slice <= std::get<Resolved>(r).params.switch_cost)
      return "the switch cost must be shorter than the time slice";
    return "";
  };
  info.memory_partitions = [](const ModelSetup& s) {
    const Resolved r = std::get<Resolved>(resolve(s));
    double usable = r.profile.framebuffer;
    if (r.params.framebuffer_reservation == "nvidia")
      usable -= vgpu_reserved_framebuffer(*vgpu_table(s.gpu.name), r.profile, r.params.ecc);
    return std::vector<double>(s.tenants.size(), usable);
  };
  info.memory_partition_note = [](const ModelSetup& s) -> std::string {
    const Resolved r = std::get<Resolved>(resolve(s));
    if (r.params.framebuffer_reservation != "nvidia") return "";
    const double reserved = vgpu_reserved_framebuffer(*vgpu_table(s.gpu.name), r.profile, r.params.ecc);
    return fmt::format("vGPU {}: {} less {} the hypervisor reserves", r.profile.name,
                       units::format(r.profile.framebuffer, units::Dim::Bytes), units::format(reserved, units::Dim::Bytes));
  };
  info.create = [](const ModelSetup& s) -> std::unique_ptr<SharingModel> {
    const Resolved r = std::get<Resolved>(resolve(s));
    const double switch_cost = r.params.switch_cost;
    if (r.scheduler == "best_effort")
      return std::make_unique<ManagedVgpu>(
          make_timeslice_model({r.slice, switch_cost, r.params.idle_switch_cost, r.params.idle_grace}, s.fidelity),
          r.params.overhead);
    SlotCycle cycle;
    cycle.slot = r.slice;
    cycle.switch_cost = switch_cost;
    cycle.idle_switch_cost = r.params.idle_switch_cost;
    const size_t slots = r.scheduler == "equal_share" ? s.tenants.size() : static_cast<size_t>(r.profile.max_count);
    for (size_t i = 0; i < slots; ++i) cycle.owners.push_back(i < s.tenants.size() ? static_cast<int>(i) : -1);
    // Equal share divides the GPU among the resident vGPUs (Virtual GPU Software User Guide, scheduling chapter):
    // a VM that has not started has no running vGPU and no context yet, so its slot joins the cycle at its start.
    // A VM whose work is done is taken to stay on: its slot stays, idle.
    if (r.scheduler == "equal_share") cycle.resident_from = s.tenant_start;
    if (cycle.owners.empty()) cycle.owners.push_back(-1);
    return std::make_unique<ManagedVgpu>(make_slot_scheduler(std::move(cycle), s.fidelity), r.params.overhead);
  };
  return info;
}

}  // namespace vgpusim
