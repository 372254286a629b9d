#include "sched/cga_tracker.h"

#include <random>
#include <set>
#include <vector>

#include <gtest/gtest.h>

#include <limits>

namespace xpusim::sched {
namespace {

using E = CgaEvent;

TEST(CgaTracker, CounterStartsFromSmCount) {
  const std::vector<std::uint32_t> sms{18, 18, 16, 14};  // floor-swept GPCs (¶211)
  CgaTracker t(sms);
  for (std::uint32_t g = 0; g < 4; ++g) {
    EXPECT_EQ(t.max_cgas(g), sms[g]);
    EXPECT_EQ(t.counter(g), sms[g]);
    EXPECT_EQ(t.free_ids(g), 16u);
  }
  EXPECT_EQ(t.budget(0), 16u);  // the 16-id pool binds first
  EXPECT_EQ(t.limit(0), CgaLimit::kIdPool);
  EXPECT_EQ(t.budget(2), 16u);
  EXPECT_EQ(t.limit(2), CgaLimit::kCounter);  // tie → counter
  EXPECT_EQ(t.budget(3), 14u);
  EXPECT_EQ(t.limit(3), CgaLimit::kCounter);

  CgaTrackerConfig per_sm;
  per_sm.cgas_per_sm = 2;
  per_sm.ids_per_gpc = 256;
  EXPECT_EQ(CgaTracker(sms, per_sm).budget(3), 28u);
  CgaTrackerConfig fixed;
  fixed.max_cgas_per_gpc = 5;
  EXPECT_EQ(CgaTracker(sms, fixed).max_cgas(0), 5u);
}

TEST(CgaTracker, CounterBlocksLaunchAtZero) {
  const std::vector<std::uint32_t> sms{2};
  CgaTracker t(sms);
  t.on_launch(0, 4);
  t.on_launch(0, 4);
  EXPECT_EQ(t.budget(0), 0u);
  EXPECT_EQ(t.limit(0), CgaLimit::kCounter);
  EXPECT_EQ(t.free_ids(0), 14u);
  EXPECT_FALSE(t.try_launch(0, 1).has_value());
  EXPECT_EQ(t.stalls(), 1u);
}

// ¶237: an empty gpc_local_cga_id pool stalls launch until a flush completes (digest §5 item 12).
TEST(CgaTracker, IdPoolStallsUntilFlushCompletes) {
  const std::vector<std::uint32_t> sms{8, 8};
  CgaTrackerConfig cfg;
  cfg.ids_per_gpc = 2;
  CgaTracker t(sms, cfg);
  const std::uint64_t a = t.on_launch(0, 2);
  const std::uint64_t b = t.on_launch(0, 1);
  EXPECT_EQ(t.local_id(a), 0u);
  EXPECT_EQ(t.local_id(b), 1u);
  EXPECT_EQ(t.budget(0), 0u);
  EXPECT_EQ(t.limit(0), CgaLimit::kIdPool);
  EXPECT_EQ(t.budget(1), 2u);  // the other GPC's pool is separate
  EXPECT_FALSE(t.try_launch(0, 1));

  t.on_cta_exit(a);
  t.on_cta_exit(a);  // active count 0, but the id is still held
  EXPECT_EQ(t.budget(0), 0u);
  t.on_flush_done(a);
  EXPECT_EQ(t.budget(0), 0u);
  EXPECT_FALSE(t.try_launch(0, 1));
  t.on_flush_done(a);
  EXPECT_EQ(t.budget(0), 1u);
  EXPECT_FALSE(t.is_live(a));

  const std::optional<std::uint64_t> c = t.try_launch(0, 3);
  ASSERT_TRUE(c.has_value());
  EXPECT_NE(*c, a);               // handles are never reused
  EXPECT_EQ(t.local_id(*c), 0u);  // the id is
  EXPECT_EQ(t.stalls(), 2u);
  EXPECT_EQ(t.stalls(0), 2u);
  EXPECT_EQ(t.stalls(1), 0u);
  t.note_stall(1);
  EXPECT_EQ(t.stalls(1), 1u);
  EXPECT_EQ(t.stalls(), 3u);
}

// The CWD's CGA memory slots (seed1 ¶222-223): one per live GPC_CGA across all GPCs, back only
// with cga_complete (after every flush), not when the CTAs exit.
TEST(CgaTracker, MemorySlotsAreChipWideAndReturnOnCgaComplete) {
  const std::vector<std::uint32_t> sms{8, 8};
  CgaTrackerConfig cfg;
  cfg.memory_slots = 2;
  CgaTracker t(sms, cfg);
  EXPECT_EQ(t.free_slots(), 2u);
  const std::uint64_t a = t.on_launch(0, 1);
  const std::uint64_t b = t.on_launch(1, 1);
  EXPECT_EQ(t.free_slots(), 0u);
  EXPECT_EQ(t.peak_slots(), 2u);
  EXPECT_EQ(t.budget(0), 7u) << "the per-GPC budget does not see the chip-wide pool";
  t.on_cta_exit(a);
  EXPECT_EQ(t.free_slots(), 0u) << "held until cga_complete";
  t.on_flush_done(a);
  EXPECT_EQ(t.free_slots(), 1u);
  t.note_slot_stall();
  EXPECT_EQ(t.slot_stalls(), 1u);
  t.on_launch(0, 1);
  EXPECT_EQ(t.peak_slots(), 2u);
  t.on_cta_exit(b);
  t.on_flush_done(b);
  EXPECT_EQ(t.free_slots(), 1u);

  CgaTracker unlimited(sms, CgaTrackerConfig{});
  unlimited.on_launch(0, 1);
  EXPECT_EQ(unlimited.free_slots(), std::numeric_limits<std::uint32_t>::max());
  EXPECT_EQ(unlimited.peak_slots(), 0u) << "an unlimited pool is not counted";
  cfg.memory_slots = kMaxMemorySlots + 1;
  EXPECT_EQ(CgaTracker::check(sms, cfg).error().message,
            "CGA tracker memory_slots = 65537: must be 0 (unlimited) to 65536");
}

TEST(CgaTracker, CompletionProtocolOrder) {
  const std::vector<std::uint32_t> sms{4};
  CgaTracker t(sms);
  const std::uint64_t cga = t.on_launch(0, 3);
  EXPECT_EQ(t.live_cgas(0), 1u);
  EXPECT_EQ(t.active_ctas(cga), 3u);
  EXPECT_EQ(t.on_cta_exit(cga), (std::vector<E>{E::kCtaComplete}));
  EXPECT_EQ(t.on_cta_exit(cga), (std::vector<E>{E::kCtaComplete}));
  EXPECT_EQ(t.on_cta_exit(cga), (std::vector<E>{E::kCtaComplete, E::kCgaActiveZero, E::kDsmemFlush,
                                                E::kDsmemFlush, E::kDsmemFlush}));
  EXPECT_EQ(t.on_flush_done(cga), (std::vector<E>{E::kDsmemFlushDone}));
  EXPECT_EQ(t.on_flush_done(cga), (std::vector<E>{E::kDsmemFlushDone}));
  // ¶232: counter and id stay taken until the last flush.
  EXPECT_EQ(t.counter(0), 3u);
  EXPECT_EQ(t.free_ids(0), 15u);
  EXPECT_EQ(t.live_cgas(0), 1u);
  EXPECT_EQ(t.on_flush_done(cga),
            (std::vector<E>{E::kDsmemFlushDone, E::kIdReclaimed, E::kCgaComplete}));
  EXPECT_EQ(t.counter(0), 4u);
  EXPECT_EQ(t.free_ids(0), 16u);
  EXPECT_EQ(t.live_cgas(0), 0u);
}

TEST(CgaTracker, OutOfOrderDies) {
  const std::vector<std::uint32_t> sms{4};
  EXPECT_DEATH(
      {
        CgaTracker t(sms);
        const std::uint64_t c = t.on_launch(0, 2);
        t.on_cta_exit(c);
        t.on_flush_done(c);
      },
      "before every CTA");
  EXPECT_DEATH(
      {
        CgaTracker t(sms);
        const std::uint64_t c = t.on_launch(0, 1);
        t.on_cta_exit(c);
        t.on_cta_exit(c);
      },
      "after every CTA");
  EXPECT_DEATH(
      {
        CgaTracker t(sms);
        const std::uint64_t c = t.on_launch(0, 1);
        t.on_cta_exit(c);
        t.on_flush_done(c);
        t.on_flush_done(c);  // completed: the handle is gone
      },
      "unknown");
  EXPECT_DEATH(
      {
        CgaTracker t(sms);
        t.on_cta_exit(42);
      },
      "unknown");
  EXPECT_DEATH(
      {
        CgaTrackerConfig cfg;
        cfg.ids_per_gpc = 1;
        CgaTracker t(sms, cfg);
        t.on_launch(0, 1);
        t.on_launch(0, 1);
      },
      "no budget");
}

TEST(CgaTracker, CheckConfig) {
  const std::vector<std::uint32_t> sms{4, 4};
  EXPECT_TRUE(CgaTracker::check(sms, {}).ok());
  CgaTrackerConfig cfg;
  cfg.ids_per_gpc = 257;
  EXPECT_EQ(CgaTracker::check(sms, cfg).error().message,
            "CGA tracker ids_per_gpc = 257: must be in [1, 256] (8-bit gpc_local_cga_id, seed1 "
            "¶226)");
  cfg.ids_per_gpc = 0;
  EXPECT_FALSE(CgaTracker::check(sms, cfg).ok());
  const std::vector<std::uint32_t> hole{4, 0};
  EXPECT_EQ(CgaTracker::check(hole, {}).error().message,
            "CGA tracker: GPC 1 has 0 SMs: need at least one");
  EXPECT_FALSE(CgaTracker::check({}, {}).ok());
}

TEST(CgaTracker, EventNamesAreDistinct) {
  std::set<std::string_view> names;
  for (E e : {E::kCtaComplete, E::kCgaActiveZero, E::kDsmemFlush, E::kDsmemFlushDone,
              E::kIdReclaimed, E::kCgaComplete}) {
    names.insert(name(e));
  }
  EXPECT_EQ(names.size(), 6u);
  EXPECT_EQ(name(E::kCgaComplete), "cga_complete");
}

// Random launches, exits and flushes: the budget never wraps below 0 and the books balance.
TEST(CgaTracker, BudgetNeverNegativeUnderRandomTraffic) {
  std::mt19937_64 rng(211);
  const std::vector<std::uint32_t> sms{6, 3, 5};
  CgaTrackerConfig cfg;
  cfg.ids_per_gpc = 4;
  CgaTracker t(sms, cfg);
  std::vector<std::uint64_t> live;
  std::uint64_t completed = 0, refused = 0;
  for (int step = 0; step < 20000; ++step) {
    const auto g = static_cast<std::uint32_t>(rng() % sms.size());
    if (rng() % 2) {
      const std::uint32_t before = t.budget(g);
      if (auto c = t.try_launch(g, 1 + static_cast<std::uint32_t>(rng() % 4))) {
        EXPECT_EQ(t.budget(g), before - 1);
        live.push_back(*c);
      } else {
        EXPECT_EQ(before, 0u);
        ++refused;
      }
    } else if (!live.empty()) {
      const std::size_t k = rng() % live.size();
      const std::uint64_t c = live[k];
      bool done = false;
      if (t.active_ctas(c) > 0) {
        t.on_cta_exit(c);
      } else {
        done = t.on_flush_done(c).back() == E::kCgaComplete;
      }
      if (done) {
        live[k] = live.back();
        live.pop_back();
        ++completed;
      }
    }
    for (std::uint32_t h = 0; h < t.num_gpcs(); ++h) {
      ASSERT_LE(t.budget(h), t.counter(h));
      ASSERT_LE(t.budget(h), t.free_ids(h));
      ASSERT_EQ(t.counter(h) + t.live_cgas(h), t.max_cgas(h));
      ASSERT_EQ(t.free_ids(h) + t.live_cgas(h), cfg.ids_per_gpc);
    }
  }
  // Live ids on one GPC are distinct.
  std::set<std::pair<std::uint32_t, std::uint32_t>> ids;
  for (std::uint64_t c : live)
    EXPECT_TRUE(ids.insert({t.gpc_of(c), t.local_id(c)}).second);
  EXPECT_GT(completed, 1000u);
  EXPECT_GT(refused, 100u);
  EXPECT_EQ(t.stalls(), refused);
}

}  // namespace
}  // namespace xpusim::sched
