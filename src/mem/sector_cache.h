// SectorCache: the tag array shared by the L1 and the L2 timing models. Set-associative with
// true LRU; each line holds per-sector valid and dirty bits (NVIDIA's 128 B lines of four 32 B
// sectors: a line's tag is allocated once, its sectors fill independently). The set index is
// the line number, or a hash of it (SetIndex), modulo the sets, so the set count need not be a
// power of two (H100's 640 KiB slices).
// Pure bookkeeping: no time, no stats; the owning component counts.
//
// Layout (for simulation speed, docs/performance.md): a chip's L2 tags are megabytes, so a
// lookup misses the host's caches. Tags and sector bits live in separate arrays, so a lookup
// scans only the set's tags (8 B a way: 128 B for 16 ways), and the LRU order is a list of way
// numbers per set (1 B a way, small enough to stay in the host's caches) instead of a 64-bit
// time stamp per way. Ways are never freed one by one, so the least recently used way of a
// full set is the last of its list: the same choice as the oldest stamp.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/fast_div.h"
#include "sim/host_lines.h"
#include "sim/prefetch.h"
#include "sim/result.h"

namespace xpusim::mem {

// How a line number picks its set.
enum class SetIndex {
  kModulo,  // line mod sets: lines a multiple of `sets` apart share a set
  kHash,    // a multiplicative hash of the line, mod sets: strided lines spread over the sets
};

class alignas(64) SectorCache {
 public:
  // The state of one way's line (its tag and LRU stamp are kept apart, see above).
  struct Line {
    std::uint32_t valid = 0;  // sector bits
    std::uint32_t dirty = 0;  // sector bits, a subset of valid
  };
  struct Victim {
    bool evicted = false;  // a line that was in use had to leave
    std::uint64_t line = 0;
    std::uint32_t valid = 0;
    std::uint32_t dirty = 0;
  };

  // `bytes` rounds down to whole sets of `ways` lines; fewer bytes than one set give a cache
  // with no sets, which never hits and never allocates.
  SectorCache(std::uint64_t bytes, std::uint32_t ways, std::uint32_t line_bytes,
              SetIndex index = SetIndex::kModulo);

  std::uint32_t sets() const { return sets_; }
  std::uint32_t ways() const { return ways_; }
  std::uint64_t capacity_bytes() const { return std::uint64_t{sets_} * ways_ * line_bytes_; }

  // The set `line` maps to (sets() > 0): for callers that look it up more than once.
  std::size_t set_index(std::uint64_t line) const { return set_of(line); }
  // The line if it is present; does not change the LRU order.
  Line* find(std::uint64_t line) {
    if (sets_ == 0) return nullptr;
    return find(line, set_of(line));
  }
  // The same in its set, `set_index(line)`.
  Line* find(std::uint64_t line, std::size_t set) {
    if (line == kFree) return nullptr;
    const std::size_t first = set * ways_;
    const std::uint64_t* tags = &tags_[first];
    for (std::uint32_t w = 0; w < ways_; ++w) {
      if (tags[w] == line) return &lines_[first + w];
    }
    return nullptr;
  }
  // Starts loading the host memory a lookup of `line` reads (its set's tags and sector bits);
  // no effect on the cache's state.
  void prefetch(std::uint64_t line) const {
    if (sets_ > 0) prefetch_set(set_of(line));
  }
  void prefetch_set(std::size_t set) const {
    const std::size_t first = set * ways_;
    sim::prefetch_range(&tags_[first], ways_ * sizeof(std::uint64_t));
    sim::prefetch_range(&lines_[first], ways_ * sizeof(Line));
    sim::prefetch_range(&lru_[first], ways_);
  }
  // Lines (ways) in all: a Line's index below is in [0, size()).
  std::size_t size() const { return lines_.size(); }
  // The index of one of this cache's lines, for state kept beside the cache.
  std::size_t index_of(const Line& l) const { return static_cast<std::size_t>(&l - lines_.data()); }
  // Marks the line most recently used.
  void touch(Line& l) {
    const auto i = static_cast<std::size_t>(&l - lines_.data());
    const std::size_t set = ways_div_.div(i);
    touch(set, static_cast<std::uint32_t>(i - set * ways_));
  }
  // Returns the line, allocating it (as most recently used, no sectors valid) in its set's
  // free or least recently used way when absent; `victim` says what was evicted.
  // Requires sets() > 0.
  Line& allocate(std::uint64_t line, Victim& victim) {
    return allocate(line, set_of(line), victim);
  }
  // The same in its set, `set_index(line)`.
  Line& allocate(std::uint64_t line, std::size_t set, Victim& victim);
  // allocate(), except that the victim is the least recently used way whose line `keep` does
  // not hold on to (an L1's pinned lines stay). Null when the line is absent and every way is
  // kept: nothing is allocated. `skipped` is set when a kept way was passed over for it.
  template <class Keep>
  Line* allocate_keeping(std::uint64_t line, Victim& victim, bool& skipped, Keep&& keep) {
    XPUSIM_CHECK(sets_ > 0, "allocate in a cache with no sets");
    skipped = false;
    const std::size_t set = set_of(line);
    if (Line* l = find(line, set)) {
      touch(*l);
      victim = Victim{};
      return l;
    }
    const std::size_t first = set * ways_;
    if (tags_[first + ways_ - 1] == kFree) return &allocate(line, set, victim);
    const std::uint8_t* order = &lru_[first];
    for (std::uint32_t k = ways_; k-- > 0;) {
      const std::uint32_t way = order[k];
      if (keep(tags_[first + way])) {
        skipped = true;
        continue;
      }
      const Line& old = lines_[first + way];
      victim = Victim{
          .evicted = true, .line = tags_[first + way], .valid = old.valid, .dirty = old.dirty};
      touch(set, way);
      tags_[first + way] = line;
      lines_[first + way] = Line{};
      return &lines_[first + way];
    }
    victim = Victim{};
    return nullptr;
  }
  // Drops every line (a carve-out change flushes the L1).
  void clear();
  // Set sampling (docs/memory-hierarchy.md): whether `line`'s set is one of every `factor`.
  bool in_sampled_set(std::uint64_t line, std::uint32_t factor) const {
    return set_of(line) % factor == 0;
  }
  bool hashed() const { return hashed_; }

 private:
  // The tag of a free way. No line number reaches it (it would need 1-byte lines and the last
  // byte of the 64-bit address space); allocate() refuses it.
  static constexpr std::uint64_t kFree = ~std::uint64_t{0};

  std::size_t set_of(std::uint64_t line) const {
    // Fibonacci hashing: the product's upper bits depend on every bit of the line. Not the
    // address map's XOR fold, which picks the L2 slice: a set index equal to it mod the slice
    // count would leave most of each slice's sets unused.
    const std::uint64_t key = hashed_ ? (line * 0x9E37'79B9'7F4A'7C15ull) >> 24 : line;
    return static_cast<std::size_t>(sets_div_.mod(key));
  }
  // Moves `way` of `set` to the front of the set's LRU list.
  void touch(std::size_t set, std::uint32_t way);

  // A lookup's fields first: the object is two host lines, and a lookup from cold (an L1's
  // fill, its prefetch hint) reads only the first two (it read three).
  std::uint32_t ways_;
  std::uint32_t line_bytes_;
  std::uint32_t sets_;
  bool hashed_;
  sim::FastDiv sets_div_;
  // sets_ x ways_ each, way-major within a set; from a host line's start, so that a set of a
  // power-of-two ways spans as few host lines as it fills.
  sim::HostLineVector<std::uint64_t> tags_;  // line number, or kFree
  sim::HostLineVector<Line> lines_;
  sim::HostLineVector<std::uint8_t> lru_;  // per set: its way numbers, most recently used first
  sim::FastDiv ways_div_;
};

}  // namespace xpusim::mem
