// conv.tma on the tiny chip: convolutions verify against the naive direct convolution for
// stride 1 and 2, padding, dilation, bf16 and s8, partial M and N tiles, tiles that span
// images, channel counts that are not a multiple of the channel block, and a multicast
// cluster; parameters the im2col map cannot express are named setup errors.
#include "workloads/conv_tma.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

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

Result<std::vector<system::Measurement>> run(const system::ParamValues& overrides,
                                             bool functional = true) {
  auto r = system::run(system::workload_scenario("tiny", "conv.tma", overrides,
                                                 functional ? system::RunMode::kFunctional
                                                            : system::RunMode::kTimingOnly),
                       tiny(), register_all);
  if (!r) return r.errors();
  if (!r->ok()) return r->errors;
  return r->measurements;
}

std::string describe(const system::ParamValues& p) {
  std::string s;
  for (const auto& [k, v] : p)
    s += k + "=" + std::to_string(v) + " ";
  return s;
}

// 2 images of 8 x 8 x 64 channels, 64 filters of 3 x 3, 2 consumers, tile_n 64.
system::ParamValues small(system::ParamValues extra) {
  system::ParamValues p{{"n", 2},     {"h", 8},        {"w", 8},         {"c", 64},
                        {"k", 64},    {"r", 3},        {"s", 3},         {"stride", 1},
                        {"pad", 1},   {"dilation", 1}, {"consumers", 2}, {"tile_n", 64},
                        {"stages", 3}};
  for (const auto& [k, v] : extra)
    p[k] = v;
  return p;
}

void expect_verifies(const system::ParamValues& p) {
  auto r = run(p);
  ASSERT_TRUE(r.ok()) << describe(p) << ": " << r.error().message;
}

TEST(ConvTma, StrideOneWithPaddingVerifies) {
  expect_verifies(small({}));
  expect_verifies(small({{"type", 1}, {"c", 128}}));
  expect_verifies(small({{"pad", 0}, {"swizzle", 0}}));
}

TEST(ConvTma, StrideTwoAndDilationVerify) {
  // P = Q = 4: 32 output pixels, a partial 64-row tile.
  expect_verifies(small({{"stride", 2}}));
  // 7 x 7 outputs per image: the tiles span images.
  expect_verifies(small({{"stride", 1}, {"pad", 0}, {"dilation", 2}, {"h", 11}, {"w", 11}}));
  expect_verifies(small({{"stride", 2}, {"pad", 2}, {"dilation", 2}, {"type", 1}, {"c", 32}}));
}

TEST(ConvTma, OddChannelsFiltersAndMulticastVerify) {
  // 24 channels in a 64-channel block, 48 filters in a 64-column tile, 1 x 1 filter.
  expect_verifies(small({{"c", 24}, {"k", 48}}));
  expect_verifies(small({{"r", 1}, {"s", 1}, {"pad", 0}, {"h", 5}, {"w", 7}}));
  expect_verifies(small({{"cluster_m", 2}, {"multicast", 1}, {"k", 128}}));
  expect_verifies(small({{"cluster_n", 2}, {"multicast", 1}, {"k", 128}, {"type", 1}}));
}

// The shared kernel body with warpgroup-wide mm: consumers are warps 0..3, the producer warp 4.
TEST(ConvTma, WarpgroupMmVerifies) {
  expect_verifies(small({{"consumers", 4}, {"warpgroup_mm", 1}}));
  expect_verifies(small({{"consumers", 4}, {"warpgroup_mm", 1}, {"type", 1}, {"c", 128}}));
  expect_verifies(small(
      {{"consumers", 4}, {"warpgroup_mm", 1}, {"cluster_n", 2}, {"multicast", 1}, {"k", 128}}));
}

TEST(ConvTma, ExpressibleOnlyParametersAreNamedErrors) {
  auto copy = run(small({{"copy", 1}}));
  ASSERT_FALSE(copy.ok());
  EXPECT_EQ(copy.error().message,
            "workload: conv.tma: copy 1 is gemm.tma's variant; conv.tma loads A with TMA im2col "
            "(copy 0)");
  auto offsets = run(small({{"dilation", 130}, {"h", 300}, {"w", 8}, {"s", 1}, {"pad", 0}}));
  ASSERT_FALSE(offsets.ok());
  EXPECT_EQ(
      offsets.error().message,
      "workload: conv.tma: (r 3 - 1) x dilation 130 = 260: im2col offsets of a 4-D map are 8 bits "
      "(at most 255)");
  auto channels = run(small({{"c", 12}}));
  ASSERT_FALSE(channels.ok());
  EXPECT_EQ(
      channels.error().message,
      "workload: conv.tma: c 12 makes 24 B pixels; a pixel must be a multiple of 16 B (cuda.h "
      "globalStrides rule)");
  auto empty = run(small({{"h", 1}, {"pad", 0}}));
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(
      empty.error().message,
      "workload: conv.tma: h 1 + 2 x pad 0 is smaller than the dilated filter (3 - 1) x 1 + 1; P "
      "would be empty");
}

TEST(ConvTma, TimingOnlyRuns) {
  auto r = run(small({}), false);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_GT(r->front().measured, 0);
}

}  // namespace
}  // namespace xpusim::workloads
