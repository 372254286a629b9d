#include "sim/rng.h"

#include <cmath>
#include <vector>

#include <gtest/gtest.h>

namespace xpusim::sim {
namespace {

// Straight transcriptions of the published reference code (prng.di.unimi.it), independent of
// the implementation under test.
struct RefSplitMix64 {
  std::uint64_t x;
  std::uint64_t next() {
    std::uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
};

struct RefXoshiro256ss {
  std::uint64_t s[4];
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::uint64_t next() {
    const std::uint64_t result = rotl(s[1] * 5, 7) * 9;
    const std::uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
  }
};

std::uint64_t ref_fnv1a(const std::string& s) {
  std::uint64_t h = 14695981039346656037ULL;  // FNV offset basis
  for (unsigned char c : s)
    h = (h ^ c) * 1099511628211ULL;  // FNV prime
  return h;
}

// The documented stream seeding, rebuilt from the reference generators.
RefXoshiro256ss ref_stream(std::uint64_t seed, const std::string& path) {
  RefSplitMix64 first{seed};
  RefSplitMix64 sm{first.next() ^ ref_fnv1a(path)};
  RefXoshiro256ss x{};
  for (auto& w : x.s)
    w = sm.next();
  return x;
}

__extension__ typedef unsigned __int128 U128;

TEST(RngTest, PublishedVectors) {
  EXPECT_EQ(fnv1a64(""), 0xcbf29ce484222325ULL);
  EXPECT_EQ(fnv1a64("a"), 0xaf63dc4c8601ec8cULL);
  EXPECT_EQ(fnv1a64("foobar"), 0x85944171f73967e8ULL);
  EXPECT_EQ(splitmix64(0), 0xe220a8397b1dcdafULL);  // first SplitMix64 output from state 0
  RefSplitMix64 ref{0};
  EXPECT_EQ(ref.next(), 0xe220a8397b1dcdafULL);
  for (std::uint64_t x : {1ULL, 42ULL, 0xdeadbeefULL, ~0ULL}) {
    RefSplitMix64 r{x};
    EXPECT_EQ(splitmix64(x), r.next());
  }
  static_assert(fnv1a64("") == 0xcbf29ce484222325ULL);  // usable at compile time
}

TEST(RngTest, GoldenFirstValuesForSeedZeroEmptyPath) {
  RefXoshiro256ss ref = ref_stream(0, "");
  Rng rng = Rng::for_stream(0, "");
  const std::uint64_t first = ref.next();
  EXPECT_EQ(first, 0x1e28178eedbf0f30ULL);  // pins the seeding scheme: changing it changes runs
  EXPECT_EQ(rng.next_u64(), first);
  for (int i = 0; i < 1000; ++i)
    ASSERT_EQ(rng.next_u64(), ref.next()) << "draw " << i + 1;

  RefXoshiro256ss ref2 = ref_stream(12345, "chip0.gpc3.sm17.tma");
  Rng rng2 = Rng::for_stream(12345, "chip0.gpc3.sm17.tma");
  for (int i = 0; i < 100; ++i)
    ASSERT_EQ(rng2.next_u64(), ref2.next());
}

TEST(RngTest, StreamsAreReproducibleAndIndependent) {
  auto draw = [](std::uint64_t seed, std::string_view path) {
    Rng r = Rng::for_stream(seed, path);
    std::vector<std::uint64_t> v(16);
    for (auto& x : v)
      x = r.next_u64();
    return v;
  };
  EXPECT_EQ(draw(7, "chip0.sm0"), draw(7, "chip0.sm0"));
  EXPECT_NE(draw(7, "chip0.sm0"), draw(7, "chip0.sm1"));
  EXPECT_NE(draw(7, "chip0.sm0"), draw(8, "chip0.sm0"));
  EXPECT_NE(draw(0, ""), draw(1, ""));
}

TEST(RngTest, UniformMatchesLemireReference) {
  Rng rng = Rng::for_stream(3, "lemire");
  RefXoshiro256ss ref = ref_stream(3, "lemire");
  for (std::uint64_t n : {1ULL, 2ULL, 3ULL, 7ULL, 1000ULL, (1ULL << 63) + 1, ~0ULL}) {
    for (int i = 0; i < 200; ++i) {
      U128 m = U128{ref.next()} * n;
      auto lo = static_cast<std::uint64_t>(m);
      if (lo < n) {
        const std::uint64_t t = (0 - n) % n;
        while (lo < t) {
          m = U128{ref.next()} * n;
          lo = static_cast<std::uint64_t>(m);
        }
      }
      const auto expected = static_cast<std::uint64_t>(m >> 64);
      const std::uint64_t got = rng.uniform(n);
      ASSERT_EQ(got, expected) << "n=" << n;
      ASSERT_LT(got, n);
    }
  }
}

TEST(RngTest, UniformIsRoughlyUniform) {
  Rng rng = Rng::for_stream(2024, "chi-square");
  constexpr int kBins = 10;
  constexpr int kDraws = 100'000;
  std::vector<int> counts(kBins);
  for (int i = 0; i < kDraws; ++i)
    ++counts[rng.uniform(kBins)];
  double chi2 = 0;
  const double expected = static_cast<double>(kDraws) / kBins;
  for (int c : counts)
    chi2 += (c - expected) * (c - expected) / expected;
  EXPECT_LT(chi2, 27.88);  // 9 degrees of freedom, p = 0.001
  for (int i = 0; i < 1000; ++i)
    EXPECT_EQ(rng.uniform(1), 0u);
}

TEST(RngTest, UniformRealRangeAndMean) {
  Rng rng = Rng::for_stream(5, "real");
  double sum = 0;
  constexpr int kDraws = 100'000;
  for (int i = 0; i < kDraws; ++i) {
    const double u = rng.uniform_real();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    EXPECT_EQ(u, std::ldexp(std::floor(std::ldexp(u, 53)), -53));  // a multiple of 2^-53
    sum += u;
  }
  EXPECT_NEAR(sum / kDraws, 0.5, 0.005);  // sd of the mean is ~0.0009
}

TEST(RngTest, Bernoulli) {
  Rng rng = Rng::for_stream(9, "coin");
  int hits = 0;
  constexpr int kDraws = 100'000;
  for (int i = 0; i < kDraws; ++i) {
    ASSERT_FALSE(rng.bernoulli(0.0));
    ASSERT_TRUE(rng.bernoulli(1.0));
    hits += rng.bernoulli(0.25);
  }
  EXPECT_NEAR(static_cast<double>(hits) / kDraws, 0.25, 0.005);  // sd ~0.0014

  // One draw per call whatever p is, so streams stay aligned.
  Rng a = Rng::for_stream(1, "x"), b = Rng::for_stream(1, "x");
  (void)a.bernoulli(0.0);
  (void)b.bernoulli(0.9);
  EXPECT_EQ(a.next_u64(), b.next_u64());
}

}  // namespace
}  // namespace xpusim::sim
