#include "sim/channel.h"

#include <gtest/gtest.h>

#include "sim/simulation.h"

namespace xpusim::sim {
namespace {

constexpr std::uint64_t kGHz = 1'000'000'000;  // 1 cycle = 1000 ps

TEST(Channel, SerializationArithmetic) {
  Simulation sim;
  Clock clk(sim.events(), kGHz);
  Channel<int> ch(clk, {.latency = 10, .bytes_per_cycle = 64});
  EXPECT_EQ(ch.serialization_cycles(4096), 64u);  // 4 KiB over 64 B/cycle
  EXPECT_EQ(ch.serialization_cycles(100), 2u);    // partial cycles round up
  EXPECT_EQ(ch.serialization_cycles(0), 0u);
}

TEST(Channel, BackToBackTransfersQueue) {
  Simulation sim;
  Clock clk(sim.events(), kGHz);
  Channel<int> ch(clk, {.latency = 10, .bytes_per_cycle = 64});
  std::vector<Tick> sent, received;
  std::vector<int> values;
  auto sender = [&]() -> Task<> {
    co_await ch.send(1, 4096);
    sent.push_back(sim.now());
    co_await ch.send(2, 4096);
    sent.push_back(sim.now());
  };
  auto receiver = [&]() -> Task<> {
    for (int i = 0; i < 2; ++i) {
      values.push_back(co_await ch.receive());
      received.push_back(sim.now());
    }
  };
  sim.spawn(receiver(), "rx");
  sim.spawn(sender(), "tx");
  sim.run();
  EXPECT_EQ(sent, (std::vector<Tick>{64'000, 128'000}));      // 64 cycles each
  EXPECT_EQ(received, (std::vector<Tick>{74'000, 138'000}));  // + 10 cycles latency
  EXPECT_EQ(values, (std::vector<int>{1, 2}));
  EXPECT_EQ(ch.busy_cycles(), 128u);
  EXPECT_EQ(ch.bytes_sent(), 8192u);
  EXPECT_EQ(ch.messages_sent(), 2u);
}

TEST(Channel, ConcurrentSendersShareTheLinkInArrivalOrder) {
  Simulation sim;
  Clock clk(sim.events(), kGHz);
  Channel<int> ch(clk, {.latency = 0, .bytes_per_cycle = 32});
  std::vector<std::pair<int, Tick>> done;
  auto sender = [&](int id) -> Task<> {
    co_await ch.send(id, 320);  // 10 cycles
    done.emplace_back(id, sim.now());
  };
  for (int i = 0; i < 3; ++i)
    sim.spawn(sender(i), "tx");
  sim.run();
  EXPECT_EQ(done, (std::vector<std::pair<int, Tick>>{{0, 10'000}, {1, 20'000}, {2, 30'000}}));
  EXPECT_EQ(ch.delivered(), 3u);
}

TEST(Channel, SendStartsOnTheNextEdgeWhenIdle) {
  Simulation sim;
  Clock clk(sim.events(), kGHz);
  Channel<int> ch(clk, {.latency = 1, .bytes_per_cycle = 8});
  Tick arrival = 0;
  auto sender = [&]() -> Task<> {
    co_await sim.delay(1500);  // between edges 1 and 2
    co_await ch.send(7, 16);   // cycles 2..4, arrives at edge 5
  };
  auto receiver = [&]() -> Task<> {
    co_await ch.receive();
    arrival = sim.now();
  };
  sim.spawn(sender(), "tx");
  sim.spawn(receiver(), "rx");
  sim.run();
  EXPECT_EQ(arrival, 5'000u);
}

TEST(Channel, ReserveIsTimingOnly) {
  Simulation sim;
  Clock clk(sim.events(), kGHz);
  Channel<int> ch(clk, {.latency = 5, .bytes_per_cycle = 64});
  EXPECT_EQ(ch.reserve(4096), 69'000u);
  EXPECT_EQ(ch.reserve(64), 70'000u);  // queued behind the first
  EXPECT_EQ(ch.busy_until(), 65u);
  EXPECT_EQ(ch.occupancy(), 0u);
}

TEST(Channel, CapacityRefusesAndBackpressures) {
  Simulation sim;
  Clock clk(sim.events(), kGHz);
  Channel<int> ch(clk, {.latency = 2, .bytes_per_cycle = 64, .capacity = 2});
  EXPECT_TRUE(ch.try_send(1, 64));
  EXPECT_TRUE(ch.try_send(2, 64));
  EXPECT_FALSE(ch.try_send(3, 64));  // refused: retry later
  EXPECT_EQ(ch.refused(), 1u);
  Tick third_sent = 0;
  std::vector<int> got;
  auto sender = [&]() -> Task<> {
    co_await ch.send(3, 64);  // blocks until a receive frees a slot
    third_sent = sim.now();
  };
  auto receiver = [&]() -> Task<> {
    co_await sim.delay(50'000);
    for (int i = 0; i < 3; ++i)
      got.push_back(co_await ch.receive());
  };
  sim.spawn(sender(), "tx");
  sim.spawn(receiver(), "rx");
  sim.run();
  EXPECT_EQ(got, (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(third_sent, 51'000u);  // admitted at 50 ns, one cycle to serialize
  EXPECT_EQ(ch.occupancy(), 0u);
}

TEST(Channel, TryReceive) {
  Simulation sim;
  Clock clk(sim.events(), kGHz);
  Channel<std::string> ch(clk, {.latency = 3, .bytes_per_cycle = 1});
  EXPECT_FALSE(ch.try_receive().has_value());
  ASSERT_TRUE(ch.try_send("hi", 2));
  sim.run();
  EXPECT_EQ(sim.now(), 5'000u);
  EXPECT_EQ(ch.try_receive().value(), "hi");
}

}  // namespace
}  // namespace xpusim::sim
