// The CGA levels beyond GPC_CGA and GPU_CGA (seed1 ¶101–115, ¶169, claim 8): CPCs inside GPCs,
// µGPUs as groups of GPCs, the recursive query that places CPC_CGAs inside a GPC_CGA and
// GPC_CGAs inside a µGPU_CGA, checked against a naive re-statement of ¶169, and the grid rules.
#include <algorithm>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "greedy_oracle.h"
#include "sched/gpc_choice.h"
#include "sched/gpu_state.h"
#include "sched/grid.h"
#include "sched/policy.h"

namespace xpusim::sched {
namespace {

using V = std::vector<std::uint32_t>;

// H100 SXM5-like: GPCs of 9, 9 and six of 8 TPCs; 3 CPCs per GPC, 2 µGPUs.
Topology h100(std::uint32_t cpcs = 3, std::uint32_t ugpus = 2) {
  return Topology::make({9, 9, 8, 8, 8, 8, 8, 8}, 2, SmCapacity{},
                        {.cpcs_per_gpc = cpcs, .ugpus = ugpus})
      .value();
}

TEST(Hierarchy, CpcsAndUgpusSplitEvenlyWithTheExtraToTheLowerOnes) {
  const Topology t = h100(3, 3);
  // GPC 0: 9 TPCs = 3 + 3 + 3; GPC 2: 8 TPCs = 3 + 3 + 2 (2 SMs per TPC).
  EXPECT_EQ(t.cpcs_per_gpc(), 3u);
  EXPECT_EQ((V{t.cpc_first_sm(0, 0), t.cpc_first_sm(0, 1), t.cpc_first_sm(0, 2)}), (V{0, 6, 12}));
  EXPECT_EQ((V{t.sms_in_cpc(2, 0), t.sms_in_cpc(2, 1), t.sms_in_cpc(2, 2)}), (V{6, 6, 4}));
  EXPECT_EQ(t.cpc_first_sm(2, 0), 36u);
  EXPECT_EQ(t.cpc_first_sm(7, 2) + t.sms_in_cpc(7, 2), t.num_sms());
  EXPECT_EQ(t.largest_cpc_sms(), 6u);
  // 8 GPCs in 3 µGPUs: 3 + 3 + 2.
  EXPECT_EQ(t.num_ugpus(), 3u);
  EXPECT_EQ((V{t.gpcs_in_ugpu(0), t.gpcs_in_ugpu(1), t.gpcs_in_ugpu(2)}), (V{3, 3, 2}));
  EXPECT_EQ((V{t.ugpu_of(0), t.ugpu_of(2), t.ugpu_of(3), t.ugpu_of(5), t.ugpu_of(6)}),
            (V{0, 0, 1, 1, 2}));
  // The defaults: one CPC per GPC, one µGPU.
  const Topology flat = Topology::make({2, 3}, 2, SmCapacity{}).value();
  EXPECT_EQ(flat.sms_in_cpc(1, 0), 6u);
  EXPECT_EQ(flat.num_ugpus(), 1u);
}

TEST(Hierarchy, BadSplitsAreNamedErrors) {
  const auto err = [](Hierarchy h) {
    return Topology::make({4, 2, 4}, 2, SmCapacity{}, h).error().message;
  };
  EXPECT_EQ(err({.cpcs_per_gpc = 3, .ugpus = 1}),
            "topology: GPC 1 has 2 TPCs, fewer than cpcs_per_gpc = 3; every CPC needs at least "
            "one TPC");
  EXPECT_EQ(err({.cpcs_per_gpc = 0, .ugpus = 1}),
            "topology: cpcs_per_gpc = 0; a GPC holds at least one CPC");
  EXPECT_EQ(err({.cpcs_per_gpc = 1, .ugpus = 4}),
            "topology: ugpus = 4; it must be 1 to the 3 GPCs");
  EXPECT_EQ(err({.cpcs_per_gpc = 1, .ugpus = 0}),
            "topology: ugpus = 0; it must be 1 to the 3 GPCs");
}

// ---- A naive re-statement of ¶169, independent of place_parts and waterfill. ----

struct Ref {
  bool ok = false;
  std::uint32_t speed = 0;
  V sm_of_cta;  // CTA rank order
};

// n CTAs over SMs [first, first + count) of `free`, greedily one at a time (the water-fill's
// oracle); speed = min over receiving SMs of free − placed.
Ref ref_leaf(const V& free, std::uint32_t first, std::uint32_t count, std::uint32_t n) {
  const V part(free.begin() + first, free.begin() + first + count);
  const auto a = testing::greedy_oracle(part, n, /*all_or_nothing=*/true);
  Ref r;
  if (!a) return r;
  r.ok = true;
  r.speed = std::numeric_limits<std::uint32_t>::max();
  for (std::uint32_t i = 0; i < count; ++i) {
    for (std::uint32_t k = 0; k < (*a)[i]; ++k)
      r.sm_of_cta.push_back(first + i);
    if ((*a)[i] > 0) r.speed = std::min(r.speed, part[i] - (*a)[i]);
  }
  return r;
}

// `parts` sub-CGAs, each on the child with the highest speed (ties: the lowest), placed at once;
// the answer is the last one's speed.
template <class Child>
Ref ref_parts(V free, std::uint32_t children, std::uint32_t parts, const Child& child,
              V* chosen = nullptr) {
  Ref out;
  for (std::uint32_t k = 0; k < parts; ++k) {
    std::optional<Ref> best;
    std::uint32_t best_child = 0;
    for (std::uint32_t c = 0; c < children; ++c) {
      const Ref r = child(free, c);
      if (r.ok && (!best || r.speed > best->speed)) best = r, best_child = c;
    }
    if (!best) return Ref{};
    for (const std::uint32_t sm : best->sm_of_cta)
      --free[sm];
    out.sm_of_cta.insert(out.sm_of_cta.end(), best->sm_of_cta.begin(), best->sm_of_cta.end());
    out.speed = best->speed;
    if (chosen != nullptr) chosen->push_back(best_child);
  }
  out.ok = true;
  return out;
}

Ref ref_gpc_cga(const Topology& t, const V& free, std::uint32_t gpc, const GridSpec& g) {
  if (g.cpc_cgas_per_gpc_cga == 0)
    return ref_leaf(free, t.first_sm(gpc), t.sms_in_gpc(gpc), g.ctas_per_cga());
  return ref_parts(
      free, t.cpcs_per_gpc(), g.cpc_cgas_per_gpc_cga, [&](const V& f, std::uint32_t c) {
        return ref_leaf(f, t.cpc_first_sm(gpc, c), t.sms_in_cpc(gpc, c), g.ctas_per_cpc_cga());
      });
}

// A random load: every SM gets 0..8 of the 8 CTA slots taken.
GpuState random_state(const Topology& t, const CtaFootprint& fp, std::mt19937_64& rng) {
  GpuState s(t);
  for (std::uint32_t sm = 0; sm < t.num_sms(); ++sm) {
    for (std::uint64_t k = rng() % 9; k > 0; --k)
      s.launch(sm, fp);
  }
  return s;
}

V free_of(const GpuState& s, const CtaFootprint& fp) {
  V f;
  for (std::uint32_t sm = 0; sm < s.topology().num_sms(); ++sm)
    f.push_back(s.free_slots(sm, fp));
  return f;
}

TEST(Hierarchy, GpcQueryOverCpcsMatchesTheNaiveReference) {
  const Topology t = h100();
  std::mt19937_64 rng(7);
  int placed = 0, failed = 0;
  for (int it = 0; it < 600; ++it) {
    GridSpec g;
    g.kind = ClusterKind::kGpcCga;
    g.shape.threads = 256;  // 8 CTAs per empty SM
    const std::uint32_t k = 1 + static_cast<std::uint32_t>(rng() % 4);
    g.cluster = {k * (1 + static_cast<std::uint32_t>(rng() % 24)), 1, 1};
    g.cpc_cgas_per_gpc_cga = k;
    const CtaFootprint fp = footprint(t.capacity(), g.shape);
    const GpuState state = random_state(t, fp, rng);
    const ShadowState shadow(state, fp);
    const V free = free_of(state, fp);
    const std::uint32_t gpc = static_cast<std::uint32_t>(rng() % t.num_gpcs());
    const GpcQuery q = query_gpc_cga(shadow, gpc, g);
    const Ref r = ref_gpc_cga(t, free, gpc, g);
    ASSERT_EQ(q.fill.ok, r.ok) << it;
    (r.ok ? placed : failed)++;
    if (!r.ok) continue;
    EXPECT_EQ(q.fill.speed, r.speed) << it;
    EXPECT_EQ(q.sm_of_cta, r.sm_of_cta) << it;
    V per_sm(t.sms_in_gpc(gpc), 0);
    for (const std::uint32_t sm : r.sm_of_cta)
      ++per_sm[sm - t.first_sm(gpc)];
    EXPECT_EQ(q.fill.per_sm, per_sm) << it;
    EXPECT_EQ(shadow.reserved_total(), 0u) << "a query reserves only on its own scratch";
  }
  EXPECT_GT(placed, 100);
  EXPECT_GT(failed, 100);
}

TEST(Hierarchy, UgpuQueryRecursesThroughGpcsAndCpcs) {
  const Topology t = h100();
  std::mt19937_64 rng(11);
  int placed = 0;
  for (int it = 0; it < 300; ++it) {
    GridSpec g;
    g.kind = ClusterKind::kUgpuCga;
    g.shape.threads = 256;
    g.cluster = {2 * (1 + static_cast<std::uint32_t>(rng() % 8)), 1, 1};
    g.cpc_cgas_per_gpc_cga = rng() % 2 == 0 ? 0 : 2;
    g.gpc_cgas_per_ugpu_cga = 1 + static_cast<std::uint32_t>(rng() % 8);
    const CtaFootprint fp = footprint(t.capacity(), g.shape);
    const GpuState state = random_state(t, fp, rng);
    const ShadowState shadow(state, fp);
    const V free = free_of(state, fp);
    // A per-GPC budget of 0..3 more GPC_CGAs: a closed GPC is never asked.
    V budget;
    for (std::uint32_t i = 0; i < t.num_gpcs(); ++i)
      budget.push_back(static_cast<std::uint32_t>(rng() % 4));
    const std::uint32_t u = static_cast<std::uint32_t>(rng() % t.num_ugpus());
    const UgpuQuery q = query_ugpu_cga(
        shadow, u, g, [&](std::uint32_t gpc, std::uint32_t taken) { return taken < budget[gpc]; });
    const std::uint32_t first = t.ugpu_first_gpc(u);
    V chosen;  // the naive loop's picks so far: a GPC is open while it has taken < budget
    const Ref r = ref_parts(
        free, t.gpcs_in_ugpu(u), g.gpc_cgas_per_ugpu_cga,
        [&](const V& f, std::uint32_t c) {
          if (static_cast<std::uint32_t>(std::count(chosen.begin(), chosen.end(), c)) >=
              budget[first + c]) {
            return Ref{};
          }
          return ref_gpc_cga(t, f, first + c, g);
        },
        &chosen);
    ASSERT_EQ(q.ok, r.ok) << it;
    if (!r.ok) continue;
    ++placed;
    EXPECT_EQ(q.speed, r.speed) << it;
    EXPECT_EQ(q.sm_of_cta, r.sm_of_cta) << it;
    V gpcs;
    for (const std::uint32_t c : chosen)
      gpcs.push_back(first + c);
    EXPECT_EQ(q.gpcs, gpcs) << it;
    for (const std::uint32_t gpc : q.gpcs)
      EXPECT_EQ(t.ugpu_of(gpc), u);
  }
  EXPECT_GT(placed, 40);
}

// The waterfill policy's µGPU_CGA step: the fastest µGPU wins, all tied µGPUs launch one each in
// the same step (¶171 at the µGPU level), and a µGPU_CGA never spans µGPUs.
TEST(Hierarchy, FastestUgpuWinsAndTiesLaunchTogether) {
  const Topology t = h100();
  auto policy = make_policy("waterfill").value();
  GridSpec g;
  g.kind = ClusterKind::kUgpuCga;
  g.shape.threads = 256;
  g.cluster = {4, 1, 1};
  g.gpc_cgas_per_ugpu_cga = 3;
  g.grid = {4 * 3 * 10, 1, 1};
  ASSERT_TRUE(check_grid(t, g, 16).ok());
  {
    GpuState state(t);  // empty: both µGPUs answer the same speed
    const LaunchStep s = policy->step(state, g, 10, {});
    ASSERT_EQ(s.cgas.size(), 2u);
    EXPECT_EQ(t.ugpu_of(s.cgas[0].gpc), 0u);
    EXPECT_EQ(t.ugpu_of(s.cgas[1].gpc), 1u);
    EXPECT_EQ(state.resident_ctas(), 24u);
  }
  {
    GpuState state(t);
    const CtaFootprint fp = footprint(t.capacity(), g.shape);
    for (std::uint32_t sm = 0; sm < t.first_sm(t.ugpu_first_gpc(1)); ++sm)
      state.launch(sm, fp);  // µGPU 0 one slot fuller everywhere: slower
    const LaunchStep s = policy->step(state, g, 10, {});
    ASSERT_EQ(s.cgas.size(), 1u);
    ASSERT_EQ(s.cgas[0].gpcs.size(), 3u);
    for (const std::uint32_t gpc : s.cgas[0].gpcs)
      EXPECT_EQ(t.ugpu_of(gpc), 1u);
    EXPECT_GT(s.decision_cycles, 0u);
  }
  {
    // µGPU 1 closed by its per-GPC budgets: the µGPU_CGA goes to µGPU 0 even though slower.
    GpuState state(t);
    const CtaFootprint fp = footprint(t.capacity(), g.shape);
    for (std::uint32_t sm = 0; sm < t.first_sm(t.ugpu_first_gpc(1)); ++sm)
      state.launch(sm, fp);
    const V budget{1, 1, 1, 1, 0, 0, 0, 0};
    const LaunchStep s = policy->step(state, g, 10, budget);
    ASSERT_EQ(s.cgas.size(), 1u);
    EXPECT_EQ(s.cgas[0].gpcs, (V{0, 1, 2}));
  }
}

// All-or-nothing at the µGPU: 2 GPC_CGAs of 16 CTAs need room for two in ONE µGPU; with room
// for one in each µGPU nothing launches though the chip has room for two.
TEST(Hierarchy, AUgpuCgaIsAllOrNothingInsideOneUgpu) {
  const Topology t = h100();
  GridSpec g;
  g.kind = ClusterKind::kUgpuCga;
  g.shape.threads = 1024;  // 2 CTAs per SM
  g.cluster = {16, 1, 1};
  g.gpc_cgas_per_ugpu_cga = 2;
  g.grid = {16 * 2 * 4, 1, 1};
  const CtaFootprint fp = footprint(t.capacity(), g.shape);
  for (const std::string& name : policy_names()) {
    SCOPED_TRACE(name);
    auto policy = make_policy(name).value();
    GpuState state(t);
    // Every GPC full but GPC 0 and GPC 4 (one per µGPU), which have room for one cluster.
    for (std::uint32_t sm = 0; sm < t.num_sms(); ++sm) {
      state.launch(sm, fp);
      if (t.gpc_of(sm) != 0 && t.gpc_of(sm) != 4) state.launch(sm, fp);
    }
    const std::uint64_t before = state.resident_ctas();
    const LaunchStep s = policy->step(state, g, 4, {});
    EXPECT_TRUE(s.cgas.empty());
    EXPECT_EQ(state.resident_ctas(), before);
    // GPU_CGAs of the same two GPC_CGAs span the µGPUs and do launch.
    GridSpec gpu = g;
    gpu.kind = ClusterKind::kGpuCga;
    gpu.gpc_cgas_per_gpu_cga = 2;
    gpu.gpc_cgas_per_ugpu_cga = 1;
    const LaunchStep s2 = policy->step(state, gpu, 4, {});
    ASSERT_EQ(s2.cgas.size(), 1u);
    EXPECT_EQ(s2.cgas[0].gpcs, (V{0, 4}));
  }
}

// Every policy keeps each CPC_CGA inside one CPC, each µGPU_CGA inside one µGPU, multicast at
// one CTA of a cluster per SM, and the per-GPC budgets, under random load.
TEST(Hierarchy, EveryPolicyKeepsTheLevelsUnderRandomLoad) {
  const Topology t = h100();
  const auto cpc_of = [&](std::uint32_t sm) {
    const std::uint32_t g = t.gpc_of(sm);
    std::uint32_t c = 0;
    while (c + 1 < t.cpcs_per_gpc() && sm >= t.cpc_first_sm(g, c + 1))
      ++c;
    return g * t.cpcs_per_gpc() + c;
  };
  std::vector<GridSpec> grids;
  for (const std::uint32_t k : {1u, 2u, 4u}) {
    GridSpec g;
    g.kind = ClusterKind::kGpcCga;
    g.shape.threads = 256;
    g.cluster = {4, 2, 1};
    g.grid = {4 * 60, 2, 1};
    g.cpc_cgas_per_gpc_cga = k;
    grids.push_back(g);
    if (k > 1) {  // a multicast CPC_CGA of 8 would need 8 SMs in one CPC of at most 6
      g.multicast = true;
      grids.push_back(g);
    }
    GridSpec u = g;
    u.multicast = false;
    u.kind = ClusterKind::kUgpuCga;
    u.gpc_cgas_per_ugpu_cga = 3;
    grids.push_back(u);
    u.kind = ClusterKind::kGpuCga;
    u.gpc_cgas_per_ugpu_cga = 1;
    u.gpc_cgas_per_gpu_cga = 5;
    grids.push_back(u);
  }
  std::mt19937_64 rng(5);
  for (const std::string& name : policy_names()) {
    for (const GridSpec& g : grids) {
      SCOPED_TRACE(::testing::Message() << name << " kind " << static_cast<int>(g.kind) << " cpc "
                                        << g.cpc_cgas_per_gpc_cga << " mc " << g.multicast);
      ASSERT_TRUE(check_grid(t, g, 16).ok()) << check_grid(t, g, 16).error().message;
      auto policy = make_policy(name).value();
      GpuState state(t);
      const CtaFootprint fp = footprint(t.capacity(), g.shape);
      V resident;
      std::uint64_t left = g.num_cgas();
      for (int it = 0; it < 20000 && left > 0; ++it) {
        V budget;
        if (rng() % 2) {
          for (std::uint32_t i = 0; i < t.num_gpcs(); ++i)
            budget.push_back(static_cast<std::uint32_t>(rng() % 4));
        }
        const LaunchStep s =
            policy->step(state, g, std::min<std::uint64_t>(left, 1 + rng() % 8), budget);
        V per_gpc(t.num_gpcs(), 0);
        for (const CgaPlacement& c : s.cgas) {
          const std::uint32_t per = g.ctas_per_cga(), part = g.ctas_per_cpc_cga();
          ASSERT_EQ(c.sm_of_cta.size(), per * g.gpc_cgas_per_unit());
          const V gpcs = c.gpcs.empty() ? V{c.gpc} : c.gpcs;
          ASSERT_EQ(gpcs.size(), g.gpc_cgas_per_unit());
          for (std::size_t j = 0; j < gpcs.size(); ++j) {
            ++per_gpc[gpcs[j]];
            if (g.kind == ClusterKind::kUgpuCga) {
              ASSERT_EQ(t.ugpu_of(gpcs[j]), t.ugpu_of(gpcs[0])) << "a µGPU_CGA spans µGPUs";
            }
            std::vector<std::uint32_t> sms;
            for (std::uint32_t r = 0; r < per; ++r) {
              const std::uint32_t sm = c.sm_of_cta[j * per + r];
              ASSERT_EQ(t.gpc_of(sm), gpcs[j]);
              ASSERT_EQ(cpc_of(sm), cpc_of(c.sm_of_cta[j * per + r / part * part]))
                  << "CTA rank " << r << " left its CPC_CGA's CPC";
              sms.push_back(sm);
            }
            if (g.multicast) {
              std::sort(sms.begin(), sms.end());
              ASSERT_EQ(std::adjacent_find(sms.begin(), sms.end()), sms.end()) << "≤1 CTA per SM";
            }
          }
          for (const std::uint32_t sm : c.sm_of_cta)
            resident.push_back(sm);
        }
        if (!budget.empty()) {
          for (std::uint32_t i = 0; i < t.num_gpcs(); ++i)
            ASSERT_LE(per_gpc[i], budget[i]);
        }
        left -= s.cgas.size();
        std::shuffle(resident.begin(), resident.end(), rng);
        for (std::size_t i = resident.size() * (rng() % 60) / 100; i > 0; --i) {
          state.retire(resident.back(), fp);
          resident.pop_back();
        }
      }
      EXPECT_EQ(left, 0u) << "the grid drains";
    }
  }
}

void expect_error(const Status& s, const std::string& text) {
  ASSERT_FALSE(s.ok()) << "expected: " << text;
  EXPECT_EQ(s.error().message, text);
}

TEST(Hierarchy, GridRulesForTheNewLevels) {
  const Topology t = h100();
  GridSpec g;
  g.kind = ClusterKind::kGpcCga;
  g.shape.threads = 1024;  // 2 CTAs per SM: a CPC of 6 SMs holds 12, the 4-SM one 8
  g.cluster = {12, 1, 1};
  g.grid = {48, 1, 1};
  g.cpc_cgas_per_gpc_cga = 5;
  expect_error(check_grid(t, g, 16),
               "cpc_cgas_per_gpc_cga = 5 does not divide the cluster's 12 CTAs into equal "
               "CPC_CGAs");
  g.cpc_cgas_per_gpc_cga = 1;  // one CPC_CGA of 12: the largest CPC holds exactly 12
  EXPECT_TRUE(check_grid(t, g, 16).ok());
  g.cluster = {14, 1, 1};
  g.grid = {56, 1, 1};
  expect_error(check_grid(t, g, 16),
               "CPC_CGA of 14 CTAs (14 per cluster / cpc_cgas_per_gpc_cga = 1) fits in no CPC: "
               "the largest CPC has 6 SMs and holds 12 CTAs of this shape");
  g.cpc_cgas_per_gpc_cga = 2;
  EXPECT_TRUE(check_grid(t, g, 16).ok());
  g.multicast = true;
  g.cluster = {8, 1, 1};
  g.grid = {16, 1, 1};
  g.cpc_cgas_per_gpc_cga = 1;
  expect_error(check_grid(t, g, 16),
               "CPC_CGA of 8 CTAs (8 per cluster / cpc_cgas_per_gpc_cga = 1) fits in no CPC: the "
               "largest CPC has 6 SMs and holds 6 CTAs of this shape (multicast: one per SM)");

  GridSpec plain;
  plain.grid = {8, 1, 1};
  plain.cpc_cgas_per_gpc_cga = 2;
  expect_error(check_grid(t, plain, 16),
               "cpc_cgas_per_gpc_cga = 2 on a plain grid; CPC_CGAs split a cluster and need one");
  plain.cpc_cgas_per_gpc_cga = 0;
  plain.gpc_cgas_per_ugpu_cga = 2;
  expect_error(check_grid(t, plain, 16),
               "gpc_cgas_per_ugpu_cga = 2 but the grid has no µGPU_CGAs; it must be 1");

  GridSpec u;
  u.kind = ClusterKind::kUgpuCga;
  u.shape.threads = 1024;
  u.cluster = {16, 1, 1};
  u.gpc_cgas_per_ugpu_cga = 3;
  u.grid = {16 * 10, 1, 1};
  expect_error(check_grid(t, u, 16),
               "gpc_cgas_per_ugpu_cga = 3 does not divide the grid's 10 GPC_CGAs into whole "
               "µGPU_CGAs");
  u.grid = {16 * 12, 1, 1};
  EXPECT_TRUE(check_grid(t, u, 16).ok()) << "4 GPCs per µGPU hold 8 GPC_CGAs of 16";
  u.gpc_cgas_per_ugpu_cga = 12;
  expect_error(check_grid(t, u, 16),
               "µGPU_CGA of 12 GPC_CGAs (16 CTAs each) fits in no µGPU of an empty chip: at most "
               "8 GPC_CGAs fit in one of the 2 µGPUs");
  u.gpc_cgas_per_ugpu_cga = 0;
  expect_error(check_grid(t, u, 16),
               "gpc_cgas_per_ugpu_cga = 0; a µGPU_CGA holds at least one GPC_CGA");
}

}  // namespace
}  // namespace xpusim::sched
