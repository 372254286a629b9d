// Hbm::sectors / sectors_at book a line's sectors a run per interleave block; they must equal
// a read or write per sector (the naive loop) on a twin HBM: completions and bytes booked,
// whether a line is one block (h100's 256 B interleave) or spans several (64 B).
#include "mem/hbm.h"

#include <gtest/gtest.h>

#include <random>

#include "mem/address_map.h"
#include "sim/component.h"
#include "sim/simulation.h"

namespace xpusim::mem {
namespace {

TEST(Hbm, SectorsOfALineBookAsOneAccessPerSector) {
  for (const std::uint64_t interleave : {256u, 64u, 32u}) {
    SCOPED_TRACE(::testing::Message() << "interleave " << interleave);
    const PhysicalAddressMap map({.line_bytes = 128,
                                  .sector_bytes = 32,
                                  .l2_slices = 8,
                                  .l2_partitions = 2,
                                  .hbm_channels = 8,
                                  .hbm_interleave_bytes = interleave});
    const HbmParams params{.channels = 8, .bandwidth_bytes_per_s = 8'000'000'000};
    sim::Simulation sim{1};
    sim::Component a(sim, "a"), b(sim, "b"), c(sim, "c"), d(sim, "d");
    Hbm runs(a, params, map), naive(b, params, map);
    // `at` bookings (the transaction timing), made in no time order, and plain ones. A
    // booking left out or made on another channel shows in a later completion.
    Hbm runs_at(c, params, map), naive_at(d, params, map);
    std::mt19937_64 gen(5);
    for (int i = 0; i < 3000; ++i) {
      const std::uint64_t line = gen() % 4096;
      const auto sectors = static_cast<std::uint32_t>(gen() % 16);
      const bool write = gen() % 4 == 0;
      const sim::Tick start = gen() % 1000;
      sim::Tick want = start;
      for (std::uint32_t s = 0; s < 4; ++s) {
        if ((sectors >> s & 1) == 0) continue;
        const Addr a = map.line_addr(line) + 32 * s;
        want = std::max(want, write ? naive.write(a, 32) : naive.read(a, 32));
      }
      ASSERT_EQ(runs.sectors(line, sectors, write, start), want) << "access " << i;

      const sim::Tick at = gen() % 2'000'000;
      sim::Tick want_at = at;
      for (std::uint32_t s = 0; s < 4; ++s) {
        if ((sectors >> s & 1) == 0) continue;
        const Addr a = map.line_addr(line) + 32 * s;
        want_at = std::max(want_at, naive_at.channel(a).access_many_at(1, 32, write, at, 1));
      }
      ASSERT_EQ(runs_at.sectors_at(line, sectors, write, at), want_at) << "access " << i;
    }
  }
}

// A channel of 1 GB/s (1 B a ns) with a 5 ns turnaround: a read, two writes, a read, booked in
// time order from tick 0. The first write and the last read each wait 5 ns of dead time
// first; the second write does not. Both timings book the same (the calendar's bookings in
// time order are the FIFO's).
TEST(Hbm, AnAccessThatTurnsTheBusAroundWaitsItsDeadTimeFirst) {
  constexpr sim::Tick ns = sim::kNanosecond;
  for (const bool calendar : {false, true}) {
    SCOPED_TRACE(calendar ? "transactions" : "events");
    sim::Simulation sim{1};
    sim::Component root(sim, "hbm");
    HbmChannel ch(root, "ch0", 1'000'000'000, 100 * ns, 5 * ns);
    const auto book = [&](std::uint64_t bytes, bool write) {
      return calendar ? ch.access_many_at(1, bytes, write, 0) : ch.access(bytes, write);
    };
    EXPECT_EQ(book(64, false), (64 + 100) * ns);
    EXPECT_EQ(book(64, true), (64 + 5 + 64 + 100) * ns);
    EXPECT_EQ(book(32, true), (133 + 32 + 100) * ns);
    EXPECT_EQ(book(32, false), (165 + 5 + 32 + 100) * ns);
    const auto turnarounds = sim.stats().find("hbm.ch0.turnarounds");
    ASSERT_TRUE(turnarounds.ok());
    EXPECT_EQ((*turnarounds)->to_json()["value"].get<std::uint64_t>(), 2u);
  }
}

}  // namespace
}  // namespace xpusim::mem
