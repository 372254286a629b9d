// Coalescing: a warp access touches the set of 32 B sectors its active lanes cover, one
// request per 128 B line (CUDA Programming Guide, global memory, cc >= 6.0).
#include "mem/coalescer.h"

#include <algorithm>
#include <array>
#include <random>
#include <vector>

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

// Every byte of every active lane, in lane order: the line of its sector joins the list on its
// first touch. The reference for both of coalesce_into's passes (the unit-stride one and the
// lane walk) and both geometries (shifts for powers of two, divides otherwise).
std::vector<LineRequest> naive(const std::array<Addr, 32>& addrs, std::uint32_t bytes,
                               std::uint32_t mask, std::uint32_t line, std::uint32_t sector) {
  std::vector<LineRequest> out;
  for (std::uint32_t l = 0; l < 32; ++l) {
    if ((mask >> l & 1u) == 0) continue;
    for (Addr b = addrs[l]; b < addrs[l] + bytes; ++b) {
      const Addr line_addr = b / line * line;
      auto it = std::find_if(out.begin(), out.end(),
                             [&](const LineRequest& r) { return r.line_addr == line_addr; });
      if (it == out.end()) it = out.insert(out.end(), LineRequest{.line_addr = line_addr});
      it->sector_mask |= 1u << ((b - line_addr) / sector);
    }
  }
  return out;
}

TEST(Coalescer, MatchesANaiveByteWalkOverRandomAccesses) {
  std::mt19937_64 rng(20261126);
  struct Geometry {
    std::uint32_t line, sector;
  };
  for (const Geometry g : {Geometry{128, 32}, Geometry{64, 32}, Geometry{128, 16},
                           Geometry{256, 32}, Geometry{32, 32}, Geometry{96, 32}}) {
    for (int trial = 0; trial < 400; ++trial) {
      const std::uint32_t bytes = std::min<std::uint32_t>(1u << (rng() % 5), g.line);
      const Addr base = 0x10000 + rng() % 4096;
      std::array<Addr, 32> addrs{};
      // Unit stride (all lanes, then some), a stride, scattered, and unit stride on all lanes
      // but one (an odd or an even lane off its place: the unit-stride check's two-lane steps).
      const int pattern = trial % 5;
      for (std::uint32_t l = 0; l < 32; ++l) {
        addrs[l] = pattern <= 1 || pattern == 4 ? base + Addr{l} * bytes
                   : pattern == 2               ? base + Addr{l} * (rng() % 3 + 1) * bytes
                                                : base + rng() % 2048;
      }
      if (pattern == 4) addrs[rng() % 32] += bytes * (rng() % 2 == 0 ? 1 : -1);
      const std::uint32_t mask =
          pattern == 0 || pattern == 4 ? 0xFFFF'FFFFu : static_cast<std::uint32_t>(rng());
      const auto got = coalesce(addrs, bytes, mask, g.line, g.sector);
      const auto want = naive(addrs, bytes, mask, g.line, g.sector);
      ASSERT_EQ(got.size(), want.size()) << g.line << "/" << g.sector << " trial " << trial;
      for (std::size_t i = 0; i < got.size(); ++i) {
        ASSERT_EQ(got[i].line_addr, want[i].line_addr) << "trial " << trial << " line " << i;
        ASSERT_EQ(got[i].sector_mask, want[i].sector_mask) << "trial " << trial << " line " << i;
      }
    }
  }
}

}  // namespace
}  // namespace xpusim::mem
