// ClusterContext's barrier rule (seed1: a CGA's CTAs are launched together, and the cluster
// barrier must not open before every CTA of the CGA has launched and arrived): the count is
// over every warp of every CTA, started or not; exited warps count as arrived.
#include <gtest/gtest.h>

#include "core/cluster.h"

namespace xpusim::core {
namespace {

TEST(ClusterBarrier, WaitsForCtasThatHaveNotLaunchedYet) {
  ClusterContext k(/*ctas=*/4, /*warps_per_cta=*/2);
  EXPECT_EQ(k.warps_total, 8u);
  // Ranks 0 and 1 are running and all their warps arrived; ranks 2 and 3 have not started.
  k.arrived = 4;
  EXPECT_FALSE(k.barrier_complete());
  k.arrived = 7;
  EXPECT_FALSE(k.barrier_complete());
  k.arrived = 8;
  EXPECT_TRUE(k.barrier_complete());
}

TEST(ClusterBarrier, ExitedWarpsCountAsArrivedButNoArrivalOpensNothing) {
  ClusterContext k(2, 2);
  k.warps_exited = 4;  // everyone exited: there is no barrier round to complete
  EXPECT_FALSE(k.barrier_complete());
  k.warps_exited = 3;
  k.arrived = 1;
  EXPECT_TRUE(k.barrier_complete());
  k.warps_exited = 2;
  EXPECT_FALSE(k.barrier_complete());
}

}  // namespace
}  // namespace xpusim::core
