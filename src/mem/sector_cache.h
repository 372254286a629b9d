// SectorCache: the tag array shared by the L1 and the L2 timing models. Set-associative with
// true LRU; each line holds per-sector valid and dirty bits (NVIDIA's 128 B lines of four 32 B
// sectors: a line's tag is allocated once, its sectors fill independently). Set index = line
// number mod sets, so the set count need not be a power of two (H100's 640 KiB slices).
// Pure bookkeeping: no time, no stats; the owning component counts.
#pragma once

#include <cstdint>
#include <vector>

namespace xpusim::mem {

class SectorCache {
 public:
  struct Line {
    std::uint64_t line = 0;   // line number (address / line bytes); meaningful when in_use
    std::uint32_t valid = 0;  // sector bits
    std::uint32_t dirty = 0;  // sector bits, a subset of valid
    std::uint64_t last_use = 0;
    bool in_use = false;
  };
  struct Victim {
    bool evicted = false;  // a line that was in use had to leave
    std::uint64_t line = 0;
    std::uint32_t valid = 0;
    std::uint32_t dirty = 0;
  };

  // `bytes` rounds down to whole sets of `ways` lines; fewer bytes than one set give a cache
  // with no sets, which never hits and never allocates.
  SectorCache(std::uint64_t bytes, std::uint32_t ways, std::uint32_t line_bytes);

  std::uint32_t sets() const { return sets_; }
  std::uint32_t ways() const { return ways_; }
  std::uint64_t capacity_bytes() const { return std::uint64_t{sets_} * ways_ * line_bytes_; }

  // The line if it is present; does not change the LRU order.
  Line* find(std::uint64_t line);
  // Marks the line most recently used.
  void touch(Line& l) { l.last_use = ++clock_; }
  // Returns the line, allocating it (as most recently used, no sectors valid) in its set's
  // free or least recently used way when absent; `victim` says what was evicted.
  // Requires sets() > 0.
  Line& allocate(std::uint64_t line, Victim& victim);
  // Drops every line (a carve-out change flushes the L1).
  void clear();

 private:
  std::uint32_t ways_;
  std::uint32_t line_bytes_;
  std::uint32_t sets_;
  std::vector<Line> lines_;  // sets_ x ways_
  std::uint64_t clock_ = 0;  // LRU stamp: monotonic, so ties cannot happen
};

}  // namespace xpusim::mem
