#include "sim/task.h"

#include <gtest/gtest.h>

#include <array>
#include <coroutine>
#include <stdexcept>

#include "sim/simulation.h"

namespace xpusim::sim {
namespace {

Task<int> add_later(Simulation& sim, int a, int b) {
  co_await sim.delay(10);
  co_return a + b;
}

Task<int> depth(int n) {
  if (n == 0) co_return 0;
  co_return 1 + co_await depth(n - 1);
}

TEST(Task, ChildReturnsValueAfterItsDelay) {
  Simulation sim;
  int result = 0;
  Tick when = 0;
  auto parent = [&]() -> Task<> {
    result = co_await add_later(sim, 2, 3);
    when = sim.now();
  };
  sim.spawn(parent(), "parent");
  sim.run();
  EXPECT_EQ(result, 5);
  EXPECT_EQ(when, 10u);
}

// GCC turns symmetric transfer into a tail call only in optimized builds without sanitizers;
// there a 100k-deep synchronous chain must not overflow the stack.
#if defined(__OPTIMIZE__) && !defined(__SANITIZE_ADDRESS__)
constexpr int kDeepChain = 100000;
#else
constexpr int kDeepChain = 1000;
#endif

TEST(Task, DeepChainsDoNotGrowTheStack) {
  Simulation sim;
  int result = -1;
  auto parent = [&]() -> Task<> { result = co_await depth(kDeepChain); };
  sim.spawn(parent(), "deep");
  sim.run();
  EXPECT_EQ(result, kDeepChain);
}

TEST(Task, ChildExceptionReachesTheAwaitingParent) {
  Simulation sim;
  bool caught = false;
  auto failing = [&]() -> Task<int> {
    co_await sim.delay(1);
    throw std::runtime_error("boom");
  };
  auto parent = [&]() -> Task<> {
    try {
      co_await failing();
    } catch (const std::runtime_error& e) {
      caught = std::string(e.what()) == "boom";
    }
  };
  sim.spawn(parent(), "parent");
  sim.run();
  EXPECT_TRUE(caught);
}

TEST(Task, UncaughtExceptionStopsTheRunAndIsRethrown) {
  Simulation sim;
  int later = 0;
  auto failing = [&]() -> Task<> {
    co_await sim.delay(5);
    throw std::runtime_error("kernel fault");
  };
  auto other = [&]() -> Task<> {
    co_await sim.delay(50);
    ++later;
  };
  sim.spawn(failing(), "failing");
  sim.spawn(other(), "other");
  EXPECT_THROW(sim.run(), std::runtime_error);
  EXPECT_EQ(sim.now(), 5u);
  EXPECT_EQ(later, 0);
  sim.run();  // the rest of the model is intact and can continue
  EXPECT_EQ(later, 1);
}

TEST(Task, SpawnedProcessesStartInSpawnOrderAtTheCurrentTick) {
  Simulation sim;
  std::vector<int> order;
  auto p = [&](int id) -> Task<> {
    order.push_back(id);
    co_return;
  };
  sim.spawn(p(1), "p1");
  sim.spawn(p(2), "p2");
  EXPECT_TRUE(order.empty());  // lazily started
  sim.run();
  EXPECT_EQ(order, (std::vector<int>{1, 2}));
  EXPECT_EQ(sim.live_processes(), 0u);
}

TEST(Task, JoinWaitsForTheProcess) {
  Simulation sim;
  Tick joined_at = 0;
  auto worker = [&]() -> Task<> { co_await sim.delay(40); };
  auto boss = [&]() -> Task<> {
    ProcessHandle h = sim.spawn(worker(), "worker");
    EXPECT_FALSE(h.done());
    co_await h.join();
    EXPECT_TRUE(h.done());
    joined_at = sim.now();
    co_await h.join();  // joining a finished process returns at once
    EXPECT_EQ(sim.now(), joined_at);
  };
  sim.spawn(boss(), "boss");
  sim.run();
  EXPECT_EQ(joined_at, 40u);
}

// Ending a simulation while processes wait on delays, signals and children must free every
// frame: run under ASan/LeakSanitizer this test fails on any leak or use-after-free.
TEST(Task, TeardownWithSuspendedTasksIsClean) {
  auto sim = std::make_unique<Simulation>();
  auto sig = std::make_unique<Signal>(sim->events());
  int destroyed = 0;
  struct Guard {
    int* n;
    ~Guard() { ++*n; }
  };
  auto child = [&]() -> Task<int> {
    Guard g{&destroyed};
    co_await sim->delay(1'000'000);
    co_return 1;
  };
  auto waits_child = [&]() -> Task<> {
    Guard g{&destroyed};
    co_await child();
  };
  auto waits_signal = [&]() -> Task<> {
    Guard g{&destroyed};
    co_await sig->wait();
  };
  sim->spawn(waits_child(), "a");
  sim->spawn(waits_signal(), "b");
  sim->run(100);
  EXPECT_EQ(sim->live_processes(), 2u);
  EXPECT_EQ(sim->live_process_names(), (std::vector<std::string>{"a", "b"}));
  sig.reset();  // the signal goes first; its waiter must detach cleanly
  sim.reset();
  EXPECT_EQ(destroyed, 3);
}

// Captures the size of the frame of the coroutine that awaits it, and resumes it at once when
// it has one (the compiler cannot tell it will: the locals stay in the frame).
template <class P>
struct HandleOf {
  std::size_t* bytes;
  bool await_ready() const noexcept { return false; }
  bool await_suspend(std::coroutine_handle<P> h) {
    *bytes = frame_bytes(h);
    return *bytes == 0;
  }
  void await_resume() const noexcept {}
};

// Not inlined: Clang would put an inlined coroutine's frame in its caller's (no operator new).
[[gnu::noinline]] Task<> big_frame(std::size_t* bytes, int* sum) {
  std::array<int, 256> a{};  // 1 KiB live across the suspension (from memory: not foldable)
  for (int i = 0; i < 256; ++i)
    a[static_cast<std::size_t>(i)] = *sum + i;
  co_await HandleOf<detail::Promise<void>>{bytes};
  for (int v : a)
    *sum += v;
}

[[gnu::noinline]] Task<> small_frame(std::size_t* bytes) {
  co_await HandleOf<detail::Promise<void>>{bytes};
}

// The prefetch hints read a frame's size just before it: the size operator new was asked for,
// so it must cover the locals the coroutine keeps across a suspension.
TEST(Task, FrameBytesIsTheFramesAllocatedSize) {
  std::size_t big = 0, small = 0;
  int sum = 0;
  Simulation sim;
  sim.spawn(big_frame(&big, &sum), "big");
  sim.spawn(small_frame(&small), "small");
  sim.run();
  EXPECT_EQ(sum, 255 * 256 / 2);
  EXPECT_GE(big, 1024u);
  EXPECT_LT(big, 2048u);
  EXPECT_GT(small, 0u);
  EXPECT_LT(small, 512u);
  EXPECT_EQ(frame_bytes(std::coroutine_handle<>{}), 0u);  // not a Task: not known
}

}  // namespace
}  // namespace xpusim::sim
