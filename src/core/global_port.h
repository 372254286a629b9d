// The SM's way out to global memory: the timing of one warp-wide global access. The memory
// hierarchy (src/mem: L1, crossbar, L2, HBM) implements it; FixedLatencyMemory below is a
// stand-in with one latency (DSMEM included), for SM studies that leave memory out;
// HierarchyPort (hierarchy_port.h) puts the real hierarchy behind it.
#pragma once

#include <cstdint>
#include <functional>

#include "kernel/op.h"
#include "sim/clock.h"
#include "sim/event_queue.h"

namespace xpusim::core {

class GlobalPort {
 public:
  virtual ~GlobalPort() = default;
  // The access of `op` by the lanes of `active`, issued by `sm` now; `done` at completion.
  // `hint`, for speed only: host memory `done` touches first (the waking warp's slot), which
  // the port may prefetch shortly before it runs; null if none.
  virtual void access(std::uint32_t sm, const kernel::Op& op, kernel::LaneMask active,
                      std::function<void()> done, const void* hint = nullptr) = 0;
  // For speed only: starts loading what access(sm, op, active, ...) will look up first,
  // called when the warp hands the operation over (its issue comes at least an event later).
  // No effect on any state.
  virtual void prefetch(std::uint32_t /*sm*/, const kernel::Op& /*op*/,
                        kernel::LaneMask /*active*/) const {}
  // Pins the L1 line holding `addr` in `sm`'s L1 against eviction (mm t1 retention, seed2
  // ¶122-125): false when the L1 cannot (every way of its set pinned); unpin_l1 releases it.
  // A port without an L1 holds every line it fetched for the instruction: true.
  virtual bool pin_l1(std::uint32_t /*sm*/, std::uint64_t /*addr*/) { return true; }
  virtual void unpin_l1(std::uint32_t /*sm*/, std::uint64_t /*addr*/) {}
  // A DSMEM exchange with another SM of the GPC moving `bytes` of data: a load or an atomic
  // (request out, data back) or a store (data out, acknowledgement back).
  enum class Remote : std::uint8_t { kLoad, kStore, kAtomic };
  virtual void remote_shared(std::uint32_t from_sm, std::uint32_t to_sm, Remote kind,
                             std::uint32_t bytes, std::function<void()> done) = 0;
  // A one-way message of `bytes` to another SM of the GPC (a remote mbarrier arrive):
  // `arrived` when it gets there.
  virtual void remote_push(std::uint32_t from_sm, std::uint32_t to_sm, std::uint32_t bytes,
                           std::function<void()> arrived) = 0;
};

class FixedLatencyMemory : public GlobalPort {
 public:
  FixedLatencyMemory(sim::EventQueue& events, const sim::Clock& clock, std::uint32_t cycles)
      : events_(events), clock_(clock), cycles_(cycles) {}
  void access(std::uint32_t, const kernel::Op&, kernel::LaneMask, std::function<void()> done,
              const void* = nullptr) override {
    events_.post(clock_.edge(clock_.cycle_at(events_.now()) + cycles_), std::move(done));
  }
  void remote_shared(std::uint32_t, std::uint32_t, Remote, std::uint32_t,
                     std::function<void()> done) override {
    events_.post(clock_.edge(clock_.cycle_at(events_.now()) + cycles_), std::move(done));
  }
  void remote_push(std::uint32_t, std::uint32_t, std::uint32_t,
                   std::function<void()> arrived) override {
    events_.post(clock_.edge(clock_.cycle_at(events_.now()) + cycles_), std::move(arrived));
  }

 private:
  sim::EventQueue& events_;
  const sim::Clock& clock_;
  std::uint32_t cycles_;
};

}  // namespace xpusim::core
