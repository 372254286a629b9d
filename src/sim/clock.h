// Clock: one frequency domain. Converts cycles <-> picosecond ticks exactly: edge k is at
// ceil(k * 1e12 / f) ps, so periods that are not whole picoseconds (1.98 GHz = 505.05 ps)
// never drift; a unit speaks in its own cycles and only ports convert.
#pragma once

#include <cstdint>

#include "sim/event_queue.h"
#include "sim/fast_div.h"
#include "sim/tick.h"
#include "sim/timer.h"

namespace xpusim::sim {

// The most cycles a user may give for one duration (a kernel's or a CTA's run time, a cost):
// 2^40, about 18 simulated minutes at 1 GHz. Below it, sums of many such durations still fit
// in 64-bit picosecond ticks; above it, a conversion could overflow. Checked where the
// numbers enter (flags, runtime models), never deep in the clock.
inline constexpr std::uint64_t kMaxUserCycles = std::uint64_t{1} << 40;

// Host lines of its own: first_cycle_from() writes its memo, and with the memory thread a
// clock the worker converts on would otherwise share a line with what the simulation's thread
// reads beside it (perf: a miss on every request's address-map read; docs/performance.md).
class alignas(64) Clock {
 public:
  Clock(EventQueue& queue, std::uint64_t frequency_hz);

  std::uint64_t frequency_hz() const { return hz_; }
  EventQueue& queue() const { return *queue_; }

  // Tick of rising edge number k (edge 0 is at tick 0).
  Tick edge(Cycles k) const {
    std::uint64_t prod;
    if (__builtin_mul_overflow(k, num_, &prod)) return edge_wide(k);
    const std::uint64_t q = den_div_.div(prod);  // ceil(k * num / den)
    return q + (prod != q * den_ ? 1 : 0);
  }
  // Number of the last edge at or before t.
  Cycles cycle_at(Tick t) const {
    std::uint64_t prod;
    if (__builtin_mul_overflow(t, den_, &prod)) return cycle_at_wide(t);
    return num_div_.div(prod);  // floor(t * den / num)
  }
  // First edge at or after t.
  Tick next_edge(Tick t) const {
    const Cycles c = cycle_at(t);
    const Tick e = edge(c);
    return e == t ? t : edge(c + 1);
  }
  Cycles now_cycle() const { return cycle_at(queue_->now()); }
  // Cycle number of the first edge at or after now(). Units ask several times per event and
  // many events share a tick: the last answer is kept (two conversions saved per repeat).
  Cycles next_cycle() const { return first_cycle_from(queue_->now()); }
  // Cycle number of the first edge at or after t (edge c lies in cycle c).
  // edge(c) = ceil(c num / den) >= t holds exactly when c num > (t - 1) den, so the first
  // such c is cycle_at(t - 1) + 1: one conversion, not two.
  Cycles first_cycle_from(Tick t) const {
    if (t == memo_tick_) return memo_cycle_;
    memo_tick_ = t;
    memo_cycle_ = t == 0 ? 0 : cycle_at(t - 1) + 1;
    return memo_cycle_;
  }

  // Awaitable: resumes on edge cycle_at(now) + n. From an edge that is exactly n periods;
  // from between two edges it lands on an edge (like gem5's clockEdge(n)). n = 0 yields to
  // the other events of the current tick.
  WakeAt cycles(Cycles n) const { return WakeAt(*queue_, edge(cycle_at(queue_->now()) + n)); }

 private:
  // The conversions whose product overflows 64 bits (128-bit arithmetic, checked).
  Tick edge_wide(Cycles k) const;
  Cycles cycle_at_wide(Tick t) const;

  EventQueue* queue_;
  std::uint64_t hz_;
  // Period = num_ / den_ picoseconds, reduced.
  std::uint64_t num_;
  std::uint64_t den_;
  // Every cycle <-> tick conversion divides by one of the two: a multiply instead of a divide
  // (conversions run several times per memory request).
  FastDiv num_div_;
  FastDiv den_div_;
  mutable Tick memo_tick_ = kMaxTick;  // first_cycle_from()'s last answer
  mutable Cycles memo_cycle_ = 0;
};

}  // namespace xpusim::sim
