#include "sched/policy.h"

#include <algorithm>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace xpusim::sched {
namespace {

using V = std::vector<std::uint32_t>;

// H100 SXM5-like: 132 SMs in GPCs of 18, 18 and six of 16.
Topology h100() {
  return Topology::make({9, 9, 8, 8, 8, 8, 8, 8}, 2, SmCapacity{}).value();
}

GridSpec clustered(Dim3 cluster, std::uint32_t clusters, bool multicast = false) {
  GridSpec g;
  g.cluster = cluster;
  g.grid = {cluster.x * clusters, cluster.y, cluster.z};
  g.kind = ClusterKind::kGpcCga;
  g.multicast = multicast;
  g.shape.threads = 256;  // 8 CTAs per empty SM
  return g;
}

TEST(Policy, RegistryKnowsTheFourPolicies) {
  const auto names = policy_names();
  ASSERT_EQ(names.size(), 4u);
  EXPECT_EQ(names.front(), "waterfill");
  for (const std::string_view n : names) {
    auto p = make_policy(n);
    ASSERT_TRUE(p.ok()) << n;
    EXPECT_EQ((*p)->name(), n);
  }
  const auto bad = make_policy("waterfil");
  ASSERT_FALSE(bad.ok());
  const std::string& msg = bad.error().message;
  EXPECT_NE(msg.find("'waterfil'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("did you mean 'waterfill'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("prior-art, round-robin, first-fit"), std::string::npos) << msg;
}

// Every policy, on clustered, multicast, plain and GPU_CGA grids, with random budgets, step sizes
// and retirements: budgets hold, clusters are whole and inside one GPC, multicast puts ≤1 CTA of
// a cluster on an SM, and a step that launches nothing changes nothing.
TEST(Policy, InvariantsUnderRandomLoad) {
  const Topology topo = h100();
  std::vector<GridSpec> grids{clustered({2, 1, 1}, 300), clustered({4, 2, 1}, 200),
                              clustered({16, 1, 1}, 40), clustered({8, 1, 1}, 100, true),
                              clustered({16, 1, 1}, 30, true)};
  GridSpec plain;
  plain.grid = {3000, 1, 1};
  plain.shape.threads = 256;
  grids.push_back(plain);
  GridSpec gpu = clustered({6, 1, 1}, 60);
  gpu.kind = ClusterKind::kGpuCga;
  gpu.gpc_cgas_per_gpu_cga = 10;
  grids.push_back(gpu);
  gpu.multicast = true;
  grids.push_back(gpu);

  std::mt19937_64 rng(99);
  for (const std::string_view name : policy_names()) {
    for (const GridSpec& grid : grids) {
      SCOPED_TRACE(::testing::Message() << name << " cluster " << grid.ctas_per_cga() << " kind "
                                        << static_cast<int>(grid.kind) << " mc " << grid.multicast);
      ASSERT_TRUE(check_grid(topo, grid, 16).ok());
      auto policy = make_policy(name).value();
      GpuState state(topo);
      const CtaFootprint fp = footprint(topo.capacity(), grid.shape);
      std::vector<std::uint32_t> resident;  // SM of every resident CTA
      std::uint64_t left = grid.num_cgas();
      const std::uint32_t per_unit =
          grid.ctas_per_cga() * (grid.kind == ClusterKind::kGpuCga ? grid.gpc_cgas_per_gpu_cga : 1);
      for (int it = 0; it < 10000 && left > 0; ++it) {  // prior-art: one CTA per step
        V budget;
        if (rng() % 2) {
          for (std::uint32_t g = 0; g < topo.num_gpcs(); ++g)
            budget.push_back(static_cast<std::uint32_t>(rng() % 4));
        }
        const std::uint64_t max = std::min<std::uint64_t>(left, 1 + rng() % 40);
        std::vector<SmUsage> before;
        for (std::uint32_t sm = 0; sm < topo.num_sms(); ++sm)
          before.push_back(state.usage(sm));
        const std::uint64_t resident_before = state.resident_ctas();

        const LaunchStep s = policy->step(state, grid, max, budget);
        ASSERT_LE(s.cgas.size(), max);
        ASSERT_GE(s.decision_cycles, 1u);
        std::uint64_t ctas = 0;
        V per_gpc(topo.num_gpcs(), 0);
        for (const CgaPlacement& c : s.cgas) {
          ASSERT_EQ(c.sm_of_cta.size(), per_unit) << "all-or-nothing";
          ctas += c.sm_of_cta.size();
          for (std::uint32_t sm : c.sm_of_cta)
            resident.push_back(sm);
          if (grid.kind == ClusterKind::kNone) continue;
          const V gpcs = grid.kind == ClusterKind::kGpuCga ? c.gpcs : V{c.gpc};
          ASSERT_EQ(gpcs.size() * grid.ctas_per_cga(), c.sm_of_cta.size());
          ASSERT_EQ(c.gpc, gpcs.front());
          for (std::size_t k = 0; k < gpcs.size(); ++k) {
            ++per_gpc[gpcs[k]];
            std::set<std::uint32_t> sms;
            for (std::size_t i = 0; i < grid.ctas_per_cga(); ++i) {
              const std::uint32_t sm = c.sm_of_cta[k * grid.ctas_per_cga() + i];
              ASSERT_EQ(topo.gpc_of(sm), gpcs[k]) << "a GPC_CGA never spans GPCs";
              sms.insert(sm);
            }
            if (grid.multicast) {
              ASSERT_EQ(sms.size(), grid.ctas_per_cga()) << "≤1 CTA per SM";
            }
          }
        }
        if (!budget.empty() && grid.kind != ClusterKind::kNone) {
          for (std::uint32_t g = 0; g < topo.num_gpcs(); ++g)
            ASSERT_LE(per_gpc[g], budget[g]) << "GPC " << g;
        }
        ASSERT_EQ(state.resident_ctas(), resident_before + ctas);
        if (s.cgas.empty()) {
          for (std::uint32_t sm = 0; sm < topo.num_sms(); ++sm)
            ASSERT_EQ(state.usage(sm), before[sm]);
        }
        left -= s.cgas.size();
        // Retire a random share of the resident CTAs.
        std::shuffle(resident.begin(), resident.end(), rng);
        const std::size_t retire = resident.size() * (rng() % 50) / 100;
        for (std::size_t i = 0; i < retire; ++i) {
          state.retire(resident.back(), fp);
          resident.pop_back();
        }
      }
      EXPECT_EQ(left, 0u) << "the grid drains";
    }
  }
}

// An empty chip always takes at least one CGA, whatever the policy.
TEST(Policy, EmptyChipMakesProgress) {
  const Topology topo = h100();
  for (const std::string_view name : policy_names()) {
    for (const GridSpec& g : {clustered({16, 1, 1}, 8), clustered({16, 1, 1}, 8, true)}) {
      GpuState state(topo);
      EXPECT_FALSE(make_policy(name).value()->step(state, g, 1, {}).cgas.empty()) << name;
    }
  }
}

// Digest §5.18a / ¶130: the prior art needs > 1000 cycles to put 8 CTAs on each of 128 SMs; the
// water-fill places them in one step.
TEST(Policy, LaunchLatencyPriorArtVsWaterfill) {
  const Topology topo = Topology::make({8, 8, 8, 8, 8, 8, 8, 8}, 2, SmCapacity{}).value();
  GridSpec grid;
  grid.grid = {1024, 1, 1};
  grid.shape.threads = 256;
  const auto fill = [&](std::string_view name) {
    GpuState state(topo);
    auto p = make_policy(name).value();
    std::uint64_t cycles = 0, launched = 0, steps = 0;
    while (launched < 1024) {
      const LaunchStep s = p->step(state, grid, 1024 - launched, {});
      EXPECT_FALSE(s.cgas.empty());
      if (s.cgas.empty()) break;
      launched += s.cgas.size();
      cycles += s.decision_cycles;
      ++steps;
    }
    for (std::uint32_t sm = 0; sm < topo.num_sms(); ++sm)
      EXPECT_EQ(state.usage(sm).ctas, 8u) << name << " SM " << sm;
    return std::pair{cycles, steps};
  };
  const auto [prior, prior_steps] = fill("prior-art");
  const auto [water, water_steps] = fill("waterfill");
  EXPECT_GE(prior, 1024u);
  EXPECT_EQ(prior_steps, 1024u);
  EXPECT_EQ(water_steps, 1u);
  EXPECT_LE(water * 50, prior) << water << " vs " << prior;
}

TEST(Policy, WaterfillPlainGridBalances) {
  const Topology topo = h100();
  GpuState state(topo);
  GridSpec grid;
  grid.grid = {100000, 1, 1};
  grid.shape.threads = 256;
  auto p = make_policy("waterfill").value();
  const LaunchStep s = p->step(state, grid, 200, {});
  ASSERT_EQ(s.cgas.size(), 200u);  // 132 SMs: 68 take 2, 64 take 1
  for (std::uint32_t sm = 0; sm < topo.num_sms(); ++sm)
    EXPECT_EQ(state.usage(sm).ctas, sm < 68 ? 2u : 1u) << sm;
  // A plain grid larger than the chip fills every slot and stops (¶154).
  const LaunchStep t = p->step(state, grid, 100000, {});
  EXPECT_EQ(state.resident_ctas(), 132u * 8);
  EXPECT_EQ(t.cgas.size(), 132u * 8 - 200);
  EXPECT_TRUE(p->step(state, grid, 10, {}).cgas.empty());
}

TEST(Policy, FirstFitFillsLowestSmsFirst) {
  GpuState state(h100());
  auto p = make_policy("first-fit").value();
  const LaunchStep s = p->step(state, clustered({4, 1, 1}, 10), 3, {});
  ASSERT_EQ(s.cgas.size(), 3u);
  EXPECT_EQ(s.cgas[0].sm_of_cta, (V{0, 0, 0, 0}));
  EXPECT_EQ(s.cgas[1].sm_of_cta, (V{0, 0, 0, 0}));
  EXPECT_EQ(s.cgas[2].sm_of_cta, (V{1, 1, 1, 1}));
  EXPECT_EQ(s.decision_cycles, 3 * DecisionCost{}.step_cycles);
  const LaunchStep m = p->step(state, clustered({4, 1, 1}, 10, true), 1, {});
  EXPECT_EQ(m.cgas[0].sm_of_cta, (V{1, 2, 3, 4}));  // SM 0 is full
}

TEST(Policy, RoundRobinRotatesGpcs) {
  GpuState state(h100());
  auto p = make_policy("round-robin").value();
  const GridSpec g = clustered({2, 1, 1}, 100);
  V gpcs;
  for (int i = 0; i < 10; ++i)
    gpcs.push_back(p->step(state, g, 1, {}).cgas.at(0).gpc);
  EXPECT_EQ(gpcs, (V{0, 1, 2, 3, 4, 5, 6, 7, 0, 1}));
  const V budget{0, 0, 0, 1, 0, 0, 0, 1};  // closed GPCs are skipped
  const LaunchStep s = p->step(state, g, 5, budget);
  ASSERT_EQ(s.cgas.size(), 2u);
  EXPECT_EQ(s.cgas[0].gpc, 3u);
  EXPECT_EQ(s.cgas[1].gpc, 7u);
  // Most free first inside the GPC.
  const std::uint32_t first = h100().first_sm(3);  // SMs first, first+1 took the earlier CGA
  EXPECT_EQ(s.cgas[0].sm_of_cta, (V{first + 2, first + 3}));
}

}  // namespace
}  // namespace xpusim::sched
