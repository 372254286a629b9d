// Clock: one frequency domain. Converts cycles <-> picosecond ticks exactly: edge k is at
// ceil(k * 1e12 / f) ps, so periods that are not whole picoseconds (1.98 GHz = 505.05 ps)
// never drift; a unit speaks in its own cycles and only ports convert.
#pragma once

#include <cstdint>

#include "sim/event_queue.h"
#include "sim/tick.h"
#include "sim/timer.h"

namespace xpusim::sim {

class Clock {
 public:
  Clock(EventQueue& queue, std::uint64_t frequency_hz);

  std::uint64_t frequency_hz() const { return hz_; }
  EventQueue& queue() const { return *queue_; }

  // Tick of rising edge number k (edge 0 is at tick 0).
  Tick edge(Cycles k) const;
  // Number of the last edge at or before t.
  Cycles cycle_at(Tick t) const;
  // First edge at or after t.
  Tick next_edge(Tick t) const;
  Cycles now_cycle() const { return cycle_at(queue_->now()); }
  // Cycle number of the first edge at or after now().
  Cycles next_cycle() const;

  // Awaitable: resumes on edge cycle_at(now) + n. From an edge that is exactly n periods;
  // from between two edges it lands on an edge (like gem5's clockEdge(n)). n = 0 yields to
  // the other events of the current tick.
  WakeAt cycles(Cycles n) const { return WakeAt(*queue_, edge(cycle_at(queue_->now()) + n)); }

 private:
  EventQueue* queue_;
  std::uint64_t hz_;
  // Period = num_ / den_ picoseconds, reduced.
  std::uint64_t num_;
  std::uint64_t den_;
};

}  // namespace xpusim::sim
