#include "mem/sector_cache.h"

#include <algorithm>
#include <bit>
#include <cstring>

#include "sim/result.h"

namespace xpusim::mem {

SectorCache::SectorCache(std::uint64_t bytes, std::uint32_t ways, std::uint32_t line_bytes,
                         SetIndex index)
    : ways_(ways), line_bytes_(line_bytes), hashed_(index == SetIndex::kHash) {
  XPUSIM_CHECK(ways > 0 && line_bytes > 0, "a cache needs ways and a line size");
  XPUSIM_CHECK(ways <= 256, "at most 256 ways (the LRU list holds way numbers in bytes)");
  const std::uint64_t sets = bytes / (std::uint64_t{ways} * line_bytes);
  XPUSIM_CHECK(sets <= 0xFFFF'FFFFu, "too many sets");
  sets_ = static_cast<std::uint32_t>(sets);
  sets_div_ = sim::FastDiv(std::max<std::uint64_t>(sets_, 1));
  ways_div_ = sim::FastDiv(ways_);
  const std::size_t n = std::size_t{sets_} * ways_;
  tags_.assign(n, kFree);
  lines_.assign(n, Line{});
  lru_.resize(n);
  for (std::size_t i = 0; i < n; ++i)
    lru_[i] = static_cast<std::uint8_t>(i % ways_);
}

namespace {
__extension__ using U128 = unsigned __int128;

// Moves the first `n` entries of an LRU list back one place. A whole list of 4 or 16 ways
// less its last entry (a fill's victim, the usual geometries) moves as one shifted register:
// a memmove of 15 overlapping bytes was a call to libc for every L2 fill.
template <class Word>
void shift_list(std::uint8_t* order) {
  Word v;
  std::memcpy(&v, order, sizeof v);
  v <<= 8;  // byte i to i + 1 (little-endian); the caller writes byte 0
  std::memcpy(order, &v, sizeof v);
}

void move_back_one(std::uint8_t* order, std::size_t n, std::uint32_t ways) {
  if constexpr (std::endian::native == std::endian::little) {
    if (n + 1 == ways && ways == 16) return shift_list<U128>(order);
    if (n + 1 == ways && ways == 4) return shift_list<std::uint32_t>(order);
  }
  std::memmove(order + 1, order, n);
}
}  // namespace

void SectorCache::touch(std::size_t set, std::uint32_t way) {
  std::uint8_t* order = &lru_[set * ways_];
  if (order[0] == way) return;
  const auto* at =
      static_cast<const std::uint8_t*>(std::memchr(order, static_cast<int>(way), ways_));
  move_back_one(order, static_cast<std::size_t>(at - order), ways_);
  order[0] = static_cast<std::uint8_t>(way);
}

SectorCache::Line& SectorCache::allocate(std::uint64_t line, std::size_t set, Victim& victim) {
  XPUSIM_CHECK(sets_ > 0, "allocate in a cache with no sets");
  XPUSIM_CHECK(line != kFree, "line number out of range");
  victim = Victim{};
  const std::size_t first = set * ways_;
  std::uint64_t* tags = &tags_[first];
  // The way holding the line, else the first free way, else the least recently used one.
  // Ways fill in order and are freed only all together (clear()), so a set's free ways are
  // its last ones.
  std::uint32_t pick = 0;
  if (tags[ways_ - 1] != kFree) {
    // A full set (the usual case once warm): four tags a step, without a branch each.
    while (pick + 4 <= ways_ && ((tags[pick] == line) | (tags[pick + 1] == line) |
                                 (tags[pick + 2] == line) | (tags[pick + 3] == line)) == 0)
      pick += 4;
  }
  for (; pick < ways_ && tags[pick] != kFree; ++pick) {
    if (tags[pick] == line) {
      touch(set, pick);
      return lines_[first + pick];
    }
  }
  if (pick == ways_) {
    // The least recently used way is the list's last: no search to move it to the front.
    std::uint8_t* order = &lru_[first];
    pick = order[ways_ - 1];
    const Line& old = lines_[first + pick];
    victim = Victim{.evicted = true, .line = tags[pick], .valid = old.valid, .dirty = old.dirty};
    move_back_one(order, ways_ - 1, ways_);
    order[0] = static_cast<std::uint8_t>(pick);
  } else {
    touch(set, pick);
  }
  tags[pick] = line;
  lines_[first + pick] = Line{};
  return lines_[first + pick];
}

void SectorCache::clear() {
  std::fill(tags_.begin(), tags_.end(), kFree);
  std::fill(lines_.begin(), lines_.end(), Line{});
}

}  // namespace xpusim::mem
