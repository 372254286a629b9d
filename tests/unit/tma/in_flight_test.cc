// InFlight (the TMA unit's lines in flight, an ascending array) against a std::multiset, driven as
// issue_box drives it: a clock that only goes forward, lines landing from it on, the landed
// ones removed, and the earliest waited for when the outstanding limit is reached.
#include "tma/in_flight.h"

#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "sim/rng.h"

namespace xpusim::tma {
namespace {

TEST(InFlight, MatchesASortedMultisetUnderTheOutstandingLimit) {
  sim::Rng rng = sim::Rng::for_stream(3, "in-flight");
  for (int trial = 0; trial < 40; ++trial) {
    InFlight heap;
    std::multiset<sim::Tick> ref;
    const std::size_t limit = 1 + rng.uniform(300);
    sim::Tick now = rng.uniform(1'000'000);
    for (int step = 0; step < 5000; ++step) {
      now += rng.uniform(trial % 2 == 0 ? 3 : 400);
      while (!ref.empty() && *ref.begin() <= now) {
        ASSERT_FALSE(heap.empty());
        ASSERT_EQ(heap.front(), *ref.begin());
        heap.pop();
        ref.erase(ref.begin());
      }
      ASSERT_EQ(heap.size(), ref.size());
      if (!ref.empty()) {
        ASSERT_EQ(heap.front(), *ref.begin());
      }
      while (ref.size() >= limit) {  // full: wait for the earliest
        ASSERT_EQ(heap.front(), *ref.begin());
        now = *ref.begin();
        heap.pop();
        ref.erase(ref.begin());
      }
      // Hits, misses and long queues; equal ticks too.
      const sim::Tick latency = rng.bernoulli(0.5)   ? 300 + rng.uniform(50)
                                : rng.bernoulli(0.9) ? 900 + rng.uniform(2000)
                                                     : rng.uniform(1u << 20);
      heap.push(now + latency);
      ref.insert(now + latency);
      ASSERT_EQ(heap.front(), *ref.begin()) << "trial " << trial << " step " << step;
    }
    while (!ref.empty()) {
      ASSERT_EQ(heap.front(), *ref.begin());
      heap.pop();
      ref.erase(ref.begin());
    }
    EXPECT_TRUE(heap.empty());
  }
}

// A batch push is the same as its ticks pushed one by one, whatever their order.
TEST(InFlight, ABatchIsItsTicksPushedOneByOne) {
  sim::Rng rng = sim::Rng::for_stream(5, "in-flight-batch");
  for (int trial = 0; trial < 40; ++trial) {
    InFlight batched, single;
    std::multiset<sim::Tick> ref;
    sim::Tick now = rng.uniform(1'000'000);
    for (int step = 0; step < 2000; ++step) {
      now += rng.uniform(50);
      while (!ref.empty() && *ref.begin() <= now) {
        ASSERT_EQ(batched.front(), *ref.begin());
        ASSERT_EQ(single.front(), *ref.begin());
        batched.pop();
        single.pop();
        ref.erase(ref.begin());
      }
      std::vector<sim::Tick> batch(rng.uniform(12));  // empty batches too
      const sim::Tick latency = rng.bernoulli(0.5) ? 300 : 900 + rng.uniform(2000);
      for (sim::Tick& t : batch) {
        t = now + latency + rng.uniform(40);
        single.push(t);
        ref.insert(t);
      }
      batched.push(std::span<sim::Tick>(batch));
      ASSERT_EQ(batched.size(), ref.size()) << "trial " << trial << " step " << step;
      ASSERT_EQ(single.size(), ref.size());
    }
    for (; !ref.empty(); ref.erase(ref.begin())) {
      ASSERT_EQ(batched.front(), *ref.begin());
      batched.pop();
    }
    EXPECT_TRUE(batched.empty());
  }
}

}  // namespace
}  // namespace xpusim::tma
