// The mm experiments (src/workloads/mm_experiments.h) on the tiny chip: each runs by name, its C
// matches the reference GEMM (functional mode; report() fails otherwise), and its figures have
// the shapes docs/tensor-unit.md states — broadcast off reads 32x the B bytes, ka4 uses 100% of
// the lanes against ka1's 25% and is faster, t1 retention fetches the 4x4 example's 4 row lines
// instead of 16 selections and cuts the L2->L1 fills when the rows' lines exceed the L1.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <map>
#include <string>

#include "config/chip_spec.h"
#include "sim/simulation.h"
#include "system/chip.h"
#include "system/run.h"
#include "workload_run.h"
#include "workloads/register_all.h"

namespace xpusim::workloads {
namespace {

TEST(MmExperiments, BroadcastOffReads32TimesTheBBytes) {
  // 2 warps x 32 rows, 64 bf16 columns of K = 64 (128 B, one line each).
  for (bool functional : {true, false}) {
    const Figures f = run_on_tiny("mm.broadcast", {{"warps", 2}, {"n", 64}, {"k", 64}}, functional);
    EXPECT_EQ(at(f, "broadcast on: mm.b_bytes"), 2.0 * 64 * 128);  // once per warp
    EXPECT_EQ(at(f, "broadcast off: mm.b_bytes"), 32.0 * 2 * 64 * 128);
    EXPECT_EQ(at(f, "broadcast on: mm.b_line_fetches"), 2.0 * 64);
    EXPECT_EQ(at(f, "broadcast off: mm.b_line_fetches"), 32.0 * 2 * 64);
    EXPECT_EQ(at(f, "B bytes, off / on"), 32.0);
    // Every L1 load here is an mm B line fetch.
    EXPECT_EQ(at(f, "broadcast on: L1 load accesses"), 2.0 * 64);
    EXPECT_EQ(at(f, "broadcast off: L1 load accesses"), 32.0 * 2 * 64);
    // The L1 fetches B from L2 at least once, and never more often than the mm asks.
    for (const char* v : {"broadcast on", "broadcast off"}) {
      EXPECT_GE(at(f, std::string(v) + ": L2->L1 bytes"), 64.0 * 128) << v;
      EXPECT_LE(at(f, std::string(v) + ": L1 misses (L2->L1 fills)"),
                at(f, std::string(v) + ": L1 load accesses"))
          << v;
    }
    EXPECT_GT(at(f, "broadcast off: cycles"), at(f, "broadcast on: cycles"));
  }
}

TEST(MmExperiments, Ka4Uses100PercentOfTheLanesAgainst25) {
  // Timing-only mode estimates the active threads from the instruction (rows x ka): the same.
  for (bool functional : {true, false}) {
    const Figures f = run_on_tiny("mm.ka_utilization", {{"n", 128}, {"k", 64}}, functional);
    EXPECT_EQ(at(f, "ka1: lane utilization"), 25.0);
    EXPECT_EQ(at(f, "ka4: lane utilization"), 100.0);
    EXPECT_EQ(at(f, "ka1: mm.instructions"), 1.0);
    EXPECT_EQ(at(f, "ka4: mm.instructions"), 2.0);
    EXPECT_EQ(at(f, "ka1: mm.macs"), 16.0 * 128 * 64);
    EXPECT_EQ(at(f, "ka4: mm.macs"), 16.0 * 128 * 64);
    EXPECT_EQ(at(f, "ka1: C registers per thread"), 128.0);
    EXPECT_EQ(at(f, "ka4: C registers per thread"), 32.0);
    EXPECT_LT(at(f, "ka4: cycles"), at(f, "ka1: cycles"));
    if (functional) {  // the clocks around the mm come back through memory
      // ka1: one warp, 128 math issues, 16 x 128 x 64 MACs / 512 per cycle = 256 busy cycles;
      // ka4: two warps on two sub-partitions, 128 busy cycles each, side by side.
      EXPECT_LT(at(f, "ka4: mm cycles"), at(f, "ka1: mm cycles"));
      EXPECT_EQ(at(f, "ka1: tensor.busy_cycles"), 256.0);
      EXPECT_EQ(at(f, "ka4: tensor.busy_cycles"), 256.0);
    }
  }
}

// Rows whose lines fit the L1: retention pins every row line once (seed2 ¶122-125).
TEST(MmExperiments, T1RetentionFetchesEachRowLineOnce) {
  // Large case: 64 rows of 64 s8 columns, 256 B apart (lines 0, 2, 4, ...: 8 KiB of rows'
  // lines, on 28 of the 28 KiB L1's 56 sets: at most 2 per set of 4 ways).
  const Figures f = run_on_tiny("mm.t1_retention", {{"rows", 64}, {"n", 64}, {"row_stride", 256}});
  EXPECT_EQ(at(f, "4x4 retention: mm.b_line_fetches"), 4.0);
  EXPECT_EQ(at(f, "4x4 no retention: mm.b_line_fetches"), 16.0);
  EXPECT_EQ(at(f, "4x4: line fetches, no retention / retention"), 4.0);
  EXPECT_EQ(at(f, "4x4 retention: L1 misses (L2->L1 fills)"), 4.0);
  EXPECT_EQ(at(f, "4x4 retention: mm.lines_pinned"), 4.0);
  EXPECT_EQ(at(f, "64-row retention: mm.lines_pinned"), 64.0);
  EXPECT_EQ(at(f, "64-row retention: mm.lines_not_pinned"), 0.0);
  EXPECT_EQ(at(f, "64-row retention: mm.b_line_fetches"), 64.0);
  EXPECT_EQ(at(f, "64-row no retention: mm.b_line_fetches"), 64.0 * 64);
  EXPECT_EQ(at(f, "64-row retention: L1 misses (L2->L1 fills)"), 64.0);
  EXPECT_EQ(at(f, "64-row retention: L1 capacity"), 28.0 * 1024);
  // Without retention the re-reads miss (all of a memory issue's requests leave at once and
  // the L1 does not merge misses to a line in flight): far more fills than the 64 lines.
  EXPECT_GT(at(f, "large: L2->L1 fills, no retention / retention"), 16.0);
  EXPECT_GT(at(f, "large: cycles, no retention / retention"), 1.0);
}

// Rows whose lines exceed the L1: a set holds at most `ways` pinned lines, and a row line
// that finds its set full of them is re-read by every column. The pinned count is checked
// against an independent count of the rows' lines per L1 set (modulo indexing, as the L1's).
TEST(MmExperiments, T1RetentionPinsWhatTheL1SetsHoldAndRereadsTheRest) {
  constexpr std::uint64_t kRows = 256, kN = 64, kStride = 256, kLine = 128, kWays = 4;
  constexpr std::uint64_t kSets = 28 * 1024 / kLine / kWays;  // 56
  const Figures f =
      run_on_tiny("mm.t1_retention", {{"rows", kRows}, {"n", kN}, {"row_stride", kStride}});
  // B's base is a multiple of 1 MiB (the allocator's alignment), so row e's line is
  // base/128 + 2e and its set (base/128 + 2e) mod 56; base/128 mod 56 only rotates the sets.
  std::map<std::uint64_t, std::uint64_t> per_set;
  for (std::uint64_t e = 0; e < kRows; ++e)
    ++per_set[(e * kStride / kLine) % kSets];
  std::uint64_t pinnable = 0;
  for (const auto& [set, lines] : per_set)
    pinnable += std::min(lines, kWays);
  EXPECT_EQ(pinnable, 112u);  // 28 sets x 4 ways
  EXPECT_EQ(at(f, "256-row retention: mm.lines_pinned"), static_cast<double>(pinnable));
  EXPECT_EQ(at(f, "256-row retention: mm.lines_not_pinned"), static_cast<double>(kRows - pinnable));
  EXPECT_EQ(at(f, "256-row retention: mm.b_line_fetches"),
            static_cast<double>(pinnable + (kRows - pinnable) * kN));
  // Retention still saves the pinned rows' re-reads.
  EXPECT_GT(at(f, "large: L2->L1 fills, no retention / retention"), 1.5);
  EXPECT_GT(at(f, "large: cycles, no retention / retention"), 1.0);
}

}  // namespace
}  // namespace xpusim::workloads
