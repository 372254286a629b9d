#include "sched/gpc_choice.h"

#include <vector>

#include <gtest/gtest.h>

#include "sched/policy.h"

namespace xpusim::sched {
namespace {

using V = std::vector<std::uint32_t>;

GpcQuery q(std::uint32_t gpc, bool ok, std::uint32_t speed) {
  GpcQuery r{gpc, {}};
  r.fill.ok = ok;
  r.fill.speed = speed;
  return r;
}

TEST(BestGpcs, SkipsFailuresAndKeepsAllTies) {
  const std::vector<GpcQuery> qs{q(3, true, 1), q(0, false, 9), q(1, true, 0), q(2, true, 1)};
  const std::vector<GpcQuery> best = best_gpcs(qs);
  ASSERT_EQ(best.size(), 2u);
  EXPECT_EQ(best[0].gpc, 2u);
  EXPECT_EQ(best[1].gpc, 3u);
  EXPECT_TRUE(best_gpcs(std::vector<GpcQuery>{q(0, false, 5)}).empty());
  // A speed-0 GPC is still chosen when it is the only fit.
  const std::vector<GpcQuery> only{q(0, false, 0), q(1, true, 0)};
  ASSERT_EQ(best_gpcs(only).size(), 1u);
  EXPECT_EQ(best_gpcs(only)[0].gpc, 1u);
}

// 4 GPCs of 8 SMs; 256-thread CTAs → 8 free slots per empty SM.
struct Fig28 : ::testing::Test {
  Topology topo = Topology::make({4, 4, 4, 4}, 2, SmCapacity{}).value();
  GridSpec grid{.grid = {64, 1, 1},
                .cluster = {4, 1, 1},
                .kind = ClusterKind::kGpcCga,
                .shape = CtaShape{.threads = 256}};
  CtaFootprint fp = footprint(topo.capacity(), grid.shape);
  GpuState state{topo};

  void set_free(std::uint32_t gpc, const V& free) {
    for (std::uint32_t i = 0; i < free.size(); ++i)
      while (state.free_slots(topo.first_sm(gpc) + i, fp) > free[i])
        state.launch(topo.first_sm(gpc) + i, fp);
  }

  void SetUp() override {
    ASSERT_EQ(state.free_slots(0, fp), 8u);
    set_free(0, {1, 1, 1, 0, 0, 0, 0, 0});  // occupied: 3 slots < 4 CTAs → FAIL
    set_free(1, {1, 1, 1, 1, 0, 0, 0, 0});  // fits, but with speed 0
    set_free(2, {2, 2, 2, 2, 0, 0, 0, 0});  // speed 1
    set_free(3, {2, 2, 2, 2, 2, 2, 0, 0});  // less loaded, still speed 1
  }
};

TEST_F(Fig28, QueriesAnswerFailOrSpeed) {
  const ShadowState shadow(state, fp);
  EXPECT_FALSE(query_gpc(shadow, 0, grid).ok);
  EXPECT_EQ(query_gpc(shadow, 1, grid).speed, 0u);
  EXPECT_EQ(query_gpc(shadow, 2, grid).speed, 1u);
  const Fill g3 = query_gpc(shadow, 3, grid);
  EXPECT_EQ(g3.speed, 1u);
  EXPECT_EQ(g3.per_sm, (V{1, 1, 1, 1, 0, 0, 0, 0}));
}

// Digest §5.7 / ¶171: the tied GPC2 and GPC3 both get a CGA in one step.
TEST_F(Fig28, TiedGpcsLaunchTogether) {
  auto policy = make_policy("waterfill").value();
  const std::uint64_t before = state.resident_ctas();
  const LaunchStep s = policy->step(state, grid, 100, {});
  ASSERT_EQ(s.cgas.size(), 2u);
  EXPECT_EQ(s.cgas[0].gpc, 2u);
  EXPECT_EQ(s.cgas[1].gpc, 3u);
  EXPECT_EQ(s.cgas[0].speed, 1u);
  EXPECT_EQ(s.cgas[0].sm_of_cta, (V{16, 17, 18, 19}));
  EXPECT_EQ(s.cgas[1].sm_of_cta, (V{24, 25, 26, 27}));
  EXPECT_EQ(state.resident_ctas(), before + 8);
  // Parallel queries: one round, charged its largest probe count.
  EXPECT_EQ(s.decision_cycles, DecisionCost{}.step_cycles + s.probes);
  EXPECT_GT(s.probes, 0u);
}

TEST_F(Fig28, TiesBeyondMaxCgasGoToLowerGpcs) {
  auto policy = make_policy("waterfill").value();
  const LaunchStep s = policy->step(state, grid, 1, {});
  ASSERT_EQ(s.cgas.size(), 1u);
  EXPECT_EQ(s.cgas[0].gpc, 2u);
  // Next round: GPC3 (speed 1) beats GPC2 (now speed 0).
  const LaunchStep t = policy->step(state, grid, 1, {});
  ASSERT_EQ(t.cgas.size(), 1u);
  EXPECT_EQ(t.cgas[0].gpc, 3u);
}

TEST_F(Fig28, ClosedGpcsAreNotQueried) {
  auto policy = make_policy("waterfill").value();
  const V budget{5, 5, 5, 0};  // GPC3's counter is at 0
  const LaunchStep s = policy->step(state, grid, 100, budget);
  ASSERT_EQ(s.cgas.size(), 1u);
  EXPECT_EQ(s.cgas[0].gpc, 2u);
}

TEST_F(Fig28, NothingFitsLeavesStateUnchanged) {
  set_free(1, V(8, 0));
  set_free(2, V(8, 0));
  set_free(3, {1, 1, 1, 0, 0, 0, 0, 0});
  std::vector<SmUsage> before;
  for (std::uint32_t sm = 0; sm < topo.num_sms(); ++sm)
    before.push_back(state.usage(sm));
  auto policy = make_policy("waterfill").value();
  const LaunchStep s = policy->step(state, grid, 100, {});
  EXPECT_TRUE(s.cgas.empty());
  EXPECT_GE(s.decision_cycles, DecisionCost{}.step_cycles);  // the failed query still costs
  for (std::uint32_t sm = 0; sm < topo.num_sms(); ++sm)
    ASSERT_EQ(state.usage(sm), before[sm]);
}

}  // namespace
}  // namespace xpusim::sched
