#include "sched/grid.h"

#include <string>

#include <gtest/gtest.h>

namespace xpusim::sched {
namespace {

// Checks that `s` failed with a message containing every fragment (the item and the value).
void expect_error(const Status& s, std::initializer_list<std::string> fragments) {
  ASSERT_FALSE(s.ok());
  for (const std::string& f : fragments)
    EXPECT_NE(s.error().message.find(f), std::string::npos)
        << "'" << s.error().message << "' lacks '" << f << "'";
  EXPECT_EQ(s.error().message.find('\n'), std::string::npos) << "one line";
}

struct CheckGrid : ::testing::Test {
  Topology topo = Topology::make({9, 9, 8, 8}, 2, SmCapacity{}).value();  // largest GPC: 18 SMs
  GridSpec g{.grid = {18, 12, 1}, .cluster = {3, 2, 1}, .kind = ClusterKind::kGpcCga};
};

TEST_F(CheckGrid, CountsUnits) {
  EXPECT_TRUE(check_grid(topo, g, 16).ok());
  EXPECT_EQ(g.ctas_per_cga(), 6u);
  EXPECT_EQ(g.num_cgas(), 36u);  // ¶118–121 example (2): 6x6 GPC_CGAs of 3x2
  GridSpec plain{.grid = {18, 12, 1}};
  EXPECT_EQ(plain.ctas_per_cga(), 1u);
  EXPECT_EQ(plain.num_cgas(), 216u);
  GridSpec gpu = g;
  gpu.kind = ClusterKind::kGpuCga;
  gpu.gpc_cgas_per_gpu_cga = 9;
  EXPECT_EQ(gpu.ctas_per_cga(), 6u);
  EXPECT_EQ(gpu.num_cgas(), 4u);  // example (4): 2x2 GPU_CGAs of 3x3 GPC_CGAs
  EXPECT_TRUE(check_grid(topo, gpu, 16).ok());
  EXPECT_EQ((Dim3{2, 3, 4}.count()), 24u);
}

TEST_F(CheckGrid, ZeroDims) {
  g.grid.y = 0;
  expect_error(check_grid(topo, g, 16), {"grid.y", "= 0"});
  g.grid.y = 12;
  g.cluster.z = 0;
  expect_error(check_grid(topo, g, 16), {"cluster.z", "= 0"});
}

TEST_F(CheckGrid, ClusterMustDivideGrid) {
  g.grid.x = 16;
  expect_error(check_grid(topo, g, 16), {"cluster = 3x2x1", "grid = 16x12x1", "divide"});
}

TEST_F(CheckGrid, ClusterSizeLimit) {
  g.grid = {32, 2, 1};
  g.cluster = {16, 2, 1};
  expect_error(check_grid(topo, g, 16), {"16x2x1", "32 CTAs", "maximum cluster size 16"});
}

TEST_F(CheckGrid, CtaShapeIsChecked) {
  g.shape.threads = 2048;
  expect_error(check_grid(topo, g, 16), {"threads", "2048"});
}

TEST_F(CheckGrid, ClusterThatNoGpcHolds) {
  // 200 KiB of shared memory: one CTA per SM, so 18 CTAs in the largest GPC.
  g.shape.shared_bytes = 200 << 10;
  g.grid = {32, 1, 1};
  g.cluster = {32, 1, 1};
  expect_error(check_grid(topo, g, 32), {"32 CTAs", "18 SMs", "holds 18 CTAs", "1 per SM"});
  g.grid = {16, 1, 1};
  g.cluster = {16, 1, 1};
  EXPECT_TRUE(check_grid(topo, g, 32).ok());
}

TEST_F(CheckGrid, MulticastNeedsOneSmPerCta) {
  g.multicast = true;
  g.grid = {20, 1, 1};
  g.cluster = {20, 1, 1};
  expect_error(check_grid(topo, g, 32), {"multicast", "20 CTAs", "18 SMs"});
  g.grid = g.cluster = {18, 1, 1};
  EXPECT_TRUE(check_grid(topo, g, 32).ok());
}

TEST_F(CheckGrid, GpuCgaMustFitOnAnEmptyChip) {
  // One CTA per SM, 16-CTA GPC_CGAs: one per GPC → 4 fit at once.
  g.kind = ClusterKind::kGpuCga;
  g.shape.shared_bytes = 200 << 10;
  g.cluster = {16, 1, 1};
  g.grid = {80, 1, 1};
  g.gpc_cgas_per_gpu_cga = 5;
  expect_error(check_grid(topo, g, 16), {"GPU_CGA of 5 GPC_CGAs", "16 CTAs", "only 4"});
  g.grid = {64, 1, 1};
  g.gpc_cgas_per_gpu_cga = 4;
  EXPECT_TRUE(check_grid(topo, g, 16).ok());
  g.gpc_cgas_per_gpu_cga = 3;
  expect_error(check_grid(topo, g, 16), {"gpc_cgas_per_gpu_cga = 3", "4 GPC_CGAs"});
  g.gpc_cgas_per_gpu_cga = 0;
  expect_error(check_grid(topo, g, 16), {"gpc_cgas_per_gpu_cga = 0"});
}

TEST_F(CheckGrid, PlainGridHasNoCluster) {
  GridSpec plain{.grid = {100, 1, 1}};
  EXPECT_TRUE(check_grid(topo, plain, 16).ok());
  plain.cluster = {2, 1, 1};
  expect_error(check_grid(topo, plain, 16), {"cluster = 2x1x1", "plain grid"});
  plain.cluster = {};
  plain.multicast = true;
  expect_error(check_grid(topo, plain, 16), {"multicast"});
  plain.multicast = false;
  plain.gpc_cgas_per_gpu_cga = 2;
  expect_error(check_grid(topo, plain, 16), {"gpc_cgas_per_gpu_cga = 2"});
}

TEST_F(CheckGrid, CtaIdRange) {
  GridSpec plain{.grid = {1, 70000, 1}};
  expect_error(check_grid(topo, plain, 16), {"grid = 1x70000x1", "65535"});
}

// ¶224: 8-CTA clusters are portable to any GPC with at least 4 TPCs.
TEST(CheckGridPortable, EightCtasFitFourTpcs) {
  const Topology small = Topology::make({4, 4}, 2, SmCapacity{}).value();
  GridSpec g{.grid = {8, 1, 1}, .cluster = {8, 1, 1}, .kind = ClusterKind::kGpcCga};
  g.shape.threads = 1024;
  EXPECT_TRUE(check_grid(small, g, 8).ok());
  g.multicast = true;
  EXPECT_TRUE(check_grid(small, g, 8).ok());
}

}  // namespace
}  // namespace xpusim::sched
