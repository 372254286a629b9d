// LineTable<V>: a small map from a line number to a V, for the state an L2 slice keeps per
// line with a miss in flight (at most a few hundred entries). Open addressing with linear
// probing: the key lives in the slot, so a probe compares without touching anything else; at
// most half full (it doubles, the only allocation); backward-shift deletion, so no tombstones.
// Line numbers are below 2^64 - 1 (as in SectorCache), which marks a free slot.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>

#include "sim/host_lines.h"
#include "sim/prefetch.h"
#include "sim/result.h"

namespace xpusim::mem {

template <class V>
class LineTable {
 public:
  explicit LineTable(std::size_t expected = 8)
      : slots_(std::bit_ceil(std::max<std::size_t>(2 * expected, 2))) {
    sized();
  }

  // The line's value, or null.
  V* find(std::uint64_t line) {
    for (std::size_t i = home(line);; i = (i + 1) & mask()) {
      Slot& s = slots_[i];
      if (s.line == line) return &s.value;
      if (s.line == kFree) return nullptr;
    }
  }
  // Adds an absent line with a default value.
  V& insert(std::uint64_t line) {
    XPUSIM_CHECK(line != kFree, "line number out of range");
    if (2 * (size_ + 1) > slots_.size()) grow();
    ++size_;
    Slot& s = slots_[free_slot(line)];
    s = Slot{.line = line, .value = V{}};
    return s.value;
  }
  // Removes a present line.
  void erase(std::uint64_t line) {
    std::size_t i = home(line);
    while (slots_[i].line != line)
      i = (i + 1) & mask();
    // Pull later slots of the probe run into the hole when their home does not lie cyclically
    // in (hole, slot], so every line stays reachable from its home.
    for (std::size_t j = i;;) {
      j = (j + 1) & mask();
      const Slot& next = slots_[j];
      if (next.line == kFree) break;
      const std::size_t h = home(next.line);
      const bool stays = i <= j ? (i < h && h <= j) : (i < h || h <= j);
      if (stays) continue;
      slots_[i] = next;
      i = j;
    }
    slots_[i] = Slot{};
    --size_;
  }
  // For speed only: starts loading the slot a lookup of `line` reads first.
  void prefetch(std::uint64_t line) const { sim::prefetch(&slots_[home(line)]); }
  std::size_t size() const { return size_; }

 private:
  static constexpr std::uint64_t kFree = ~std::uint64_t{0};
  struct Slot {
    std::uint64_t line = kFree;
    V value{};
  };

  std::size_t mask() const { return mask_; }
  std::size_t home(std::uint64_t line) const {
    // Fibonacci hashing: the top bits of line x 2^64/phi spread consecutive lines.
    return static_cast<std::size_t>((line * 0x9E37'79B9'7F4A'7C15ull) >> shift_);
  }
  // Kept beside the slots: every probe step uses them.
  void sized() {
    mask_ = slots_.size() - 1;
    shift_ = 64 - static_cast<unsigned>(std::countr_zero(slots_.size()));
  }
  std::size_t free_slot(std::uint64_t line) const {
    std::size_t i = home(line);
    while (slots_[i].line != kFree)
      i = (i + 1) & mask();
    return i;
  }
  void grow() {
    sim::HostLineVector<Slot> old(2 * slots_.size());
    old.swap(slots_);
    sized();
    for (const Slot& s : old) {
      if (s.line != kFree) slots_[free_slot(s.line)] = s;
    }
  }

  sim::HostLineVector<Slot> slots_;  // a slot of 16 or 32 B never straddles two host lines
  std::size_t mask_ = 0;
  unsigned shift_ = 64;
  std::size_t size_ = 0;
};

}  // namespace xpusim::mem
