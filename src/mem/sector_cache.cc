#include "mem/sector_cache.h"

#include "sim/result.h"

namespace xpusim::mem {

SectorCache::SectorCache(std::uint64_t bytes, std::uint32_t ways, std::uint32_t line_bytes)
    : ways_(ways), line_bytes_(line_bytes) {
  XPUSIM_CHECK(ways > 0 && line_bytes > 0, "a cache needs ways and a line size");
  const std::uint64_t sets = bytes / (std::uint64_t{ways} * line_bytes);
  XPUSIM_CHECK(sets <= 0xFFFF'FFFFu, "too many sets");
  sets_ = static_cast<std::uint32_t>(sets);
  lines_.resize(std::size_t{sets_} * ways_);
}

SectorCache::Line* SectorCache::find(std::uint64_t line) {
  if (sets_ == 0) return nullptr;
  Line* set = &lines_[(line % sets_) * ways_];
  for (std::uint32_t w = 0; w < ways_; ++w) {
    if (set[w].in_use && set[w].line == line) return &set[w];
  }
  return nullptr;
}

SectorCache::Line& SectorCache::allocate(std::uint64_t line, Victim& victim) {
  XPUSIM_CHECK(sets_ > 0, "allocate in a cache with no sets");
  victim = Victim{};
  Line* set = &lines_[(line % sets_) * ways_];
  Line* pick = nullptr;
  for (std::uint32_t w = 0; w < ways_; ++w) {
    Line& l = set[w];
    if (l.in_use && l.line == line) {
      touch(l);
      return l;
    }
    if (!l.in_use) {
      if (pick == nullptr || pick->in_use) pick = &l;  // the first free way
    } else if (pick == nullptr || (pick->in_use && l.last_use < pick->last_use)) {
      pick = &l;
    }
  }
  if (pick->in_use) {
    victim =
        Victim{.evicted = true, .line = pick->line, .valid = pick->valid, .dirty = pick->dirty};
  }
  *pick = Line{.line = line, .valid = 0, .dirty = 0, .last_use = 0, .in_use = true};
  touch(*pick);
  return *pick;
}

void SectorCache::clear() {
  for (Line& l : lines_)
    l = Line{};
}

}  // namespace xpusim::mem
