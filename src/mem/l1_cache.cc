#include "mem/l1_cache.h"

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
      evictions_(add_counter("evictions", "count", "lines replaced by a fill")) {
  add_formula("capacity", "bytes", "L1 capacity after the shared-memory carve-out",
              [this] { return static_cast<double>(tags_.capacity_bytes()); });
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
  tags_.allocate(line, v).valid |= sectors;
  if (v.evicted) ++evictions_;
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
  params_.bytes = bytes;
  tags_ = SectorCache(bytes, params_.ways, line_bytes_);
}

}  // namespace xpusim::mem
