// vGPU type tables (C series from the NVIDIA AI Enterprise 5.0 user guide, appendix A; Q/B/A sizes from its
// appendix B placement tables by GPU memory) and the RmPVMRL decoder.
#include "models/sharing/vgpu_profiles.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "sim/core/units.hpp"

namespace vgpusim {
namespace {
using units::kGiB;
using units::kMiB;
const char* kAie5 = "NVIDIA AI Enterprise 5.0 User Guide, appendix A (C-series vGPU types and maximum per GPU)";
const char* kAie5B = "NVIDIA AI Enterprise 5.0 User Guide, appendix A (C series) and appendix B (Q/B/A sizes by GPU memory)";

std::string size_text(double gib) { return gib < 1 ? "0" : fmt::format("{:g}", gib); }
}  // namespace

const std::vector<VgpuGpuTable>& vgpu_tables() {
  static const std::vector<VgpuGpuTable> tables = {
      {"T4", {"T4"}, {16, 8, 4}, {16, 8, 4, 2, 1}, false, kAie5B},
      {"A100-40GB", {"A100"}, {40, 20, 10, 8, 5, 4}, {}, false, kAie5, true},
      {"A100-80GB", {"A100D", "A100"}, {80, 40, 20, 16, 10, 8, 4}, {}, false, kAie5, true},
      {"H100-SXM", {"H100XM", "H100"}, {80, 40, 20, 16, 10, 8, 5, 4}, {}, false, kAie5, true},
      {"L4", {"L4"}, {24, 12, 8, 6, 4}, {24, 12, 8, 6, 4, 3, 2, 1}, false, kAie5B},
      {"A10", {"A10"}, {24, 12, 8, 6, 4}, {24, 12, 8, 6, 4, 3, 2, 1}, false, kAie5B},
      {"L40S", {"L40S"}, {48, 24, 16, 12, 8, 6, 4}, {48, 24, 16, 12, 8, 6, 4, 3, 2, 1}, false,
       "NVIDIA AI Enterprise 5.0 User Guide, appendix A (C series); Q/B/A sizes from a public sysfs listing of "
       "L40S types (the guide's 48 GB placement table was not available): uncertain"},
      {"V100", {"V100DX", "V100D", "V100"}, {32, 16, 8, 4}, {32, 16, 8, 4, 2, 1}, false, kAie5B, true},
      {"M60", {"M60"}, {}, {8, 4, 2, 1, 0.5}, true,
       "NVIDIA AI Enterprise 5.0 User Guide 6.2.9 (M60-0Q 512 MiB max 16, M60-1Q max 8) and 7 (Maxwell supports "
       "best effort only)"},
  };
  return tables;
}

double vgpu_reserved_framebuffer(const VgpuGpuTable& table, const VgpuProfile& profile, bool ecc) {
  const double size = profile.framebuffer;
  double reserved = size / 16 + 16 * kMiB;
  reserved += (table.best_effort_only ? 4 : 128) * kMiB / std::max(1, profile.max_count);
  if (ecc && !table.hbm) reserved += size / 16;
  // The documented compression adjustments are for Turing types of 12 GB and more; of those vgpusim has T4's 16 GB
  // types (the documentation lists T4-16C: 28 MB; the Q/B/A types of that size are taken to match).
  if (table.gpu == "T4" && size >= 12 * kGiB) reserved += 28 * kMiB;
  return std::min(reserved, size);
}

const VgpuGpuTable* vgpu_table(const std::string& gpu) {
  for (const VgpuGpuTable& t : vgpu_tables())
    if (t.gpu == gpu) return &t;
  return nullptr;
}

std::variant<VgpuProfile, std::string> find_vgpu_profile(const VgpuGpuTable& table, double gpu_memory,
                                                         const std::string& name) {
  std::vector<VgpuProfile> all;
  const double gib = std::round(gpu_memory / kGiB);
  auto add = [&](double size, char series) {
    all.push_back({fmt::format("{}-{}{}", table.prefixes.front(), size_text(size), series), series, size * kGiB,
                   static_cast<int>(std::floor(gib / size + 1e-9))});
  };
  for (double size : table.c_sizes) add(size, 'C');
  for (char series : {'Q', 'B', 'A'})
    for (double size : table.qba_sizes) add(size, series);
  const auto dash = name.rfind('-');
  if (dash != std::string::npos) {
    const std::string prefix = name.substr(0, dash), rest = name.substr(dash + 1);
    bool known_prefix = false;
    for (const std::string& p : table.prefixes) known_prefix = known_prefix || p == prefix;
    for (const VgpuProfile& p : all)
      if (known_prefix && p.name.substr(p.name.rfind('-') + 1) == rest) {
        VgpuProfile found = p;
        found.name = name;
        return found;
      }
  }
  std::string list;
  for (const VgpuProfile& p : all) list += (list.empty() ? "" : ", ") + p.name;
  return fmt::format("'{}' is not a time-sliced vGPU type of {} (types: {})", name, table.gpu, list);
}

std::variant<RmPvmrl, std::string> decode_rmpvmrl(unsigned long long value) {
  if (value > 0xFFFFFFFFULL) return fmt::format("RmPVMRL 0x{:x} has more than 32 bits", value);
  RmPvmrl r;
  if ((value & 1) == 0) {
    r.scheduler = "best_effort";
    return r;
  }
  const unsigned policy = (value >> 4) & 0xF;
  if (policy == 0)
    r.scheduler = "equal_share";
  else if (policy == 1)
    r.scheduler = "fixed_share";
  else
    return fmt::format("RmPVMRL 0x{:08x}: policy bits 7:4 = {} (expected 0 equal share or 1 fixed share)", value, policy);
  const bool legacy = (value >> 1) & 1;
  if (legacy) {
    const unsigned ms = (value >> 16) & 0xFF;
    r.slice = ms == 0 ? 0 : std::min(ms, 30u) * 1e-3;  // 0 = default; above 30 ms is capped at 30
  } else {
    const unsigned hz = (value >> 12) & 0x3FF;
    if (hz != 0 && (hz < 63 || hz > 960))
      return fmt::format(
          "RmPVMRL 0x{:08x}: scheduling frequency bits 21:12 = {} Hz (expected 63 to 960, or 0); a time slice in ms "
          "goes in bits 23:16 with bit 1 set (legacy round robin), e.g. 0x{:08x}",
          value, hz, value | 2);
    r.frequency = hz;
  }
  r.averaging_factor = static_cast<double>((value >> 24) & 0xFF);
  if (r.averaging_factor > 60)
    return fmt::format("RmPVMRL 0x{:08x}: averaging factor bits 31:24 = {} (expected 1 to 60, or 0)", value,
                       r.averaging_factor);
  return r;
}

}  // namespace vgpusim
