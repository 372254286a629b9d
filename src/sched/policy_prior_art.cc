// The prior-art distributor (seed1 ¶127–130): one CTA per cycle to the least-utilized SM. A CGA
// goes CTA by CTA into the GPC with the most free slots that holds it, still all-or-nothing.
// Cost: per_cta_cycles per CTA placed, at least one for a query that places nothing.
#include <algorithm>
#include <numeric>

#include "sched/policy.h"

namespace xpusim::sched {

namespace {

class PriorArtPolicy final : public Policy {
 public:
  explicit PriorArtPolicy(const DecisionCost& cost) : cost_(cost) {}
  std::string_view name() const override { return "prior-art"; }
  bool one_cta_per_packet() const override { return true; }

  LaunchStep step(GpuState& state, const GridSpec& grid, std::uint64_t max_cgas,
                  std::span<const std::uint32_t> gpc_budget) override {
    if (max_cgas == 0) return {};
    const Topology& topo = state.topology();
    const CtaFootprint fp = footprint(topo.capacity(), grid.shape);
    LaunchStep s;
    if (grid.kind == ClusterKind::kNone) {
      // One CTA per step to the SM with the most free slots, ties to the lowest index.
      std::uint32_t best = 0, most = 0;
      for (std::uint32_t sm = 0; sm < topo.num_sms(); ++sm) {
        const std::uint32_t f = state.free_slots(sm, fp);
        if (f > most) best = sm, most = f;
      }
      if (most > 0) {
        state.launch(best, fp);
        s.cgas.push_back({topo.gpc_of(best), {best}, most - 1, {}});
      }
    } else if (grid.kind == ClusterKind::kGpcCga) {
      ShadowState shadow(state, fp);
      const GpcBudget budget(gpc_budget, topo.num_gpcs());
      if (const std::optional<ClusterPick> p = pick(shadow, budget, grid)) {
        shadow.reserve_range(topo.first_sm(p->gpc), p->fill.per_sm);
        shadow.commit(state, fp);
        s.cgas.push_back(cluster_placement(topo, *p));
      }
    } else {
      const auto picker = [&](const ShadowState& sh, const GpcBudget& b) {
        return pick(sh, b, grid);
      };
      GpcBudget budget(gpc_budget, topo.num_gpcs());
      if (std::optional<CgaPlacement> c = place_gpu_cga(state, grid, budget, picker)) {
        s.cgas.push_back(std::move(*c));
      }
    }
    std::uint64_t ctas = 0;
    for (const CgaPlacement& c : s.cgas)
      ctas += c.sm_of_cta.size();
    s.decision_cycles =
        cost_.per_cta_cycles * static_cast<std::uint32_t>(std::max<std::uint64_t>(1, ctas));
    return s;
  }

 private:
  // The open GPC with the most total free slots that holds the cluster (ties: lowest index),
  // filled CTA by CTA to the most free SM.
  static std::optional<ClusterPick> pick(const ShadowState& shadow, const GpcBudget& budget,
                                         const GridSpec& grid) {
    const Topology& topo = shadow.topology();
    std::optional<ClusterPick> best;
    std::uint64_t best_total = 0;
    for (std::uint32_t g = 0; g < topo.num_gpcs(); ++g) {
      if (!budget.open(g)) continue;
      const std::vector<std::uint32_t> free =
          shadow.free_range(topo.first_sm(g), topo.sms_in_gpc(g));
      if (!cluster_fits(free, grid.ctas_per_cga(), grid.multicast)) continue;
      const std::uint64_t total = std::accumulate(free.begin(), free.end(), std::uint64_t{0});
      if (best && total <= best_total) continue;
      std::optional<ClusterPick> p = fill_cluster(shadow, g, grid, greedy_fill);
      if (!p) continue;  // enough slots in the GPC, but a CPC_CGA finds no CPC
      best = std::move(p);
      best_total = total;
    }
    return best;
  }

  DecisionCost cost_;
};

}  // namespace

Status register_policy_prior_art(PolicyRegistry& r) {
  return r.add(
      {.name = "prior-art",
       .description =
           "one CTA per cycle to the least-utilized SM, CGAs all-or-nothing (seed1 ¶127-130)",
       .make = [](const DecisionCost& cost) -> std::unique_ptr<Policy> {
         return std::make_unique<PriorArtPolicy>(cost);
       },
       .order = 1});
}

}  // namespace xpusim::sched
