// Seeded random numbers, portable and deterministic: the same (seed, component path) yields the
// same sequence on every compiler and standard library (no std:: distributions, which differ).
//
// Generator: xoshiro256** (Blackman & Vigna). Stream seeding, for seed S and path P:
//   x = splitmix64(S) ^ fnv1a64(P);  state[i] = splitmix64(x + i * 0x9e3779b97f4a7c15), i = 0..3
// i.e. four outputs of the SplitMix64 generator started at x. SplitMix64's finaliser is a
// bijection, so the four words are never all zero.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace xpusim::sim {

inline constexpr std::uint64_t kSplitMix64Gamma = 0x9e3779b97f4a7c15ULL;

// One SplitMix64 step from state x: the value the stateful generator returns after advancing
// x by the gamma. A pure function of x, so also usable as a stateless byte-pattern hash.
constexpr std::uint64_t splitmix64(std::uint64_t x) {
  std::uint64_t z = x + kSplitMix64Gamma;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// 64-bit FNV-1a over the bytes of s: a stable name hash (std::hash is not stable across builds).
constexpr std::uint64_t fnv1a64(std::string_view s) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (const char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  return h;
}

class Rng {
 public:
  // One independent stream per component: pass the global seed and the component's path.
  static Rng for_stream(std::uint64_t seed, std::string_view path);

  std::uint64_t next_u64() {
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

  // Uniform in [0, n), unbiased (Lemire's multiply-and-reject). n must be > 0.
  std::uint64_t uniform(std::uint64_t n);

  // Uniform in [0, 1) with 53 random bits.
  double uniform_real() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }

  // True with probability p (p <= 0: never, p >= 1: always). Always consumes one draw, so the
  // stream position does not depend on p.
  bool bernoulli(double p) { return uniform_real() < p; }

 private:
  explicit Rng(const std::array<std::uint64_t, 4>& s) : s_(s) {}
  static constexpr std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

  std::array<std::uint64_t, 4> s_;
};

}  // namespace xpusim::sim
