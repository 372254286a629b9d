#include "mem/l1_cache.h"

#include <algorithm>

namespace xpusim::mem {

L1Cache::L1Cache(Component& parent, std::string name, const L1Params& params,
                 std::uint32_t line_bytes)
    : Component(parent, name),
      params_(params),
      line_bytes_(line_bytes),
      tags_(params.bytes, params.ways, line_bytes),
      load_hits_(add_counter("load_hits", "count", "loads whose sectors were all resident")),
      load_misses_(add_counter("load_misses", "count", "loads that went to L2")),
      sector_misses_(add_counter("sector_misses", "count", "sectors loads fetched from L2")),
      store_hits_(add_counter("store_hits", "count", "stores to a resident line (updated)")),
      store_misses_(add_counter("store_misses", "count", "stores to an absent line (no allocate)")),
      evictions_(add_counter("evictions", "count", "lines replaced by a fill")),
      pins_made_(add_counter("pins", "lines", "lines pinned by mm t1 retention (seed2 ¶122-125)")),
      pin_refusals_(add_counter("pin_refusals", "lines",
                                "pins refused: every way of the line's set held a pinned line")),
      pin_skips_(add_counter("pin_skips", "count",
                             "fills whose least recently used way was pinned, so a more "
                             "recently used line was evicted instead")),
      pin_bypasses_(add_counter("pin_bypasses", "count",
                                "fills not cached because every way of the set was pinned")) {
  add_formula("capacity", "bytes", "L1 capacity after the shared-memory carve-out",
              [this] { return static_cast<double>(tags_.capacity_bytes()); });
  add_formula("pinned_peak", "lines", "most lines pinned at once",
              [this] { return static_cast<double>(pinned_peak_); });
}

std::uint32_t L1Cache::load(std::uint64_t line, std::uint32_t sectors) {
  SectorCache::Line* l = tags_.find(line);
  if (l != nullptr) tags_.touch(*l);
  const std::uint32_t missing = sectors & ~(l == nullptr ? 0u : l->valid);
  if (missing == 0) {
    ++load_hits_;
  } else {
    ++load_misses_;
    sector_misses_ += static_cast<std::uint64_t>(__builtin_popcount(missing));
  }
  return missing;
}

void L1Cache::fill(std::uint64_t line, std::uint32_t sectors) {
  if (tags_.sets() == 0) return;  // all of the array is shared memory
  SectorCache::Victim v;
  if (pins_.empty()) {
    tags_.allocate(line, v).valid |= sectors;
  } else {
    bool skipped = false;
    SectorCache::Line* l = tags_.allocate_keeping(
        line, v, skipped, [this](std::uint64_t tag) { return pins_.contains(tag); });
    if (l == nullptr) {
      ++pin_bypasses_;
      return;
    }
    if (skipped) ++pin_skips_;
    l->valid |= sectors;
  }
  if (v.evicted) ++evictions_;
}

bool L1Cache::pin(std::uint64_t line) {
  if (tags_.sets() == 0) {
    ++pin_refusals_;
    return false;
  }
  if (const auto it = pins_.find(line); it != pins_.end()) {
    ++it->second;
    ++pins_made_;
    return true;
  }
  SectorCache::Victim v;
  bool skipped = false;
  SectorCache::Line* l = tags_.allocate_keeping(
      line, v, skipped, [this](std::uint64_t tag) { return pins_.contains(tag); });
  if (l == nullptr) {
    ++pin_refusals_;
    return false;
  }
  if (v.evicted) ++evictions_;
  if (skipped) ++pin_skips_;
  pins_.emplace(line, 1);
  pinned_peak_ = std::max(pinned_peak_, pins_.size());
  ++pins_made_;
  return true;
}

void L1Cache::unpin(std::uint64_t line) {
  const auto it = pins_.find(line);
  XPUSIM_CHECK(it != pins_.end(), "unpin of a line that is not pinned");
  if (--it->second == 0) pins_.erase(it);
}

void L1Cache::store(std::uint64_t line, std::uint32_t sectors) {
  SectorCache::Line* l = tags_.find(line);
  if (l == nullptr) {
    ++store_misses_;
    return;
  }
  ++store_hits_;
  tags_.touch(*l);
  l->valid |= sectors;  // the written bytes are current in L1 too (write-through)
}

bool L1Cache::contains(std::uint64_t line, std::uint32_t sectors) {
  const SectorCache::Line* l = tags_.find(line);
  return l != nullptr && (l->valid & sectors) == sectors;
}

void L1Cache::resize(std::uint64_t bytes) {
  pins_.clear();  // an SM takes a new carve-out idle; pins of a faulted kernel's mm go too
  params_.bytes = bytes;
  tags_ = SectorCache(bytes, params_.ways, line_bytes_);
}

}  // namespace xpusim::mem
