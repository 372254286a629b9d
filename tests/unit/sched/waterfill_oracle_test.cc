// Water-filling against the greedy one-CTA-at-a-time oracle (digest §3.1, §5.2), random inputs.
#include <algorithm>
#include <limits>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "greedy_oracle.h"
#include "sched/waterfill.h"

namespace xpusim::sched {
namespace {

TEST(WaterfillOracle, MatchesGreedyOnRandomInputs) {
  std::mt19937_64 rng(20221013);
  for (int c = 0; c < 4000; ++c) {
    std::vector<std::uint32_t> f(1 + rng() % 36);
    const std::uint32_t depth = static_cast<std::uint32_t>(rng() % 33);
    for (auto& x : f)
      x = rng() % 4 == 0 ? 0 : static_cast<std::uint32_t>(rng() % (depth + 1));
    std::uint64_t sum = 0;
    for (auto x : f)
      sum += x;
    const std::uint32_t n = static_cast<std::uint32_t>(rng() % (sum + 6));
    const bool aon = rng() % 2 == 0;
    const auto search = rng() % 2 == 0 ? LevelSearch::kBinary : LevelSearch::kScan;
    const Fill r = waterfill(f, n, aon, search);
    const auto want = testing::greedy_oracle(f, n, aon);
    ASSERT_EQ(r.ok, want.has_value()) << "case " << c;
    if (!want) {
      ASSERT_EQ(r.placed(), 0u);
      continue;
    }
    ASSERT_EQ(r.per_sm, *want) << "case " << c << " n=" << n;
    std::uint32_t speed = std::numeric_limits<std::uint32_t>::max();
    for (std::size_t i = 0; i < f.size(); ++i) {
      ASSERT_LE(r.per_sm[i], f[i]);
      if ((*want)[i] > 0) speed = std::min(speed, f[i] - (*want)[i]);
    }
    if (r.placed() > 0) {
      ASSERT_EQ(r.speed, speed);
    }
    ASSERT_EQ(r.placed(), std::min<std::uint64_t>(n, sum));
  }
}

}  // namespace
}  // namespace xpusim::sched
