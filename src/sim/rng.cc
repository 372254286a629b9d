#include "sim/rng.h"

#include "sim/result.h"

namespace xpusim::sim {
namespace {

// Full 128-bit product of a and b as {high, low}, portable (no __int128 under -Wpedantic).
void mul_64x64(std::uint64_t a, std::uint64_t b, std::uint64_t& hi, std::uint64_t& lo) {
  const std::uint64_t a_lo = a & 0xffffffffULL, a_hi = a >> 32;
  const std::uint64_t b_lo = b & 0xffffffffULL, b_hi = b >> 32;
  const std::uint64_t ll = a_lo * b_lo, lh = a_lo * b_hi, hl = a_hi * b_lo, hh = a_hi * b_hi;
  const std::uint64_t mid = (ll >> 32) + (lh & 0xffffffffULL) + (hl & 0xffffffffULL);
  lo = (mid << 32) | (ll & 0xffffffffULL);
  hi = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
}

}  // namespace

Rng Rng::for_stream(std::uint64_t seed, std::string_view path) {
  const std::uint64_t x = splitmix64(seed) ^ fnv1a64(path);
  std::array<std::uint64_t, 4> s{};
  for (std::uint64_t i = 0; i < 4; ++i)
    s[i] = splitmix64(x + i * kSplitMix64Gamma);
  return Rng(s);
}

std::uint64_t Rng::uniform(std::uint64_t n) {
  XPUSIM_CHECK(n > 0, "Rng::uniform(n) needs n > 0");
  std::uint64_t hi = 0, lo = 0;
  mul_64x64(next_u64(), n, hi, lo);
  if (lo < n) {
    const std::uint64_t threshold = (0 - n) % n;  // 2^64 mod n
    while (lo < threshold)
      mul_64x64(next_u64(), n, hi, lo);
  }
  return hi;
}

}  // namespace xpusim::sim
