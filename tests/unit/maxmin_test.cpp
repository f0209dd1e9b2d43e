// The weighted max-min solver against hand-computed answers.
#include <gtest/gtest.h>

#include "sim/core/maxmin.hpp"

namespace unit_maxmin {

using vgpusim::MaxMinProblem;
using vgpusim::MaxMinVariable;
using vgpusim::solve_maxmin;

namespace {
MaxMinVariable var(std::vector<std::pair<int, double>> uses, double weight = 1,
                   double bound = std::numeric_limits<double>::infinity()) {
  MaxMinVariable v;
  v.uses = std::move(uses);
  v.weight = weight;
  v.bound = bound;
  return v;
}
}  // namespace

TEST(MaxMin, EqualSharesOfOneResource) {
  const auto x = solve_maxmin({{1.0}, {var({{0, 1}}), var({{0, 1}}), var({{0, 1}}), var({{0, 1}})}});
  for (double v : x) EXPECT_DOUBLE_EQ(v, 0.25);
}

TEST(MaxMin, WeightsSplitProportionally) {
  const auto x = solve_maxmin({{1.0}, {var({{0, 1}}, 1), var({{0, 1}}, 3)}});
  EXPECT_DOUBLE_EQ(x[0], 0.25);
  EXPECT_DOUBLE_EQ(x[1], 0.75);
}

TEST(MaxMin, BoundedVariableLeavesTheRestToOthers) {
  const auto x = solve_maxmin({{1.0}, {var({{0, 1}}, 1, 0.1), var({{0, 1}}), var({{0, 1}})}});
  EXPECT_DOUBLE_EQ(x[0], 0.1);
  EXPECT_DOUBLE_EQ(x[1], 0.45);
  EXPECT_DOUBLE_EQ(x[2], 0.45);
}

TEST(MaxMin, ClassicTwoLinkNetwork) {
  // Flow A crosses both links, B only link 0, C only link 1. Link 0 saturates first (A and B at 0.5);
  // C then takes what link 1 has left.
  const auto x = solve_maxmin({{1.0, 2.0}, {var({{0, 1}, {1, 1}}), var({{0, 1}}), var({{1, 1}})}});
  EXPECT_DOUBLE_EQ(x[0], 0.5);
  EXPECT_DOUBLE_EQ(x[1], 0.5);
  EXPECT_DOUBLE_EQ(x[2], 1.5);
}

TEST(MaxMin, CoefficientsScaleConsumption) {
  // A roofline-like kernel needing 2 units of resource 0 per unit of rate.
  const auto x = solve_maxmin({{1.0}, {var({{0, 2}}), var({{0, 1}})}});
  EXPECT_NEAR(x[0], 1.0 / 3, 1e-12);
  EXPECT_NEAR(x[1], 1.0 / 3, 1e-12);
}

TEST(MaxMin, VariableWithoutResourcesGetsItsBound) {
  const auto x = solve_maxmin({{1.0}, {var({}, 1, 7.0), var({{0, 1}})}});
  EXPECT_DOUBLE_EQ(x[0], 7.0);
  EXPECT_DOUBLE_EQ(x[1], 1.0);
}

TEST(MaxMin, NeverExceedsCapacityOnRandomProblems) {
  uint64_t s = 42;
  auto next = [&] {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>(s >> 11) * 0x1.0p-53;
  };
  for (int trial = 0; trial < 200; ++trial) {
    MaxMinProblem p;
    const int nr = 1 + static_cast<int>(next() * 5), nv = 1 + static_cast<int>(next() * 12);
    for (int r = 0; r < nr; ++r) p.capacity.push_back(0.1 + next() * 3);
    for (int v = 0; v < nv; ++v) {
      MaxMinVariable m;
      m.weight = 0.1 + next() * 4;
      if (next() < 0.3) m.bound = next();
      for (int r = 0; r < nr; ++r)
        if (next() < 0.5) m.uses.push_back({r, 0.2 + next() * 2});
      if (m.uses.empty()) m.uses.push_back({0, 1});
      p.variables.push_back(m);
    }
    const auto x = solve_maxmin(p);
    std::vector<double> used(p.capacity.size(), 0);
    for (int v = 0; v < nv; ++v) {
      EXPECT_GE(x[v], 0);
      EXPECT_LE(x[v], p.variables[v].bound * (1 + 1e-9));
      for (const auto& [r, c] : p.variables[v].uses) used[r] += c * x[v];
    }
    for (int r = 0; r < nr; ++r) EXPECT_LE(used[r], p.capacity[r] * (1 + 1e-9));
    // Max-min optimality: every variable is at its bound or crosses a saturated resource.
    for (int v = 0; v < nv; ++v) {
      bool limited = x[v] >= p.variables[v].bound * (1 - 1e-9);
      for (const auto& [r, c] : p.variables[v].uses) limited = limited || used[r] >= p.capacity[r] * (1 - 1e-9);
      EXPECT_TRUE(limited) << "trial " << trial << " variable " << v;
    }
  }
}

}  // namespace unit_maxmin
