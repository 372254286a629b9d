// TranslationCache: an SM's small cache of page-table translations for mm B fetches through
// a segment (seed2 ¶61–63, docs/page-table.md "Timing"). Fully associative, least recently
// used, keyed by (segment, page id). A miss costs the SM a PTE load through the memory
// hierarchy; the entry is filled when that load is back. Every entry is tagged with the page
// table's generation: a lookup or fill under a newer one flushes the whole cache first, so an
// evicted page's translation is never used (a shootdown).
#pragma once

#include <cstdint>
#include <list>
#include <unordered_map>

namespace xpusim::mem {

struct TranslationCacheCounts {
  std::uint64_t hits = 0;
  std::uint64_t misses = 0;
  std::uint64_t evictions = 0;  // entries pushed out by a fill (least recently used)
  std::uint64_t flushes = 0;    // whole-cache flushes for a newer page-table generation
};

class TranslationCache {
 public:
  // `entries` = 0: no cache, every lookup misses.
  explicit TranslationCache(std::uint32_t entries) : entries_(entries) {}

  // Whether (seg, page) is cached under `generation`; a hit becomes the most recently used.
  bool lookup(std::uint32_t seg, std::uint64_t page, std::uint64_t generation);
  // Caches (seg, page) as the most recently used, evicting the least recently used when full.
  // A fill under an older generation than the cache's is dropped (its PTE may be stale).
  void fill(std::uint32_t seg, std::uint64_t page, std::uint64_t generation);

  std::uint32_t capacity() const { return entries_; }
  std::size_t size() const { return lru_.size(); }
  const TranslationCacheCounts& counts() const { return counts_; }

 private:
  struct Key {
    std::uint32_t seg;
    std::uint64_t page;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    std::size_t operator()(const Key& k) const {
      return std::hash<std::uint64_t>{}(k.page * 0x9E37'79B9'7F4A'7C15ull ^ k.seg);
    }
  };
  // Flushes when `generation` is newer than the cache's; false when it is older.
  bool current(std::uint64_t generation);

  std::uint32_t entries_;
  std::uint64_t generation_ = 0;
  std::list<Key> lru_;  // most recently used first
  std::unordered_map<Key, std::list<Key>::iterator, KeyHash> where_;
  TranslationCacheCounts counts_;
};

}  // namespace xpusim::mem
