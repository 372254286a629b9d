// The memory-hierarchy keys of the shipped chips, and the memory system built from them.
#include <filesystem>

#include <gtest/gtest.h>

#include "config/chip_spec.h"
#include "mem/memory_system.h"
#include "sim/component.h"
#include "sim/simulation.h"

namespace xpusim::config {
namespace {

const std::filesystem::path kConfigDir = XPUSIM_CONFIG_DIR;

ChipSpec shipped(std::string_view name) {
  Result<ChipSpec> chip = load_chip_file(kConfigDir / "chips" / (std::string(name) + ".yaml"));
  EXPECT_TRUE(chip.ok()) << (chip.ok() ? "" : chip.error().message);
  return chip.ok() ? *chip : ChipSpec{};
}

TEST(ChipMemory, H100Sxm5Values) {
  const ChipSpec c = shipped("h100-sxm5");
  EXPECT_EQ(c.l2.slices, 80u);
  EXPECT_EQ(c.l2.size_bytes / c.l2.slices, 640u * 1024);  // 320 sets of 16 ways
  EXPECT_EQ(c.hbm.channels, 80u);                         // 5 HBM3 stacks x 16
  EXPECT_EQ(c.hbm.latency_ps, 150'000u);
  EXPECT_EQ(c.l2.slice_bytes_per_cycle * c.l2.slices, 5120u);  // A100's L2 B/clk
}

TEST(ChipMemory, DefaultsKeepOldFilesValid) {
  // data/base.yaml predates the memory-hierarchy keys.
  Result<ChipSpec> r = load_chip_file(std::filesystem::path(XPUSIM_TEST_DATA_DIR) / "base.yaml");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->l2.slices, 16u);
  EXPECT_EQ(r->l1.hit_latency_cycles, 32u);
  EXPECT_EQ(r->hbm.interleave_bytes, 256u);
  EXPECT_EQ(r->l2.set_index, "hash");
  EXPECT_EQ(mem::MemoryParams::from_chip(*r).l2.set_index, mem::SetIndex::kHash);
}

TEST(ChipMemory, TheModuloSetIndexReachesTheL2) {
  ChipSpec c = shipped("h100-sxm5");
  c.l2.set_index = "modulo";
  EXPECT_EQ(mem::MemoryParams::from_chip(c).l2.set_index, mem::SetIndex::kModulo);
}

TEST(ChipMemory, MemorySystemFromEveryShippedChip) {
  for (const char* name : {"h100-sxm5", "h100-pcie", "tiny"}) {
    const ChipSpec c = shipped(name);
    const mem::MemoryParams p = mem::MemoryParams::from_chip(c);
    ASSERT_EQ(p.gpc_of_sm.size(), c.num_sms()) << name;
    EXPECT_EQ(p.l1.bytes, c.sm.l1_shared_bytes - c.sm.shared_memory_bytes);
    // The first half of the GPCs is near partition 0, the second half near partition 1.
    EXPECT_EQ(p.near_partition(0), 0u);
    EXPECT_EQ(p.near_partition(c.num_sms() - 1), 1u);
    sim::Simulation sim;
    sim::Component top(sim, "chip0");
    mem::MemorySystem m(top, p);
    EXPECT_EQ(m.sms(), c.num_sms());
    EXPECT_EQ(m.l2().slices(), c.l2.slices);
    EXPECT_EQ(m.hbm().channels(), c.hbm.channels);
    sim::Tick done = 0;
    m.load(mem::MemRequest{.addr = 0x1000, .bytes = 4, .write = false, .sm = 0, .sector_mask = 0},
           [&] { done = sim.now(); });
    sim.run();
    // An HBM miss takes longer than the HBM latency alone.
    EXPECT_GT(done, c.hbm.latency_ps) << name;
  }
}

}  // namespace
}  // namespace xpusim::config
