// MIG (Multi-Instance GPU) profile tables and placement rules per GPU model, as data with sources, and the
// layout check that turns a list of requested profiles into placed partitions or an error listing valid layouts.
#pragma once

#include <string>
#include <variant>
#include <vector>

namespace vgpusim {

struct MigProfile {
  std::string name;          // e.g. "1g.10gb"
  int compute_slices = 0;    // the "Ng" part: GPCs / compute slices (of 7, or of 4 on A30)
  int memory_slices = 0;     // eighths of the memory (and of L2 and DRAM bandwidth); an A30 slice is 2 eighths
  double sms = 0;            // SMs in one instance
  double memory = 0;         // bytes usable by one instance
  int max_count = 0;         // instances of this profile on one GPU at most
  std::vector<int> starts;   // allowed start slots (memory slice index 0..7) for placement
  int slot_width = 0;        // memory slices an instance occupies when placed (may exceed memory_slices, e.g. 3g)
  std::string source;
};

struct MigGpuTable {
  std::string gpu;  // catalog name: A100-40GB, A100-80GB, H100-SXM, H200, A30
  double total_sms = 0;
  int compute_slices = 7;  // compute slices (GPCs usable by MIG) of the whole GPU: 7, or 4 on A30
  std::vector<MigProfile> profiles;
  std::string source;
};

struct MigPlacement {
  std::string profile;
  int start = 0;  // slot
};

// nullptr when the GPU has no MIG table.
const MigGpuTable* mig_table(const std::string& gpu);
// All tables (for `vgpusim list` and docs).
const std::vector<MigGpuTable>& mig_tables();

// Whether partitions in these numbers (one count per profile, indexed like table.profiles) fit on one GPU: each
// within its profile's max_count, the compute slices within the GPU's, and a free start slot for every one. Cheap:
// no message is built (place_mig_layout says why a layout does not fit).
bool mig_layout_fits(const MigGpuTable& table, const std::vector<int>& counts);

// Places the requested profiles (in order) on the GPU's slots. Returns the placements, or an error message that
// says what is wrong (unknown profile with did-you-mean, too many of a profile, no free slot) and lists valid
// layouts that contain the requested profiles where possible.
std::variant<std::vector<MigPlacement>, std::string> place_mig_layout(const MigGpuTable& table,
                                                                      const std::vector<std::string>& profiles);

}  // namespace vgpusim
