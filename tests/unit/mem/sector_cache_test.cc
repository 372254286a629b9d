#include "mem/sector_cache.h"

#include <algorithm>
#include <vector>

#include <gtest/gtest.h>

#include "mem/address_map.h"

namespace xpusim::mem {
namespace {

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

TEST(SectorCache, FewerBytesThanOneSetMeansNoSets) {
  SectorCache c(100, 4, 128);
  EXPECT_EQ(c.sets(), 0u);
  EXPECT_EQ(c.find(0), nullptr);
}

TEST(AddressMap, SlicesAndChannelsSpreadSequentialAndPowerOfTwoStrides) {
  const PhysicalAddressMap map({.line_bytes = 128,
                                .sector_bytes = 32,
                                .l2_slices = 80,
                                .l2_partitions = 2,
                                .hbm_channels = 80,
                                .hbm_interleave_bytes = 256});
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
