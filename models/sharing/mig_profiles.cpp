// MIG profile tables for A100-40GB, A100-80GB, H100-SXM, H200 and A30 (figures as `nvidia-smi mig -lgip/-lgipp`
// print them, with sources), and the layout check that places requested profiles on the fixed start slots.
#include "models/sharing/mig_profiles.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <boost/algorithm/string/case_conv.hpp>

#include "sim/core/names.hpp"
#include "sim/core/units.hpp"

namespace vgpusim {
namespace {

using units::kGiB;
constexpr int kMemorySlots = 8;  // eighths of the memory; placements are indices on this axis

// One row of `nvidia-smi mig -lgip`: what differs between GPUs. The slice geometry (compute slices, memory
// slices, max count, -lgipp placements) is the same on GA100 and GH100, so it lives in kGeometry below.
struct LgipRow {
  const char* name;
  double sms;
  double gib;  // "Memory GiB" column, e.g. 4.75; nvidia-smi prints 19.625 as "19.62"
  const char* source;
};

struct Geometry {
  int compute_slices;
  int memory_slices;
  int max_count;
  std::array<int, 7> starts;  // -1 pads
  int slot_width;
  const char* lgipp;  // the -lgipp line, quoted in the source string
};

// Row order in every table: 1g, 1g+me, double-memory 1g, 2g, 3g, 4g, 7g.
// Placements from `nvidia-smi mig -lgipp` (MIG User Guide, "Getting Started"; same output on A100-40GB,
// A100-80GB and H100 80GB): profile 19/20 {0..6}:1, 15 {0,2,4,6}:2, 14 {0,2,4}:2, 9 {0,4}:4, 5 {0}:4, 0 {0}:8.
constexpr std::array<Geometry, 7> kGeometry = {{
    {1, 1, 7, {0, 1, 2, 3, 4, 5, 6}, 1, "{0,1,2,3,4,5,6}:1"},
    {1, 1, 1, {0, 1, 2, 3, 4, 5, 6}, 1, "{0,1,2,3,4,5,6}:1"},
    {1, 2, 4, {0, 2, 4, 6, -1, -1, -1}, 2, "{0,2,4,6}:2"},
    {2, 2, 3, {0, 2, 4, -1, -1, -1, -1}, 2, "{0,2,4}:2"},
    {3, 4, 2, {0, 4, -1, -1, -1, -1, -1}, 4, "{0,4}:4"},
    {4, 4, 1, {0, -1, -1, -1, -1, -1, -1}, 4, "{0}:4"},
    {7, 8, 1, {0, -1, -1, -1, -1, -1, -1}, 8, "{0}:8"},
}};

// A30 (GA100 with 4 compute slices and 4 memory slices). Row order: 1g, 1g+me, 2g, 2g+me, 4g. Its -lgipp output
// (profile 14/21 {0,1,2,3}:1, 5/6 {0,2}:2, 0 {0}:4) is on a 4-slot axis; here every A30 memory slice is 2 of the 8
// slots (eighths), so the starts and widths are doubled: {0,2,4,6}:2, {0,4}:4, {0}:8.
constexpr std::array<Geometry, 5> kA30Geometry = {{
    {1, 2, 4, {0, 2, 4, 6, -1, -1, -1}, 2, "{0,1,2,3}:1 on 4 slices, {0,2,4,6}:2 in eighths"},
    {1, 2, 1, {0, 2, 4, 6, -1, -1, -1}, 2, "{0,1,2,3}:1 on 4 slices, {0,2,4,6}:2 in eighths"},
    {2, 4, 2, {0, 4, -1, -1, -1, -1, -1}, 4, "{0,2}:2 on 4 slices, {0,4}:4 in eighths"},
    {2, 4, 1, {0, 4, -1, -1, -1, -1, -1}, 4, "{0,2}:2 on 4 slices, {0,4}:4 in eighths"},
    {4, 8, 1, {0, -1, -1, -1, -1, -1, -1}, 8, "{0}:4 on 4 slices, {0}:8 in eighths"},
}};

template <size_t N>
std::vector<MigProfile> profiles_from(const std::array<LgipRow, N>& rows, const std::array<Geometry, N>& geometry) {
  std::vector<MigProfile> out;
  for (size_t i = 0; i < rows.size(); ++i) {
    const Geometry& g = geometry[i];
    MigProfile p;
    p.name = rows[i].name;
    p.compute_slices = g.compute_slices;
    p.memory_slices = g.memory_slices;
    p.sms = rows[i].sms;
    p.memory = rows[i].gib * kGiB;
    p.max_count = g.max_count;
    for (int s : g.starts)
      if (s >= 0) p.starts.push_back(s);
    p.slot_width = g.slot_width;
    p.source = fmt::format("{}; placements {} (nvidia-smi mig -lgipp)", rows[i].source, g.lgipp);
    out.push_back(std::move(p));
  }
  return out;
}

std::vector<MigProfile> seven_slice_profiles(const std::array<LgipRow, 7>& rows) {
  return profiles_from(rows, kGeometry);
}

std::vector<MigGpuTable> build_tables() {
  const std::string guide =
      "NVIDIA Multi-Instance GPU User Guide: 'Supported MIG Profiles' (fractions of SMs and memory, instance counts) "
      "and 'Getting Started with MIG' (nvidia-smi mig -lgipp placements)";
  // A100: the mode switch needs a GPU reset; layout changes (destroy/create instances) do not.
  const std::string a100_reconfig =
      "reconfiguration_time ~6 s to destroy and recreate MIG instances on A100, reported by MIGRator ('Improving GPU "
      "Multi-Tenancy Through Dynamic Multi-Instance GPU Reconfiguration', 2024; second-hand, not re-measured). "
      "Toggling MIG mode on A100 additionally needs a GPU reset (MIG User Guide: 'depending on the GPU product, the "
      "driver will attempt to reset the GPU'; in passthrough VMs a VM reboot), not included in that figure";
  const std::string hopper_reconfig =
      "reconfiguration_time 6 s is an estimate (the A100 figure from MIGRator reused; no published H100/H200 "
      "measurement found). MIG mode changes on Hopper take effect without a GPU reset";

  std::vector<MigGpuTable> tables;

  MigGpuTable a100_40;
  a100_40.gpu = "A100-40GB";
  a100_40.total_sms = 108;
  a100_40.profiles = seven_slice_profiles({{
      {"1g.5gb", 14, 4.75, "nvidia-smi mig -lgip on A100-40GB: profile 19, 14 SMs, 4.75 GiB, 7 instances"},
      {"1g.5gb+me", 14, 4.75,
       "nvidia-smi mig -lgip on A100-40GB: profile 20, 14 SMs, 4.75 GiB, 1 instance (+1 NVDEC, JPEG, OFA)"},
      {"1g.10gb", 14, 9.75, "nvidia-smi mig -lgip on A100-40GB: profile 15, 14 SMs, 9.75 GiB, 4 instances"},
      {"2g.10gb", 28, 9.75, "nvidia-smi mig -lgip on A100-40GB: profile 14, 28 SMs, 9.75 GiB, 3 instances"},
      {"3g.20gb", 42, 19.625, "nvidia-smi mig -lgip on A100-40GB: profile 9, 42 SMs, 19.62 GiB, 2 instances"},
      {"4g.20gb", 56, 19.625, "nvidia-smi mig -lgip on A100-40GB: profile 5, 56 SMs, 19.62 GiB, 1 instance"},
      {"7g.40gb", 98, 39.5, "nvidia-smi mig -lgip on A100-40GB: profile 0, 98 SMs, 39.50 GiB, 1 instance"},
  }});
  a100_40.source = guide +
                   "; SM and GiB figures from nvidia-smi mig -lgip on A100-40GB (MIG User Guide example and public "
                   "outputs; GiB differ by driver, e.g. 9.62/19.50/39.25 on later drivers); 108 SMs in the full GPU "
                   "(A100 whitepaper), 98 reachable through MIG; " +
                   a100_reconfig;
  tables.push_back(std::move(a100_40));

  MigGpuTable a100_80;
  a100_80.gpu = "A100-80GB";
  a100_80.total_sms = 108;
  a100_80.profiles = seven_slice_profiles({{
      {"1g.10gb", 14, 9.5,
       "nvidia-smi mig -lgip on A100 80GB (driver 515.86): profile 19, 14 SMs, 9.50 GiB, 7 instances"},
      {"1g.10gb+me", 14, 9.5,
       "nvidia-smi mig -lgip on A100 80GB (driver 515.86): profile 20, 14 SMs, 9.50 GiB, 1 instance"},
      {"1g.20gb", 14, 19.5,
       "MIG User Guide lists 1g.20gb for A100-SXM4-80GB (1/7 SMs, 4 instances, 2 memory slices per -lgipp "
       "{0,2,4,6}:2); 14 SMs as every A100 1g; 19.50 GiB inferred "
       "from 2g.20gb's two memory slices (not in the quoted -lgip output)"},
      {"2g.20gb", 28, 19.5,
       "nvidia-smi mig -lgip on A100 80GB (driver 515.86): profile 14, 28 SMs, 19.50 GiB, 3 instances"},
      {"3g.40gb", 42, 39.25,
       "nvidia-smi mig -lgip on A100 80GB (driver 515.86): profile 9, 42 SMs, 39.25 GiB, 2 instances"},
      {"4g.40gb", 56, 39.25,
       "nvidia-smi mig -lgip on A100 80GB (driver 515.86): profile 5, 56 SMs, 39.25 GiB, 1 instance"},
      {"7g.80gb", 98, 79.0,
       "nvidia-smi mig -lgip on A100 80GB (driver 515.86): profile 0, 98 SMs, 79.00 GiB, 1 instance"},
  }});
  a100_80.source = guide +
                   " (A100-SXM4-80GB names: 1g.10gb, 1g.10gb+me, 1g.20gb, 2g.20gb, 3g.40gb, 4g.40gb, 7g.80gb); SM and "
                   "GiB figures from nvidia-smi mig -lgip on an A100 80GB, driver 515.86.01, in a public write-up; "
                   "108 SMs in the full GPU; " +
                   a100_reconfig;
  tables.push_back(std::move(a100_80));

  MigGpuTable h100;
  h100.gpu = "H100-SXM";
  h100.total_sms = 132;
  h100.profiles = seven_slice_profiles({{
      {"1g.10gb", 16, 9.75, "nvidia-smi mig -lgip on H100 80GB HBM3: profile 19, 16 SMs, 9.75 GiB, 7 instances"},
      {"1g.10gb+me", 16, 9.75, "nvidia-smi mig -lgip on H100 80GB HBM3: profile 20, 16 SMs, 9.75 GiB, 1 instance"},
      {"1g.20gb", 26, 19.625, "nvidia-smi mig -lgip on H100 80GB HBM3: profile 15, 26 SMs, 19.62 GiB, 4 instances"},
      {"2g.20gb", 32, 19.625, "nvidia-smi mig -lgip on H100 80GB HBM3: profile 14, 32 SMs, 19.62 GiB, 3 instances"},
      {"3g.40gb", 60, 39.5, "nvidia-smi mig -lgip on H100 80GB HBM3: profile 9, 60 SMs, 39.50 GiB, 2 instances"},
      {"4g.40gb", 64, 39.5, "nvidia-smi mig -lgip on H100 80GB HBM3: profile 5, 64 SMs, 39.50 GiB, 1 instance"},
      {"7g.80gb", 132, 79.25, "nvidia-smi mig -lgip on H100 80GB HBM3: profile 0, 132 SMs, 79.25 GiB, 1 instance"},
  }});
  h100.source = guide +
                " ('GPU Instance Profiles on H100'); SM and GiB figures from nvidia-smi mig -lgip on H100 SXM5 80GB "
                "HBM3 in public outputs, placements from -lgipp on the same GPU (identical to A100); 132 SMs; " +
                hopper_reconfig;
  tables.push_back(std::move(h100));

  MigGpuTable h200;
  h200.gpu = "H200";
  h200.total_sms = 132;
  h200.profiles = seven_slice_profiles({{
      {"1g.18gb", 16, 16.0,
       "nvidia-smi mig -lgip on H200 (NVIDIA/mig-parted issue #120): profile 19, 16 SMs, 16.00 GiB, 7 instances"},
      {"1g.18gb+me", 16, 16.0,
       "nvidia-smi mig -lgip on H200 (NVIDIA/mig-parted issue #120): profile 20, 16 SMs, 16.00 GiB, 1 instance"},
      {"1g.35gb", 26, 32.25,
       "nvidia-smi mig -lgip on H200 (NVIDIA/mig-parted issue #120): profile 15, 26 SMs, 32.25 GiB, 4 instances"},
      {"2g.35gb", 32, 32.25,
       "nvidia-smi mig -lgip on H200 (NVIDIA/mig-parted issue #120): profile 14, 32 SMs, 32.25 GiB, 3 instances"},
      {"3g.71gb", 60, 69.5,
       "nvidia-smi mig -lgip on H200 (NVIDIA/mig-parted issue #120): profile 9, 60 SMs, 69.50 GiB, 2 instances"},
      {"4g.71gb", 64, 69.5,
       "nvidia-smi mig -lgip on H200 (NVIDIA/mig-parted issue #120): profile 5, 64 SMs, 69.50 GiB, 1 instance"},
      {"7g.141gb", 132, 139.75,
       "132 SMs (all), 139.75 GiB per the quoted -lgip output (docs/sources/team-measurements.md); the 7g line of the quoted -lgip output was not "
       "seen (a newer driver prints 140.00 GiB)"},
  }});
  h200.source = guide +
                " ('GPU Instance Profiles on H200'); SM and GiB figures from nvidia-smi mig -lgip on H200 141GB in "
                "NVIDIA/mig-parted issue #120; placements assumed identical to H100 (same GH100 slice geometry and "
                "profile IDs; not seen as -lgipp output for H200); 132 SMs; " +
                hopper_reconfig;
  tables.push_back(std::move(h200));

  // A30: 4 compute slices, 4 memory slices (each 2 eighths here), no double-memory 1g profile.
  MigGpuTable a30;
  a30.gpu = "A30";
  a30.total_sms = 56;
  a30.compute_slices = 4;
  a30.profiles = profiles_from<5>(
      {{
          {"1g.6gb", 14, 5.8125,
           "nvidia-smi mig -lgip on A30 (driver 535.183.01, public notes): profile 14, 14 SMs, 5.81 GiB, 4 instances"},
          {"1g.6gb+me", 14, 5.8125,
           "nvidia-smi mig -lgip on A30 (driver 535.183.01, public notes): profile 21, 14 SMs, 5.81 GiB, 1 instance "
           "(+1 NVDEC, JPEG, OFA; R470 drivers and later)"},
          {"2g.12gb", 28, 11.6875,
           "nvidia-smi mig -lgip on A30 (driver 535.183.01, public notes): profile 5, 28 SMs, 11.69 GiB, 2 instances"},
          {"2g.12gb+me", 28, 11.6875,
           "nvidia-smi mig -lgip on A30 (driver 535.183.01, public notes): profile 6, 28 SMs, 11.69 GiB, 1 instance "
           "(+1 JPEG, OFA; R525 drivers and later)"},
          {"4g.24gb", 56, 23.4375,
           "nvidia-smi mig -lgip on A30 (driver 535.183.01, public notes; also a Siemens AG MIG tool test fixture): "
           "profile 0, 56 SMs, 23.44 GiB, 1 instance (another public output prints 23.50)"},
      }},
      kA30Geometry);
  a30.source = guide +
               " ('A30 MIG Profiles': 1g.6gb, 1g.6gb+me, 2g.12gb, 2g.12gb+me, 4g.24gb; fractions of 4); SM and GiB "
               "figures and -lgipp placements from nvidia-smi on an A30 (driver 535.183.01) in a public notes file; "
               "56 SMs in the full GPU, all reachable through MIG (4g.24gb has 56); reconfiguration_time 6 s is the "
               "A100 figure from MIGRator reused for this GA100 part (an estimate, not measured on A30); toggling MIG "
               "mode needs a GPU reset as on A100";
  tables.push_back(std::move(a30));

  return tables;
}

// ---- layout check ----

// Partition counts per profile, indexed like table.profiles.
using Counts = std::vector<int>;

int compute_slices(const MigGpuTable& table, const Counts& counts) {
  int total = 0;
  for (size_t p = 0; p < counts.size(); ++p) total += counts[p] * table.profiles[p].compute_slices;
  return total;
}

// Depth-first search over start slots. `order` lists profile indices (one per partition, identical ones adjacent);
// on success fills `starts` (parallel to `order`) and returns true; `used` is the bitmask of occupied memory slots.
bool search(const MigGpuTable& table, const std::vector<int>& order, size_t k, uint32_t used,
            std::vector<int>& starts) {
  if (k == order.size()) return true;
  const MigProfile& p = table.profiles[static_cast<size_t>(order[k])];
  // Identical partitions are interchangeable: keep their starts increasing so each arrangement is tried once.
  const int min_start = (k > 0 && order[k - 1] == order[k]) ? starts[k - 1] + 1 : 0;
  for (int s : p.starts) {
    if (s < min_start || s + p.slot_width > kMemorySlots) continue;
    const uint32_t bits = ((1u << p.slot_width) - 1u) << s;
    if ((used & bits) != 0) continue;
    starts[k] = s;
    if (search(table, order, k + 1, used | bits, starts)) return true;
  }
  return false;
}

// Search order: wider slot footprint first, then more compute, then table order (larger profiles are the
// constrained ones; placing them first finds a layout without backtracking in the common cases).
bool placed_before(const MigGpuTable& table, int a, int b) {
  const MigProfile& pa = table.profiles[static_cast<size_t>(a)];
  const MigProfile& pb = table.profiles[static_cast<size_t>(b)];
  if (pa.slot_width != pb.slot_width) return pa.slot_width > pb.slot_width;
  if (pa.compute_slices != pb.compute_slices) return pa.compute_slices > pb.compute_slices;
  return a < b;
}

bool fits(const MigGpuTable& table, const Counts& counts) {
  if (compute_slices(table, counts) > table.compute_slices) return false;
  std::vector<int> partitions;
  for (size_t p = 0; p < counts.size(); ++p)
    for (int i = 0; i < counts[p]; ++i) partitions.push_back(static_cast<int>(p));
  std::sort(partitions.begin(), partitions.end(), [&](int a, int b) { return placed_before(table, a, b); });
  std::vector<int> starts(partitions.size(), 0);
  return search(table, partitions, 0, 0, starts);
}

// "3g.20gb + 3g.20gb + 1g.5gb": profiles in `first_seen` order, each repeated by its count.
std::string layout_text(const MigGpuTable& table, const Counts& counts, const std::vector<int>& first_seen) {
  std::string out;
  for (int p : first_seen)
    for (int i = 0; i < counts[static_cast<size_t>(p)]; ++i) {
      if (!out.empty()) out += " + ";
      out += table.profiles[static_cast<size_t>(p)].name;
    }
  return out;
}

// Up to 3 layouts made only of requested partitions that fit and to which no further requested partition can be
// added; most partitions first, then most compute slices, then by text.
std::vector<std::string> maximal_layouts(const MigGpuTable& table, const Counts& requested,
                                         const std::vector<int>& first_seen) {
  struct Candidate {
    int partitions;
    int compute;
    std::string text;
  };
  std::vector<Candidate> found;
  Counts c(requested.size(), 0);
  // Odometer over every sub-multiset of the request (bounded by the max counts, so a few thousand at most).
  while (true) {
    size_t d = 0;
    while (d < c.size() && c[d] == requested[d]) c[d++] = 0;
    if (d == c.size()) break;
    ++c[d];
    if (!fits(table, c)) continue;
    bool maximal = true;
    for (size_t p = 0; p < c.size() && maximal; ++p) {
      if (c[p] == requested[p]) continue;
      ++c[p];
      if (fits(table, c)) maximal = false;
      --c[p];
    }
    if (!maximal) continue;
    int n = 0;
    for (int x : c) n += x;
    found.push_back({n, compute_slices(table, c), layout_text(table, c, first_seen)});
  }
  std::sort(found.begin(), found.end(), [](const Candidate& a, const Candidate& b) {
    if (a.partitions != b.partitions) return a.partitions > b.partitions;
    if (a.compute != b.compute) return a.compute > b.compute;
    return a.text < b.text;
  });
  std::vector<std::string> out;
  for (size_t i = 0; i < found.size() && i < 3; ++i) out.push_back(found[i].text);
  return out;
}

// ---- did-you-mean ----

std::string lowercase(std::string_view s) { return boost::algorithm::to_lower_copy(std::string(s)); }

// The closest profile name: case and a "MIG "/"mig-" prefix (as in nvidia-smi and Kubernetes resource names)
// are ignored, "3g" matches "3g.20gb", otherwise at most 2 edits.
std::optional<std::string> suggest(const MigGpuTable& table, const std::string& name) {
  std::string n = lowercase(name);
  for (std::string_view prefix : {"mig ", "mig-", "nvidia.com/mig-"})
    if (n.rfind(prefix, 0) == 0) n = n.substr(prefix.size());
  std::optional<std::string> best;
  size_t best_score = 3;  // accept scores 0..2
  for (const MigProfile& p : table.profiles) {
    const std::string pn = lowercase(p.name);
    size_t score = edit_distance(n, pn);
    if (!n.empty() && pn.rfind(n + ".", 0) == 0) score = std::min<size_t>(score, 1);
    if (score < best_score) {
      best_score = score;
      best = p.name;
    }
  }
  return best;
}

}  // namespace

bool mig_layout_fits(const MigGpuTable& table, const std::vector<int>& counts) {
  if (counts.size() != table.profiles.size()) return false;
  for (size_t p = 0; p < counts.size(); ++p)
    if (counts[p] < 0 || counts[p] > table.profiles[p].max_count) return false;
  return fits(table, counts);
}

const std::vector<MigGpuTable>& mig_tables() {
  static const std::vector<MigGpuTable> tables = build_tables();
  return tables;
}

const MigGpuTable* mig_table(const std::string& gpu) {
  for (const MigGpuTable& t : mig_tables())
    if (t.gpu == gpu) return &t;
  return nullptr;
}

std::variant<std::vector<MigPlacement>, std::string> place_mig_layout(const MigGpuTable& table,
                                                                      const std::vector<std::string>& profiles) {
  // Resolve names.
  std::vector<int> index(profiles.size());
  for (size_t i = 0; i < profiles.size(); ++i) {
    const auto it = std::find_if(table.profiles.begin(), table.profiles.end(),
                                 [&](const MigProfile& p) { return p.name == profiles[i]; });
    if (it == table.profiles.end()) {
      std::string names;
      for (const MigProfile& p : table.profiles) names += (names.empty() ? "" : ", ") + p.name;
      const std::optional<std::string> close = suggest(table, profiles[i]);
      if (close)
        return fmt::format("unknown MIG profile '{}' for {}; did you mean '{}'? (profiles: {})", profiles[i], table.gpu,
                           *close, names);
      return fmt::format("unknown MIG profile '{}' for {} (profiles: {})", profiles[i], table.gpu, names);
    }
    index[i] = static_cast<int>(it - table.profiles.begin());
  }

  Counts counts(table.profiles.size(), 0);
  std::vector<int> first_seen;
  for (int p : index)
    if (counts[static_cast<size_t>(p)]++ == 0) first_seen.push_back(p);

  for (int p : first_seen) {
    const MigProfile& prof = table.profiles[static_cast<size_t>(p)];
    const int asked = counts[static_cast<size_t>(p)];
    if (asked > prof.max_count)
      return fmt::format("at most {} {} of {} {} on {}, asked for {}", prof.max_count,
                         prof.max_count == 1 ? "partition" : "partitions", prof.name,
                         prof.max_count == 1 ? "fits" : "fit", table.gpu, asked);
  }

  const int used = compute_slices(table, counts);
  std::vector<int> order;
  std::vector<int> starts;
  bool placed = false;
  if (used <= table.compute_slices) {
    std::vector<int> by_request(index.size());
    for (size_t i = 0; i < index.size(); ++i) by_request[i] = static_cast<int>(i);
    // Identical profiles keep their request order (stable sort), so the first one asked for gets the lowest slot.
    std::stable_sort(by_request.begin(), by_request.end(), [&](int a, int b) {
      return placed_before(table, index[static_cast<size_t>(a)], index[static_cast<size_t>(b)]);
    });
    order.resize(by_request.size());
    for (size_t k = 0; k < by_request.size(); ++k) order[k] = index[static_cast<size_t>(by_request[k])];
    starts.assign(order.size(), 0);
    placed = search(table, order, 0, 0, starts);
    if (placed) {
      std::vector<MigPlacement> out(profiles.size());
      for (size_t k = 0; k < by_request.size(); ++k) {
        const size_t i = static_cast<size_t>(by_request[k]);
        out[i] = MigPlacement{profiles[i], starts[k]};
      }
      return out;
    }
  }

  std::string requested;
  for (const std::string& p : profiles) requested += (requested.empty() ? "" : " + ") + p;
  const int total = table.compute_slices;
  const std::string why = used > total ? fmt::format("uses {} of {} compute slices", used, total)
                                       : fmt::format("uses {} of {} compute slices, no free placement", used, total);
  std::string layouts;
  for (const std::string& l : maximal_layouts(table, counts, first_seen)) layouts += (layouts.empty() ? "" : "; ") + l;
  return fmt::format("the layout {} does not fit on {} ({}); valid layouts with these profiles include: {}", requested,
                     table.gpu, why, layouts);
}

}  // namespace vgpusim
