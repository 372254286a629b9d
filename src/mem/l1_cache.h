// L1Cache: the L1 data cache of one SM, timing only. Sectored (128 B lines, 32 B sectors),
// set-associative, true LRU. Its capacity is what the shared-memory carve-out leaves of the
// unified L1/shared array, so it is a parameter (resize() on a carve-out change flushes it).
//
// Policies (NVIDIA's behaviour for global memory; sources and caveats in
// docs/memory-hierarchy.md):
//  - loads allocate: missing sectors are fetched from L2 and filled when they return (the
//    line's tag is allocated at the fill; requested sectors only, no whole-line fetch);
//  - stores are write-through and no-allocate: the store always goes on to L2; a store to a
//    resident line updates it in place, a store to an absent line does not allocate.
//  - pinned lines (pin/unpin) are never a fill's victim: the least recently used unpinned way
//    is, and a fill into a set whose ways are all pinned is not cached (the data still
//    reaches the SM).
// Not modelled: L1 MSHRs (two misses to one line both go to L2, where they merge), the
// texture path, and cache operators other than .cg (MemorySystem::load's `cache_in_l1`).
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>

#include "mem/sector_cache.h"
#include "sim/component.h"

namespace xpusim::mem {

struct L1Params {
  std::uint64_t bytes = 32 * 1024;
  std::uint32_t ways = 4;
  sim::Cycles hit_latency_cycles = 32;  // SM clock
};

class L1Cache : public sim::Component {
 public:
  L1Cache(Component& parent, std::string name, const L1Params& params, std::uint32_t line_bytes);

  // A load of `sectors` of `line`: returns the sectors that miss (0 = hit) and marks the line
  // most recently used when present.
  std::uint32_t load(std::uint64_t line, std::uint32_t sectors);
  // Sectors returned by L2 for a load: allocates the line if needed (LRU victim, never dirty).
  void fill(std::uint64_t line, std::uint32_t sectors);
  // A store (write-through, no-allocate): updates a resident line, never allocates.
  void store(std::uint64_t line, std::uint32_t sectors);
  // New capacity (a different shared-memory carve-out); the contents are dropped.
  void resize(std::uint64_t bytes);

  const SectorCache& tags() const { return tags_; }
  const L1Params& params() const { return params_; }
  bool contains(std::uint64_t line, std::uint32_t sectors);

  // Pins `line` against eviction (an mm's retained t1 row, seed2 ¶122-125): its tag is
  // allocated now if absent (no sectors valid; the load that follows fills them) and no fill
  // evicts it until every pin is released. False, and nothing pinned, when every way of its
  // set already holds a pinned line. Pins count: a line pinned twice needs two unpins.
  bool pin(std::uint64_t line);
  void unpin(std::uint64_t line);
  std::size_t pinned_lines() const { return pins_.size(); }

 private:
  L1Params params_;
  std::uint32_t line_bytes_;
  SectorCache tags_;
  sim::Counter& load_hits_;
  sim::Counter& load_misses_;
  sim::Counter& sector_misses_;
  sim::Counter& store_hits_;
  sim::Counter& store_misses_;
  sim::Counter& evictions_;
  sim::Counter& pins_made_;
  sim::Counter& pin_refusals_;
  sim::Counter& pin_skips_;
  sim::Counter& pin_bypasses_;
  std::unordered_map<std::uint64_t, std::uint32_t> pins_;  // line → pins held
  std::size_t pinned_peak_ = 0;
};

}  // namespace xpusim::mem
