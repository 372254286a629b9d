// BusyMshrs: an L2 slice's busy MSHRs in the transaction-level timing, ordered by the tick each
// frees (ties by line number), the earliest first. A miss frees at its HBM booking's end plus
// the hit latency, so a new one is nearly always at or near the latest: a sorted ring takes it
// with a short move from the back, and the earliest leaves from the front, where a binary heap
// paid its log2(64) levels of two-field compares on both (docs/performance.md, "SM + memory
// hierarchy: full-chip streaming").
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/tick.h"

namespace xpusim::mem {

class BusyMshrs {
 public:
  struct Entry {
    sim::Tick free_at = 0;
    std::uint64_t line = 0;
    std::uint64_t set = 0;  // the line's set in the slice's tags (its fill allocates there)
  };

  // Room for `expected` entries without growing (it grows past them).
  explicit BusyMshrs(std::size_t expected = 64)
      : ring_(std::bit_ceil(expected < 2 ? 2 : expected)) {}

  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  // The earliest to free (not empty).
  const Entry& front() const { return ring_[head_]; }
  // Where insert() writes if the entry is the latest (for a prefetch hint).
  const Entry* back_slot() const { return &ring_[(head_ + size_) & mask()]; }
  Entry pop_front() {
    const Entry e = ring_[head_];
    head_ = (head_ + 1) & mask();
    --size_;
    return e;
  }
  // (Its fields one by one: an Entry the caller built on the stack and this copied whole was
  // a store-forwarding stall on every miss.)
  void insert(sim::Tick free_at, std::uint64_t line, std::uint64_t set) {
    if (size_ == ring_.size()) grow();
    // Move the later entries one place back, from the newest: usually none or a few.
    std::size_t i = size_;
    for (; i > 0; --i) {
      const Entry& before = ring_[(head_ + i - 1) & mask()];
      if (before.free_at < free_at || (before.free_at == free_at && before.line <= line)) break;
      ring_[(head_ + i) & mask()] = before;
    }
    Entry& e = ring_[(head_ + i) & mask()];
    e.free_at = free_at;
    e.line = line;
    e.set = set;
    ++size_;
  }

 private:
  std::size_t mask() const { return mask_; }
  void grow() {
    std::vector<Entry> bigger(2 * ring_.size());
    for (std::size_t i = 0; i < size_; ++i)
      bigger[i] = ring_[(head_ + i) & mask()];
    ring_.swap(bigger);
    mask_ = ring_.size() - 1;
    head_ = 0;
  }

  std::vector<Entry> ring_;  // a power of two
  std::size_t mask_ = ring_.size() - 1;
  std::size_t head_ = 0;
  std::size_t size_ = 0;
};

}  // namespace xpusim::mem
