// `mig`: Multi-Instance GPU. The GPU is split into isolated partitions (NVIDIA's GPU instances), each with its own SMs,
// memory, L2 slices and memory controllers (so DRAM bandwidth); tenants are placed on partitions, and each is shared
// by a mode of
// its own (timeslice by default; mps nests too). Load on one partition never slows another.
#include <fmt/format.h>

#include <stdexcept>

#include "models/sharing/mig_partition.hpp"
#include "models/sharing/mig_profiles.hpp"
#include "models/sharing/mode_registry.hpp"

namespace vgpusim {

// A partition's share of the whole GPU: SM-bound rates scale with its SMs, memory-side resources with its memory
// slices (eighths), as MIG dedicates L2 slices and memory controllers to each partition.
GpuSpec mig_partition_spec(const GpuSpec& gpu, const MigGpuTable& table, const MigProfile& profile) {
  GpuSpec s = gpu;
  const double sm_share = profile.sms / table.total_sms;
  const double memory_share = profile.memory_slices / 8.0;
  s.compute_units = profile.sms;
  s.fp64 *= sm_share;
  s.fp32 *= sm_share;
  s.fp16_tensor *= sm_share;
  s.memory = profile.memory;
  s.memory_bandwidth *= memory_share;
  s.l2_cache *= memory_share;
  s.tdp *= sm_share;
  s.mig = false;
  return s;
}

namespace {

std::variant<std::vector<Partition>, std::string> make_partitions(const GpuSpec& gpu,
                                                                  const std::vector<std::string>& profiles,
                                                                  const ParamValues&) {
  const MigGpuTable* table = mig_table(gpu.name);
  if (!table) {
    std::string names;
    for (const MigGpuTable& t : mig_tables()) names += (names.empty() ? "" : ", ") + t.gpu;
    return fmt::format("{} does not support MIG (MIG GPUs: {})", gpu.name, names);
  }
  auto placed = place_mig_layout(*table, profiles);
  if (const auto* error = std::get_if<std::string>(&placed)) return *error;
  std::vector<Partition> parts;
  for (const MigPlacement& p : std::get<std::vector<MigPlacement>>(placed)) {
    for (const MigProfile& profile : table->profiles)
      if (profile.name == p.profile) parts.push_back({p.profile, p.start, mig_partition_spec(gpu, *table, profile)});
  }
  return parts;
}

struct MigParams {
  double reconfiguration_time;  // s
};

const ParamTable<MigParams>& mig_params() {
  static const ParamTable<MigParams> table = ParamTable<MigParams>().add(
      &MigParams::reconfiguration_time,
      number_param("mig", "reconfiguration_time", units::Dim::Time, 6.0, 0, 600,
                   "time to destroy and create the partitions of a layout change, after the affected partitions have "
                   "drained",
                   "~6 s on A100 reported by MIGRator (second-hand; see docs/models/mig-profiles.md); an estimate "
                   "for H100 and H200"));
  return table;
}

}  // namespace

SharingModeInfo mig_sharing_mode() {
  SharingModeInfo info;
  info.name = "mig";
  info.description =
      "Multi-Instance GPU: isolated partitions with their own SMs, memory, L2 and bandwidth slices; tenants go on "
      "partitions, each shared by a mode of its own (timeslice by default, or mps)";
  info.citation = "NVIDIA Multi-Instance GPU User Guide (supported profiles, placements)";
  info.doc = "mig.md";
  info.params = mig_params().specs();
  info.partitions = true;
  info.reconfiguration_time = [](const ParamValues& p) { return mig_params().read(p).reconfiguration_time; };
  info.memory_isolation = true;
  info.make_partitions = make_partitions;
  info.create = [](const ModelSetup&) -> std::unique_ptr<SharingModel> {
    throw std::logic_error("mig partitions a GPU; its partitions are shared by their own modes");
  };
  return info;
}

}  // namespace vgpusim
