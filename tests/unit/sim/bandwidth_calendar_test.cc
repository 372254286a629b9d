#include "sim/bandwidth_calendar.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "sim/channel.h"
#include "sim/rng.h"
#include "sim/simulation.h"

namespace xpusim::sim {
namespace {

TEST(BandwidthCalendar, ALoneBookingEndsWhereAChannelWould) {
  Simulation sim;
  Clock clk(sim.events(), 1'000'000'000);
  for (const std::uint64_t bytes : {1u, 32u, 64u, 100u, 128u, 4096u}) {
    for (const Cycles from : {0u, 5u, 17u, 1000u}) {
      BandwidthCalendar cal(64);
      Channel<int> ch(clk, {.latency = 0, .bytes_per_cycle = 64});
      const Cycles naive = from + ch.serialization_cycles(bytes);
      EXPECT_EQ(cal.book(from, bytes), naive) << bytes << " B from cycle " << from;
    }
  }
}

// book_first: a booking that stands for `weight` like it holds the link for all of them, and
// its own bytes end as if they went first.
TEST(BandwidthCalendar, BookFirstHoldsTheWholeAndEndsAtItsOwnShare) {
  BandwidthCalendar a(64), b(64);
  EXPECT_EQ(a.book_first(100, 128, 8), 102u);  // its own 2 cycles
  EXPECT_EQ(a.book(100, 64), 117u);            // behind all 16
  EXPECT_EQ(a.bytes_booked(), 8u * 128 + 64);
  EXPECT_EQ(b.book_first(100, 128, 1), 102u);  // weight 1: a plain booking
  BandwidthCalendar c(64);
  c.book(100, 64 * 20);                        // busy until 120
  EXPECT_EQ(c.book_first(100, 128, 4), 122u);  // 120..128 for all four, its own first
}

TEST(BandwidthCalendar, AStreamInOrderRunsAtTheLinkBandwidth) {
  // 1000 back-to-back 128 B bookings at 64 B/cycle: the last byte passes at cycle 2000.
  BandwidthCalendar cal(64);
  Cycles last = 0;
  for (int i = 0; i < 1000; ++i)
    last = cal.book(0, 128);
  EXPECT_EQ(last, 2000u);
  EXPECT_EQ(cal.bytes_booked(), 128'000u);
  EXPECT_EQ(cal.busy_cycles(), 2000u);
}

TEST(BandwidthCalendar, BookingsInTimeOrderEndAsOnAFifoLink) {
  // Naive reference: one FIFO link, each booking starts at max(from, busy until).
  Rng rng = Rng::for_stream(7, "calendar");
  for (int trial = 0; trial < 20; ++trial) {
    const std::uint64_t per_cycle = 1 + rng.uniform(100);
    BandwidthCalendar cal(per_cycle, std::size_t{4096} << rng.uniform(3));
    Cycles from = 0, busy = 0;
    for (int i = 0; i < 2000; ++i) {
      from += rng.uniform(21);
      const std::uint64_t bytes = 1 + rng.uniform(2048);
      busy = std::max(from, busy) + (bytes + per_cycle - 1) / per_cycle;
      ASSERT_EQ(cal.book(from, bytes), busy) << "trial " << trial << " booking " << i;
    }
  }
}

TEST(BandwidthCalendar, AnEarlyBookingMadeLateDoesNotWaitBehindALaterOne) {
  // What a Channel cannot do: a booking for cycle 600 made first, then one for cycle 100.
  BandwidthCalendar cal(64);
  EXPECT_EQ(cal.book(600, 128), 602u);
  EXPECT_EQ(cal.book(100, 128), 102u);
  // A third at 600 queues behind the first.
  EXPECT_EQ(cal.book(600, 128), 604u);
}

TEST(BandwidthCalendar, AnEarlyBookingMadeLateFillsTheCyclesLeftIdle) {
  // A booking for cycles 10-11 made first leaves cycles 0-9 idle: a 20-cycle booking from 0
  // made next passes in 0-9 and 12-21, not behind it, and not in 16-cycle pieces.
  BandwidthCalendar cal(64);
  EXPECT_EQ(cal.book(10, 128), 12u);
  EXPECT_EQ(cal.book(0, 20 * 64), 22u);
  EXPECT_EQ(cal.book(5, 64), 23u);  // everything from 5 to 21 is taken
  EXPECT_EQ(cal.busy_cycles(), 23u);
}

TEST(BandwidthCalendar, ABookingBehindTheKeptSlotsStartsAtTheOldest) {
  BandwidthCalendar cal(1, 4096);  // 64 words of 64 cycles: 32 kept behind the newest
  cal.book(100'000, 1);            // word 1562: the oldest kept is word 1530, cycle 97 920
  EXPECT_EQ(cal.late_bookings(), 0u);
  EXPECT_EQ(cal.book(10, 1), 97'921u);
  EXPECT_EQ(cal.late_bookings(), 1u);
  // A booking far ahead drops every slot and keeps working.
  EXPECT_EQ(cal.book(1'000'000, 2), 1'000'002u);
}

// Naive reference for out-of-order bookings: every busy cycle in a set, walked one by one,
// cycles more than half the ring behind the newest dropped (the calendar's documented rules).
class NaiveCalendar {
 public:
  NaiveCalendar(std::uint64_t per_cycle, std::uint64_t slots)
      : per_cycle_(per_cycle), words_(slots / 64) {}
  Cycles book(Cycles from, std::uint64_t bytes) {
    std::uint64_t s = std::max(from, base_ * 64);
    for (std::uint64_t need = (bytes + per_cycle_ - 1) / per_cycle_;; ++s) {
      if (s / 64 >= base_ + words_) {
        base_ = s / 64 - words_ / 2;
        busy_.erase(busy_.begin(), busy_.lower_bound(base_ * 64));
      }
      if (!busy_.insert(s).second) continue;
      if (--need == 0) break;
    }
    return s + 1;
  }

 private:
  std::uint64_t per_cycle_;
  std::uint64_t words_;
  std::uint64_t base_ = 0;
  std::set<std::uint64_t> busy_;
};

TEST(BandwidthCalendar, OutOfOrderBookingsOverABacklogMatchANaiveSlotWalk) {
  // Bursts booked around a moving "now", some far ahead, some behind the kept slots: the
  // calendar's word-wise search and its jump over its run of full words must not change a
  // single end cycle.
  Rng rng = Rng::for_stream(11, "calendar-backlog");
  for (int trial = 0; trial < 40; ++trial) {
    const std::uint64_t per_cycle = 1 + rng.uniform(128);
    const std::uint64_t slots = std::uint64_t{4096} << rng.uniform(3);
    BandwidthCalendar cal(per_cycle, slots);
    NaiveCalendar naive(per_cycle, slots);
    Cycles now = 0;
    for (int i = 0; i < 3000; ++i) {
      now += rng.uniform(8);
      Cycles from = now;
      const std::uint64_t kind = rng.uniform(10);
      if (kind == 0) from = now + rng.uniform(slots);                  // far ahead
      if (kind == 1) from = now > 2000 ? now - rng.uniform(2000) : 0;  // late
      const std::uint64_t bytes = 1 + rng.uniform(kind == 2 ? 200 * per_cycle : 4 * per_cycle);
      ASSERT_EQ(cal.book(from, bytes), naive.book(from, bytes))
          << "trial " << trial << " booking " << i << " from " << from;
    }
  }
}

TEST(BandwidthCalendar, ABacklogBookedAboutInTimeOrderMatchesANaiveSlotWalk) {
  // An HBM channel under a stream: 128-cycle bookings from starts that jitter behind a clock
  // that runs faster than the link (a backlog the frontier serves), pauses that let it drain
  // (a gap ahead of the frontier), and a few bookings from before a gap (a search again).
  Rng rng = Rng::for_stream(13, "calendar-frontier");
  for (int trial = 0; trial < 12; ++trial) {
    const std::uint64_t slots = std::uint64_t{4096} << rng.uniform(4);
    BandwidthCalendar cal(1, slots);
    NaiveCalendar naive(1, slots);
    Cycles now = 0;
    for (int i = 0; i < 4000; ++i) {
      now += rng.uniform(200);
      if (rng.uniform(100) == 0) now += rng.uniform(3 * slots);  // the link drains
      const Cycles jitter = rng.uniform(rng.uniform(20) == 0 ? 4000 : 300);
      const Cycles from = now > jitter ? now - jitter : 0;
      const std::uint64_t bytes = rng.uniform(8) == 0 ? 1 + rng.uniform(500) : 128;
      ASSERT_EQ(cal.book(from, bytes), naive.book(from, bytes))
          << "trial " << trial << " booking " << i << " from " << from;
    }
  }
}

// An SM's data stage takes a TMA box's wavefronts with book_spread: it must leave the
// calendar as that many book() calls would, from the same evenly spread starts, whatever the
// bookings already there (some behind the kept slots, some far ahead).
TEST(BandwidthCalendar, BookSpreadIsTheBookingsOneByOne) {
  Rng rng = Rng::for_stream(5, "calendar-spread");
  for (int trial = 0; trial < 300; ++trial) {
    BandwidthCalendar spread(1, 4096);
    for (int i = 0, n = static_cast<int>(rng.uniform(200)); i < n; ++i)
      spread.book(20'000 + rng.uniform(3000), 1 + rng.uniform(40));
    BandwidthCalendar one_by_one = spread;
    const Cycles first = 17'000 + rng.uniform(4000);
    const Cycles last = first + rng.uniform(trial % 3 == 0 ? 10 : 2000);
    const auto count = static_cast<std::uint32_t>(rng.uniform(300));
    Cycles end = 0;
    for (std::uint32_t i = 0; i < count; ++i) {
      const Cycles at = count == 1 ? last : first + (last - first) * i / (count - 1);
      end = std::max(end, one_by_one.book(at, 1));
    }
    ASSERT_EQ(spread.book_spread(first, last, count, 1), end) << "trial " << trial;
    ASSERT_EQ(spread.busy_cycles(), one_by_one.busy_cycles());
    ASSERT_EQ(spread.bytes_booked(), one_by_one.bytes_booked());
    ASSERT_EQ(spread.late_bookings(), one_by_one.late_bookings());
    for (int probe = 0; probe < 20; ++probe) {
      const Cycles at = 17'000 + rng.uniform(6000);
      ASSERT_EQ(spread.book(at, 64), one_by_one.book(at, 64)) << "trial " << trial;
    }
  }
}

}  // namespace
}  // namespace xpusim::sim
