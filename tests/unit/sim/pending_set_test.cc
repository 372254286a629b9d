#include "sim/pending_set.h"

#include <gtest/gtest.h>

#include <array>
#include <random>
#include <set>

namespace xpusim::sim {
namespace {

// Drives the calendar queue and an ordered std::set with the same pushes, pops and removals;
// every pop must agree. Delay mixes cover same-tick bursts, short and long delays, far-future
// jumps beyond the bucket window, and scale changes that force the bucket width to be
// rebuilt; removals hit the current bucket, window buckets and the far heap alike.
// With `reserve`, some pushes take an order reserved earlier (EventQueue::schedule_reserved),
// so an entry may sort before others pushed at its tick before it.
void run_against_reference(std::uint64_t seed, int ops, auto delay_of, bool reserve = false) {
  std::mt19937_64 gen(seed);
  std::vector<std::uint64_t> reserved;
  PendingSet set;
  std::set<PendingEntry> ref;
  std::vector<PendingEntry> pushed;  // candidates for removal (may be gone already)
  Tick now = 0;
  std::uint64_t seq = 1;
  std::uint64_t removed = 0;
  for (int i = 0; i < ops; ++i) {
    const std::uint64_t dice = gen() % 100;
    if (ref.empty() || dice < 50) {
      if (reserve && gen() % 8 == 0) reserved.push_back(seq++);
      std::uint64_t order = seq++;
      if (reserve && !reserved.empty() && gen() % 8 == 0) {
        const std::size_t r = gen() % reserved.size();
        order = reserved[r];
        reserved.erase(reserved.begin() + static_cast<std::ptrdiff_t>(r));
      }
      const PendingEntry e{now + delay_of(gen, i), order, nullptr};
      set.push(e, now);
      ref.insert(e);
      pushed.push_back(e);
    } else if (dice < 60) {
      const PendingEntry victim = pushed[gen() % pushed.size()];
      const bool present = ref.erase(victim) == 1;
      ASSERT_EQ(set.remove(victim.tick, victim.order), present) << "op " << i;
      removed += present ? 1 : 0;
    } else {
      ASSERT_FALSE(set.empty());
      const PendingEntry got = set.pop_top();
      const PendingEntry want = *ref.begin();
      ASSERT_EQ(got.tick, want.tick) << "op " << i;
      ASSERT_EQ(got.order, want.order) << "op " << i;
      ref.erase(ref.begin());
      now = got.tick;
    }
    ASSERT_EQ(set.size(), ref.size());
  }
  EXPECT_GT(removed, static_cast<std::uint64_t>(ops) / 100);  // removals really happened
  std::size_t visited = 0;
  set.for_each([&](const PendingEntry& e) {
    ++visited;
    EXPECT_EQ(ref.count(e), 1u);
  });
  EXPECT_EQ(visited, ref.size());
  while (!ref.empty()) {
    ASSERT_EQ(set.top().order, ref.begin()->order);
    set.pop();
    ref.erase(ref.begin());
  }
  EXPECT_TRUE(set.empty());
}

TEST(PendingSet, UniformShortDelays) {
  run_against_reference(1, 200000, [](auto& g, int) { return Tick{g() % 10000}; });
}

TEST(PendingSet, SameTickBursts) {
  run_against_reference(2, 200000, [](auto& g, int) { return g() % 4 == 0 ? Tick{505} : Tick{0}; });
}

// Most entries land in the bucket being drained, a quarter at the current tick, some with
// orders reserved earlier that sort before entries already there.
TEST(PendingSet, EntriesAtTheCurrentTickAndReservedOrders) {
  run_against_reference(
      6, 200000, [](auto& g, int) { return g() % 4 == 0 ? Tick{0} : Tick{g() % 64}; }, true);
  run_against_reference(
      7, 200000, [](auto& g, int) { return g() % 2 == 0 ? Tick{0} : Tick{g() % 5000}; }, true);
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
  // Mean delay ~1.5e6 ps over 24k entries: a window of four mean delays over 1024 buckets
  // gives buckets ~2^12 wide (the per-entry term, 8 x mean / n ~ 2^9, is smaller).
  EXPECT_GE(set.bucket_shift(), 11u);
  EXPECT_LE(set.bucket_shift(), 13u);
}

TEST(PendingSet, UpcomingLooksIntoTheNextOccupiedBucket) {
  // A prefetch hint: the drained bucket's entries in order, then the next occupied bucket's
  // (in any order), then nothing. The events are only compared, never touched.
  std::array<char, 8> storage{};
  const auto ev = [&](int i) { return reinterpret_cast<Event*>(&storage[i]); };
  PendingSet set;
  // Two ticks per bucket-width apart (the initial width is 2^10 ticks): bucket 1 holds 0 and 1,
  // bucket 5 holds 2 and 3, bucket 9 holds 4.
  const Tick ticks[] = {1024, 1500, 5 * 1024, 5 * 1024 + 7, 9 * 1024};
  for (int i = 0; i < 5; ++i)
    set.push({ticks[i], static_cast<std::uint64_t>(i + 1), ev(i)}, 0);
  ASSERT_EQ(set.top().event, ev(0));  // takes bucket 1
  EXPECT_EQ(set.upcoming(0), ev(0));
  EXPECT_EQ(set.upcoming(1), ev(1));
  const std::set<Event*> next{set.upcoming(2), set.upcoming(3)};
  EXPECT_EQ(next, (std::set<Event*>{ev(2), ev(3)}));
  EXPECT_EQ(set.upcoming(4), nullptr);  // only the next occupied bucket, not the one after
  set.pop();
  EXPECT_EQ(set.upcoming(0), ev(1));
  EXPECT_NE(set.upcoming(1), nullptr);
  set.pop();
  ASSERT_EQ(set.top().event, ev(2));  // takes bucket 5: bucket 9 is next
  EXPECT_EQ(set.upcoming(2), ev(4));
  EXPECT_EQ(set.upcoming(3), nullptr);
}

}  // namespace
}  // namespace xpusim::sim
