// The GPU models (live state, shadow snapshot with launch registers) and the two-pass GPU_CGA
// launch built on them (seed1 ¶194, ¶200–221).
#include <vector>

#include <gtest/gtest.h>

#include "sched/gpc_choice.h"
#include "sched/gpu_state.h"
#include "sched/policy.h"

namespace xpusim::sched {
namespace {

using V = std::vector<std::uint32_t>;

// Digest §5.1: 64 warp slots and an 8-warp CTA, nothing else limiting → 8 free slots.
TEST(FreeSlots, WarpLimitedExample) {
  SmCapacity cap;
  cap.warps = 64;
  const CtaShape shape{.threads = 256, .registers_per_thread = 16, .shared_bytes = 0};
  const CtaFootprint f = footprint(cap, shape);
  EXPECT_EQ(f.warps, 8u);
  EXPECT_EQ(free_slots(cap, SmUsage{}, f), 8u);
  EXPECT_EQ(limiting_resource(cap, SmUsage{}, f), Resource::kWarps);
  SmUsage used;
  used.add(f);
  EXPECT_EQ(free_slots(cap, used, f), 7u);
}

TEST(GpuStateTest, LaunchAndRetire) {
  const Topology topo = Topology::make({2, 2}, 2, SmCapacity{}).value();
  GpuState state(topo);
  const CtaFootprint f = footprint(topo.capacity(), CtaShape{.threads = 256});
  EXPECT_EQ(state.free_slots(5, f), 8u);
  state.launch(5, f);
  state.launch(5, f);
  EXPECT_EQ(state.free_slots(5, f), 6u);
  EXPECT_EQ(state.usage(5).ctas, 2u);
  EXPECT_EQ(state.resident_ctas(), 2u);
  state.retire(5, f);
  EXPECT_EQ(state.free_slots(5, f), 7u);
  EXPECT_EQ(state.resident_ctas(), 1u);
  EXPECT_EQ(state.topology().num_sms(), 8u);
}

TEST(ShadowStateTest, ReserveCancelCommit) {
  const Topology topo = Topology::make({2, 2}, 2, SmCapacity{}).value();
  GpuState live(topo);
  const CtaFootprint f = footprint(topo.capacity(), CtaShape{.threads = 256});
  ShadowState shadow(live, f);
  shadow.reserve(1, 3);
  shadow.reserve_range(4, V{1, 2});
  EXPECT_EQ(shadow.free(1), 5u);  // effective free = free − launch (¶209)
  EXPECT_EQ(shadow.reserved(1), 3u);
  EXPECT_EQ(shadow.reserved(5), 2u);
  EXPECT_EQ(shadow.reserved_total(), 6u);
  EXPECT_EQ(shadow.free_range(4, 2), (V{7, 6}));
  EXPECT_EQ(live.resident_ctas(), 0u) << "speculation touches only the shadow";
  shadow.cancel();
  EXPECT_EQ(shadow.reserved(1), 0u);
  EXPECT_EQ(shadow.free(1), 8u);
  shadow.reserve(2, 4);
  shadow.commit(live, f);
  EXPECT_EQ(live.usage(2).ctas, 4u);
  EXPECT_EQ(live.resident_ctas(), 4u);
  EXPECT_EQ(shadow.reserved(2), 0u);
  EXPECT_EQ(shadow.free(2), 4u) << "the commit folds into the snapshot";
  // The snapshot can be stale only pessimistically: a retirement is not seen until re-taken.
  live.retire(2, f);
  EXPECT_EQ(shadow.free(2), 4u);
  EXPECT_EQ(ShadowState(live, f).free(2), 5u);
}

// 4 GPCs × 4 SMs, 8 slots per SM: a GPC holds 32 CTAs.
struct GpuCga : ::testing::Test {
  Topology topo = Topology::make({2, 2, 2, 2}, 2, SmCapacity{}).value();
  GridSpec grid{.grid = {64, 1, 1},
                .cluster = {8, 1, 1},
                .kind = ClusterKind::kGpuCga,
                .gpc_cgas_per_gpu_cga = 4,
                .shape = CtaShape{.threads = 256}};
  CtaFootprint fp = footprint(topo.capacity(), grid.shape);
  GpuState state{topo};

  void set_free(std::uint32_t sm, std::uint32_t free) {
    while (state.free_slots(sm, fp) > free)
      state.launch(sm, fp);
  }
  std::vector<SmUsage> snapshot() const {
    std::vector<SmUsage> u;
    for (std::uint32_t sm = 0; sm < topo.num_sms(); ++sm)
      u.push_back(state.usage(sm));
    return u;
  }
};

TEST_F(GpuCga, TwoPassLaunchesAllGpcCgas) {
  ASSERT_TRUE(check_grid(topo, grid, 16).ok());
  EXPECT_EQ(grid.num_cgas(), 2u);
  // GPCs 0 and 1 are busy: each holds only one more GPC_CGA; GPCs 2 and 3 hold four each.
  for (std::uint32_t sm = 0; sm < 8; ++sm)
    set_free(sm, 3);
  auto p = make_policy("waterfill").value();
  const LaunchStep s = p->step(state, grid, 5, {});
  ASSERT_EQ(s.cgas.size(), 1u) << "one GPU_CGA per session";
  const CgaPlacement& c = s.cgas[0];
  ASSERT_EQ(c.sm_of_cta.size(), 32u);
  ASSERT_EQ(c.gpcs.size(), 4u);
  // Pass II picks the fastest GPC each time: the empty GPCs 2 and 3 (speed 6, then 4).
  EXPECT_EQ(c.gpcs, (V{2, 3, 2, 3}));
  for (std::size_t k = 0; k < 4; ++k)
    for (std::size_t i = 0; i < 8; ++i)
      EXPECT_EQ(topo.gpc_of(c.sm_of_cta[k * 8 + i]), c.gpcs[k]);
  EXPECT_EQ(c.gpc, 2u);
  EXPECT_EQ(c.speed, 4u);
  EXPECT_EQ(state.resident_ctas(), 8u * 5 + 32);
  // Pass I took one round (every GPC placed one), Pass II four launches: 5 rounds of step cost.
  EXPECT_EQ(s.decision_cycles,
            5 * DecisionCost{}.step_cycles + s.probes * DecisionCost{}.probe_cycles);
}

TEST_F(GpuCga, PassIFailureLaunchesNothing) {
  // Room for exactly 3 GPC_CGAs on the whole chip.
  for (std::uint32_t sm = 0; sm < topo.num_sms(); ++sm)
    set_free(sm, sm < 12 ? 2 : 0);
  const std::vector<SmUsage> before = snapshot();
  for (const std::string_view name : policy_names()) {
    auto p = make_policy(name).value();
    const LaunchStep s = p->step(state, grid, 1, {});
    EXPECT_TRUE(s.cgas.empty()) << name;
    EXPECT_GE(s.decision_cycles, 1u) << name;
    EXPECT_EQ(snapshot(), before) << name << ": state untouched";
  }
  // One more free SM's worth of slots and it fits.
  for (std::uint32_t sm = 12; sm < 16; ++sm)
    state.retire(sm, fp), state.retire(sm, fp);
  EXPECT_EQ(make_policy("waterfill").value()->step(state, grid, 1, {}).cgas.size(), 1u);
}

// Pass I speculation on the shadow: launch registers grow, then are reset on abort.
TEST_F(GpuCga, ShadowLaunchRegistersResetOnAbort) {
  for (std::uint32_t sm = 0; sm < topo.num_sms(); ++sm)
    set_free(sm, sm < 12 ? 2 : 0);
  ShadowState shadow(state, fp);
  std::uint32_t count = 0;
  for (bool progress = true; progress && count < 4;) {
    progress = false;
    for (std::uint32_t g = 0; g < topo.num_gpcs(); ++g) {
      const Fill f = query_gpc(shadow, g, grid);
      if (!f.ok) continue;
      shadow.reserve_range(topo.first_sm(g), f.per_sm);
      ++count, progress = true;
    }
  }
  EXPECT_EQ(count, 3u);
  EXPECT_EQ(shadow.reserved_total(), 24u);
  shadow.cancel();
  for (std::uint32_t sm = 0; sm < topo.num_sms(); ++sm)
    EXPECT_EQ(shadow.reserved(sm), 0u);
}

TEST_F(GpuCga, BudgetCountsGpcCgas) {
  auto p = make_policy("waterfill").value();
  const V tight{1, 1, 1, 0};  // 3 GPC_CGA ids in all: the GPU_CGA cannot launch
  EXPECT_TRUE(p->step(state, grid, 1, tight).cgas.empty());
  EXPECT_EQ(state.resident_ctas(), 0u);
  const V two{2, 0, 0, 2};
  const LaunchStep s = p->step(state, grid, 1, two);
  ASSERT_EQ(s.cgas.size(), 1u);
  EXPECT_EQ(s.cgas[0].gpcs, (V{0, 3, 0, 3}));
  for (const std::string_view name : {"prior-art", "round-robin", "first-fit"}) {
    GpuState fresh(topo);
    const LaunchStep t = make_policy(name).value()->step(fresh, grid, 2, two);
    ASSERT_EQ(t.cgas.size(), 1u) << name << ": the budget allows one GPU_CGA";
    V per(4, 0);
    for (std::uint32_t g : t.cgas[0].gpcs)
      ++per[g];
    EXPECT_EQ(per, (V{2, 0, 0, 2})) << name;
  }
}

}  // namespace
}  // namespace xpusim::sched
