// Engine throughput: events/s and coroutine resumes/s on the classic "hold" model (a fixed
// population of pending events; each processed event schedules one more at a random
// future time), plus a plain std::priority_queue + std::function loop as the baseline that
// DESIGN targets are measured against (compare the ratio within one run).
#include <benchmark/benchmark.h>

#include <functional>
#include <queue>
#include <random>
#include <vector>

#include "sim/channel.h"
#include "sim/clock.h"
#include "sim/event_queue.h"
#include "sim/simulation.h"

namespace xpusim::sim {
namespace {

constexpr int kBatch = 1000;

std::vector<Tick> make_delays() {
  std::mt19937_64 gen(1);
  std::vector<Tick> d(4096);
  for (Tick& t : d)
    t = 1 + gen() % 10'000;
  return d;
}

class HoldEvent final : public Event {
 public:
  HoldEvent(EventQueue& q, const std::vector<Tick>& delays, std::size_t start)
      : q_(q), delays_(delays), i_(start) {}

 protected:
  void process() override { q_.schedule(*this, q_.now() + delays_[i_++ & 4095]); }

 private:
  EventQueue& q_;
  const std::vector<Tick>& delays_;
  std::size_t i_;
};

void BM_EventQueueHold(benchmark::State& state) {
  const auto delays = make_delays();
  EventQueue q;
  std::vector<std::unique_ptr<HoldEvent>> events;
  for (int i = 0; i < state.range(0); ++i) {
    events.push_back(std::make_unique<HoldEvent>(q, delays, static_cast<std::size_t>(i) * 17));
    q.schedule(*events.back(), delays[static_cast<std::size_t>(i) & 4095]);
  }
  for (auto _ : state) {
    for (int i = 0; i < kBatch; ++i)
      q.step();
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
  state.counters["events_per_s"] = benchmark::Counter(
      static_cast<double>(state.iterations() * kBatch), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_EventQueueHold)->Arg(16)->Arg(1024)->Arg(65536);

// Baseline: what a straightforward simulator loop does.
void BM_StdPriorityQueueHold(benchmark::State& state) {
  const auto delays = make_delays();
  struct Item {
    Tick tick;
    std::uint64_t seq;
    std::function<void()> fn;
    bool operator>(const Item& o) const { return tick != o.tick ? tick > o.tick : seq > o.seq; }
  };
  std::priority_queue<Item, std::vector<Item>, std::greater<>> pq;
  Tick now = 0;
  std::uint64_t seq = 0;
  std::size_t k = 0;
  std::function<void()> hold = [&] { pq.push({now + delays[k++ & 4095], seq++, hold}); };
  for (int i = 0; i < state.range(0); ++i)
    pq.push({delays[static_cast<std::size_t>(i)], seq++, hold});
  for (auto _ : state) {
    for (int i = 0; i < kBatch; ++i) {
      Item it = pq.top();
      pq.pop();
      now = it.tick;
      it.fn();
    }
  }
  state.counters["events_per_s"] = benchmark::Counter(
      static_cast<double>(state.iterations() * kBatch), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_StdPriorityQueueHold)->Arg(1024);

// Leaner baseline: a std::priority_queue of plain {tick, sequence, id} entries and no
// std::function, i.e. the fastest "straightforward" loop.
void BM_PlainPriorityQueueHold(benchmark::State& state) {
  const auto delays = make_delays();
  struct Item {
    Tick tick;
    std::uint64_t seq;
    std::uint32_t id;
    bool operator>(const Item& o) const { return tick != o.tick ? tick > o.tick : seq > o.seq; }
  };
  std::priority_queue<Item, std::vector<Item>, std::greater<>> pq;
  std::uint64_t seq = 0;
  std::size_t k = 0;
  for (int i = 0; i < state.range(0); ++i) {
    pq.push({delays[static_cast<std::size_t>(i)], seq++, static_cast<std::uint32_t>(i)});
  }
  for (auto _ : state) {
    for (int i = 0; i < kBatch; ++i) {
      const Item it = pq.top();
      pq.pop();
      pq.push({it.tick + delays[k++ & 4095], seq++, it.id});
    }
  }
  state.counters["events_per_s"] = benchmark::Counter(
      static_cast<double>(state.iterations() * kBatch), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_PlainPriorityQueueHold)->Arg(1024);

// Coroutine resumes: N processes each looping on a random delay; every event is one resume.
void BM_CoroutineResumes(benchmark::State& state) {
  const auto delays = make_delays();
  Simulation sim;
  auto body = [&](std::size_t start) -> Task<> {
    for (std::size_t i = start;; ++i)
      co_await sim.delay(delays[i & 4095]);
  };
  for (int i = 0; i < state.range(0); ++i)
    sim.spawn(body(static_cast<std::size_t>(i) * 31), "p");
  for (auto _ : state) {
    for (int i = 0; i < kBatch; ++i)
      sim.events().step();
  }
  state.counters["resumes_per_s"] = benchmark::Counter(
      static_cast<double>(state.iterations() * kBatch), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_CoroutineResumes)->Arg(1024);

// Coroutine resumes on clock cycles (exact ps <-> cycle conversion on a 1.83 GHz clock).
void BM_CoroutineClockCycles(benchmark::State& state) {
  Simulation sim;
  Clock clk(sim.events(), 1'830'000'000);
  auto body = [&](Cycles n) -> Task<> {
    for (;;)
      co_await clk.cycles(n);
  };
  for (int i = 0; i < state.range(0); ++i)
    sim.spawn(body(1 + static_cast<Cycles>(i % 13)), "p");
  for (auto _ : state) {
    for (int i = 0; i < kBatch; ++i)
      sim.events().step();
  }
  state.counters["resumes_per_s"] = benchmark::Counter(
      static_cast<double>(state.iterations() * kBatch), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_CoroutineClockCycles)->Arg(1024);

// Signal ping-pong: two processes hand control back and forth (wake + resume per hop).
void BM_SignalPingPong(benchmark::State& state) {
  Simulation sim;
  Signal ping(sim.events()), pong(sim.events());
  auto a = [&]() -> Task<> {
    for (;;) {
      ping.notify_one();
      co_await pong.wait();
    }
  };
  auto b = [&]() -> Task<> {
    for (;;) {
      co_await ping.wait();
      pong.notify_one();
    }
  };
  sim.spawn(b(), "b");
  sim.spawn(a(), "a");
  for (auto _ : state) {
    for (int i = 0; i < kBatch; ++i)
      sim.events().step();
  }
  state.counters["resumes_per_s"] = benchmark::Counter(
      static_cast<double>(state.iterations() * kBatch), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_SignalPingPong);

// Channel messages: a sender streams 256 B messages to a receiver over a 64 B/cycle link.
void BM_ChannelMessages(benchmark::State& state) {
  Simulation sim;
  Clock clk(sim.events(), 1'830'000'000);
  Channel<std::uint64_t> ch(clk, {.latency = 20, .bytes_per_cycle = 64, .capacity = 64});
  auto tx = [&]() -> Task<> {
    for (std::uint64_t i = 0;; ++i)
      co_await ch.send(i, 256);
  };
  std::uint64_t got = 0;
  auto rx = [&]() -> Task<> {
    for (;;)
      got += co_await ch.receive();
  };
  sim.spawn(tx(), "tx");
  sim.spawn(rx(), "rx");
  std::uint64_t before = 0;
  for (auto _ : state) {
    for (int i = 0; i < kBatch; ++i)
      sim.events().step();
  }
  benchmark::DoNotOptimize(got);
  before = ch.messages_sent();
  state.counters["messages_per_s"] =
      benchmark::Counter(static_cast<double>(before), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_ChannelMessages);

}  // namespace
}  // namespace xpusim::sim

BENCHMARK_MAIN();
