// gemm.mm on the tiny chip: small GEMMs (bf16 and s8, B column- and row-major) verify against
// the workload's naive reference; a corrupted C element is caught and named; a shape the CTA
// tile does not divide is a named setup error; timing-only mode runs and reports cycles.
#include "workloads/gemm_mm.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <functional>
#include <span>

#include "config/chip_spec.h"
#include "sim/simulation.h"
#include "system/chip.h"
#include "system/run.h"
#include "workloads/register_all.h"

namespace xpusim::workloads {
namespace {

config::ChipSpec tiny() {
  return config::load_chip_file(std::filesystem::path(XPUSIM_CONFIG_DIR) / "chips/tiny.yaml")
      .value();
}

// Sets up gemm.mm with `overrides` on a fresh tiny chip, runs it, calls `after_run` (it may
// touch memory), and returns the report. A setup error comes back as the result.
Result<std::vector<system::Measurement>> run(
    const system::ParamValues& overrides, bool functional = true,
    const std::function<void(system::Chip&)>& after_run = {}) {
  sim::Simulation sim{1};
  auto run =
      system::Run::create(sim,
                          system::workload_scenario("tiny", "gemm.mm", overrides,
                                                    functional ? system::RunMode::kFunctional
                                                               : system::RunMode::kTimingOnly),
                          tiny(), register_all);
  if (!run) return run.errors();
  const sim::StopReason stop = (*run)->simulate();
  if (after_run) after_run((*run)->chip());
  system::RunReport r = (*run)->report(stop);
  if (!r.ok()) return r.errors;
  return r.measurements;
}

system::ParamValues small(std::uint64_t type, std::uint64_t b_layout) {
  return {{"m", 128},   {"n", 128},    {"k", 128}, {"type", type}, {"b_layout", b_layout},
          {"warps", 4}, {"tile_n", 64}};
}

double measured(const std::vector<system::Measurement>& ms, std::string_view name) {
  for (const system::Measurement& m : ms)
    if (m.name == name) return m.measured;
  ADD_FAILURE() << "no measurement " << name;
  return 0;
}

TEST(GemmMm, SmallGemmsVerifyInEveryTypeAndLayout) {
  // 0 bf16, 1 s8, and seed2 ¶72's wider integers: 2 s16, 3 u16, 4 s32, 5 u32.
  for (const std::uint64_t type : {0u, 1u, 2u, 3u, 4u, 5u}) {
    for (const std::uint64_t layout : {0u, 1u}) {
      auto r = run(small(type, layout));
      ASSERT_TRUE(r.ok()) << "type " << type << " b_layout " << layout << ": " << r.error().message;
      // 128/32 row groups x 128/64 column tiles x 128/tile_k K steps (tile_k: 64 B of K).
      const double bytes = type == 1 ? 1 : type <= 3 ? 2 : 4;
      const double k_steps = 128.0 / (64 / bytes);
      EXPECT_EQ(measured(*r, "mm instructions"), 4 * 2 * k_steps);
      EXPECT_GT(measured(*r, "cycles"), 0);
      EXPECT_GT(measured(*r, "tensor-unit busy"), 0);
    }
  }
}

TEST(GemmMm, OneStageAndOddTilesVerifyToo) {
  auto r = run({{"m", 64},
                {"n", 48},
                {"k", 96},
                {"warps", 2},
                {"tile_n", 16},
                {"tile_k", 16},
                {"stages", 1},
                {"b_layout", 1}});
  ASSERT_TRUE(r.ok()) << r.error().message;
  auto s = run({{"m", 64},
                {"n", 32},
                {"k", 128},
                {"warps", 1},
                {"tile_n", 32},
                {"tile_k", 128},
                {"stages", 1},
                {"type", 1}});
  ASSERT_TRUE(s.ok()) << s.error().message;
}

TEST(GemmMm, ACorruptedCElementIsNamed) {
  for (const std::uint64_t type : {0u, 1u, 4u}) {
    auto r = run(small(type, 0), true, [](system::Chip& chip) {
      const std::uint32_t bad = 0x4B000000;  // 8388608.0f / int32 1258291200
      const std::uint64_t at = chip.run(0).args.get_ptr(2) + 4 * (17 * 128 + 42);  // C
      ASSERT_TRUE(chip.memory().write(at, std::as_bytes(std::span(&bad, 1))).ok());
    });
    ASSERT_FALSE(r.ok()) << type;
    EXPECT_NE(r.error().message.find("gemm.mm: C[17][42] = "), std::string::npos)
        << r.error().message;
    EXPECT_NE(r.error().message.find("want"), std::string::npos) << r.error().message;
  }
}

TEST(GemmMm, ABadShapeIsANamedSetupError) {
  auto r = run({{"m", 100}, {"n", 128}, {"k", 128}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message,
            "workload: gemm.mm: m 100 is not a multiple of the CTA's 128 rows (32 x warps 4)");
  auto s = run({{"m", 128}, {"n", 100}, {"k", 40}, {"tile_n", 64}});
  ASSERT_FALSE(s.ok());
  ASSERT_EQ(s.errors().size(), 2u);
  EXPECT_EQ(s.errors()[0].message, "workload: gemm.mm: n 100 is not a multiple of tile_n 64");
  EXPECT_EQ(s.errors()[1].message, "workload: gemm.mm: k 40 is not a multiple of tile_k 32");
}

TEST(GemmMm, TimingOnlyRunsAndReportsCyclesWithTheSameTiming) {
  auto t = run(small(0, 1), false);
  ASSERT_TRUE(t.ok()) << t.error().message;
  auto f = run(small(0, 1), true);
  ASSERT_TRUE(f.ok()) << f.error().message;
  EXPECT_GT(measured(*t, "cycles"), 0);
  EXPECT_EQ(measured(*t, "cycles"), measured(*f, "cycles"));
  EXPECT_NE((*t)[0].note.find("not verified (timing-only)"), std::string::npos);
}

}  // namespace
}  // namespace xpusim::workloads
