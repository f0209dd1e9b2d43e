// MIG profile tables against the published nvidia-smi figures, and the layout check against the placement rules
// of `nvidia-smi mig -lgipp` (fits, refusals and their messages).
#include "models/sharing/mig_profiles.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "sim/core/units.hpp"

namespace unit_mig_profiles {

using namespace vgpusim;

namespace {

using units::kGiB;

const MigGpuTable& table(const std::string& gpu) {
  const MigGpuTable* t = mig_table(gpu);
  if (t == nullptr) throw std::runtime_error("no MIG table for " + gpu);
  return *t;
}

const MigProfile& profile(const std::string& gpu, const std::string& name) {
  for (const MigProfile& p : table(gpu).profiles)
    if (p.name == name) return p;
  throw std::runtime_error("no profile " + name + " on " + gpu);
}

std::vector<std::string> repeat(const std::string& name, int n) {
  return std::vector<std::string>(static_cast<size_t>(n), name);
}

// The placements, or a test failure carrying the error message.
std::vector<MigPlacement> placed(const std::string& gpu, const std::vector<std::string>& profiles) {
  auto result = place_mig_layout(table(gpu), profiles);
  if (const auto* error = std::get_if<std::string>(&result)) {
    ADD_FAILURE() << "expected the layout to fit, got: " << *error;
    return {};
  }
  return std::get<std::vector<MigPlacement>>(result);
}

// The error message, or "" (and a test failure) when the layout was accepted.
std::string refused(const std::string& gpu, const std::vector<std::string>& profiles) {
  auto result = place_mig_layout(table(gpu), profiles);
  if (const auto* error = std::get_if<std::string>(&result)) return *error;
  ADD_FAILURE() << "expected the layout to be refused";
  return "";
}

// No two placed instances share a memory slot, and every start is one the profile allows.
void expect_disjoint(const std::string& gpu, const std::vector<MigPlacement>& placements) {
  unsigned used = 0;
  for (const MigPlacement& m : placements) {
    const MigProfile& p = profile(gpu, m.profile);
    EXPECT_NE(std::find(p.starts.begin(), p.starts.end(), m.start), p.starts.end()) << m.profile << " at " << m.start;
    const unsigned bits = ((1u << p.slot_width) - 1u) << m.start;
    EXPECT_EQ(used & bits, 0u) << m.profile << " at " << m.start << " overlaps";
    used |= bits;
  }
}

}  // namespace

TEST(MigTables, AllFiveGpusHaveTables) {
  for (const char* gpu : {"A100-40GB", "A100-80GB", "H100-SXM", "H200", "A30"}) {
    const MigGpuTable* t = mig_table(gpu);
    ASSERT_NE(t, nullptr) << gpu;
    EXPECT_EQ(t->profiles.size(), std::string(gpu) == "A30" ? 5u : 7u) << gpu;
    EXPECT_FALSE(t->source.empty()) << gpu;
    for (const MigProfile& p : t->profiles) EXPECT_FALSE(p.source.empty()) << gpu << " " << p.name;
  }
  EXPECT_EQ(mig_tables().size(), 5u);
  EXPECT_EQ(mig_table("T4"), nullptr);
}

TEST(MigTables, A30_MatchesNvidiaSmiLgip) {
  const MigGpuTable& t = table("A30");
  EXPECT_EQ(t.total_sms, 56);
  EXPECT_EQ(t.compute_slices, 4);
  EXPECT_EQ(profile("A30", "1g.6gb").sms, 14);
  EXPECT_DOUBLE_EQ(profile("A30", "1g.6gb").memory, 5952.0 * 1048576.0);  // 5.81 GiB, 5952 MiB in nvidia-smi
  EXPECT_EQ(profile("A30", "1g.6gb").max_count, 4);
  EXPECT_EQ(profile("A30", "1g.6gb+me").max_count, 1);
  EXPECT_EQ(profile("A30", "2g.12gb").sms, 28);
  EXPECT_EQ(profile("A30", "2g.12gb").max_count, 2);
  EXPECT_EQ(profile("A30", "4g.24gb").sms, 56);
  EXPECT_DOUBLE_EQ(profile("A30", "4g.24gb").memory, 23.4375 * kGiB);
  // A30 slices are quarters: 2 eighths of memory (and L2, bandwidth) per compute slice, on starts doubled from
  // -lgipp's {0,1,2,3}:1 and {0,2}:2.
  EXPECT_EQ(profile("A30", "1g.6gb").memory_slices, 2);
  EXPECT_EQ(profile("A30", "1g.6gb").starts, (std::vector<int>{0, 2, 4, 6}));
  EXPECT_EQ(profile("A30", "2g.12gb").starts, (std::vector<int>{0, 4}));
  EXPECT_EQ(profile("A30", "4g.24gb").slot_width, 8);
}

// Every table's profiles add up sensibly: a full layout of the smallest profile reaches at most the GPU's SMs and
// memory, the largest profile has every memory slot, and each profile's SMs and memory grow with its slices.
TEST(MigTables, ProfilesSumToAtMostTheGpu) {
  const std::vector<std::pair<std::string, double>> memory = {
      {"A100-40GB", 40}, {"A100-80GB", 80}, {"H100-SXM", 80}, {"H200", 141}, {"A30", 24}};
  for (const auto& [gpu, gib] : memory) {
    const MigGpuTable& t = table(gpu);
    const MigProfile& g1 = t.profiles.front();
    EXPECT_LE(g1.max_count * g1.compute_slices, t.compute_slices) << gpu;
    EXPECT_LE(g1.max_count * g1.sms, t.total_sms) << gpu;
    EXPECT_LE(g1.max_count * g1.memory, gib * kGiB) << gpu;
    const MigProfile& whole = t.profiles.back();
    EXPECT_EQ(whole.compute_slices, t.compute_slices) << gpu;
    EXPECT_EQ(whole.memory_slices, 8) << gpu;
    EXPECT_LE(whole.sms, t.total_sms) << gpu;
    EXPECT_GT(whole.memory, 0.95 * gib * kGiB) << gpu;
    for (const MigProfile& p : t.profiles) {
      EXPECT_LE(p.sms, whole.sms) << gpu << " " << p.name;
      EXPECT_LE(p.memory, whole.memory) << gpu << " " << p.name;
    }
  }
  const std::vector<MigPlacement> a30 = placed("A30", repeat("1g.6gb", 4));
  double sms = 0;
  for (const MigPlacement& m : a30) sms += profile("A30", m.profile).sms;
  EXPECT_EQ(sms, 56);  // unlike A100, the four A30 slices cover every SM
}

TEST(MigTables, A100_40GB_MatchesNvidiaSmiLgip) {
  EXPECT_EQ(table("A100-40GB").total_sms, 108);
  EXPECT_EQ(profile("A100-40GB", "1g.5gb").sms, 14);
  EXPECT_DOUBLE_EQ(profile("A100-40GB", "1g.5gb").memory, 4.75 * kGiB);
  EXPECT_EQ(profile("A100-40GB", "2g.10gb").sms, 28);
  EXPECT_EQ(profile("A100-40GB", "3g.20gb").sms, 42);
  EXPECT_EQ(profile("A100-40GB", "4g.20gb").sms, 56);
  EXPECT_EQ(profile("A100-40GB", "7g.40gb").sms, 98);
  EXPECT_DOUBLE_EQ(profile("A100-40GB", "7g.40gb").memory, 39.5 * kGiB);
  EXPECT_EQ(profile("A100-40GB", "1g.5gb").max_count, 7);
  EXPECT_EQ(profile("A100-40GB", "1g.10gb").memory_slices, 2);
}

TEST(MigTables, A100_80GB_MatchesNvidiaSmiLgip) {
  EXPECT_EQ(profile("A100-80GB", "1g.10gb").sms, 14);
  EXPECT_DOUBLE_EQ(profile("A100-80GB", "1g.10gb").memory, 9.5 * kGiB);
  EXPECT_EQ(profile("A100-80GB", "7g.80gb").sms, 98);
  EXPECT_DOUBLE_EQ(profile("A100-80GB", "7g.80gb").memory, 79.0 * kGiB);
  EXPECT_EQ(profile("A100-80GB", "1g.20gb").max_count, 4);
}

TEST(MigTables, H100_SXM_MatchesNvidiaSmiLgip) {
  EXPECT_EQ(table("H100-SXM").total_sms, 132);
  EXPECT_EQ(profile("H100-SXM", "1g.10gb").sms, 16);
  EXPECT_EQ(profile("H100-SXM", "1g.20gb").sms, 26);
  EXPECT_EQ(profile("H100-SXM", "2g.20gb").sms, 32);
  EXPECT_EQ(profile("H100-SXM", "3g.40gb").sms, 60);
  EXPECT_EQ(profile("H100-SXM", "4g.40gb").sms, 64);
  EXPECT_EQ(profile("H100-SXM", "7g.80gb").sms, 132);
  EXPECT_DOUBLE_EQ(profile("H100-SXM", "3g.40gb").memory, 39.5 * kGiB);
}

TEST(MigTables, H200_MatchesNvidiaSmiLgip) {
  EXPECT_EQ(profile("H200", "1g.18gb").sms, 16);
  EXPECT_DOUBLE_EQ(profile("H200", "1g.18gb").memory, 16.0 * kGiB);
  EXPECT_EQ(profile("H200", "1g.35gb").sms, 26);
  EXPECT_DOUBLE_EQ(profile("H200", "2g.35gb").memory, 32.25 * kGiB);
  EXPECT_EQ(profile("H200", "3g.71gb").sms, 60);
  EXPECT_DOUBLE_EQ(profile("H200", "4g.71gb").memory, 69.5 * kGiB);
  EXPECT_EQ(profile("H200", "7g.141gb").sms, 132);
}

TEST(MigTables, PlacementsFollowLgipp) {
  const MigProfile& g3 = profile("A100-40GB", "3g.20gb");
  EXPECT_EQ(g3.starts, (std::vector<int>{0, 4}));
  EXPECT_EQ(g3.slot_width, 4);  // occupies 4 memory slots although 3 compute slices
  EXPECT_EQ(profile("A100-40GB", "1g.5gb").starts, (std::vector<int>{0, 1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(profile("A100-40GB", "1g.10gb").starts, (std::vector<int>{0, 2, 4, 6}));
  EXPECT_EQ(profile("A100-80GB", "1g.20gb").slot_width, 2);
  EXPECT_EQ(profile("H200", "1g.35gb").starts, (std::vector<int>{0, 2, 4, 6}));
  EXPECT_EQ(profile("H100-SXM", "2g.20gb").starts, (std::vector<int>{0, 2, 4}));
  EXPECT_EQ(profile("H100-SXM", "7g.80gb").slot_width, 8);
}

TEST(MigTables, SevenOneSliceInstancesOnA100Reach98Of108Sms) {
  const std::vector<MigPlacement> p = placed("A100-40GB", repeat("1g.5gb", 7));
  ASSERT_EQ(p.size(), 7u);
  double sms = 0;
  for (const MigPlacement& m : p) sms += profile("A100-40GB", m.profile).sms;
  EXPECT_EQ(sms, 98);
  EXPECT_LT(sms, table("A100-40GB").total_sms);
}

TEST(MigLayout, SevenOneSliceInstancesFitAnEighthIsRefused) {
  for (const MigGpuTable& t : mig_tables()) {
    const MigProfile& g1 = t.profiles[0];
    const std::vector<MigPlacement> p = placed(t.gpu, repeat(g1.name, g1.max_count));
    ASSERT_EQ(p.size(), static_cast<size_t>(t.compute_slices)) << t.gpu;  // 7, or 4 on A30
    for (size_t i = 0; i < p.size(); ++i) EXPECT_EQ(p[i].start, static_cast<int>(i) * g1.slot_width) << t.gpu;
  }
  EXPECT_EQ(refused("A100-40GB", repeat("1g.5gb", 8)), "at most 7 partitions of 1g.5gb fit on A100-40GB, asked for 8");
  EXPECT_EQ(refused("A30", repeat("1g.6gb", 5)), "at most 4 partitions of 1g.6gb fit on A30, asked for 5");
}

TEST(MigLayout, A30LayoutsFollowItsFourSlices) {
  const std::vector<MigPlacement> p = placed("A30", {"2g.12gb", "1g.6gb", "1g.6gb"});
  ASSERT_EQ(p.size(), 3u);
  expect_disjoint("A30", p);
  EXPECT_EQ(p[0].start, 0);
  EXPECT_EQ(p[1].start, 4);
  EXPECT_EQ(p[2].start, 6);
  EXPECT_EQ(placed("A30", {"2g.12gb", "2g.12gb"}).size(), 2u);
  EXPECT_EQ(refused("A30", {"4g.24gb", "1g.6gb"}),
            "the layout 4g.24gb + 1g.6gb does not fit on A30 (uses 5 of 4 compute slices); valid layouts with these "
            "profiles include: 4g.24gb; 1g.6gb");
  EXPECT_NE(refused("A30", {"3g.18gb"}).find("did you mean"), std::string::npos);
}

TEST(MigLayout, TwoThreeSliceInstancesFit) {
  const std::vector<MigPlacement> p = placed("A100-40GB", {"3g.20gb", "3g.20gb"});
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0].start, 0);
  EXPECT_EQ(p[1].start, 4);
}

TEST(MigLayout, FourSliceAndThreeSliceFitSideBySide) {
  const std::vector<MigPlacement> p = placed("A100-40GB", {"4g.20gb", "3g.20gb"});
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0].start, 0);  // 4g only at {0}:4
  EXPECT_EQ(p[1].start, 4);  // 3g at {0,4}:4, 0 taken
  const std::vector<MigPlacement> h = placed("H100-SXM", {"3g.40gb", "4g.40gb"});
  ASSERT_EQ(h.size(), 2u);
  EXPECT_EQ(h[0].start, 4);
  EXPECT_EQ(h[1].start, 0);
}

TEST(MigLayout, TwoFourSliceInstancesAreRefusedByMaxCount) {
  EXPECT_EQ(refused("A100-40GB", {"4g.20gb", "4g.20gb"}),
            "at most 1 partition of 4g.20gb fits on A100-40GB, asked for 2");
}

TEST(MigLayout, SevenSliceAloneFitsButNotWithAnything) {
  const std::vector<MigPlacement> p = placed("A100-80GB", {"7g.80gb"});
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].start, 0);
  EXPECT_EQ(refused("A100-40GB", {"7g.40gb", "1g.5gb"}),
            "the layout 7g.40gb + 1g.5gb does not fit on A100-40GB (uses 8 of 7 compute slices); valid layouts with "
            "these profiles include: 7g.40gb; 1g.5gb");
}

TEST(MigLayout, ThreeTwoSliceAndOneOneSliceFit) {
  const std::vector<MigPlacement> p = placed("H100-SXM", {"2g.20gb", "2g.20gb", "2g.20gb", "1g.10gb"});
  ASSERT_EQ(p.size(), 4u);
  expect_disjoint("H100-SXM", p);
  EXPECT_EQ(p[3].start, 6);  // the 2g instances take 0-5
}

// 3g starts at {0,4} with width 4 on A100 (-lgipp "{0,4}:4"), so two 3g fill all 8 memory slots: 3g + 3g + 1g is
// refused although it uses only 7 compute slices (nvidia-smi: "Insufficient Resources").
TEST(MigLayout, ThreeThreeOneIsRefusedForLackOfPlacement) {
  EXPECT_EQ(refused("A100-40GB", {"3g.20gb", "3g.20gb", "1g.5gb"}),
            "the layout 3g.20gb + 3g.20gb + 1g.5gb does not fit on A100-40GB (uses 7 of 7 compute slices, no free "
            "placement); valid layouts with these profiles include: 3g.20gb + 3g.20gb; 3g.20gb + 1g.5gb");
}

TEST(MigLayout, ThreeTwoTwoFitsOnlyWithTheThreeSliceOnTheRight) {
  // 2g starts only at {0,2,4}: with a 3g at 0 (slots 0-3) just one 2g fits (at 4); with the 3g at 4, two fit at 0, 2.
  const std::vector<MigPlacement> ok = placed("A100-40GB", {"2g.10gb", "2g.10gb", "3g.20gb"});
  ASSERT_EQ(ok.size(), 3u);
  expect_disjoint("A100-40GB", ok);
  EXPECT_EQ(ok[0].start, 0);
  EXPECT_EQ(ok[1].start, 2);
  EXPECT_EQ(ok[2].start, 4);
}

TEST(MigLayout, TooManyComputeSlicesListsTheMaximalSubLayouts) {
  const std::string e = refused("A100-40GB", {"3g.20gb", "2g.10gb", "2g.10gb", "1g.5gb"});
  EXPECT_NE(e.find("(uses 8 of 7 compute slices)"), std::string::npos) << e;
  EXPECT_NE(e.find("include: 3g.20gb + 2g.10gb + 2g.10gb; 3g.20gb + 2g.10gb + 1g.5gb; 2g.10gb + 2g.10gb + 1g.5gb"),
            std::string::npos)
      << e;
}

TEST(MigLayout, DoubleMemoryOneSliceUsesTwoSlots) {
  EXPECT_EQ(placed("A100-40GB", repeat("1g.10gb", 4)).size(), 4u);
  EXPECT_EQ(refused("A100-40GB", {"1g.10gb", "1g.10gb", "1g.10gb", "1g.10gb", "1g.5gb"}),
            "the layout 1g.10gb + 1g.10gb + 1g.10gb + 1g.10gb + 1g.5gb does not fit on A100-40GB (uses 5 of 7 "
            "compute slices, no free placement); valid layouts with these profiles include: 1g.10gb + 1g.10gb + "
            "1g.10gb + 1g.10gb; 1g.10gb + 1g.10gb + 1g.10gb + 1g.5gb");
}

TEST(MigLayout, PlacementsComeBackInRequestedOrder) {
  const std::vector<std::string> request = {"1g.5gb", "3g.20gb", "1g.5gb", "2g.10gb"};
  const std::vector<MigPlacement> p = placed("A100-40GB", request);
  ASSERT_EQ(p.size(), request.size());
  for (size_t i = 0; i < request.size(); ++i) EXPECT_EQ(p[i].profile, request[i]);
  expect_disjoint("A100-40GB", p);
  // Larger first: 3g at 0 and 2g at 4 leave only slot 6 for a 1g, so the search backtracks: 3g at 4, 2g at 0, the
  // 1g instances at 2 and 3 in the order asked for. (The MIG User Guide's 3-2-1-1 example has nvidia-smi put the
  // 2g at 2 and the 1g at 0 and 1; both are valid.)
  EXPECT_EQ(p[1].start, 4);
  EXPECT_EQ(p[3].start, 0);
  EXPECT_EQ(p[0].start, 2);
  EXPECT_EQ(p[2].start, 3);
}

TEST(MigLayout, UnknownProfileSuggestsTheClosestName) {
  EXPECT_EQ(refused("A100-40GB", {"3g.20gb", "1g.5g"}),
            "unknown MIG profile '1g.5g' for A100-40GB; did you mean '1g.5gb'? (profiles: 1g.5gb, 1g.5gb+me, 1g.10gb, "
            "2g.10gb, 3g.20gb, 4g.20gb, 7g.40gb)");
  // An 80GB name on the 40GB GPU.
  EXPECT_NE(refused("A100-40GB", {"3g.40gb"}).find("did you mean '3g.20gb'?"), std::string::npos);
  // A bare slice count and a Kubernetes resource name.
  EXPECT_NE(refused("H200", {"3g"}).find("did you mean '3g.71gb'?"), std::string::npos);
  EXPECT_NE(refused("H100-SXM", {"mig-1g.10gb"}).find("did you mean '1g.10gb'?"), std::string::npos);
}

TEST(MigLayout, UnknownProfileWithNothingCloseOmitsDidYouMean) {
  EXPECT_EQ(refused("H200", {"whole-gpu"}),
            "unknown MIG profile 'whole-gpu' for H200 (profiles: 1g.18gb, 1g.18gb+me, 1g.35gb, 2g.35gb, 3g.71gb, "
            "4g.71gb, 7g.141gb)");
}

TEST(MigLayout, EmptyRequestIsAnEmptyLayout) { EXPECT_TRUE(placed("H100-SXM", {}).empty()); }

}  // namespace unit_mig_profiles
