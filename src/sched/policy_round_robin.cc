// Baseline: round-robin (digest §5.18). Clusters go to the next GPC in rotation that holds one,
// filled most-free-first inside it; plain CTAs are dealt to SMs in rotation, skipping full ones.
// Cost: step_cycles per unit launched, at least one for a query that places nothing.
#include <algorithm>

#include "sched/policy.h"

namespace xpusim::sched {

namespace {

class RoundRobinPolicy final : public Policy {
 public:
  explicit RoundRobinPolicy(const DecisionCost& cost) : cost_(cost) {}
  std::string_view name() const override { return "round-robin"; }

  LaunchStep step(GpuState& state, const GridSpec& grid, std::uint64_t max_cgas,
                  std::span<const std::uint32_t> gpc_budget) override {
    if (max_cgas == 0) return {};
    const Topology& topo = state.topology();
    const CtaFootprint fp = footprint(topo.capacity(), grid.shape);
    LaunchStep s;
    if (grid.kind == ClusterKind::kNone) {
      const ShadowState shadow(state, fp);
      std::vector<std::uint32_t> free = shadow.free_range(0, topo.num_sms());
      while (s.cgas.size() < max_cgas) {
        std::uint32_t sm = topo.num_sms();
        for (std::uint32_t i = 0; i < topo.num_sms(); ++i) {
          const std::uint32_t c = (next_sm_ + i) % topo.num_sms();
          if (free[c] > 0) {
            sm = c;
            break;
          }
        }
        if (sm == topo.num_sms()) break;  // every SM is full
        state.launch(sm, fp);
        --free[sm];
        s.cgas.push_back({topo.gpc_of(sm), {sm}, free[sm], {}});
        next_sm_ = (sm + 1) % topo.num_sms();
      }
    } else if (grid.kind == ClusterKind::kGpcCga) {
      ShadowState shadow(state, fp);
      GpcBudget budget(gpc_budget, topo.num_gpcs());
      while (s.cgas.size() < max_cgas) {
        const std::optional<ClusterPick> p = pick(shadow, budget, grid, next_gpc_);
        if (!p) break;
        shadow.reserve_range(topo.first_sm(p->gpc), p->fill.per_sm);
        shadow.commit(state, fp);
        budget.take(p->gpc);
        s.cgas.push_back(cluster_placement(topo, *p));
      }
    } else {
      GpcBudget budget(gpc_budget, topo.num_gpcs());
      while (s.cgas.size() < max_cgas) {
        std::uint32_t cursor = next_gpc_;  // advances only if the whole GPU_CGA launches
        const auto picker = [&](const ShadowState& sh, const GpcBudget& b) {
          return pick(sh, b, grid, cursor);
        };
        std::optional<CgaPlacement> c = place_gpu_cga(state, grid, budget, picker);
        if (!c) break;
        next_gpc_ = cursor;
        s.cgas.push_back(std::move(*c));
      }
    }
    s.decision_cycles =
        cost_.step_cycles * static_cast<std::uint32_t>(std::max<std::size_t>(1, s.cgas.size()));
    return s;
  }

 private:
  // The first open GPC from `cursor` on (wrapping) that holds one cluster; moves the cursor past
  // it.
  static std::optional<ClusterPick> pick(const ShadowState& shadow, const GpcBudget& budget,
                                         const GridSpec& grid, std::uint32_t& cursor) {
    const Topology& topo = shadow.topology();
    for (std::uint32_t i = 0; i < topo.num_gpcs(); ++i) {
      const std::uint32_t g = (cursor + i) % topo.num_gpcs();
      if (!budget.open(g)) continue;
      std::optional<ClusterPick> p = fill_cluster(shadow, g, grid, greedy_fill);
      if (!p) continue;
      cursor = (g + 1) % topo.num_gpcs();
      return p;
    }
    return std::nullopt;
  }

  DecisionCost cost_;
  std::uint32_t next_gpc_ = 0;  // rotation state, kept across steps and grids
  std::uint32_t next_sm_ = 0;
};

}  // namespace

Status register_policy_round_robin(PolicyRegistry& r) {
  return r.add(
      {.name = "round-robin",
       .description =
           "baseline: clusters to the next GPC in rotation, plain CTAs dealt to SMs in turn",
       .make = [](const DecisionCost& cost) -> std::unique_ptr<Policy> {
         return std::make_unique<RoundRobinPolicy>(cost);
       },
       .order = 2});
}

}  // namespace xpusim::sched
