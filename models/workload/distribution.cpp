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

// A gamma draw of shape k and scale 1 (Marsaglia and Tsang 2000; shape below 1 by boosting: G(k) = G(k + 1) U^(1/k)).
double standard_gamma(double k, Rng& rng) {
  if (k < 1) return standard_gamma(k + 1, rng) * std::pow(1.0 - rng.uniform(), 1.0 / k);
  const double d = k - 1.0 / 3, c = 1 / std::sqrt(9 * d);
  for (int tries = 0; tries < 1000; ++tries) {
    const double x = standard_normal(rng), v0 = 1 + c * x;
    if (v0 <= 0) continue;
    const double v = v0 * v0 * v0, u = 1.0 - rng.uniform();
    if (std::log(u) < x * x / 2 + d - d * v + d * std::log(v)) return d * v;
  }
  return k;
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
    case Kind::Gamma:
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
    case Kind::Gamma: {
      if (!(a > 0)) return 0;
      if (!(b > 0)) return a;
      const double shape = (a / b) * (a / b);  // mean a = shape x scale, sd b = sqrt(shape) x scale
      return standard_gamma(shape, rng) * a / shape;
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
    case Distribution::Kind::Gamma:
      return "gamma";
  }
  return "constant";
}

}  // namespace vgpusim
