// The bank-conflict rule (src/mem/bank_conflicts.h) on hand-computed patterns. The swizzled
// patterns of seed0 Fig. 9 live in tests/unit/tma/swizzle_test.cc, which may use both units.
#include "mem/bank_conflicts.h"

#include <algorithm>
#include <array>
#include <map>
#include <numeric>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "sim/rng.h"

namespace xpusim::mem {
namespace {

BankConflictCost cost_of(std::span<const LaneAccess> accesses, const BankGeometry& g = {},
                         const AddressMap& map = {}) {
  auto r = bank_conflict_cost(accesses, g, map);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return r.ok() ? r.value() : BankConflictCost{};
}

// Lanes 0..count-1 at address(lane).
template <class F>
std::vector<LaneAccess> lanes(std::uint32_t count, std::uint32_t bytes, F address) {
  std::vector<LaneAccess> out;
  for (std::uint32_t l = 0; l < count; ++l) {
    out.push_back(LaneAccess{.lane = l, .address = address(l), .bytes = bytes});
  }
  return out;
}

TEST(BankConflicts, EmptyAccessCostsNothing) {
  const BankConflictCost c = cost_of({});
  EXPECT_EQ(c.wavefronts, 0u);
  EXPECT_EQ(c.phases, 0u);
}

TEST(BankConflicts, ConsecutiveWordsTakeOneWavefront) {
  const auto a = lanes(32, 4, [](std::uint32_t l) { return 4 * l; });
  const BankConflictCost c = cost_of(a);
  EXPECT_EQ(c.wavefronts, 1u);
  EXPECT_EQ(c.phases, 1u);
  EXPECT_EQ(c.conflict_wavefronts(), 0u);
}

TEST(BankConflicts, SameWordIsBroadcast) {
  EXPECT_EQ(cost_of(lanes(32, 4, [](std::uint32_t) { return 64u; })).wavefronts, 1u);
  // Different bytes and halves of one word are still one word.
  EXPECT_EQ(cost_of(lanes(32, 1, [](std::uint32_t l) { return 64 + l % 4; })).wavefronts, 1u);
  EXPECT_EQ(cost_of(lanes(32, 2, [](std::uint32_t l) { return 64 + 2 * (l % 2); })).wavefronts, 1u);
  // 2 B per lane over 64 B: 16 words in 16 banks.
  EXPECT_EQ(cost_of(lanes(32, 2, [](std::uint32_t l) { return 2 * l; })).wavefronts, 1u);
}

TEST(BankConflicts, DifferentWordsInOneBankSerialize) {
  EXPECT_EQ(cost_of(lanes(32, 4, [](std::uint32_t l) { return 128 * l; })).wavefronts, 32u);
  EXPECT_EQ(cost_of(lanes(2, 4, [](std::uint32_t l) { return 128 * l; })).wavefronts, 2u);
  // Half the warp on word 0 and half on word 32: both bank 0, two distinct words.
  const auto a = lanes(32, 4, [](std::uint32_t l) { return l < 16 ? 0u : 128u; });
  const BankConflictCost c = cost_of(a);
  EXPECT_EQ(c.wavefronts, 2u);
  EXPECT_EQ(c.conflict_wavefronts(), 1u);
}

TEST(BankConflicts, FourByteStrideSweepMatchesGcd) {
  // Lane l reads word l*s: bank (l*s) % 32 is hit by gcd(s, 32) lanes, each a distinct word.
  for (std::uint32_t s = 1; s <= 64; ++s) {
    const auto a = lanes(32, 4, [s](std::uint32_t l) { return 4 * l * s; });
    EXPECT_EQ(cost_of(a).wavefronts, std::gcd(s, 32u)) << "stride " << s << " words";
  }
}

TEST(BankConflicts, EightByteAccessesRunInHalfWarpPhases) {
  // 32 x 8 B consecutive = 256 B: two half-warp phases of one full row each.
  BankConflictCost c = cost_of(lanes(32, 8, [](std::uint32_t l) { return 8 * l; }));
  EXPECT_EQ(c.wavefronts, 2u);
  EXPECT_EQ(c.phases, 2u);
  EXPECT_EQ(c.conflict_wavefronts(), 0u);
  // 16 B stride: each half warp spans 256 B, so every bank holds two words of it.
  c = cost_of(lanes(32, 8, [](std::uint32_t l) { return 16 * l; }));
  EXPECT_EQ(c.wavefronts, 4u);
  EXPECT_EQ(c.conflict_wavefronts(), 2u);
  // Uniform address: a broadcast in each half warp (no uniform-address packing modelled).
  EXPECT_EQ(cost_of(lanes(32, 8, [](std::uint32_t) { return 40u; })).wavefronts, 2u);
  // Only the upper half warp active: one phase.
  std::vector<LaneAccess> upper;
  for (std::uint32_t l = 16; l < 32; ++l) {
    upper.push_back(LaneAccess{.lane = l, .address = 8 * (l - 16), .bytes = 8});
  }
  EXPECT_EQ(cost_of(upper).wavefronts, 1u);
  EXPECT_EQ(cost_of(upper).phases, 1u);
}

TEST(BankConflicts, LanesInDifferentPhasesNeverConflict) {
  // Words 0 and 64 share bank 0. Lanes 0 and 16 are in different 8 B phases: no conflict.
  const std::array<LaneAccess, 2> apart{
      {{.lane = 0, .address = 0, .bytes = 8}, {.lane = 16, .address = 256, .bytes = 8}}};
  BankConflictCost c = cost_of(apart);
  EXPECT_EQ(c.wavefronts, 2u);
  EXPECT_EQ(c.phases, 2u);
  EXPECT_EQ(c.conflict_wavefronts(), 0u);
  // Lanes 0 and 1 share a phase: a two-way conflict.
  const std::array<LaneAccess, 2> together{
      {{.lane = 0, .address = 0, .bytes = 8}, {.lane = 1, .address = 256, .bytes = 8}}};
  c = cost_of(together);
  EXPECT_EQ(c.wavefronts, 2u);
  EXPECT_EQ(c.phases, 1u);
  EXPECT_EQ(c.conflict_wavefronts(), 1u);
  // 4 B accesses have one phase for the whole warp, so lanes 0 and 16 do conflict.
  const std::array<LaneAccess, 2> narrow{
      {{.lane = 0, .address = 0, .bytes = 4}, {.lane = 16, .address = 256, .bytes = 4}}};
  EXPECT_EQ(cost_of(narrow).conflict_wavefronts(), 1u);
}

TEST(BankConflicts, SixteenByteAccessesRunInQuarterWarpPhases) {
  // 32 x 16 B consecutive = 512 B: four quarter-warp phases, conflict-free.
  BankConflictCost c = cost_of(lanes(32, 16, [](std::uint32_t l) { return 16 * l; }));
  EXPECT_EQ(c.wavefronts, 4u);
  EXPECT_EQ(c.phases, 4u);
  // 32 B stride: each quarter warp spans 256 B, two words per bank.
  c = cost_of(lanes(32, 16, [](std::uint32_t l) { return 32 * l; }));
  EXPECT_EQ(c.wavefronts, 8u);
  // Lanes 0 and 8 are in different phases; lanes 0 and 1 are not.
  const std::array<LaneAccess, 2> apart{
      {{.lane = 0, .address = 16, .bytes = 16}, {.lane = 8, .address = 144, .bytes = 16}}};
  EXPECT_EQ(cost_of(apart).conflict_wavefronts(), 0u);
  const std::array<LaneAccess, 2> together{
      {{.lane = 0, .address = 16, .bytes = 16}, {.lane = 1, .address = 144, .bytes = 16}}};
  EXPECT_EQ(cost_of(together).wavefronts, 2u);
  // Uniform address: one broadcast per quarter warp.
  EXPECT_EQ(cost_of(lanes(32, 16, [](std::uint32_t) { return 256u; })).wavefronts, 4u);
  // Quarter 0 conflict-free, quarter 1 reads one 16 B column of 8 rows, quarters 2-3 idle.
  const auto mixed = lanes(16, 16, [](std::uint32_t l) { return l < 8 ? 16 * l : 128 * l; });
  c = cost_of(mixed);
  EXPECT_EQ(c.wavefronts, 1u + 8u);
  EXPECT_EQ(c.phases, 2u);
}

TEST(BankConflicts, ColumnChunkPatternAddressesAndCost) {
  const auto a = column_chunk_access(4096, 128, 3);
  ASSERT_EQ(a.size(), 8u);
  for (std::uint32_t r = 0; r < 8; ++r) {
    EXPECT_EQ(a[r].lane, r);
    EXPECT_EQ(a[r].address, 4096 + 128 * r + 48);
    EXPECT_EQ(a[r].bytes, 16u);
  }
  // Unpadded 128 B rows: all eight chunks in banks 12-15.
  EXPECT_EQ(cost_of(a).wavefronts, 8u);
  // 64 B rows: 16 B groups 0,4,0,4,...: four-way.
  EXPECT_EQ(cost_of(column_chunk_access(0, 64, 0)).wavefronts, 4u);
  // Padding by one chunk (144 B or 80 B rows) spreads the column over all eight groups.
  EXPECT_EQ(cost_of(column_chunk_access(0, 144, 5)).wavefronts, 1u);
  EXPECT_EQ(cost_of(column_chunk_access(0, 80, 0)).wavefronts, 1u);
}

TEST(BankConflicts, LdmatrixX4Pattern) {
  const auto a = ldmatrix_x4_access(1024, 128);
  ASSERT_EQ(a.size(), 32u);
  // Lane 9: matrix 1 (rows 8-15, chunk 0), row 1. Lane 17: matrix 2 (rows 0-7, chunk 1), row 1.
  EXPECT_EQ(a[9].address, 1024 + 9 * 128u);
  EXPECT_EQ(a[17].address, 1024 + 1 * 128 + 16u);
  EXPECT_EQ(a[31].address, 1024 + 15 * 128 + 16u);
  // Each matrix is one 16 B column of 8 rows: 8 wavefronts each on 128 B rows.
  EXPECT_EQ(cost_of(a).wavefronts, 32u);
  EXPECT_EQ(cost_of(a).phases, 4u);
  // With a 16 B pad per row every matrix is conflict-free.
  EXPECT_EQ(cost_of(ldmatrix_x4_access(0, 144)).wavefronts, 4u);
  // Explicit origins: four matrices side by side in one row band.
  const std::array<MatrixOrigin, 4> row_band{{{.row = 0, .chunk = 0},
                                              {.row = 0, .chunk = 1},
                                              {.row = 0, .chunk = 2},
                                              {.row = 0, .chunk = 3}}};
  const auto b = ldmatrix_x4_access(0, 144, row_band);
  EXPECT_EQ(b[8].address, 16u);
  EXPECT_EQ(cost_of(b).wavefronts, 4u);
}

TEST(BankConflicts, AddressMapIsAppliedToEveryWord) {
  // A 128 B XOR swizzle written out here (chunk ^= row % 8) turns the 8-way column into 1.
  const AddressMap xor_rows = [](std::uint32_t a) { return a ^ (((a >> 7) & 7u) << 4); };
  EXPECT_EQ(cost_of(column_chunk_access(0, 128, 2), {}, xor_rows).wavefronts, 1u);
  EXPECT_EQ(cost_of(ldmatrix_x4_access(0, 128), {}, xor_rows).wavefronts, 4u);
  // A map swapping 8 B halves keeps each 16 B access on the same four banks.
  const AddressMap swap_halves = [](std::uint32_t a) { return a ^ 8u; };
  EXPECT_EQ(cost_of(column_chunk_access(0, 144, 0), {}, swap_halves).wavefronts, 1u);
  // A map that splits a bank word is an error naming the word and the lane.
  const AddressMap shift2 = [](std::uint32_t a) { return a + 2; };
  const auto one = lanes(1, 4, [](std::uint32_t) { return 8u; });
  const auto r = bank_conflict_cost(one, {}, shift2);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message,
            "address map moved word 0x8 of lane 0 to 0xa, which is not 4-byte aligned (the map "
            "must move whole bank words)");
}

TEST(BankConflicts, OtherGeometries) {
  // 8-byte banks (Kepler's 64-bit mode): 8 B per lane consecutive is one 256 B row.
  const BankGeometry wide{.banks = 32, .bank_bytes = 8};
  EXPECT_EQ(cost_of(lanes(32, 8, [](std::uint32_t l) { return 8 * l; }), wide).wavefronts, 1u);
  // Two 4 B halves of one 8 B word are one word there.
  EXPECT_EQ(cost_of(lanes(2, 4, [](std::uint32_t l) { return 4 * l; }), wide).wavefronts, 1u);
  // 16 banks x 4 B: a row is 64 B, so 4 B accesses run in half-warp phases.
  const BankGeometry narrow{.banks = 16, .bank_bytes = 4};
  const BankConflictCost c = cost_of(lanes(32, 4, [](std::uint32_t l) { return 4 * l; }), narrow);
  EXPECT_EQ(c.wavefronts, 2u);
  EXPECT_EQ(c.phases, 2u);
}

TEST(BankConflicts, BadInputsAreNamedErrors) {
  auto message = [](std::span<const LaneAccess> a, const BankGeometry& g = {}) {
    const auto r = bank_conflict_cost(a, g);
    return r.ok() ? std::string("ok") : r.error().message;
  };
  const std::array<LaneAccess, 1> width3{{{.lane = 2, .address = 0, .bytes = 3}}};
  EXPECT_EQ(message(width3), "shared access of lane 2: width 3 B is not 1, 2, 4, 8 or 16");
  const std::array<LaneAccess, 1> misaligned{{{.lane = 5, .address = 0x18, .bytes = 16}}};
  EXPECT_EQ(message(misaligned),
            "shared access of lane 5: address 0x18 is not aligned to its 16 B width");
  const std::array<LaneAccess, 2> mixed{
      {{.lane = 0, .address = 0, .bytes = 4}, {.lane = 1, .address = 8, .bytes = 8}}};
  EXPECT_EQ(message(mixed),
            "shared access of lane 1: width 8 B differs from lane 0's 4 B (one warp access has "
            "one width)");
  const std::array<LaneAccess, 1> lane32{{{.lane = 32, .address = 0, .bytes = 4}}};
  EXPECT_EQ(message(lane32), "shared access lane 32 is outside 0..31");
  const std::array<LaneAccess, 2> twice{
      {{.lane = 7, .address = 0, .bytes = 4}, {.lane = 7, .address = 4, .bytes = 4}}};
  EXPECT_EQ(message(twice), "shared access lists lane 7 twice");
  EXPECT_EQ(message({}, {.banks = 0, .bank_bytes = 4}),
            "bank geometry: banks must be at least 1, got 0");
  EXPECT_EQ(message({}, {.banks = 32, .bank_bytes = 6}),
            "bank geometry: bank_bytes must be a power of two, got 6");
  // Every broken rule of one access is reported together.
  const std::array<LaneAccess, 2> two_bad{
      {{.lane = 40, .address = 2, .bytes = 4}, {.lane = 1, .address = 0, .bytes = 5}}};
  EXPECT_EQ(bank_conflict_cost(two_bad).errors().size(), 3u);
}

TEST(BankConflicts, WarpAccessHelperNumbersLanes) {
  const std::array<std::uint32_t, 3> addrs{0, 128, 256};
  const auto a = warp_access(addrs, 4);
  ASSERT_EQ(a.size(), 3u);
  EXPECT_EQ(a[2].lane, 2u);
  EXPECT_EQ(a[2].address, 256u);
  EXPECT_EQ(cost_of(a).wavefronts, 3u);
}

TEST(BankConflicts, RandomAccessesRespectBoundsAndIgnoreListOrder) {
  sim::Rng rng = sim::Rng::for_stream(7, "bank_conflicts_test");
  constexpr std::array<std::uint32_t, 5> kWidths{1, 2, 4, 8, 16};
  for (int iter = 0; iter < 500; ++iter) {
    const std::uint32_t width = kWidths[rng.uniform(kWidths.size())];
    std::vector<LaneAccess> a;
    for (std::uint32_t l = 0; l < 32; ++l) {
      if (rng.bernoulli(0.25)) continue;  // inactive lane
      const auto addr = static_cast<std::uint32_t>(rng.uniform(2048 / width) * width);
      a.push_back(LaneAccess{.lane = l, .address = addr, .bytes = width});
    }
    const BankConflictCost c = cost_of(a);
    const std::uint32_t lanes_per_phase = std::min<std::uint32_t>(32, 128 / width);
    EXPECT_LE(c.phases, c.wavefronts);
    EXPECT_LE(c.phases, 32 / lanes_per_phase);
    // A lane's words sit in distinct banks, so no lane adds more than one wavefront.
    EXPECT_LE(c.wavefronts, a.size());
    std::reverse(a.begin(), a.end());
    const BankConflictCost r = cost_of(a);
    EXPECT_EQ(r.wavefronts, c.wavefronts);
    EXPECT_EQ(r.phases, c.phases);
  }
}

// The SM's fast path against a naive reference written from the rule in bank_conflicts.h (per
// phase, per bank, the set of distinct words) and against the general function, on random
// valid accesses: every width, partial masks, geometries of 1..64 banks of 1..16 B, addresses
// in a small window so that broadcasts and conflicts are common.
TEST(BankConflicts, FastPathMatchesTheRuleOnRandomValidAccesses) {
  sim::Rng rng = sim::Rng::for_stream(11, "bank_conflicts_fast_path");
  constexpr std::array<std::uint32_t, 5> kWidths{1, 2, 4, 8, 16};
  int conflicted = 0;
  for (int trial = 0; trial < 4000; ++trial) {
    const BankGeometry g{.banks = 1 + static_cast<std::uint32_t>(rng.uniform(64)),
                         .bank_bytes = 1u << rng.uniform(5)};
    const std::uint32_t bytes = kWidths[rng.uniform(kWidths.size())];
    const auto mask = static_cast<std::uint32_t>(trial % 4 == 0 ? 0xFFFFFFFFu : rng.next_u64());
    const std::uint64_t window = 1 + rng.uniform(4096);
    std::array<std::uint64_t, kWarpLanes> addr{};
    std::vector<LaneAccess> lanes;
    for (std::uint32_t l = 0; l < kWarpLanes; ++l) {
      addr[l] = rng.uniform(window) / bytes * bytes;
      if ((mask >> l) & 1)
        lanes.push_back(
            {.lane = l, .address = static_cast<std::uint32_t>(addr[l]), .bytes = bytes});
    }
    // Naive: phase = lane / lanes-per-phase; per (phase, bank) the set of words.
    const std::uint64_t row = std::uint64_t{g.banks} * g.bank_bytes;
    const std::uint64_t per_phase = std::clamp<std::uint64_t>(row / bytes, 1, kWarpLanes);
    std::map<std::uint64_t, std::map<std::uint32_t, std::set<std::uint64_t>>> words;
    for (const LaneAccess& a : lanes) {
      for (std::uint64_t b = a.address; b < a.address + a.bytes; ++b) {
        const std::uint64_t w = b / g.bank_bytes;
        words[a.lane / per_phase][static_cast<std::uint32_t>(w % g.banks)].insert(w);
      }
    }
    BankConflictCost want;
    for (const auto& [phase, by_bank] : words) {
      std::size_t worst = 0;
      for (const auto& [bank, set] : by_bank)
        worst = std::max(worst, set.size());
      want.wavefronts += static_cast<std::uint32_t>(worst);
      ++want.phases;
    }
    const BankConflictCost got = valid_warp_access_cost(addr, mask, bytes, g);
    ASSERT_EQ(got.wavefronts, want.wavefronts) << "trial " << trial;
    ASSERT_EQ(got.phases, want.phases) << "trial " << trial;
    const BankConflictCost general = cost_of(lanes, g);
    ASSERT_EQ(general.wavefronts, want.wavefronts) << "trial " << trial;
    if (want.wavefronts > want.phases) ++conflicted;
  }
  EXPECT_GT(conflicted, 1000);  // the conflict path ran, not only the one-pass path
}

// More than 64 banks: the fast path hands the access to the general function.
TEST(BankConflicts, FastPathOnWideGeometriesUsesTheGeneralRule) {
  std::array<std::uint64_t, kWarpLanes> addr{};
  for (std::uint32_t l = 0; l < kWarpLanes; ++l)
    addr[l] = std::uint64_t{l} * 128 * 4;  // 128 banks x 4 B: every lane in bank 0
  const BankConflictCost c =
      valid_warp_access_cost(addr, 0xFFFFFFFFu, 4, {.banks = 128, .bank_bytes = 4});
  EXPECT_EQ(c.wavefronts, 32u);
  EXPECT_EQ(c.phases, 1u);
  EXPECT_EQ(valid_warp_access_cost(addr, 0, 4, {.banks = 128, .bank_bytes = 4}).wavefronts, 0u);
}

}  // namespace
}  // namespace xpusim::mem
