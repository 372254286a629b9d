#include "sim/bandwidth_calendar.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

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
      BandwidthCalendar cal(64, 16);
      Channel<int> ch(clk, {.latency = 0, .bytes_per_cycle = 64});
      const Cycles naive = from + ch.serialization_cycles(bytes);
      EXPECT_EQ(cal.book(from, bytes), naive) << bytes << " B from cycle " << from;
    }
  }
}

TEST(BandwidthCalendar, AStreamInOrderRunsAtTheLinkBandwidth) {
  // 1000 back-to-back 128 B bookings at 64 B/cycle: the last byte passes at cycle 2000.
  BandwidthCalendar cal(64, 16);
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
    BandwidthCalendar cal(per_cycle, 1 + rng.uniform(64), 64);
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
  BandwidthCalendar cal(64, 16);
  EXPECT_EQ(cal.book(600, 128), 602u);
  EXPECT_EQ(cal.book(100, 128), 102u);
  // A third at 600 shares the first one's window and queues behind it.
  EXPECT_EQ(cal.book(600, 128), 604u);
}

TEST(BandwidthCalendar, AFullWindowSpillsIntoTheNext) {
  BandwidthCalendar cal(64, 16);  // 1 KiB a window
  EXPECT_EQ(cal.book(0, 1024), 16u);
  // The window of cycle 3 is full: the booking's bytes pass in the next window.
  EXPECT_EQ(cal.book(3, 128), 18u);
  // A booking larger than a window spans several.
  EXPECT_EQ(cal.book(32, 3 * 1024), 80u);
}

TEST(BandwidthCalendar, ABookingBehindTheKeptWindowsStartsInTheOldest) {
  BandwidthCalendar cal(1, 1, 8);  // 8 windows of 1 cycle: 4 kept behind the newest
  cal.book(100, 1);
  EXPECT_EQ(cal.late_bookings(), 0u);
  EXPECT_EQ(cal.book(10, 1), 97u);  // window 96 is the oldest kept
  EXPECT_EQ(cal.late_bookings(), 1u);
  // A booking far ahead drops every window and keeps working.
  EXPECT_EQ(cal.book(1'000'000, 2), 1'000'002u);
}

TEST(BandwidthCalendar, TheLargestWindowFillsAndSpills) {
  // A window keeps its tail as an offset inside it: a full window of 32 768 cycles must stay
  // full, not wrap to empty.
  BandwidthCalendar cal(2, 32768, 4);
  EXPECT_EQ(cal.book(0, 2 * 32768), 32768u);
  EXPECT_EQ(cal.book(5, 2), 32769u);
  EXPECT_EQ(cal.book(100, 2 * 32768), 2 * 32768u + 1);
}

// Naive reference for out-of-order bookings: every window's tail in a map, walked one by one,
// windows more than half the ring behind the newest dropped (the calendar's documented rules).
class NaiveCalendar {
 public:
  NaiveCalendar(std::uint64_t per_cycle, Cycles window, std::uint64_t windows)
      : per_cycle_(per_cycle), window_(window), windows_(windows) {}
  Cycles book(Cycles from, std::uint64_t bytes) {
    std::uint64_t w = from / window_;
    if (w < base_) {
      w = base_;
      from = w * window_;
    }
    Cycles start = from;
    std::uint64_t left = bytes;
    for (;; ++w) {
      if (w >= base_ + windows_) {
        base_ = w - windows_ / 2;
        tails_.erase(tails_.begin(), tails_.lower_bound(base_));
      }
      Cycles& tail = tails_[w];
      const Cycles end = (w + 1) * window_;
      start = std::max(start, tail);
      if (start < end) {
        const Cycles need = (left + per_cycle_ - 1) / per_cycle_;
        if (start + need <= end) return tail = start + need;
        left -= (end - start) * per_cycle_;
        tail = end;
      }
      start = end;
    }
  }

 private:
  std::uint64_t per_cycle_;
  Cycles window_;
  std::uint64_t windows_;
  std::uint64_t base_ = 0;
  std::map<std::uint64_t, Cycles> tails_;
};

TEST(BandwidthCalendar, OutOfOrderBookingsOverABacklogMatchANaiveWindowWalk) {
  // Bursts booked around a moving "now", some far ahead, some behind the kept windows: the
  // calendar's jump over its run of full windows must not change a single end cycle.
  Rng rng = Rng::for_stream(11, "calendar-backlog");
  for (int trial = 0; trial < 40; ++trial) {
    const std::uint64_t per_cycle = 1 + rng.uniform(128);
    const Cycles window = Cycles{1} << rng.uniform(6);
    const std::uint64_t windows = std::uint64_t{8} << rng.uniform(5);
    BandwidthCalendar cal(per_cycle, window, windows);
    NaiveCalendar naive(per_cycle, window, windows);
    Cycles now = 0;
    for (int i = 0; i < 3000; ++i) {
      now += rng.uniform(8);
      Cycles from = now;
      const std::uint64_t kind = rng.uniform(10);
      if (kind == 0) from = now + rng.uniform(windows * window);       // far ahead
      if (kind == 1) from = now > 2000 ? now - rng.uniform(2000) : 0;  // late
      const std::uint64_t bytes = 1 + rng.uniform(kind == 2 ? 50 * per_cycle : 4 * per_cycle);
      ASSERT_EQ(cal.book(from, bytes), naive.book(from, bytes))
          << "trial " << trial << " booking " << i << " from " << from;
    }
  }
}

}  // namespace
}  // namespace xpusim::sim
