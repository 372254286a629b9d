#include "sim/clock.h"

#include <gtest/gtest.h>

#include "sim/simulation.h"

namespace xpusim::sim {
namespace {

TEST(Clock, WholePicosecondPeriod) {
  EventQueue q;
  Clock c(q, 1'000'000'000);  // 1 GHz = 1000 ps
  EXPECT_EQ(c.edge(0), 0u);
  EXPECT_EQ(c.edge(3), 3000u);
  EXPECT_EQ(c.cycle_at(2999), 2u);
  EXPECT_EQ(c.cycle_at(3000), 3u);
  EXPECT_EQ(c.next_edge(3000), 3000u);
  EXPECT_EQ(c.next_edge(3001), 4000u);
}

TEST(Clock, FractionalPeriodDoesNotDrift) {
  EventQueue q;
  Clock c(q, 1'980'000'000);      // 505.0505... ps
  EXPECT_EQ(c.edge(1), 506u);     // ceil(505.05)
  EXPECT_EQ(c.edge(2), 1011u);    // ceil(1010.10)
  EXPECT_EQ(c.edge(99), 50000u);  // exactly 99 periods = 50 ns
  // A billion cycles later the edge is still exact: 1e9 / 1.98e9 s = 505050505050.5 ps.
  EXPECT_EQ(c.edge(1'000'000'000), 505'050'505'051u);
  for (Cycles k : {Cycles{0}, Cycles{1}, Cycles{7}, Cycles{98}, Cycles{99}, Cycles{123457}}) {
    EXPECT_EQ(c.cycle_at(c.edge(k)), k);
    EXPECT_EQ(c.cycle_at(c.edge(k + 1) - 1), k);
  }
}

// first_cycle_from keeps its last answer: asking in any order (back in time included)
// still gives the first edge at or after each tick, on and between edges.
TEST(Clock, FirstCycleFromIsRightInAnyOrder) {
  EventQueue q;
  Clock c(q, 1'980'000'000);  // 505.05 ps: edges 0, 506, 1011, ...
  const Tick ticks[] = {506, 506, 507, 0, 1011, 1010, 1010, 1, 505, 50000, 50000, 49999};
  for (const Tick t : ticks) {
    const Cycles k = c.first_cycle_from(t);
    EXPECT_GE(c.edge(k), t) << t;
    EXPECT_TRUE(k == 0 || c.edge(k - 1) < t) << t;
  }
  EXPECT_EQ(c.first_cycle_from(506), 1u);
  EXPECT_EQ(c.first_cycle_from(507), 2u);
  EXPECT_EQ(c.first_cycle_from(0), 0u);
  EXPECT_EQ(c.next_cycle(), 0u);  // now() is 0
}

// Against the definition, on frequencies whose periods are and are not whole picoseconds,
// at edges, just before and after them, and at ticks too large for 64-bit products.
TEST(Clock, FirstCycleFromIsTheFirstEdgeAtOrAfter) {
  EventQueue q;
  std::uint64_t seed = 99;
  for (const std::uint64_t hz : {1'000'000'000ULL, 1'830'000'000ULL, 1'980'000'000ULL,
                                 1'593'000'000ULL, 3'000'000'000ULL, 700'000'000ULL}) {
    Clock c(q, hz);
    for (int i = 0; i < 3000; ++i) {
      seed = seed * 6364136223846793005u + 1442695040888963407u;
      const Cycles k = (seed >> 24) % (i < 2000 ? 1'000'000 : 50'000'000'000'000ULL);
      for (const Tick t : {c.edge(k), c.edge(k) + 1, c.edge(k) - (k > 0 ? 1 : 0)}) {
        const Cycles f = c.first_cycle_from(t);
        ASSERT_GE(c.edge(f), t) << hz << " Hz, tick " << t;
        ASSERT_TRUE(f == 0 || c.edge(f - 1) < t) << hz << " Hz, tick " << t;
      }
    }
  }
}

TEST(Clock, HugeTicksUseWideArithmetic) {
  EventQueue q;
  Clock c(q, 1'830'000'000);
  const Cycles k = 5'000'000'000'000ULL;  // ~45 simulated minutes
  EXPECT_EQ(c.cycle_at(c.edge(k)), k);
}

TEST(Clock, CyclesAwaitableLandsOnEdges) {
  Simulation sim;
  Clock c(sim.events(), 2'000'000'000);  // 500 ps
  std::vector<Tick> seen;
  auto body = [&]() -> Task<> {
    co_await c.cycles(3);
    seen.push_back(sim.now());
    co_await sim.delay(120);  // off the edge: 1620 ps
    co_await c.cycles(1);     // next edge after cycle 3 is cycle 4 = 2000 ps
    seen.push_back(sim.now());
  };
  sim.spawn(body(), "p");
  sim.run();
  EXPECT_EQ(seen, (std::vector<Tick>{1500, 2000}));
}

}  // namespace
}  // namespace xpusim::sim
