#include "sim/sync.h"

#include <gtest/gtest.h>

#include "sim/simulation.h"

namespace xpusim::sim {
namespace {

TEST(Signal, NotifyOneWakesTheLongestWaiterOnly) {
  Simulation sim;
  Signal s(sim.events());
  std::vector<std::pair<int, Tick>> woke;
  auto waiter = [&](int id) -> Task<> {
    co_await s.wait();
    woke.emplace_back(id, sim.now());
  };
  auto notifier = [&]() -> Task<> {
    co_await sim.delay(10);
    EXPECT_EQ(s.waiting(), 3u);
    EXPECT_TRUE(s.notify_one());
    co_await sim.delay(10);
    EXPECT_EQ(s.notify_all(), 2u);
    EXPECT_FALSE(s.notify_one());  // nobody left: the notification is lost
  };
  for (int i = 0; i < 3; ++i)
    sim.spawn(waiter(i), "w");
  sim.spawn(notifier(), "n");
  sim.run();
  EXPECT_EQ(woke, (std::vector<std::pair<int, Tick>>{{0, 10}, {1, 20}, {2, 20}}));
}

TEST(Trigger, LatchesUntilReset) {
  Simulation sim;
  Trigger t(sim.events());
  std::vector<Tick> passed;
  auto waiter = [&](Tick start) -> Task<> {
    co_await sim.delay(start);
    co_await t.wait();
    passed.push_back(sim.now());
  };
  auto firer = [&]() -> Task<> {
    co_await sim.delay(10);
    t.fire();
    co_await sim.delay(10);
    t.reset();
    co_await sim.delay(20);
    t.fire();
  };
  sim.spawn(waiter(0), "early");   // waits, released at 10
  sim.spawn(waiter(15), "after");  // fired already: passes at 15
  sim.spawn(waiter(25), "reset");  // after reset: released at 40
  sim.spawn(firer(), "firer");
  sim.run();
  EXPECT_EQ(passed, (std::vector<Tick>{10, 15, 40}));
}

TEST(Semaphore, GrantsInFifoOrderWithoutBarging) {
  Simulation sim;
  Semaphore sem(sim.events(), 4);
  std::vector<std::pair<int, Tick>> got;
  auto user = [&](int id, std::uint64_t n, Tick start, Tick hold) -> Task<> {
    co_await sim.delay(start);
    co_await sem.acquire(n);
    got.emplace_back(id, sim.now());
    co_await sim.delay(hold);
    sem.release(n);
  };
  sim.spawn(user(0, 3, 0, 100), "a");  // takes 3 of 4 at t=0
  sim.spawn(user(1, 2, 1, 10), "b");   // needs 2, only 1 left: waits until 100
  sim.spawn(user(2, 1, 2, 10), "c");   // 1 would fit, but b is first in line: waits too
  sim.run();
  EXPECT_EQ(got, (std::vector<std::pair<int, Tick>>{{0, 0}, {1, 100}, {2, 100}}));
  EXPECT_EQ(sem.available(), 4u);
}

TEST(Semaphore, TryAcquireRespectsQueueAndCount) {
  Simulation sim;
  Semaphore sem(sim.events(), 2);
  EXPECT_TRUE(sem.try_acquire(2));
  EXPECT_FALSE(sem.try_acquire(1));
  sem.release(1);
  EXPECT_TRUE(sem.try_acquire(1));
  EXPECT_EQ(sem.available(), 0u);
}

}  // namespace
}  // namespace xpusim::sim
