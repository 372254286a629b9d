// mm.page_table (src/workloads/mm_page_table.h) on the tiny chip: C matches the reference GEMM
// with B at byte addresses and through the page table (functional; report() fails otherwise),
// both variants read the same lines, and the translation figures add up: every mm touches
// every page once, a page's PTE is loaded at most once per SM while it is in flight, and a
// later wave finds its translations cached.
#include <gtest/gtest.h>

#include <filesystem>
#include <iostream>
#include <map>
#include <string>

#include "config/chip_spec.h"
#include "system/run.h"
#include "workload_run.h"
#include "workloads/register_all.h"

namespace xpusim::workloads {
namespace {

TEST(MmPageTable, PagedBGivesTheSameCAndTheTranslationFiguresAddUp) {
  for (const bool functional : {true, false}) {
    SCOPED_TRACE(functional ? "functional" : "timing-only");
    // 2 CTAs x 4 warps, 32 pages of 2 columns: more pages than the 16 cache entries.
    const Figures f = run_on_tiny(
        "mm.page_table", {{"ctas", 2}, {"warps", 4}, {"k", 32}, {"n", 64}, {"page_columns", 2}},
        functional);
    const double mms = 2 * 4, pages = 32;
    EXPECT_EQ(at(f, "paged: pages touched"), mms * pages);
    EXPECT_EQ(at(f, "paged: mm.translation_hits") + at(f, "paged: mm.translation_misses"),
              mms * pages);
    EXPECT_LE(at(f, "paged: mm.pte_loads"), at(f, "paged: mm.translation_misses"));
    EXPECT_GE(at(f, "paged: mm.pte_loads"), pages);  // every page's PTE at least once
    EXPECT_GT(at(f, "paged: translation cycles per mm"), 0);
    EXPECT_GT(at(f, "paged: cycles"), at(f, "plain: cycles"));
    // The same lines either way (B's columns at the pages' addresses).
    EXPECT_EQ(at(f, "paged: mm.b_line_fetches"), at(f, "plain: mm.b_line_fetches"));
  }
}

TEST(MmPageTable, ALaterWaveFindsItsTranslationsCached) {
  // One page; CTAs of 32 warps, two to an SM of the tiny chip's 8: the first wave's 16 CTAs
  // miss together (one PTE load per SM, the other warps join it), the second wave hits.
  const Figures f =
      run_on_tiny("mm.page_table",
                  {{"ctas", 32}, {"warps", 32}, {"k", 32}, {"n", 32}, {"page_columns", 32}}, false);
  EXPECT_EQ(at(f, "paged: pages touched"), 32.0 * 32);
  EXPECT_EQ(at(f, "paged: mm.pte_loads"), 8);
  EXPECT_EQ(at(f, "paged: mm.translation_misses"), 16.0 * 32);
  EXPECT_EQ(at(f, "paged: mm.translation_hits"), 16.0 * 32);
}

TEST(MmPageTable, APageWiderThanBIsRefused) {
  const config::ChipSpec spec =
      config::load_chip_file(std::filesystem::path(XPUSIM_CONFIG_DIR) / "chips/tiny.yaml").value();
  auto report = system::run(
      system::workload_scenario("tiny", "mm.page_table", {{"n", 16}, {"page_columns", 17}},
                                system::RunMode::kFunctional),
      spec, register_all);
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.error().message,
            "workload: mm.page_table: page_columns 17 is more than n 16 (a page holds at most "
            "all of B's "
            "columns)");
}

}  // namespace
}  // namespace xpusim::workloads
