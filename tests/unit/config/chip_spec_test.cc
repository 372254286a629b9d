#include "config/chip_spec.h"

#include <filesystem>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace xpusim::config {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

const std::filesystem::path kConfigDir = XPUSIM_CONFIG_DIR;

ChipSpec load_shipped(std::string_view name) {
  Result<std::filesystem::path> path = resolve_chip(name, kConfigDir);
  EXPECT_TRUE(path.ok()) << (path.ok() ? "" : path.error().message);
  if (!path.ok()) return {};
  Result<ChipSpec> chip = load_chip_file(*path);
  EXPECT_TRUE(chip.ok()) << (chip.ok() ? "" : chip.error().message);
  return chip.ok() ? *chip : ChipSpec{};
}

TEST(ChipSpec, ListsShippedChipsSorted) {
  EXPECT_THAT(list_chips(kConfigDir),
              ElementsAre("h100-pcie", "h100-sxm5", "h100-sxm5-silicon", "tiny"));
  EXPECT_TRUE(list_chips(kConfigDir / "no-such-dir").empty());
}

TEST(ChipSpec, EveryShippedChipLoadsAndIsNamedAfterItsFile) {
  for (const std::string& name : list_chips(kConfigDir)) {
    EXPECT_EQ(load_shipped(name).name, name);
  }
}

TEST(ChipSpec, H100Sxm5) {
  const ChipSpec c = load_shipped("h100-sxm5");
  EXPECT_EQ(c.num_gpcs(), 8u);
  EXPECT_EQ(c.num_tpcs(), 66u);
  EXPECT_EQ(c.num_sms(), 132u);
  EXPECT_EQ(c.tensor_cores(), 528u);
  EXPECT_EQ(c.clocks.sm_hz, 1'830'000'000u);
  EXPECT_EQ(c.sm.shared_memory_bytes, 228u * 1024);
  EXPECT_EQ(c.l2.size_bytes, 50u * 1024 * 1024);
  EXPECT_EQ(c.hbm.bandwidth_bytes_per_s, 3'350'000'000'000u);
  EXPECT_EQ(c.peak_bf16_dense_flops(), 989'429'760'000'000u);  // 132 x 2048 x 2 x 1.83e9
  EXPECT_NEAR(c.peak_bf16_dense_tflops(), 989.4, 989.4 * 0.005);
  // Published dense INT8: 1979 TOPS (H100 whitepaper).
  EXPECT_EQ(c.peak_int8_dense_ops(), 1'978'859'520'000'000u);  // 132 x 4096 x 2 x 1.83e9
  EXPECT_NEAR(c.peak_int8_dense_tops(), 1979.0, 1979.0 * 0.005);
  EXPECT_EQ(c.sm.tensor.int8_fma_per_cycle, 4096u);
  EXPECT_EQ(c.sm.tensor.tf32_fma_per_cycle, 1024u);
  EXPECT_EQ(c.sm.tensor.f32_fma_per_cycle, 128u);
  EXPECT_EQ(c.sm.tensor.registers_per_thread, 512u);
}

TEST(ChipSpec, H100Pcie) {
  const ChipSpec c = load_shipped("h100-pcie");
  EXPECT_EQ(c.num_tpcs(), 57u);
  EXPECT_EQ(c.num_sms(), 114u);
  EXPECT_EQ(c.hbm.generation, "HBM2e");
  EXPECT_EQ(c.hbm.bandwidth_bytes_per_s, 2'000'000'000'000u);
  EXPECT_EQ(c.hbm.capacity_bytes, 80ull << 30);
  // Published dense BF16: 1513 TFLOPS with sparsity, 756 dense (H100 datasheet).
  EXPECT_NEAR(c.peak_bf16_dense_tflops(), 756.0, 756.0 * 0.005);
  // Published INT8: 3026 TOPS with sparsity, 1513 dense (H100 datasheet).
  EXPECT_NEAR(c.peak_int8_dense_tops(), 1513.0, 1513.0 * 0.005);
}

TEST(ChipSpec, Tiny) {
  const ChipSpec c = load_shipped("tiny");
  EXPECT_EQ(c.num_gpcs(), 2u);
  EXPECT_EQ(c.num_tpcs(), 4u);
  EXPECT_EQ(c.num_sms(), 8u);
  EXPECT_EQ(c.peak_bf16_dense_flops(), 8ull * 2048 * 2 * 1'000'000'000);
  EXPECT_EQ(c.peak_int8_dense_ops(), 8ull * 4096 * 2 * 1'000'000'000);
  EXPECT_EQ(c.sm.tensor.registers_per_thread, 512u);
}

TEST(ChipSpec, SmIdsAreNumberedGpcMajor) {
  const ChipSpec c = load_shipped("h100-sxm5");  // [9, 9, 8, ...] TPCs -> 18, 18, 16, ... SMs
  EXPECT_EQ(c.sms_in_gpc(0), 18u);
  EXPECT_EQ(c.sms_in_gpc(2), 16u);
  EXPECT_EQ(c.first_sm_of_gpc(0), 0u);
  EXPECT_EQ(c.first_sm_of_gpc(1), 18u);
  EXPECT_EQ(c.first_sm_of_gpc(2), 36u);
  EXPECT_EQ(c.first_sm_of_gpc(7), 116u);
  EXPECT_EQ(c.gpc_of_sm(17), 0u);
  EXPECT_EQ(c.gpc_of_sm(18), 1u);
  EXPECT_EQ(c.gpc_of_sm(131), 7u);
  EXPECT_EQ(c.tpc_of_sm(17), 8u);
  EXPECT_EQ(c.tpc_of_sm(18), 9u);
  EXPECT_EQ(c.tpc_of_sm(131), 65u);
}

TEST(ChipSpec, ResolveByNameAndByPath) {
  Result<std::filesystem::path> by_name = resolve_chip("tiny", kConfigDir);
  ASSERT_TRUE(by_name.ok());
  EXPECT_EQ(*by_name, kConfigDir / "chips" / "tiny.yaml");

  const std::filesystem::path file = kConfigDir / "chips" / "h100-pcie.yaml";
  Result<std::filesystem::path> by_path = resolve_chip(file.string(), "/nonexistent");
  ASSERT_TRUE(by_path.ok());
  EXPECT_EQ(*by_path, file);
}

TEST(ChipSpec, ResolveUnknownNameListsAvailableChips) {
  Result<std::filesystem::path> r = resolve_chip("h100-sxm", kConfigDir);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("unknown chip 'h100-sxm' (did you mean 'h100-sxm5'?)"));
  EXPECT_THAT(r.error().message, HasSubstr(": h100-pcie, h100-sxm5, h100-sxm5-silicon, tiny"));
}

TEST(ChipSpec, ResolveMissingPathIsAnError) {
  Result<std::filesystem::path> r = resolve_chip("missing.yaml", kConfigDir);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "missing.yaml: no such chip file");
}

}  // namespace
}  // namespace xpusim::config
