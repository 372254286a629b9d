// InFlight: the completion ticks of a TMA unit's lines in flight, for its outstanding limit
// (issue_box): add a tick, see and remove the earliest. A radix heap (Ahuja et al., "Faster
// algorithms for the shortest path problem", 1990): a tick is filed by the highest bit in
// which it differs from the last one removed, so a push is an append and each tick moves
// down a few buckets before it is removed. It needs what issue_box guarantees: a tick added
// is never earlier than one removed (a line lands after it issues, and only lines landed by
// the issue tick are removed). One ascending array was cheap when lines came back in order,
// but a hit issued behind misses moved past every miss of the last few hundred cycles.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/result.h"
#include "sim/tick.h"

namespace xpusim::tma {

class InFlight {
 public:
  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  // The earliest tick (not empty()).
  sim::Tick front() {
    if (!buckets_[0].empty()) return last_;
    return least_ != kUnknown ? least_ : (least_ = least_of(buckets_[first_bucket()]));
  }
  void pop() {
    if (buckets_[0].empty()) refill();
    buckets_[0].pop_back();
    if (--size_ == 0 || buckets_[0].empty()) least_ = kUnknown;
  }
  void push(sim::Tick t) {
    XPUSIM_CHECK(t >= last_, "TMA in-flight ticks: a line lands before one already removed");
    const std::size_t b = bucket_of(t);
    buckets_[b].push_back(t);
    if (b != 0) occupied_ |= std::uint64_t{1} << (b - 1);
    if (size_++ == 0 || (least_ != kUnknown && t < least_)) least_ = t;
  }

 private:
  static constexpr sim::Tick kUnknown = ~sim::Tick{0};
  std::size_t bucket_of(sim::Tick t) const {
    return static_cast<std::size_t>(std::bit_width(t ^ last_));
  }
  // The lowest non-empty bucket above 0.
  std::size_t first_bucket() {
    for (;;) {
      const std::size_t b = static_cast<std::size_t>(std::countr_zero(occupied_)) + 1;
      if (!buckets_[b].empty()) return b;
      occupied_ &= ~(std::uint64_t{1} << (b - 1));
    }
  }
  static sim::Tick least_of(const std::vector<sim::Tick>& ticks) {
    sim::Tick least = ticks[0];
    for (const sim::Tick t : ticks)
      least = t < least ? t : least;
    return least;
  }
  // Bucket 0 is empty: the least tick becomes the last one removed, and its bucket's ticks
  // move down (each to a lower bucket: they share its bits above the one that moved it).
  void refill() {
    const std::size_t from = first_bucket();
    std::vector<sim::Tick>& ticks = buckets_[from];
    last_ = least_ != kUnknown ? least_ : least_of(ticks);
    for (const sim::Tick t : ticks) {
      const std::size_t b = bucket_of(t);
      buckets_[b].push_back(t);
      if (b != 0) occupied_ |= std::uint64_t{1} << (b - 1);
    }
    ticks.clear();
    occupied_ &= ~(std::uint64_t{1} << (from - 1));
    least_ = last_;
  }

  std::array<std::vector<sim::Tick>, 65> buckets_;
  std::uint64_t occupied_ = 0;  // bit b-1: bucket b may hold ticks
  sim::Tick last_ = 0;          // the last tick removed (or moved into bucket 0)
  sim::Tick least_ = kUnknown;  // the earliest tick held, if known
  std::size_t size_ = 0;
};

}  // namespace xpusim::tma
