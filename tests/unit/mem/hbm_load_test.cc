// HbmLoad: a read's extra latency from its channel's load over the last window, interpolated
// along the curve of its write share. Worked by hand on a 1 GB/s channel (1000 B a 1 us window)
// whose curves are straight lines (reads 100 ns at full load, the even mix 500, writes 1000),
// so every expected value is load x slope; then a channel's reads carry the extra in both
// memory timings, and a channel without curves adds nothing.
#include "mem/hbm_load.h"

#include <gtest/gtest.h>

#include "mem/hbm.h"
#include "sim/component.h"
#include "sim/simulation.h"

namespace xpusim::mem {
namespace {

constexpr sim::Tick ns = sim::kNanosecond;

HbmLoadCurves straight() {
  HbmLoadCurves c;
  for (std::uint32_t i = 1; i <= 9; ++i) {
    c.reads.push_back(10 * i);
    c.mixed.push_back(50 * i);
    c.writes.push_back(100 * i);
  }
  c.window = 1000 * ns;
  return c;
}

TEST(HbmLoad, ExtraFollowsTheLoadAndWriteShareOfTheLastWindow) {
  HbmLoad load(straight(), 1'000'000'000);
  EXPECT_EQ(load.extra(10 * ns), 0);  // nothing booked yet
  load.add(100 * ns, 300, false);
  EXPECT_EQ(load.extra(500 * ns), 30 * ns);  // 30 % reads
  // Half-way into the next window, half of the last one still counts: 15 %.
  EXPECT_EQ(load.extra(1500 * ns), 15 * ns);
  load.add(1500 * ns, 150, true);  // 150 B each way: 30 %, the even mix
  EXPECT_EQ(load.extra(1500 * ns), 150 * ns);
  // A booking older than the current window reads it as just begun (all of the last one):
  // 300 B of reads and 150 of writes, 45 % with a third writes, two thirds of the way from
  // reads alone (45 ns) to the mix (225 ns).
  EXPECT_EQ(load.extra(900 * ns), 165 * ns);
  load.add(1600 * ns, 300, true);
  // At 1600 ns: reads 300 x 0.4 = 120 B, writes 450 B: 57 % at a write share of 0.789:
  // between the mix (285 ns at 57 %) and writes alone (570 ns), 0.579 of the way.
  const double reads = 120, writes = 450, l = (reads + writes) / 1000, t = 2 * writes / 570 - 1;
  const double want = (500 * l + (1000 * l - 500 * l) * t) * 1000;
  EXPECT_NEAR(static_cast<double>(load.extra(1600 * ns)), want, 1.0);
  // Two windows on nothing remains.
  EXPECT_EQ(load.extra(3100 * ns), 0);
  // Beyond 90 % the curve holds its last point.
  load.add(3100 * ns, 5000, false);
  EXPECT_EQ(load.extra(3200 * ns), 90 * ns);
}

TEST(HbmLoad, AChannelsReadsWaitForItsLoadInBothTimings) {
  for (const bool calendar : {false, true}) {
    SCOPED_TRACE(calendar ? "transactions" : "events");
    sim::Simulation sim{1};
    sim::Component root(sim, "hbm");
    HbmChannel loaded(root, "ch0", 1'000'000'000, 100 * ns, 0, straight());
    HbmChannel plain(root, "ch1", 1'000'000'000, 100 * ns, 0);
    const auto book = [&](HbmChannel& c, std::uint64_t bytes, bool write) {
      return calendar ? c.access_many_at(1, bytes, write, 0) : c.access(bytes, write);
    };
    // 200 B of writes, then a 100 B read: 30 % load, two thirds writes (between the mix at
    // 150 ns and writes alone at 300, a third of the way: 200 ns).
    EXPECT_EQ(book(loaded, 200, true), (200 + 100) * ns);  // a write waits nothing extra
    EXPECT_EQ(book(loaded, 100, false), (300 + 100 + 200) * ns);
    EXPECT_EQ(book(plain, 200, true), (200 + 100) * ns);
    EXPECT_EQ(book(plain, 100, false), (300 + 100) * ns);
    const auto wait = sim.stats().find("hbm.ch0.load_wait");
    ASSERT_TRUE(wait.ok());
    EXPECT_EQ((*wait)->to_json()["value"].get<std::uint64_t>(), 200 * ns);
    const auto reads = sim.stats().find("hbm.ch0.load_reads");
    ASSERT_TRUE(reads.ok());
    EXPECT_EQ((*reads)->to_json()["value"].get<std::uint64_t>(), 1u);
    EXPECT_FALSE(sim.stats().find("hbm.ch1.load_wait").ok());  // no curves, no stat
  }
}

}  // namespace
}  // namespace xpusim::mem
