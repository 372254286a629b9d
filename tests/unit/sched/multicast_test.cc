#include "sched/multicast.h"

#include <vector>

#include <gtest/gtest.h>

namespace xpusim::sched {
namespace {

using V = std::vector<std::uint32_t>;

// Digest §5.6: TPCs (0,1),(2,3); TPC 1 has both SMs eligible, so it is used first.
TEST(Multicast, WholeTpcsFirst) {
  const V f{4, 0, 2, 3};
  const Fill r = multicast_fill(f, 2, 2);
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(r.per_sm, (V{0, 0, 1, 1}));
  EXPECT_EQ(r.speed, 1u);
  // The third CTA falls to the half-eligible TPC.
  EXPECT_EQ(multicast_fill(f, 2, 3).per_sm, (V{1, 0, 1, 1}));
}

TEST(Multicast, FailsWithFewerEligibleSmsThanCtas) {
  const V f{4, 0, 2, 3};  // Σf = 9 but only 3 SMs can take a CTA
  const Fill r = multicast_fill(f, 2, 4);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.placed(), 0u);
}

TEST(Multicast, OrderInsideAClass) {
  // Class first even against more free slots elsewhere.
  EXPECT_EQ(multicast_fill(V{1, 1, 5, 0}, 2, 2).per_sm, (V{1, 1, 0, 0}));
  // Within a class most free first, then lower index.
  EXPECT_EQ(multicast_fill(V{1, 1, 3, 3}, 2, 2).per_sm, (V{0, 0, 1, 1}));
  EXPECT_EQ(multicast_fill(V{2, 2, 2, 2}, 2, 3).per_sm, (V{1, 1, 1, 0}));
  // One SM per TPC: every eligible SM is a whole TPC.
  EXPECT_EQ(multicast_fill(V{1, 3, 0, 2}, 1, 2).per_sm, (V{0, 1, 0, 1}));
}

TEST(Multicast, NeverMoreThanOnePerSm) {
  const V f{8, 8, 8, 8, 8, 8};
  const Fill r = multicast_fill(f, 2, 6);
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(r.per_sm, (V{1, 1, 1, 1, 1, 1}));
  EXPECT_EQ(r.speed, 7u);
  EXPECT_FALSE(multicast_fill(f, 2, 7).ok);
}

}  // namespace
}  // namespace xpusim::sched
