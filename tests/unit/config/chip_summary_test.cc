#include "system/chip_summary.h"

#include <filesystem>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace xpusim::system {
namespace {

using ::testing::HasSubstr;

config::ChipSpec load(std::string_view name) {
  const std::filesystem::path dir = XPUSIM_CONFIG_DIR;
  Result<config::ChipSpec> chip =
      config::load_chip_file(dir / "chips" / (std::string(name) + ".yaml"));
  EXPECT_TRUE(chip.ok()) << (chip.ok() ? "" : chip.error().message);
  return chip.ok() ? *chip : config::ChipSpec{};
}

TEST(ChipSummary, TinyHasTheKeyLines) {
  const std::string s = format_chip_summary(load("tiny"));
  EXPECT_THAT(s, HasSubstr("tiny: Test chip: 8 H100-like SMs, 1 GHz\n"));
  EXPECT_THAT(s, HasSubstr("Topology: 2 GPCs, 4 TPCs, 8 SMs, 32 tensor cores (2 SMs per TPC)\n"));
  EXPECT_THAT(s, HasSubstr("  GPC  TPCs  SMs  SM ids\n"
                           "    0     2    4  0-3\n"
                           "    1     2    4  4-7\n"));
  EXPECT_THAT(s, HasSubstr("Clocks: SM 1 GHz, L2 1 GHz\n"));
  EXPECT_THAT(s, HasSubstr("  max shared memory per SM      228 KiB\n"));
  EXPECT_THAT(s, HasSubstr("  max shared memory per block   227 KiB\n"));
  EXPECT_THAT(s, HasSubstr("  shared memory banks          32 x 4 B\n"));
  EXPECT_THAT(s, HasSubstr("L2: 2 MiB in 2 partitions (1 MiB each), 128 B lines, 32 B sectors; 4 "
                           "slices of 16 ways, hashed set index\n"));
  EXPECT_THAT(s, HasSubstr("HBM: HBM3, 1 stack, 1 GiB, 200 GB/s\n"));
  EXPECT_THAT(s, HasSubstr("  dense BF16        32.8 TFLOPS\n"));
  EXPECT_THAT(s, HasSubstr("  dense INT8          65.5 TOPS\n"));
  EXPECT_THAT(s, HasSubstr("  INT8 MAC per cycle (dense)       4096\n"));
  EXPECT_THAT(s, HasSubstr("  mm registers per thread           512\n"));
}

TEST(ChipSummary, H100ShowsPublishedPeaksAndSmRanges) {
  const std::string s = format_chip_summary(load("h100-sxm5"));
  EXPECT_THAT(s, HasSubstr("8 GPCs, 66 TPCs, 132 SMs, 528 tensor cores"));
  EXPECT_THAT(s, HasSubstr("    1     9   18  18-35\n"));
  EXPECT_THAT(s, HasSubstr("    7     8   16  116-131\n"));
  EXPECT_THAT(s, HasSubstr("Clocks: SM 1.83 GHz, L2 1.83 GHz\n"));
  EXPECT_THAT(s, HasSubstr("L2: 50 MiB in 2 partitions (25 MiB each)"));
  EXPECT_THAT(s, HasSubstr("HBM: HBM3, 5 stacks, 80 GiB, 3.35 TB/s\n"));
  EXPECT_THAT(s, HasSubstr("989.4 TFLOPS\n"));
  EXPECT_THAT(s, HasSubstr("1978.9 TOPS\n"));  // [WP] 1979 TOPS dense INT8
}

TEST(ChipSummary, IsPlainAlignedTextWithoutTrailingSpaces) {
  for (std::string_view name : {"tiny", "h100-sxm5", "h100-pcie"}) {
    const std::string s = format_chip_summary(load(name));
    EXPECT_EQ(s, format_chip_summary(load(name)));  // deterministic
    ASSERT_FALSE(s.empty());
    EXPECT_EQ(s.back(), '\n');
    EXPECT_EQ(s.find(" \n"), std::string::npos) << name;
    EXPECT_EQ(s.find('\t'), std::string::npos) << name;
  }
}

}  // namespace
}  // namespace xpusim::system
