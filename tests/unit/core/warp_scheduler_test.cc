// The warp schedulers' choices on hand-made ready lists.
#include "core/warp_scheduler.h"

#include <gtest/gtest.h>

namespace xpusim::core {
namespace {

std::size_t pick(std::string_view name, std::vector<std::uint64_t> ready, std::uint64_t last,
                 bool has_last = true) {
  auto s = make_warp_scheduler(name);
  EXPECT_TRUE(s.ok());
  return (*s)->pick(ready, last, has_last);
}

TEST(WarpScheduler, GtoKeepsTheLastWarpWhileReadyElseOldest) {
  EXPECT_EQ(pick("gto", {5, 2, 9}, 9), 2u);
  EXPECT_EQ(pick("gto", {5, 2, 9}, 7), 1u);
  EXPECT_EQ(pick("gto", {5, 2, 9}, 0, false), 1u);
}

TEST(WarpScheduler, LrrTakesTheNextAfterTheLastAndWraps) {
  EXPECT_EQ(pick("lrr", {5, 2, 9}, 2), 0u);  // 5 follows 2
  EXPECT_EQ(pick("lrr", {5, 2, 9}, 5), 2u);  // 9 follows 5
  EXPECT_EQ(pick("lrr", {5, 2, 9}, 9), 1u);  // wraps to the oldest
  EXPECT_EQ(pick("lrr", {5, 2, 9}, 0, false), 1u);
}

TEST(WarpScheduler, OldestIgnoresTheLastWarp) {
  EXPECT_EQ(pick("oldest", {5, 2, 9}, 9), 1u);
}

TEST(WarpScheduler, UnknownNameSuggestsTheClosest) {
  auto s = make_warp_scheduler("gtoo");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message,
            "warp scheduler 'gtoo' is unknown (did you mean 'gto'?); schedulers: gto, lrr, oldest");
}

}  // namespace
}  // namespace xpusim::core
