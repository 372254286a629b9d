#include "sim/bandwidth_calendar.h"

#include <gtest/gtest.h>

#include <algorithm>

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

}  // namespace
}  // namespace xpusim::sim
