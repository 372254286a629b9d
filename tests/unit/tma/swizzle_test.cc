// Invariants and tables of the shared-memory swizzle (src/tma/swizzle.h), and the bank-conflict
// effect the swizzle exists for: seed0 §3.6 Figs. 9b-9d and §5.8. The bank rule itself is
// tested in tests/unit/mem/bank_conflicts_test.cc; here it is driven through the real swizzle.
#include "tma/swizzle.h"

#include <array>
#include <cstdint>
#include <set>
#include <span>
#include <vector>

#include <gtest/gtest.h>

#include "mem/bank_conflicts.h"

namespace xpusim::tma {
namespace {

constexpr std::array<Swizzle, 7> kAllModes{Swizzle::kNone,        Swizzle::k32B,
                                           Swizzle::k64B,         Swizzle::k128B,
                                           Swizzle::k128BAtom32B, Swizzle::k128BAtom32BFlip8B,
                                           Swizzle::k128BAtom64B};

// Low address bits each mode never changes: the granule it moves as a whole. FLIP_8B moves
// 8 B halves (bit 3 flips on odd rows) but keeps bit 4, since its atoms are 32 B.
std::uint32_t kept_bits(Swizzle m) {
  switch (m) {
    case Swizzle::kNone:
      return 0xffff'ffffu;
    case Swizzle::k32B:
    case Swizzle::k64B:
    case Swizzle::k128B:
      return 0x0f;
    case Swizzle::k128BAtom32B:
      return 0x1f;
    case Swizzle::k128BAtom32BFlip8B:
      return 0x17;
    case Swizzle::k128BAtom64B:
      return 0x3f;
  }
  return 0;
}

mem::AddressMap swizzle_map(Swizzle m) {
  return [m](std::uint32_t a) { return swizzle_offset(m, a); };
}

std::uint32_t wavefronts(std::span<const mem::LaneAccess> a, Swizzle m) {
  const auto r = mem::bank_conflict_cost(a, {}, swizzle_map(m));
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return r.ok() ? r->wavefronts : 0;
}

TEST(Swizzle, SpanAndAlignmentOfEveryMode) {
  struct Row {
    Swizzle mode;
    std::uint32_t span, alignment;
  };
  const std::array<Row, 7> rows{{{Swizzle::kNone, 0, 16},
                                 {Swizzle::k32B, 32, 256},
                                 {Swizzle::k64B, 64, 512},
                                 {Swizzle::k128B, 128, 1024},
                                 {Swizzle::k128BAtom32B, 128, 512},
                                 {Swizzle::k128BAtom32BFlip8B, 128, 512},
                                 {Swizzle::k128BAtom64B, 128, 256}}};
  for (const Row& r : rows) {
    EXPECT_EQ(swizzle_span_bytes(r.mode), r.span) << name(r.mode);
    EXPECT_EQ(swizzle_alignment(r.mode), r.alignment) << name(r.mode);
  }
}

TEST(Swizzle, BijectionOnEveryAlignedBlock) {
  for (const Swizzle m : kAllModes) {
    const std::uint32_t align = swizzle_alignment(m);
    for (const std::uint32_t base : {0u, align, 5 * align, 1u << 20, 0xffff'ffffu - align + 1}) {
      std::vector<bool> hit(align, false);
      for (std::uint32_t o = 0; o < align; ++o) {
        const std::uint32_t s = swizzle_offset(m, base + o);
        ASSERT_GE(s, base) << name(m);
        ASSERT_LT(s - base, align) << name(m) << " leaves its block at " << base + o;
        ASSERT_FALSE(hit[s - base]) << name(m) << " maps two offsets to " << s;
        hit[s - base] = true;
      }
    }
  }
}

TEST(Swizzle, PatternRepeatsExactlyEveryAlignment) {
  for (const Swizzle m : kAllModes) {
    const std::uint32_t align = swizzle_alignment(m);
    bool shorter_period = true;
    for (std::uint32_t o = 0; o < 8192; ++o) {
      ASSERT_EQ(swizzle_offset(m, o + align), swizzle_offset(m, o) + align) << name(m) << o;
      if (swizzle_offset(m, o + align / 2) != swizzle_offset(m, o) + align / 2) {
        shorter_period = false;
      }
    }
    // The alignment is the smallest block the pattern needs (kNone: any 16 B block).
    if (m != Swizzle::kNone) {
      EXPECT_FALSE(shorter_period) << name(m);
    }
  }
}

TEST(Swizzle, StaysInsideItsRowAndSpanAndLeavesRowZeroAlone) {
  for (const Swizzle m : kAllModes) {
    const std::uint32_t span = swizzle_span_bytes(m);
    for (std::uint32_t o = 0; o < 8192; ++o) {
      const std::uint32_t s = swizzle_offset(m, o);
      ASSERT_EQ(s / 128, o / 128) << name(m) << " moves " << o << " out of its 128 B row";
      if (span != 0) {
        ASSERT_EQ(s / span, o / span) << name(m) << " leaves its span at " << o;
      }
      if (o < 128) {
        ASSERT_EQ(s, o) << name(m) << ": row 0 is never permuted";
      }
    }
  }
}

TEST(Swizzle, MovesWholeGranules) {
  for (const Swizzle m : kAllModes) {
    const std::uint32_t keep = kept_bits(m);
    for (std::uint32_t o = 0; o < 4096; ++o) {
      const std::uint32_t s = swizzle_offset(m, o);
      // Byte positions inside a granule are kept, and a granule moves as one piece.
      ASSERT_EQ(s & keep, o & keep) << name(m) << " at " << o;
      ASSERT_EQ(s - (o & keep), swizzle_offset(m, o - (o & keep))) << name(m) << " at " << o;
      // Every mode keeps 8 B halves whole; all but FLIP_8B keep them in place in a 16 B chunk.
      ASSERT_EQ(s & 7, o & 7) << name(m);
      const std::uint32_t flip = (m == Swizzle::k128BAtom32BFlip8B) ? ((o >> 7) & 1) : 0;
      ASSERT_EQ((s >> 3) & 1, ((o >> 3) & 1) ^ flip) << name(m) << " at " << o;
    }
  }
}

TEST(Swizzle, NoneIsTheIdentity) {
  for (std::uint32_t o : {0u, 1u, 127u, 128u, 4095u, 0x1234'5678u, 0xffff'ffffu}) {
    EXPECT_EQ(swizzle_offset(Swizzle::kNone, o), o);
  }
}

// The tables, written out. Entry [r][c]: the physical 16 B chunk (32 B / 64 B atom for the
// ATOM modes) that logical chunk c of row r (r = row within the repeating block) lands in.
TEST(Swizzle, TablesOfEveryMode) {
  constexpr std::uint32_t k128[8][8] = {{0, 1, 2, 3, 4, 5, 6, 7}, {1, 0, 3, 2, 5, 4, 7, 6},
                                        {2, 3, 0, 1, 6, 7, 4, 5}, {3, 2, 1, 0, 7, 6, 5, 4},
                                        {4, 5, 6, 7, 0, 1, 2, 3}, {5, 4, 7, 6, 1, 0, 3, 2},
                                        {6, 7, 4, 5, 2, 3, 0, 1}, {7, 6, 5, 4, 3, 2, 1, 0}};
  // 64B: 16 B chunks permuted inside each 64 B span of a 128 B row, 4 rows.
  constexpr std::uint32_t k64[4][8] = {{0, 1, 2, 3, 4, 5, 6, 7},
                                       {1, 0, 3, 2, 5, 4, 7, 6},
                                       {2, 3, 0, 1, 6, 7, 4, 5},
                                       {3, 2, 1, 0, 7, 6, 5, 4}};
  constexpr std::uint32_t k32[2][8] = {{0, 1, 2, 3, 4, 5, 6, 7}, {1, 0, 3, 2, 5, 4, 7, 6}};
  // ATOM_32B: 32 B atoms, 4 rows (PTX "128B swizzle with 32B atomicity").
  constexpr std::uint32_t kA32[4][4] = {{0, 1, 2, 3}, {1, 0, 3, 2}, {2, 3, 0, 1}, {3, 2, 1, 0}};
  constexpr std::uint32_t kA64[2][2] = {{0, 1}, {1, 0}};
  for (std::uint32_t block = 0; block < 3; ++block) {  // the same table in every block
    for (std::uint32_t r = 0; r < 8; ++r) {
      for (std::uint32_t c = 0; c < 8; ++c) {
        const std::uint32_t at = block * 1024 + r * 128 + c * 16;
        const std::uint32_t row = block * 1024 + r * 128;
        EXPECT_EQ(swizzle_offset(Swizzle::k128B, at), row + 16 * k128[r][c]) << r << "," << c;
        EXPECT_EQ(swizzle_offset(Swizzle::k64B, at), row + 16 * k64[r % 4][c]) << r << c;
        EXPECT_EQ(swizzle_offset(Swizzle::k32B, at), row + 16 * k32[r % 2][c]) << r << c;
      }
      for (std::uint32_t a = 0; a < 4; ++a) {
        const std::uint32_t at = block * 1024 + r * 128 + a * 32;
        const std::uint32_t row = block * 1024 + r * 128;
        EXPECT_EQ(swizzle_offset(Swizzle::k128BAtom32B, at), row + 32 * kA32[r % 4][a]);
        // FLIP_8B: the same atoms, and on odd rows the 8 B halves of each 16 B swap.
        for (std::uint32_t q = 0; q < 4; ++q) {
          const std::uint32_t half = (q & 2) | ((q & 1) ^ (r & 1));
          EXPECT_EQ(swizzle_offset(Swizzle::k128BAtom32BFlip8B, at + 8 * q),
                    row + 32 * kA32[r % 4][a] + 8 * half)
              << r << "," << a << "," << q;
        }
      }
      for (std::uint32_t h = 0; h < 2; ++h) {
        const std::uint32_t at = block * 1024 + r * 128 + h * 64;
        EXPECT_EQ(swizzle_offset(Swizzle::k128BAtom64B, at),
                  block * 1024 + r * 128 + 64 * kA64[r % 2][h]);
      }
    }
  }
}

TEST(Swizzle, Swizzle128BIsChunkXorRowForSixteenRows) {
  for (std::uint32_t r = 0; r < 16; ++r) {
    for (std::uint32_t c = 0; c < 8; ++c) {
      EXPECT_EQ(swizzle_offset(Swizzle::k128B, 128 * r + 16 * c), 128 * r + 16 * (c ^ (r % 8)));
    }
  }
}

// seed0 §5.8: one 16 B column over 8 consecutive rows touches 8 distinct 4-bank groups with
// SWIZZLE_128B, from any starting row (so also for the shifted windows of a filter tap).
TEST(Swizzle, ColumnOfEightRowsHitsDistinctBankGroups) {
  struct Want {
    Swizzle mode;
    std::size_t groups;
  };
  const std::array<Want, 7> wants{{{Swizzle::kNone, 1},
                                   {Swizzle::k32B, 2},
                                   {Swizzle::k64B, 4},
                                   {Swizzle::k128B, 8},
                                   {Swizzle::k128BAtom32B, 4},
                                   {Swizzle::k128BAtom32BFlip8B, 4},
                                   {Swizzle::k128BAtom64B, 2}}};
  for (const Want& w : wants) {
    for (std::uint32_t r0 = 0; r0 < 16; ++r0) {
      for (std::uint32_t c = 0; c < 8; ++c) {
        std::set<std::uint32_t> groups;
        for (std::uint32_t r = r0; r < r0 + 8; ++r) {
          groups.insert(swizzle_offset(w.mode, 128 * r + 16 * c) % 128 / 16);
        }
        EXPECT_EQ(groups.size(), w.groups) << name(w.mode) << " rows " << r0 << "+, chunk " << c;
      }
    }
  }
}

// Figs. 9b-9d: NHWC 1x10x10x64 with 2 B channels, so one pixel is one 128 B row and a 16 B
// cell holds 8 channels. The SMEM box is the 10x10 pixel tile (8x8 outputs plus a 3x3 halo),
// pixel (h, w) at row 10 * h + w, destination 1024 B aligned.
constexpr std::uint32_t kPixelBytes = 64 * 2;
constexpr std::uint32_t kBoxW = 10;

// Lane i reads 16 B cell `cell` (channels 8*cell .. 8*cell+7) of pixel (h, w0 + i).
std::vector<mem::LaneAccess> fig9_pixels(std::uint32_t h, std::uint32_t w0, std::uint32_t cell) {
  return mem::column_chunk_access((kBoxW * h + w0) * kPixelBytes, kPixelBytes, cell);
}

// The numbers docs/tma.md quotes, per mode: channels 0-7 of pixels w = 0..7 (one 8-lane
// phase), all 64 channels of those pixels (8 cells), and an ldmatrix.x4 of a 16x16 tile.
struct Fig9Row {
  Swizzle mode;
  std::uint32_t one_cell, all_cells, ldmatrix;
};
constexpr std::array<Fig9Row, 7> kFig9{{{Swizzle::kNone, 8, 64, 32},
                                        {Swizzle::k32B, 4, 32, 16},
                                        {Swizzle::k64B, 2, 16, 8},
                                        {Swizzle::k128B, 1, 8, 4},
                                        {Swizzle::k128BAtom32B, 2, 16, 8},
                                        {Swizzle::k128BAtom32BFlip8B, 2, 16, 8},
                                        {Swizzle::k128BAtom64B, 4, 32, 16}}};

TEST(SwizzleBankConflicts, Fig9ChannelsZeroToSevenOfEightPixels) {
  const auto a = fig9_pixels(0, 0, 0);
  EXPECT_EQ(a[7].address, 7 * 128u);
  // Unswizzled all eight cells sit in banks 0-3; SWIZZLE_128B spreads them over 8 groups.
  EXPECT_EQ(wavefronts(a, Swizzle::kNone), 8u);
  EXPECT_EQ(wavefronts(a, Swizzle::k128B), 1u);
  EXPECT_EQ(wavefronts(a, Swizzle::k64B), 2u);  // 4 groups, 2 rows each
  EXPECT_EQ(wavefronts(a, Swizzle::k32B), 4u);  // 2 groups, 4 rows each
  for (const Fig9Row& row : kFig9) {
    EXPECT_EQ(wavefronts(a, row.mode), row.one_cell) << name(row.mode);
  }
}

TEST(SwizzleBankConflicts, Fig9AllChannelsOfEightPixels) {
  // All 64 channels of 8 pixels: 8 cells. 64 cycles unswizzled, 8 with SWIZZLE_128B (¶149).
  for (const Fig9Row& row : kFig9) {
    std::uint32_t total = 0;
    for (std::uint32_t cell = 0; cell < 8; ++cell) {
      total += wavefronts(fig9_pixels(0, 0, cell), row.mode);
    }
    EXPECT_EQ(total, row.all_cells) << name(row.mode);
  }
}

TEST(SwizzleBankConflicts, Fig9EveryFilterTapAndOutputRow) {
  // Tap (r, s) of the 3x3 filter for output row h reads pixels (h + r, s .. s + 7): eight
  // consecutive SMEM rows from any start, so one wavefront with SWIZZLE_128B, eight without.
  for (std::uint32_t r = 0; r < 3; ++r) {
    for (std::uint32_t s = 0; s < 3; ++s) {
      for (std::uint32_t h = 0; h < 8; ++h) {
        for (std::uint32_t cell = 0; cell < 8; ++cell) {
          const auto a = fig9_pixels(h + r, s, cell);
          ASSERT_EQ(wavefronts(a, Swizzle::k128B), 1u) << r << s << h << cell;
          ASSERT_EQ(wavefronts(a, Swizzle::kNone), 8u) << r << s << h << cell;
        }
      }
    }
  }
}

TEST(SwizzleBankConflicts, LdmatrixX4OnA128ByteRowTile) {
  // A K-major 16x16 tile of 16-bit elements from a buffer with 64 elements (128 B) per row,
  // as TMA writes it: every 8x8 matrix is one 16 B column of 8 rows.
  for (std::uint32_t k_chunk = 0; k_chunk < 8; k_chunk += 2) {
    const std::array<mem::MatrixOrigin, 4> tile{{{.row = 0, .chunk = k_chunk},
                                                 {.row = 8, .chunk = k_chunk},
                                                 {.row = 0, .chunk = k_chunk + 1},
                                                 {.row = 8, .chunk = k_chunk + 1}}};
    const auto a = mem::ldmatrix_x4_access(2048, 128, tile);
    EXPECT_EQ(wavefronts(a, Swizzle::kNone), 32u) << k_chunk;
    EXPECT_EQ(wavefronts(a, Swizzle::k128B), 4u) << k_chunk;
    for (const Fig9Row& row : kFig9) {
      EXPECT_EQ(wavefronts(a, row.mode), row.ldmatrix) << name(row.mode) << k_chunk;
    }
  }
}

}  // namespace
}  // namespace xpusim::tma
