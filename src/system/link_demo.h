// The engine demo behind `xpusim demo`: producers on one clock stream randomly sized
// messages over one shared link (latency + bandwidth + capacity) to a consumer. Small, but
// it exercises every engine piece (coroutines, Channel back-pressure, per-component RNG,
// stats, traces with flows) and is the worked example of docs/architecture.md.
#pragma once

#include <cstdint>
#include <memory>

#include "sim/result.h"
#include "sim/simulation.h"

namespace xpusim::system {

struct LinkDemoParams {
  std::uint64_t clock_hz = 1'830'000'000;
  std::uint64_t producers = 4;
  std::uint64_t messages = 100;  // per producer
  std::uint64_t mean_bytes = 256;
  std::uint64_t bytes_per_cycle = 64;
  std::uint64_t latency_cycles = 20;
  std::uint64_t capacity = 16;
};

struct LinkDemoResult {
  sim::Tick end = 0;
  std::uint64_t cycles = 0;
  std::uint64_t messages = 0;
  std::uint64_t bytes = 0;
  double achieved_bytes_per_cycle = 0;
  double mean_latency_cycles = 0;
  std::uint64_t events = 0;
  bool completed = false;  // false when the time limit came first
  std::uint64_t expected_messages = 0;
};

// The model lives as long as this object, so its stats (under `demo.*`) can be dumped after
// run(). Destroying it ends any process still suspended in `sim`.
class LinkDemo {
 public:
  // Checks the parameters (one error per bad one, naming the flag), then builds the model.
  static Result<std::unique_ptr<LinkDemo>> create(sim::Simulation& sim,
                                                  const LinkDemoParams& params);
  ~LinkDemo();
  LinkDemo(const LinkDemo&) = delete;
  LinkDemo& operator=(const LinkDemo&) = delete;

  // Runs the simulation until every message is received or `limit` is reached.
  LinkDemoResult run(sim::Tick limit = sim::kMaxTick);

 private:
  struct Model;
  explicit LinkDemo(std::unique_ptr<Model> m);
  std::unique_ptr<Model> m_;
};

}  // namespace xpusim::system
