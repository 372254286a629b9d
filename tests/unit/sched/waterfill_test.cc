#include "sched/waterfill.h"

#include <bit>
#include <random>
#include <vector>

#include <gtest/gtest.h>

namespace xpusim::sched {
namespace {

using V = std::vector<std::uint32_t>;

// Digest §3.1 worked example: N = 4, h = 2, R = 2 → SM0 and SM2 take the leftovers.
TEST(Waterfill, DigestExample) {
  const V f{4, 0, 2, 3};
  const Fill r = waterfill(f, 5, /*all_or_nothing=*/true);
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(r.per_sm, (V{3, 0, 1, 1}));
  EXPECT_EQ(r.speed, 1u);  // remaining [1, 0, 1, 2] over receivers {0, 2, 3}
  EXPECT_EQ(r.level, 2u);
  EXPECT_EQ(r.placed(), 5u);
}

// Digest §5.4: a CGA that does not fit launches nothing.
TEST(Waterfill, AllOrNothingFails) {
  const V f{1, 1, 1};
  const Fill r = waterfill(f, 4, true);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.placed(), 0u);
  const Fill fits = waterfill(f, 3, true);
  EXPECT_TRUE(fits.ok);
  EXPECT_EQ(fits.per_sm, (V{1, 1, 1}));
  EXPECT_EQ(fits.speed, 0u);
}

// Digest §5.5: a plain grid fills every slot now and waits for retirements for the rest.
TEST(Waterfill, PlainGridFillsTheLake) {
  const V f{1, 2, 0, 3};
  const Fill r = waterfill(f, 100, /*all_or_nothing=*/false);
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(r.per_sm, f);
  EXPECT_EQ(r.placed(), 6u);
  EXPECT_EQ(r.speed, 0u);
}

TEST(Waterfill, NothingToPlace) {
  const V f{3, 2};
  const Fill r = waterfill(f, 0, true);
  EXPECT_TRUE(r.ok);
  EXPECT_EQ(r.per_sm, (V{0, 0}));
  const V dry{0, 0};
  EXPECT_EQ(waterfill(dry, 5, false).placed(), 0u);
  EXPECT_FALSE(waterfill(dry, 1, true).ok);
}

// Ties at the surface go to priority order (lower index, ¶157).
TEST(Waterfill, SurfaceTiesByPriority) {
  const V f{2, 2, 2, 2};
  EXPECT_EQ(waterfill(f, 3, true).per_sm, (V{1, 1, 1, 0}));
  EXPECT_EQ(waterfill(f, 6, true).per_sm, (V{2, 2, 1, 1}));
  // Deepest first: the 5-deep lake takes water until it reaches the others' level.
  const V g{5, 1, 2};
  EXPECT_EQ(waterfill(g, 3, true).per_sm, (V{3, 0, 0}));
  EXPECT_EQ(waterfill(g, 4, true).per_sm, (V{4, 0, 0}));
  EXPECT_EQ(waterfill(g, 5, true).per_sm, (V{4, 0, 1}));
}

// Digest §5.3: both level searches land on the same h; binary needs about log2(N) probes, the
// scan about h; the prefix popcount hands exactly R extras to surface SMs.
TEST(Waterfill, BinaryAndScanAgree) {
  std::mt19937_64 rng(7);
  for (int c = 0; c < 500; ++c) {
    V f(1 + rng() % 24);
    const std::uint32_t depth = 1 + static_cast<std::uint32_t>(rng() % 200);
    for (auto& x : f)
      x = static_cast<std::uint32_t>(rng() % (depth + 1));
    const std::uint32_t n = static_cast<std::uint32_t>(rng() % (depth * f.size() + 1));
    const Fill b = waterfill(f, n, false, LevelSearch::kBinary);
    const Fill s = waterfill(f, n, false, LevelSearch::kScan);
    ASSERT_EQ(b.per_sm, s.per_sm);
    ASSERT_EQ(b.level, s.level);
    ASSERT_EQ(b.speed, s.speed);
    const std::uint32_t N = *std::max_element(f.begin(), f.end());
    ASSERT_LE(b.probes, std::bit_width(N)) << "binary search takes ceil(log2(N + 1)) probes";
    ASSERT_LE(s.probes, b.level + 1);
    ASSERT_GE(s.probes, b.level);
    // Surface SMs (f >= N - h, h < N) differ by at most one from the bulk f - (N - h).
    if (b.level < N) {
      std::uint64_t extras = 0, below = 0, sum = 0;
      for (const auto x : f)
        sum += x;
      for (std::size_t i = 0; i < f.size(); ++i) {
        const std::uint32_t bulk = f[i] + b.level > N ? f[i] + b.level - N : 0;
        ASSERT_LE(b.per_sm[i] - bulk, 1u);
        extras += b.per_sm[i] - bulk;
        below += bulk;
      }
      ASSERT_EQ(extras, std::min<std::uint64_t>(n, sum) - below);
    }
  }
}

TEST(Waterfill, BinaryProbesAreLogarithmic) {
  const V f{1023, 0, 500, 700};
  const Fill b = waterfill(f, 1000, true, LevelSearch::kBinary);
  const Fill s = waterfill(f, 1000, true, LevelSearch::kScan);
  EXPECT_EQ(b.per_sm, s.per_sm);
  EXPECT_EQ(b.probes, 10u);  // ceil(log2(1024))
  EXPECT_GT(s.probes, 100u);
}

TEST(Waterfill, CtaSmsListsEachCta) {
  Fill f;
  f.per_sm = {2, 0, 1};
  EXPECT_EQ(cta_sms(f, 10), (V{10, 10, 12}));
}

}  // namespace
}  // namespace xpusim::sched
