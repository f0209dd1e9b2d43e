// Random streams: each tenant draws from its own stream, derived from the scenario seed and the tenant's name so
// that adding a tenant does not change the others' draws. Distributions are written out here (not <random>'s) so
// that results are identical on every standard library.
#pragma once

#include <cmath>
#include <cstdint>
#include <string_view>

namespace vgpusim {

inline uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

inline uint64_t stream_seed(uint64_t scenario_seed, std::string_view name) {
  uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a 64
  for (char c : name) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  return splitmix64(scenario_seed ^ splitmix64(h));
}

// xoshiro256** (Blackman & Vigna, 2018): small, fast, and the same everywhere.
class Rng {
 public:
  explicit Rng(uint64_t seed) {
    for (uint64_t& s : s_) {
      seed = splitmix64(seed);
      s = seed;
    }
  }
  uint64_t next() {
    const uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }
  // Uniform in [0, 1).
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  // Exponential with the given mean.
  double exponential(double mean) { return -mean * std::log1p(-uniform()); }

 private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t s_[4];
};

}  // namespace vgpusim
