// A nonnegative random quantity of a workload or tenant (host time, think time, a start offset): constant,
// uniform, normal (truncated at 0), lognormal, exponential or gamma. Scenario files give one as a plain value (constant)
// or as {distribution: NAME, ...} (sim/scenario/sections.cpp, section `distribution`).
#pragma once

#include <string>

#include "sim/core/rng.hpp"

namespace vgpusim {

struct Distribution {
  enum class Kind { Constant, Uniform, Normal, Lognormal, Exponential, Gamma };
  Kind kind = Kind::Constant;
  // constant: a; uniform: [a, b); normal, lognormal and gamma: mean a, standard deviation b; exponential: mean a.
  double a = 0, b = 0;

  static Distribution constant(double x) { return {Kind::Constant, x, 0}; }
  static Distribution uniform(double low, double high) { return {Kind::Uniform, low, high}; }

  bool is_constant() const { return kind == Kind::Constant; }
  bool operator==(const Distribution&) const = default;
  // The mean of what sample() returns (the normal's truncation at 0 is ignored: keep sd well below the mean).
  double mean() const;
  // One draw, never negative (a negative normal draw is drawn again).
  double sample(Rng& rng) const;
  // The same shape with every draw `factor` times larger (mean and spread; factor > 0).
  Distribution scaled(double factor) const { return {kind, a * factor, b * factor}; }
};

// The names scenario files use, in Kind order: constant, uniform, normal, lognormal, exponential, gamma.
const char* distribution_name(Distribution::Kind kind);

}  // namespace vgpusim
