// The warp schedulers' choices on hand-made ready lists.
#include "core/warp_scheduler.h"

#include <string>
#include <vector>

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
            "warp scheduler 'gtoo' is unknown (did you mean 'gto'?); known warp schedulers: gto, "
            "lrr, oldest");
}

TEST(WarpScheduler, RegistryListsTheThreeDefaultFirstAndEachBuilds) {
  const WarpSchedulerRegistry r = warp_schedulers();
  EXPECT_EQ(r.names(), (std::vector<std::string>{"gto", "lrr", "oldest"}));
  EXPECT_EQ(warp_scheduler_names(), r.names());
  // Each factory builds its own scheduler: on one ready list the three pick differently.
  const std::vector<std::uint64_t> ready{5, 2, 9};
  std::vector<std::size_t> picks;
  for (const auto& e : r.entries()) {
    EXPECT_FALSE(e.description.empty()) << e.name;
    EXPECT_EQ(e.description.find('\n'), std::string::npos) << e.name;
    ASSERT_NE(e.make, nullptr) << e.name;
    const auto s = e.make();
    ASSERT_NE(s, nullptr) << e.name;
    picks.push_back(s->pick(ready, 5, true));
  }
  EXPECT_EQ(picks, (std::vector<std::size_t>{0u, 2u, 1u}));  // gto keeps 5, lrr 9, oldest 2
  EXPECT_EQ(default_scheduler()->pick(ready, 5, true), 0u);  // the default is gto
}

}  // namespace
}  // namespace xpusim::core
