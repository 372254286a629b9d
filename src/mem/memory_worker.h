// MemoryWorker: a second host thread that times warp accesses (the transaction-level timing of
// MemorySystem::load_lines / store_lines) while the simulation's thread runs the SMs. The
// results are the same, byte for byte, as with one thread (docs/memory-hierarchy.md, "A
// second host thread"):
//  - the worker takes the accesses in the order they were issued, so the crossbar, the L2 and
//    HBM see the same sequence of bookings;
//  - an access's completion event takes its order in the event queue when the access is issued
//    (EventQueue::reserve_order), as it would have been scheduled then;
//  - the queue is a sim::Gate's client: it fires no event at or after an outstanding access's
//    earliest possible completion (its issue tick plus the crossbar's two latencies) until the
//    worker has timed it and its completion is scheduled.
// Everything else that reaches the crossbar, the L2 or HBM (TMA copies, single requests, the
// stats) first waits for the worker to finish (drain()).
//
// One ring of jobs: the simulation's thread writes a job and publishes it (submitted_), the
// worker times it and publishes the result (done_), the simulation's thread delivers results
// in order and reuses the slot.
#pragma once

#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include "sim/event_queue.h"
#include "sim/tick.h"

namespace xpusim::mem {

class MemoryWorker final : public sim::Gate {
 public:
  struct Job {
    void* subject = nullptr;  // what the handler times (a request in flight)
    sim::Tick at = 0;         // issued at
    sim::Tick bound = 0;      // no completion before this (the simulation's thread's own)
    sim::Tick result = 0;     // the completion tick (the worker's)
    std::uint32_t arg = 0;
    std::uint8_t kind = 0;  // the handler's; not 0xFF
  };
  // What the jobs mean. work() runs on the worker (or in drain(), never both at once);
  // deliver() on the simulation's thread, in submission order.
  class Handler {
   public:
    virtual sim::Tick work(const Job& j) = 0;
    virtual void deliver(const Job& j) = 0;
    // For speed only: starts loading what work(j) will touch. The worker calls it for each
    // job `ahead` = 4, 2 and 1 jobs before timing it (kPrefetchAhead), so a handler can load
    // the job's own data first and then what that data points to.
    virtual void prefetch(const Job& /*j*/, unsigned /*ahead*/) const {}
    // For speed only: starts loading what deliver(j) will touch; the simulation's thread calls
    // it a few jobs ahead as it delivers a batch (their misses then overlap).
    virtual void prefetch_deliver(const Job& /*j*/) const {}

   protected:
    ~Handler() = default;
  };

  MemoryWorker(sim::EventQueue& queue, Handler& handler);
  ~MemoryWorker();  // finishes the jobs it has, then joins
  MemoryWorker(const MemoryWorker&) = delete;
  MemoryWorker& operator=(const MemoryWorker&) = delete;

  // Simulation's thread: hands a job to the worker (waits while the ring is full). Its fields
  // are stored into the ring one by one (a Job built on the caller's stack was copied in with
  // 16-byte loads over its stores, a store-forwarding stall).
  void submit(void* subject, sim::Tick at, sim::Tick bound, std::uint32_t arg, std::uint8_t kind);
  // Simulation's thread: waits until every job is timed and delivered.
  void drain();
  // sim::Gate: delivers the jobs done, waiting for those whose bound is at or before `next`.
  sim::Tick open(sim::Tick next) override;
  bool idle() const { return delivered_ == submitted_.load(std::memory_order_relaxed); }

 private:
  static constexpr std::uint64_t kSlots = 4096;            // a power of two
  static constexpr std::uint64_t kDeliverAhead = 8;        // prefetch_deliver's distance
  static constexpr unsigned kPrefetchAhead[] = {4, 2, 1};  // Handler::prefetch's distances

  void run();  // the worker's loop
  // Delivers every job the worker has done; false when none was.
  bool deliver_done();
  // Waits until a job is done and not delivered (spinning first: the worker is usually close
  // behind).
  void wait_done();
  static constexpr std::uint8_t kStop = 0xFF;  // the destructor's last job: the worker returns

  sim::EventQueue& queue_;
  Handler& handler_;
  std::vector<Job> ring_;
  // Jobs [delivered_, done_) are timed, [done_, submitted_) wait for the worker.
  alignas(64) std::atomic<std::uint64_t> submitted_{0};
  alignas(64) std::atomic<std::uint64_t> done_{0};
  alignas(64) std::uint64_t delivered_ = 0;  // the simulation's thread's
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace xpusim::mem
