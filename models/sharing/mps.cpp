// `mps`: NVIDIA Multi-Process Service. Clients submit work concurrently (no context switching); each may be capped
// to a fraction of the SMs (CUDA_MPS_ACTIVE_THREAD_PERCENTAGE); DRAM bandwidth and L2 are shared through the
// contention model; memory is not isolated; a fatal fault in one client ends every client.
#include <fmt/format.h>

#include "models/sharing/contention.hpp"
#include "models/sharing/mode_registry.hpp"

namespace vgpusim {
namespace {

struct MpsParams {
  SmAllocation sm_allocation;
  double launch_overhead;  // s, per kernel launched on a stream
  ContentionParams contention;
};
struct MpsClient {
  double active_threads;  // fraction of the SMs
  double memory_limit;    // bytes; 0 = none
};

const ParamTable<MpsParams>& mps_params() {
  static const ParamTable<MpsParams> table =
      ParamTable<MpsParams>()
          .add(&MpsParams::sm_allocation,
               choice_param(
                   "mps", "sm_allocation", {"kernel_turns", "proportional", "in_order"},
                   "how SMs are handed out when the SMs the busy clients' kernels fill (up to their caps) add up to "
                   "more than the GPU has: kernel_turns (kernels take the SMs in launch order, so the clients take "
                   "turns kernel by kernel, each getting time in proportion to its kernels' length), proportional "
                   "(side by side, SMs in proportion to what each asks for) or in_order (side by side, the block "
                   "scheduler fills clients in tenant order)",
                   "hwcal on an H200 (hwcal/data/h200/2026-11-30): two streams, and two MPS clients without limits, "
                   "each running kernels that fill the GPU took as long together as one after the other (makespan = "
                   "sum of the solo times within 1.5%), split in proportion to kernel length (compute 3 ms and "
                   "memory 0.74 ms kernels: 1.22x and 1.98x); proportional predicted 1.47x and 1.00x"))
          .add(&MpsParams::launch_overhead,
               number_param("mps", "launch_overhead", units::Dim::Time, 0.0, 0.0, 1e-3,
                            "time each kernel an MPS client launches on a stream takes beyond what it takes in a "
                            "plain process (its launch goes through the MPS server), in wall time whatever the "
                            "client's share",
                            "none resolved: hwcal on an H200 (hwcal/data/h200/2026-11-30, both runs): a lone uncapped "
                            "MPS client's kernel sequences took 0.47 / 0.60 us per launch longer than in a plain "
                            "child process (medians of 12), but -0.02 / -0.14 us against the suite's in-process "
                            "reference, from which the child processes themselves differ by -0.63 / -0.80 us: below "
                            "the ~0.7 us that separates two plain processes, so the default is 0"))
          .include(&MpsParams::contention, ContentionParams::table());
  return table;
}

const ParamTable<MpsClient>& mps_client_params() {
  static const ParamTable<MpsClient> table =
      ParamTable<MpsClient>()
          .add(&MpsClient::active_threads,
               per_tenant(number_param("mps", "active_threads", units::Dim::Ratio, 1.0, 0.01, 1.0,
                                       "the client's CUDA_MPS_ACTIVE_THREAD_PERCENTAGE: the largest fraction of the "
                                       "SMs its kernels may occupy",
                                       "NVIDIA MPS documentation: the active thread percentage limits the SMs a "
                                       "client's kernels use")))
          .add(&MpsClient::memory_limit,
               per_tenant(number_param(
                   "mps", "memory_limit", units::Dim::Bytes, 0.0, 0.0, 1e15,
                   "the client's CUDA_MPS_PINNED_DEVICE_MEM_LIMIT: the most device memory it may allocate (0: no "
                   "limit). Give it for every client of the GPU or for none: with limits every client allocates "
                   "within its own",
                   "NVIDIA MPS documentation (Volta MPS execution resource provisioning): the pinned device memory "
                   "limit caps a client's allocations")));
  return table;
}

std::vector<MpsClient> clients(const ModelSetup& s) {
  std::vector<MpsClient> out;
  for (const ParamValues& t : s.tenants) out.push_back(mps_client_params().read(t));
  return out;
}

class Mps final : public SharingModel {
 public:
  Mps(std::vector<double> caps, MpsParams params) : caps_(std::move(caps)), params_(params) {}
  void decide(double /*now*/, std::span<const ContextLoad> contexts, ShareDecision& out) override {
    spatial_rates(contexts, caps_, params_.sm_allocation, params_.contention, rates_);
    for (size_t i = 0; i < contexts.size(); ++i) {
      // Each kernel launched on a stream goes through the MPS server: it ends launch_overhead later than its work
      // at this rate r alone would (t / r + o of wall time: rate r t / (t + r o)). Graph nodes and persistent
      // iterations do not; a kernel of unknown length pays nothing.
      const double t = contexts[i].kernel_time, r = rates_[i], o = params_.launch_overhead * contexts[i].stream_launched;
      out.rate[i] = o > 0 && t > 0 && r > 0 ? r * t / (t + r * o) : r;
    }
  }

 private:
  std::vector<double> caps_;  // SM fraction per context
  MpsParams params_;
  std::vector<double> rates_;
};

}  // namespace

SharingModeInfo mps_sharing_mode() {
  SharingModeInfo info;
  info.name = "mps";
  info.description =
      "NVIDIA MPS: clients run concurrently, each capped to a share of the SMs; DRAM bandwidth and L2 shared; no "
      "memory or fault isolation";
  info.citation = "NVIDIA Multi-Process Service documentation (CUDA_MPS_ACTIVE_THREAD_PERCENTAGE, Volta MPS)";
  info.doc = "mps.md";
  info.params = mps_params().specs();
  for (const ParamSpec& p : mps_client_params().specs()) info.params.push_back(p);
  // Source: NVIDIA MPS documentation, "up to 48 clients per device" on Volta and later (second-hand: docs/sources/team-measurements.md).
  info.max_contexts = 48;
  info.memory_isolation = false;
  info.fault_takes_down_gpu = true;
  info.validate = [](const ModelSetup& s) -> std::string {
    size_t limited = 0;
    double total = 0;
    for (const MpsClient& c : clients(s)) {
      limited += c.memory_limit > 0 ? 1 : 0;
      total += c.memory_limit;
    }
    if (limited != 0 && limited != s.tenants.size())
      return fmt::format("{} of its {} MPS clients have a memory_limit: give it to every client or to none", limited,
                         s.tenants.size());
    if (total > s.gpu.memory * (1 + 1e-9))
      return fmt::format("the MPS clients' memory limits add up to {}, more than the GPU's {} (an oversubscribed "
                         "limit is not modelled: each client allocates within its own)",
                         units::format(total, units::Dim::Bytes), units::format(s.gpu.memory, units::Dim::Bytes));
    return "";
  };
  info.memory_partitions = [](const ModelSetup& s) {
    std::vector<double> limits;
    for (const MpsClient& c : clients(s))
      if (c.memory_limit > 0) limits.push_back(c.memory_limit);
    if (limits.size() != s.tenants.size()) limits.clear();  // no limits: one shared pool
    return limits;
  };
  info.memory_partition_note = [](const ModelSetup&) -> std::string {
    return "its MPS pinned device memory limit";
  };
  info.create = [](const ModelSetup& s) -> std::unique_ptr<SharingModel> {
    std::vector<double> caps;
    for (const MpsClient& c : clients(s)) caps.push_back(c.active_threads);
    return std::make_unique<Mps>(std::move(caps), mps_params().read(s.params));
  };
  return info;
}

}  // namespace vgpusim
