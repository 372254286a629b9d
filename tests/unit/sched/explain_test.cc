#include "sched/explain.h"

#include <string>

#include <gtest/gtest.h>

namespace xpusim::sched {
namespace {

bool has(const std::string& line, const std::string& part) {
  return line.find(part) != std::string::npos;
}

struct Explain : ::testing::Test {
  Topology topo = Topology::make({2, 2}, 2, SmCapacity{}).value();  // 2 GPCs × 4 SMs
  GpuState state{topo};
};

TEST_F(Explain, NamesTheResourceThatRanOut) {
  // 100 KiB of shared memory: 2 CTAs per SM, bounded by shared memory.
  GridSpec g{.grid = {6, 1, 1}, .cluster = {6, 1, 1}, .kind = ClusterKind::kGpcCga};
  g.shape.shared_bytes = 100 << 10;
  const CtaFootprint fp = footprint(topo.capacity(), g.shape);
  for (std::uint32_t sm = 0; sm < 3; ++sm)
    state.launch(sm, fp), state.launch(sm, fp);
  state.launch(3, fp);
  const auto lines = explain_fit(state, g);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_TRUE(has(lines[0], "GPC 0 (4 SMs): no")) << lines[0];
  EXPECT_TRUE(has(lines[0], "needs 6 CTAs, 1 free slots")) << lines[0];
  EXPECT_TRUE(has(lines[0], "SM 0 full (shared memory)")) << lines[0];
  EXPECT_TRUE(has(lines[0], "SM 3 holds 1 more (shared memory)")) << lines[0];
  EXPECT_TRUE(has(lines[1], "GPC 1 (4 SMs): yes")) << lines[1];
  EXPECT_TRUE(has(lines[1], "8 free slots")) << lines[1];
}

// With a CPC level the GPC's free slots are not enough: each CPC_CGA needs one CPC that holds
// it (seed1 ¶169). GPC 0's CPCs (2 SMs each) have 1 + 4 free slots: 5 in all, but a CPC_CGA of 3
// fits only in the second, and the cluster needs two.
TEST(ExplainCpc, NamesWhatEachCpcHasFree) {
  const Topology topo = Topology::make({2, 2}, 2, SmCapacity{}, {.cpcs_per_gpc = 2}).value();
  GpuState state(topo);
  GridSpec g{.grid = {6, 1, 1}, .cluster = {6, 1, 1}, .kind = ClusterKind::kGpcCga};
  g.cpc_cgas_per_gpc_cga = 2;
  g.shape.shared_bytes = 100 << 10;  // 2 CTAs per SM
  const CtaFootprint fp = footprint(topo.capacity(), g.shape);
  state.launch(0, fp), state.launch(0, fp), state.launch(1, fp);
  const auto lines = explain_fit(state, g);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].substr(0, lines[0].find(": SM")),
            "GPC 0 (4 SMs): no — needs 2 CPC_CGAs of 3 CTAs, each in one CPC; its 2 CPCs have 1, "
            "4 free slots");
  EXPECT_TRUE(has(lines[0], "SM 0 full (shared memory)")) << lines[0];
  EXPECT_EQ(lines[1],
            "GPC 1 (4 SMs): yes — needs 2 CPC_CGAs of 3 CTAs, each in one CPC; its 2 CPCs have 4, "
            "4 free slots");
}

// A µGPU_CGA of 3 clusters of 4 on 2 µGPUs of one 4-SM GPC each (8 slots a GPC at 2 CTAs per
// SM): each µGPU holds 2 clusters, one short.
TEST(ExplainUgpu, SaysHowManyGpcCgasEachUgpuHolds) {
  const Topology topo = Topology::make({2, 2}, 2, SmCapacity{}, {.ugpus = 2}).value();
  GpuState state(topo);
  GridSpec g{.grid = {12, 1, 1}, .cluster = {4, 1, 1}, .kind = ClusterKind::kUgpuCga};
  g.gpc_cgas_per_ugpu_cga = 3;
  g.shape.shared_bytes = 100 << 10;  // 2 CTAs per SM
  auto lines = explain_fit(state, g);
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[2], "µGPU 0 (GPCs 0-0): no — needs 3 GPC_CGAs at once, holds 2");
  EXPECT_EQ(lines[3], "µGPU 1 (GPCs 1-1): no — needs 3 GPC_CGAs at once, holds 2");
  g.gpc_cgas_per_ugpu_cga = 2;
  g.grid = {16, 1, 1};
  lines = explain_fit(state, g);
  EXPECT_EQ(lines[3], "µGPU 1 (GPCs 1-1): yes — needs 2 GPC_CGAs at once, holds 2 or more");
}

TEST_F(Explain, WarpsAndCtaSlots) {
  // 1024-thread CTAs: warps and threads both allow 2; warps come first in the enum.
  GridSpec g{.grid = {1, 1, 1}};
  g.shape.threads = 1024;
  const CtaFootprint fp = footprint(topo.capacity(), g.shape);
  for (std::uint32_t sm = 0; sm < 4; ++sm)
    state.launch(sm, fp), state.launch(sm, fp);
  const auto lines = explain_fit(state, g);
  EXPECT_TRUE(has(lines[0], "no — needs 1 CTAs, 0 free slots: every SM full (warp slots)"))
      << lines[0];
  // Tiny CTAs run out of CTA slots (32 per SM) first.
  GpuState tiny(topo);
  GridSpec t{.grid = {1, 1, 1}};
  t.shape.threads = 32;
  const CtaFootprint tf = footprint(topo.capacity(), t.shape);
  for (int k = 0; k < 32; ++k)
    tiny.launch(4, tf);
  EXPECT_TRUE(has(explain_fit(tiny, t)[1], "yes")) << "other SMs still have room";
  GridSpec c{.grid = {8, 1, 1}, .cluster = {8, 1, 1}, .kind = ClusterKind::kGpcCga};
  c.shape.threads = 32;
  c.multicast = true;
  const std::string line = explain_fit(tiny, c)[1];
  EXPECT_TRUE(has(line, "no — needs 8 SMs with a free slot (multicast), 3 have one")) << line;
  EXPECT_TRUE(has(line, "SM 4 full (CTA slots)")) << line;
}

TEST_F(Explain, EmptyChipTooSmall) {
  GridSpec g{.grid = {12, 1, 1}, .cluster = {12, 1, 1}, .kind = ClusterKind::kGpcCga};
  g.shape.shared_bytes = 100 << 10;
  const auto lines = explain_fit(GpuState(topo), g);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(
      lines[0],
      "GPC 0 (4 SMs): no — needs 12 CTAs, 8 free slots: every SM holds 2 more (shared memory)");
}

}  // namespace
}  // namespace xpusim::sched
