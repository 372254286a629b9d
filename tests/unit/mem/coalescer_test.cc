// Coalescing: a warp access touches the set of 32 B sectors its active lanes cover, one
// request per 128 B line (CUDA Programming Guide, global memory, cc >= 6.0).
#include "mem/coalescer.h"

#include <array>

#include <gtest/gtest.h>

namespace xpusim::mem {
namespace {

std::array<Addr, 32> strided(Addr base, Addr stride) {
  std::array<Addr, 32> a{};
  for (std::size_t i = 0; i < a.size(); ++i)
    a[i] = base + i * stride;
  return a;
}

TEST(Coalescer, UnitStrideFourBytesIsFourSectorsOfOneLine) {
  const auto addrs = strided(0x1000, 4);
  const auto reqs = coalesce(addrs, 4, 0xFFFF'FFFFu);
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0].line_addr, 0x1000u);
  EXPECT_EQ(reqs[0].sector_mask, 0xFu);
  EXPECT_EQ(reqs[0].sectors(), 4u);
}

TEST(Coalescer, LineStrideIsOneRequestPerLane) {
  const auto addrs = strided(0x2000, 128);
  const auto reqs = coalesce(addrs, 4, 0xFFFF'FFFFu);
  ASSERT_EQ(reqs.size(), 32u);
  for (std::size_t i = 0; i < reqs.size(); ++i) {
    EXPECT_EQ(reqs[i].line_addr, 0x2000u + 128 * i) << "lane order";
    EXPECT_EQ(reqs[i].sector_mask, 1u);
  }
}

TEST(Coalescer, MisalignedWarpSpillsIntoTheNextLine) {
  // Bytes 0x3002 .. 0x3081: all of line 0x3000 and sector 0 of line 0x3080.
  const auto addrs = strided(0x3002, 4);
  const auto reqs = coalesce(addrs, 4, 0xFFFF'FFFFu);
  ASSERT_EQ(reqs.size(), 2u);
  EXPECT_EQ(reqs[0].line_addr, 0x3000u);
  EXPECT_EQ(reqs[0].sector_mask, 0xFu);
  EXPECT_EQ(reqs[1].line_addr, 0x3080u);
  EXPECT_EQ(reqs[1].sector_mask, 0x1u);
}

TEST(Coalescer, OneLaneCrossingASectorTouchesBoth) {
  std::array<Addr, 1> addr{0x401C};  // 8 bytes: 0x401C..0x4023, sectors 0 and 1
  const auto reqs = coalesce(addr, 8, 1u);
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0].sector_mask, 0x3u);
}

TEST(Coalescer, InactiveLanesTouchNothing) {
  const auto addrs = strided(0x5000, 4);
  const auto half = coalesce(addrs, 4, 0x0000'FFFFu);  // lanes 0-15: bytes 0..63
  ASSERT_EQ(half.size(), 1u);
  EXPECT_EQ(half[0].sector_mask, 0x3u);
  const auto sparse = coalesce(addrs, 4, 0x8000'0001u);  // lanes 0 and 31
  ASSERT_EQ(sparse.size(), 1u);
  EXPECT_EQ(sparse[0].sector_mask, 0x9u);
  EXPECT_TRUE(coalesce(addrs, 4, 0).empty());
}

TEST(Coalescer, SameAddressInEveryLaneIsOneSector) {
  std::array<Addr, 32> addrs{};
  addrs.fill(0x6044);
  const auto reqs = coalesce(addrs, 4, 0xFFFF'FFFFu);
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0].sector_mask, 0x4u);
  const MemRequest r = reqs[0].to_request(3, false);
  EXPECT_EQ(r.sm, 3u);
  EXPECT_EQ(r.sector_mask, 0x4u);
}

}  // namespace
}  // namespace xpusim::mem
