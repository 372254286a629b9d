#include "mem/busy_mshrs.h"

#include <cstdint>
#include <set>
#include <utility>

#include <gtest/gtest.h>

#include "sim/rng.h"

namespace xpusim::mem {
namespace {

// Random inserts and pops against a std::set ordered by (tick, line). Most ticks come near the
// latest (as misses' fills do), some far behind it, some equal to another's (ties by line);
// the ring starts small so it also grows and wraps.
TEST(BusyMshrs, PopsInTickThenLineOrderLikeASortedSet) {
  BusyMshrs ring(2);
  std::set<std::pair<sim::Tick, std::uint64_t>> naive;
  sim::Rng rng = sim::Rng::for_stream(11, "busy_mshrs");
  sim::Tick latest = 1000;
  for (int step = 0; step < 200'000; ++step) {
    if (naive.empty() || (naive.size() < 100 && rng.uniform(2) == 0)) {
      sim::Tick t = 0;
      switch (rng.uniform(4)) {
        case 0:
          t = latest + rng.uniform(50);
          break;
        case 1:
          t = latest - std::min<sim::Tick>(latest, rng.uniform(5));
          break;
        case 2:
          t = latest - std::min<sim::Tick>(latest, rng.uniform(2000));
          break;
        default:
          t = naive.empty() ? latest : naive.begin()->first;
          break;  // ties the front
      }
      latest = std::max(latest, t);
      std::uint64_t line = rng.uniform(64);
      while (naive.contains({t, line}))
        line = rng.uniform(1 << 20);
      ring.insert(t, line, line * 3);
      naive.insert({t, line});
    } else {
      ASSERT_EQ(ring.front().free_at, naive.begin()->first) << "step " << step;
      const BusyMshrs::Entry e = ring.pop_front();
      ASSERT_EQ(std::make_pair(e.free_at, e.line), *naive.begin()) << "step " << step;
      ASSERT_EQ(e.set, e.line * 3) << "step " << step;  // the entry keeps its set
      naive.erase(naive.begin());
    }
    ASSERT_EQ(ring.size(), naive.size());
    ASSERT_EQ(ring.empty(), naive.empty());
  }
}

}  // namespace
}  // namespace xpusim::mem
