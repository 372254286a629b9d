// Baseline: first fit (digest §5.18). A cluster goes to the lowest-index GPC that holds it and,
// inside, to the lowest-index SMs first (SM 0 is filled before SM 1); plain grids likewise.
// Cost: step_cycles per unit launched, at least one for a query that places nothing.
#include <algorithm>
#include <limits>

#include "sched/policy.h"

namespace xpusim::sched {

namespace {

// Lowest index first: each SM takes as many CTAs as it can (one for multicast). All-or-nothing.
Fill first_fit_fill(std::span<const std::uint32_t> free, std::uint32_t n, bool one_per_sm) {
  Fill r;
  r.per_sm.assign(free.size(), 0);
  if (!cluster_fits(free, n, one_per_sm)) return r;
  r.ok = true;
  r.speed = n == 0 ? 0 : std::numeric_limits<std::uint32_t>::max();
  std::uint32_t left = n;
  for (std::size_t i = 0; i < free.size() && left > 0; ++i) {
    const std::uint32_t take = std::min(left, one_per_sm ? std::min(free[i], 1u) : free[i]);
    if (take == 0) continue;
    r.per_sm[i] = take;
    left -= take;
    r.speed = std::min(r.speed, free[i] - take);
  }
  return r;
}

class FirstFitPolicy final : public Policy {
 public:
  explicit FirstFitPolicy(const DecisionCost& cost) : cost_(cost) {}
  std::string_view name() const override { return "first-fit"; }

  LaunchStep step(GpuState& state, const GridSpec& grid, std::uint64_t max_cgas,
                  std::span<const std::uint32_t> gpc_budget) override {
    if (max_cgas == 0) return {};
    const Topology& topo = state.topology();
    const CtaFootprint fp = footprint(topo.capacity(), grid.shape);
    LaunchStep s;
    if (grid.kind == ClusterKind::kNone) {
      for (std::uint32_t sm = 0; sm < topo.num_sms() && s.cgas.size() < max_cgas; ++sm) {
        for (std::uint32_t f = state.free_slots(sm, fp); f > 0 && s.cgas.size() < max_cgas; --f) {
          state.launch(sm, fp);
          s.cgas.push_back({topo.gpc_of(sm), {sm}, f - 1, {}});
        }
      }
    } else if (grid.kind == ClusterKind::kGpcCga) {
      ShadowState shadow(state, fp);
      GpcBudget budget(gpc_budget, topo.num_gpcs());
      while (s.cgas.size() < max_cgas) {
        const std::optional<ClusterPick> p = pick(shadow, budget, grid);
        if (!p) break;
        shadow.reserve_range(topo.first_sm(p->gpc), p->fill.per_sm);
        shadow.commit(state, fp);
        budget.take(p->gpc);
        s.cgas.push_back(cluster_placement(topo, *p));
      }
    } else {
      GpcBudget budget(gpc_budget, topo.num_gpcs());
      const auto picker = [&](const ShadowState& sh, const GpcBudget& b) {
        return pick(sh, b, grid);
      };
      while (s.cgas.size() < max_cgas) {
        std::optional<CgaPlacement> c = place_gpu_cga(state, grid, budget, picker);
        if (!c) break;
        s.cgas.push_back(std::move(*c));
      }
    }
    s.decision_cycles =
        cost_.step_cycles * static_cast<std::uint32_t>(std::max<std::size_t>(1, s.cgas.size()));
    return s;
  }

 private:
  static std::optional<ClusterPick> pick(const ShadowState& shadow, const GpcBudget& budget,
                                         const GridSpec& grid) {
    const Topology& topo = shadow.topology();
    for (std::uint32_t g = 0; g < topo.num_gpcs(); ++g) {
      if (!budget.open(g)) continue;
      if (std::optional<ClusterPick> p = fill_cluster(shadow, g, grid, first_fit_fill)) return p;
    }
    return std::nullopt;
  }

  DecisionCost cost_;
};

}  // namespace

Status register_policy_first_fit(PolicyRegistry& r) {
  return r.add({.name = "first-fit",
                .description = "baseline: the lowest-index GPC and SMs that hold the cluster",
                .make = [](const DecisionCost& cost) -> std::unique_ptr<Policy> {
                  return std::make_unique<FirstFitPolicy>(cost);
                },
                .order = 3});
}

}  // namespace xpusim::sched
