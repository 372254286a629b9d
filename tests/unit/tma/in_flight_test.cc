// InFlight (the TMA unit's lines in flight, dropped lazily) against a std::multiset driven as
// issue_box drove its lines in flight: a clock that only goes forward, every admission first
// removing the landed lines, then waiting for the earliest while the limit is reached. The
// waits (which lines, in which order) must be the same.
#include "tma/in_flight.h"

#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "sim/rng.h"

namespace xpusim::tma {
namespace {

TEST(InFlight, WaitsForTheSameLinesAsASortedSetUnderTheOutstandingLimit) {
  sim::Rng rng = sim::Rng::for_stream(3, "in-flight");
  std::uint64_t waits = 0;
  for (int trial = 0; trial < 60; ++trial) {
    InFlight lazy;
    std::multiset<sim::Tick> ref;
    const std::size_t limit = 1 + rng.uniform(300);
    sim::Tick now = rng.uniform(1'000'000);
    for (int step = 0; step < 3000; ++step) {
      now += rng.uniform(trial % 3 == 0 ? 3 : trial % 3 == 1 ? 40 : 400);
      // Groups of 1 to 16 lines, one more than the limit sometimes.
      const std::size_t slots = rng.bernoulli(0.01) ? limit + 1 : 1 + rng.uniform(16);
      std::vector<sim::Tick> want, got;
      sim::Tick ref_now = now;
      while (!ref.empty() && *ref.begin() <= ref_now)
        ref.erase(ref.begin());
      while (!ref.empty() && ref.size() + slots > limit) {
        want.push_back(*ref.begin());
        ref_now = std::max(ref_now, *ref.begin());
        ref.erase(ref.begin());
      }
      lazy.make_room(now, slots, limit, [&](sim::Tick back) {
        got.push_back(back);
        now = std::max(now, back);
      });
      ASSERT_EQ(got, want) << "trial " << trial << " step " << step;
      ASSERT_EQ(now, ref_now);
      ASSERT_GE(lazy.kept(), ref.size());
      waits += want.size();
      // Hits, misses and long queues; equal ticks too.
      for (std::size_t i = 0; i < slots; ++i) {
        const sim::Tick latency = rng.bernoulli(0.5)   ? 300 + rng.uniform(50)
                                  : rng.bernoulli(0.9) ? 900 + rng.uniform(2000)
                                                       : rng.uniform(1u << 20);
        lazy.push(now + latency);
        ref.insert(now + latency);
      }
    }
  }
  EXPECT_GT(waits, 10'000u);  // the limit was reached often
}

}  // namespace
}  // namespace xpusim::tma
