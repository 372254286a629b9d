#include "sim/pending_set.h"

#include <gtest/gtest.h>

#include <queue>
#include <random>

namespace xpusim::sim {
namespace {

// Drives the calendar queue and a plain priority queue with the same operations; every pop
// must agree. Delay mixes cover same-tick bursts, short and long delays, far-future jumps
// beyond the bucket window, and scale changes that force the bucket width to be rebuilt.
void run_against_reference(std::uint64_t seed, int ops, auto delay_of) {
  std::mt19937_64 gen(seed);
  PendingSet set;
  std::priority_queue<PendingEntry, std::vector<PendingEntry>, std::greater<>> ref;
  Tick now = 0;
  std::uint64_t seq = 0;
  for (int i = 0; i < ops; ++i) {
    const bool do_push = ref.empty() || gen() % 100 < 52;
    if (do_push) {
      const PendingEntry e{now + delay_of(gen, i), seq++, static_cast<std::uint32_t>(i)};
      set.push(e, now);
      ref.push(e);
    } else {
      ASSERT_FALSE(set.empty());
      const PendingEntry got = set.top();
      const PendingEntry want = ref.top();
      ASSERT_EQ(got.tick, want.tick) << "op " << i;
      ASSERT_EQ(got.order, want.order) << "op " << i;
      set.pop();
      ref.pop();
      now = got.tick;
    }
    ASSERT_EQ(set.size(), ref.size());
  }
  while (!ref.empty()) {
    ASSERT_EQ(set.top().order, ref.top().order);
    set.pop();
    ref.pop();
  }
  EXPECT_TRUE(set.empty());
}

TEST(PendingSet, UniformShortDelays) {
  run_against_reference(1, 200000, [](auto& g, int) { return Tick{g() % 10000}; });
}

TEST(PendingSet, SameTickBursts) {
  run_against_reference(2, 200000, [](auto& g, int) { return g() % 4 == 0 ? Tick{505} : Tick{0}; });
}

TEST(PendingSet, FarJumpsBeyondTheWindow) {
  run_against_reference(3, 200000, [](auto& g, int) {
    return g() % 10 == 0 ? Tick{1'000'000 + g() % 100'000'000} : Tick{g() % 2000};
  });
}

TEST(PendingSet, ScaleChangesRebuildTheBuckets) {
  run_against_reference(4, 300000, [](auto& g, int i) {
    const Tick scale = (i / 30000) % 2 == 0 ? 100 : 10'000'000;
    return Tick{g() % scale};
  });
}

TEST(PendingSet, HugeTicks) {
  run_against_reference(5, 50000, [](auto& g, int) { return Tick{g() % (Tick{1} << 50)}; });
}

TEST(PendingSet, AdaptsBucketWidthToTheDelays) {
  PendingSet set;
  std::mt19937_64 gen(9);
  for (std::uint64_t i = 0; i < 3 * 8192; ++i)
    set.push({1'000'000 + gen() % 1'000'000, i, 0}, 0);
  EXPECT_GE(set.rebuilds(), 1u);
  // Mean delay ~1.5e6 ps: a window of four mean delays over 1024 buckets is ~2^12 wide.
  EXPECT_GE(set.bucket_shift(), 11u);
  EXPECT_LE(set.bucket_shift(), 13u);
}

}  // namespace
}  // namespace xpusim::sim
