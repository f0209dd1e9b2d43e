#include "models/workload/distribution.hpp"

#include <cmath>
#include <numbers>

namespace vgpusim {
namespace {

// A standard normal draw (Box-Muller; one of the pair is used).
double standard_normal(Rng& rng) {
  const double u1 = 1.0 - rng.uniform();  // (0, 1]
  const double u2 = rng.uniform();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

}  // namespace

double Distribution::mean() const {
  switch (kind) {
    case Kind::Uniform:
      return (a + b) / 2;
    case Kind::Constant:
    case Kind::Normal:
    case Kind::Lognormal:
    case Kind::Exponential:
      return a;
  }
  return a;
}

double Distribution::sample(Rng& rng) const {
  switch (kind) {
    case Kind::Constant:
      return a;
    case Kind::Uniform:
      return a + (b - a) * rng.uniform();
    case Kind::Exponential:
      return rng.exponential(a);
    case Kind::Normal:
      for (int tries = 0; tries < 1000; ++tries) {
        const double x = a + b * standard_normal(rng);
        if (x >= 0) return x;
      }
      return 0;
    case Kind::Lognormal: {
      if (!(a > 0)) return 0;
      // The log's parameters that give mean a and standard deviation b.
      const double sigma2 = std::log1p((b / a) * (b / a));
      const double mu = std::log(a) - sigma2 / 2;
      return std::exp(mu + std::sqrt(sigma2) * standard_normal(rng));
    }
  }
  return a;
}

const char* distribution_name(Distribution::Kind kind) {
  switch (kind) {
    case Distribution::Kind::Constant:
      return "constant";
    case Distribution::Kind::Uniform:
      return "uniform";
    case Distribution::Kind::Normal:
      return "normal";
    case Distribution::Kind::Lognormal:
      return "lognormal";
    case Distribution::Kind::Exponential:
      return "exponential";
  }
  return "constant";
}

}  // namespace vgpusim
