// The second host thread (MemoryWorker, MemorySystem with worker_thread): the same results
// as one thread, event for event. The references run the same streams on one thread.
#include "mem/memory_worker.h"

#include <cstdint>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "mem/memory_system.h"
#include "sim/component.h"
#include "sim/simulation.h"
#include "small_chip.h"

namespace xpusim::mem {
namespace {

using Log = std::vector<std::pair<int, sim::Tick>>;  // (id, tick) in firing order

// A job's completion: logs its id when it fires.
class Completion final : public sim::Event {
 public:
  Completion(sim::EventQueue& q, Log& log, int id) : q_(q), log_(log), id_(id) {}
  std::uint64_t order = 0;

 protected:
  void process() override { log_.emplace_back(id_, q_.now()); }

 private:
  sim::EventQueue& q_;
  Log& log_;
  int id_;
};

// Times a job as `at + arg`; records which thread did.
class Delay final : public MemoryWorker::Handler {
 public:
  explicit Delay(sim::EventQueue& q) : q_(q) {}
  sim::Tick work(const MemoryWorker::Job& j) override {
    worker_thread = std::this_thread::get_id();
    return j.at + j.arg;
  }
  void deliver(const MemoryWorker::Job& j) override {
    auto& c = *static_cast<Completion*>(j.subject);
    q_.schedule_reserved(c, j.result, c.order);
  }
  std::thread::id worker_thread;

 private:
  sim::EventQueue& q_;
};

// Issues `n` jobs from events a few ticks apart (more than the ring holds, so it wraps and
// fills), each done 100 to 163 ticks later. With a worker the jobs go to it; without, each
// completion is scheduled at once, where the worker's reserves its order. Each issue also
// schedules a marker 150 ticks on, which falls on the tick of earlier jobs' completions that
// the worker has not delivered yet: they must fire before it.
Log run_jobs(bool worker, int n) {
  sim::EventQueue q;
  Log log;
  Delay handler(q);
  std::unique_ptr<MemoryWorker> w;
  if (worker) w = std::make_unique<MemoryWorker>(q, handler);
  std::vector<std::unique_ptr<Completion>> done;
  std::vector<std::unique_ptr<sim::CallbackEvent>> issuers;
  std::vector<std::unique_ptr<Completion>> markers;
  std::uint64_t x = 7;
  for (int i = 0; i < n; ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    const auto delay = static_cast<std::uint32_t>(100 + (x >> 58));
    done.push_back(std::make_unique<Completion>(q, log, i));
    Completion& c = *done.back();
    markers.push_back(std::make_unique<Completion>(q, log, 1'000'000 + i));
    Completion& m = *markers.back();
    issuers.push_back(std::make_unique<sim::CallbackEvent>([&q, &w, &c, &m, delay, i, &log] {
      log.emplace_back(-1 - i, q.now());  // the issue itself
      if (w) {
        w->submit(&c, q.now(), q.now() + 100, delay, /*kind=*/1);
        c.order = q.reserve_order();
      } else {
        q.schedule(c, q.now() + delay);
      }
      q.schedule(m, q.now() + 150);
    }));
    q.schedule(*issuers.back(), static_cast<sim::Tick>(i / 3));  // three issues per tick
  }
  q.run();
  if (worker) {
    EXPECT_NE(handler.worker_thread, std::this_thread::get_id());
  }
  return log;
}

TEST(MemoryWorker, CompletionsFireInTheOneThreadOrder) {
  const Log one = run_jobs(false, 10'000);
  const Log two = run_jobs(true, 10'000);
  ASSERT_EQ(one.size(), 30'000u);
  EXPECT_EQ(one, two);
}

TEST(MemoryWorker, DrainDeliversEverythingSubmitted) {
  sim::EventQueue q;
  Log log;
  Delay handler(q);
  MemoryWorker w(q, handler);
  std::vector<std::unique_ptr<Completion>> done;
  for (int i = 0; i < 5000; ++i) {
    done.push_back(std::make_unique<Completion>(q, log, i));
    done.back()->order = q.reserve_order();
    w.submit(done.back().get(), /*at=*/0, /*bound=*/10, /*arg=*/10, /*kind=*/1);
  }
  w.drain();
  EXPECT_TRUE(w.idle());
  EXPECT_EQ(q.pending(), 5000u);
  q.run();
  ASSERT_EQ(log.size(), 5000u);
  for (int i = 0; i < 5000; ++i)
    EXPECT_EQ(log[i], (std::pair<int, sim::Tick>{i, 10})) << i;
}

// The memory system: a pseudo-random stream of warp accesses (loads with L1 hits and misses,
// stores) from 8 SMs, with single loads, stores and TMA-style load_at mixed in (they wait for
// the worker) and the stats read mid-run. Returns every completion (tag, tick) in firing order
// and the stats.
struct Recorder final : RequestClient {
  explicit Recorder(sim::Simulation& s) : sim(s) {}
  void request_done(std::uint64_t tag) override {
    log.emplace_back(static_cast<int>(tag), sim.now());
  }
  sim::Simulation& sim;
  Log log;
};

// The memory-system tests' small chip with a 64 KiB L2 of 4 ways and 8 MSHRs a slice
// (evictions, write-backs, MSHR-full waits) and a 32-line L1.
MemoryParams worker_chip(bool worker, std::uint64_t sm_hz) {
  MemoryParams p = small_chip(MemoryTiming::kTransactions);
  p.worker_thread = worker;
  p.sm_clock_hz = sm_hz;
  p.l1.bytes = 8 * 4 * 128;
  p.l2.size_bytes = 64 << 10;
  p.l2.ways = 4;
  p.l2.mshrs_per_slice = 8;
  return p;
}

struct StreamResult {
  Log log;
  std::string mid_run_stats, stats;
};

StreamResult run_stream(bool worker, std::uint64_t sm_hz) {
  sim::Simulation sim(1);
  sim::Component top(sim, "chip0");
  MemorySystem mem(top, worker_chip(worker, sm_hz));
  EXPECT_EQ(mem.has_worker(), worker);
  Recorder rec(sim);
  std::vector<std::unique_ptr<sim::CallbackEvent>> issuers;
  // After each access, a marker a whole number of nanoseconds on: on the tick of other
  // accesses' completions (at 1 GHz), which must keep their order against it.
  std::vector<std::unique_ptr<sim::CallbackEvent>> markers;
  std::uint64_t x = 99;
  std::string mid_run_stats;
  for (int i = 0; i < 6000; ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    const std::uint64_t r = x;
    issuers.push_back(std::make_unique<sim::CallbackEvent>([&, r, i] {
      const auto sm = static_cast<std::uint32_t>((r >> 33) % 8);
      const Addr base = ((r >> 12) % 2048) * 128;  // 256 KiB: misses, hits and evictions
      const std::uint32_t kind = (r >> 56) % 16;
      std::vector<LineRequest> lines;
      for (std::uint32_t k = 0; k < 1 + (r >> 40) % 4; ++k)
        lines.push_back({.line_addr = base + k * 128, .sector_mask = 1u << (k % 4)});
      if (kind < 9) {
        mem.load_lines(sm, lines, rec, static_cast<std::uint64_t>(i));
      } else if (kind < 13) {
        mem.store_lines(sm, lines, rec, static_cast<std::uint64_t>(i));
      } else if (kind == 13) {
        mem.load(MemRequest{.addr = base, .bytes = 32, .write = false, .sm = sm, .sector_mask = 0},
                 rec, static_cast<std::uint64_t>(i));
      } else if (kind == 14) {
        mem.store(MemRequest{.addr = base, .bytes = 32, .write = true, .sm = sm, .sector_mask = 0},
                  rec, static_cast<std::uint64_t>(i));
      } else {
        const sim::Tick t = mem.load_at(
            MemRequest{.addr = base, .bytes = 128, .write = false, .sm = sm, .sector_mask = 0},
            sim.now() + 1000);
        rec.log.emplace_back(-1 - i, t);
      }
      if (i == 3000) mid_run_stats = sim.stats().dump();
      sim.events().schedule(*markers[static_cast<std::size_t>(i)],
                            sim.now() + (250 + (r >> 20) % 256) * sim::kNanosecond);
    }));
    markers.push_back(std::make_unique<sim::CallbackEvent>(
        [&rec, &sim, i] { rec.log.emplace_back(1'000'000 + i, sim.now()); }));
    sim.events().schedule(*issuers.back(), static_cast<sim::Tick>(i / 2) * sim::kNanosecond);
  }
  sim.run();
  mem.settle();
  return {.log = rec.log, .mid_run_stats = mid_run_stats, .stats = sim.stats().dump()};
}

class WorkerStream : public testing::TestWithParam<std::uint64_t> {};
INSTANTIATE_TEST_SUITE_P(MemoryWorker, WorkerStream,
                         testing::Values(1'000'000'000, 1'500'000'000),  // SM clock; L2 1 GHz
                         [](const testing::TestParamInfo<std::uint64_t>& i) {
                           return std::to_string(i.param / 1'000'000) + "MHz";
                         });

TEST_P(WorkerStream, AMemorySystemWithAWorkerGivesTheSameEventsAndStats) {
  const StreamResult one = run_stream(false, GetParam());
  const StreamResult two = run_stream(true, GetParam());
  ASSERT_EQ(one.log.size(), 12'000u);
  EXPECT_EQ(one.log, two.log);
  EXPECT_EQ(one.mid_run_stats, two.mid_run_stats);
  EXPECT_EQ(one.stats, two.stats);
  // The stream reached the interesting paths.
  const auto l2 = nlohmann::json::parse(one.stats)["chip0.mem.l2"];
  EXPECT_GT(l2["writebacks"]["value"].get<double>(), 0);
  EXPECT_GT(l2["mshr_full_stalls"]["value"].get<double>(), 0);
  EXPECT_GT(l2["merged_misses"]["value"].get<double>(), 0);
}

TEST(MemoryWorker, NotWithEventsOrTracing) {
  sim::Simulation sim(1);
  sim::Component top(sim, "chip0");
  MemoryParams p = small_chip(MemoryTiming::kEvents);
  p.worker_thread = true;
  MemorySystem mem(top, p);
  EXPECT_FALSE(mem.has_worker());
}

}  // namespace
}  // namespace xpusim::mem
