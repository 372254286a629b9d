#include "mem/sector_cache.h"

#include <algorithm>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "mem/address_map.h"

namespace xpusim::mem {
namespace {

// H100's: 80 slices in two partitions, 80 HBM channels.
PhysicalAddressMap h100_map() {
  return PhysicalAddressMap({.line_bytes = 128,
                             .sector_bytes = 32,
                             .l2_slices = 80,
                             .l2_partitions = 2,
                             .hbm_channels = 80,
                             .hbm_interleave_bytes = 256});
}

TEST(SectorCache, LruEvictsTheLeastRecentlyUsedWayOfTheSet) {
  SectorCache c(/*bytes=*/2 * 4 * 128, /*ways=*/4, /*line_bytes=*/128);  // 2 sets
  ASSERT_EQ(c.sets(), 2u);
  SectorCache::Victim v;
  for (std::uint64_t line : {0, 2, 4, 6}) {  // all in set 0
    c.allocate(line, v).valid = 1;
    EXPECT_FALSE(v.evicted);
  }
  c.allocate(1, v);  // set 1: no effect on set 0
  EXPECT_FALSE(v.evicted);
  c.touch(*c.find(0));  // 0 becomes most recent: 2 is now the oldest
  c.allocate(8, v);
  ASSERT_TRUE(v.evicted);
  EXPECT_EQ(v.line, 2u);
  c.allocate(10, v);
  EXPECT_EQ(v.line, 4u);
  EXPECT_NE(c.find(0), nullptr);
  EXPECT_EQ(c.find(2), nullptr);
}

// A naive true-LRU cache: per set its lines with a last-use stamp, the oldest evicted.
class NaiveLru {
 public:
  struct Entry {
    std::uint64_t line, stamp;
    std::uint32_t valid, dirty;
  };
  NaiveLru(std::uint32_t sets, std::uint32_t ways) : sets_(sets), ways_(ways), set_(sets) {}
  Entry* find(std::uint64_t line) {
    for (Entry& e : set_[line % sets_])
      if (e.line == line) return &e;
    return nullptr;
  }
  void touch(Entry& e) { e.stamp = ++now_; }
  Entry& allocate(std::uint64_t line, SectorCache::Victim& v) {
    v = {};
    if (Entry* e = find(line)) {
      touch(*e);
      return *e;
    }
    auto& set = set_[line % sets_];
    if (set.size() == ways_) {
      auto oldest = std::min_element(
          set.begin(), set.end(), [](const Entry& a, const Entry& b) { return a.stamp < b.stamp; });
      v = {.evicted = true, .line = oldest->line, .valid = oldest->valid, .dirty = oldest->dirty};
      set.erase(oldest);
    }
    set.push_back({.line = line, .stamp = ++now_, .valid = 0, .dirty = 0});
    return set.back();
  }
  void clear() {
    for (auto& set : set_)
      set.clear();
  }

 private:
  std::uint32_t sets_, ways_;
  std::uint64_t now_ = 0;
  std::vector<std::vector<Entry>> set_;
};

TEST(SectorCache, MatchesANaiveLruOverRandomTraffic) {
  std::mt19937_64 rng(20261126);
  for (const std::uint32_t ways : {1u, 2u, 3u, 4u, 5u, 8u, 12u, 16u, 17u}) {
    const std::uint32_t sets = 3;
    SectorCache c(std::uint64_t{sets} * ways * 128, ways, 128);
    NaiveLru ref(sets, ways);
    for (int step = 0; step < 20000; ++step) {
      const std::uint64_t line = rng() % (std::uint64_t{sets} * ways * 2);
      const auto op = rng() % 100;
      if (op < 1) {  // a carve-out change: every way free again
        c.clear();
        ref.clear();
      } else if (op < 70) {
        SectorCache::Victim got, want;
        SectorCache::Line& l = c.allocate(line, got);
        NaiveLru::Entry& e = ref.allocate(line, want);
        ASSERT_EQ(got.evicted, want.evicted) << ways << " ways, step " << step;
        if (want.evicted) {
          ASSERT_EQ(got.line, want.line) << ways << " ways, step " << step;
          ASSERT_EQ(got.valid, want.valid);
          ASSERT_EQ(got.dirty, want.dirty);
        }
        ASSERT_EQ(l.valid, e.valid);
        ASSERT_EQ(l.dirty, e.dirty);
        const auto valid = static_cast<std::uint32_t>(rng() % 16);
        const auto dirty = valid & static_cast<std::uint32_t>(rng() % 16);
        l.valid |= valid;
        e.valid |= valid;
        l.dirty |= dirty;
        e.dirty |= dirty;
      } else {
        SectorCache::Line* l = c.find(line);
        NaiveLru::Entry* e = ref.find(line);
        ASSERT_EQ(l != nullptr, e != nullptr) << ways << " ways, step " << step;
        if (e != nullptr && op < 90) {  // a hit that counts as a use
          c.touch(*l);
          ref.touch(*e);
        }
      }
    }
  }
}

TEST(SectorCache, FewerBytesThanOneSetMeansNoSets) {
  SectorCache c(100, 4, 128);
  EXPECT_EQ(c.sets(), 0u);
  EXPECT_EQ(c.find(0), nullptr);
}

// The rows of a TMA box of a 4096-wide bf16 matrix are 8 KiB = 64 lines apart. In an H100
// slice (640 KiB, 16 ways: 320 sets) they share 5 sets under the modulo index, so 320 of them
// keep only 80; the hash spreads them over the sets and they all stay.
TEST(SectorCache, AHashedSetIndexSpreadsStridedLinesTheModuloCrowds) {
  for (const SetIndex index : {SetIndex::kModulo, SetIndex::kHash}) {
    SectorCache c(640 * 1024, 16, 128, index);
    ASSERT_EQ(c.sets(), 320u);
    SectorCache::Victim v;
    int evicted = 0;
    for (std::uint64_t r = 0; r < 320; ++r) {
      c.allocate(1'000'003 + 64 * r, v);
      evicted += v.evicted ? 1 : 0;
    }
    EXPECT_EQ(evicted, index == SetIndex::kModulo ? 240 : 0);
  }
}

// The hash must not follow the address map's slice choice: one slice's lines (every 80th
// after the fold) still reach nearly all of its sets, as independent picks would (an
// expected 319 of 320 for 2 000 lines).
TEST(SectorCache, AHashedSetIndexIsIndependentOfTheSlice) {
  const PhysicalAddressMap map = h100_map();
  const SectorCache c(640 * 1024, 16, 128, SetIndex::kHash);
  std::vector<bool> used(c.sets());
  int lines = 0;
  for (std::uint64_t line = 0; lines < 2000; ++line) {
    if (map.slice_of_line(line) != 7) continue;
    used[c.set_index(line)] = true;
    ++lines;
  }
  EXPECT_GE(std::count(used.begin(), used.end(), true), 310);
}

// sector_mask against a byte-by-byte walk, on power-of-two maps (masks and shifts, up to 32
// sectors a line) and others (divides).
TEST(AddressMap, SectorMaskIsTheSectorsOfEveryByteInTheLine) {
  const std::pair<std::uint32_t, std::uint32_t> shapes[] = {{128, 32}, {1024, 32}, {64, 64},
                                                            {96, 32},  {192, 64},  {128, 4}};
  std::uint64_t seed = 12345;
  for (const auto& [line, sector] : shapes) {
    const PhysicalAddressMap map(AddressMapParams{.line_bytes = line, .sector_bytes = sector});
    for (int i = 0; i < 2000; ++i) {
      seed = seed * 6364136223846793005u + 1442695040888963407u;
      const std::uint64_t a = (seed >> 20) % (1u << 20);
      const std::uint64_t bytes = 1 + (seed >> 50) % (2 * line);
      std::uint32_t want = 0;
      const std::uint64_t base = a / line * line;
      for (std::uint64_t b = a; b < a + bytes && b < base + line; ++b)
        want |= 1u << ((b - base) / sector);
      ASSERT_EQ(map.sector_mask(a, bytes), want)
          << line << "/" << sector << " at " << a << " +" << bytes;
      ASSERT_EQ(map.line_offset(a), a - base);
    }
    EXPECT_EQ(map.sector_mask(5, 0), 0u);
  }
}

TEST(AddressMap, SlicesAndChannelsSpreadSequentialAndPowerOfTwoStrides) {
  const PhysicalAddressMap map = h100_map();
  // Consecutive lines are round-robin over the slices.
  for (std::uint64_t line = 0; line < 80; ++line)
    EXPECT_EQ(map.slice_of_line(line), line);
  // A 4 KiB stride (32 lines) hits 5 slices under a plain modulo; the fold spreads it wider.
  std::vector<bool> seen(80);
  for (std::uint64_t i = 0; i < 512; ++i)
    seen[map.slice_of_line(i * 32)] = true;
  EXPECT_GE(std::count(seen.begin(), seen.end(), true), 40);
  EXPECT_EQ(map.partition_of_slice(39), 0u);
  EXPECT_EQ(map.partition_of_slice(40), 1u);
  EXPECT_EQ(map.sector_mask(0x1010, 0x20), 0x3u);
  EXPECT_EQ(map.sector_mask(0x1070, 0x100), 0x8u);  // clipped to the line
  EXPECT_EQ(map.channel_of(0x0), map.channel_of(0xFF));
}

}  // namespace
}  // namespace xpusim::mem
