// The patent's distributor: water-filling inside a domain, fastest-GPC selection with every tie
// launching at once, the two-pass GPU_CGA launch (seed1 ¶145–171, ¶200–221), and the recursive
// query for CPC_CGAs inside GPC_CGAs and GPC_CGAs inside µGPU_CGAs (¶169, claim 8).
//
// Cost model (our assumption, DecisionCost): each query round costs step_cycles plus
// probe_cycles per binary-search probe. The mimic GPCs answer in parallel in hardware (¶166), so a
// round is charged the max probes over the GPCs it queried, not their sum.
#include <algorithm>
#include <limits>

#include "sched/gpc_choice.h"
#include "sched/policy.h"

namespace xpusim::sched {

namespace {

class WaterfillPolicy final : public Policy {
 public:
  explicit WaterfillPolicy(const DecisionCost& cost) : cost_(cost) {}
  std::string_view name() const override { return "waterfill"; }

  LaunchStep step(GpuState& state, const GridSpec& grid, std::uint64_t max_cgas,
                  std::span<const std::uint32_t> gpc_budget) override {
    if (max_cgas == 0) return {};
    switch (grid.kind) {
      case ClusterKind::kNone:
        return plain(state, grid, max_cgas);
      case ClusterKind::kGpcCga:
        return gpc_cgas(state, grid, max_cgas, gpc_budget);
      case ClusterKind::kGpuCga:
        return gpu_cga(state, grid, gpc_budget);
      case ClusterKind::kUgpuCga:
        return ugpu_cgas(state, grid, max_cgas, gpc_budget);
    }
    return {};
  }

 private:
  // One round of parallel mimic-GPC queries; `probes` gets the round's max.
  std::vector<GpcQuery> query_all(const ShadowState& shadow, const GridSpec& grid,
                                  const GpcBudget& budget, std::uint32_t& probes) const {
    std::vector<GpcQuery> qs;
    std::uint32_t most = 0;
    for (std::uint32_t g = 0; g < shadow.topology().num_gpcs(); ++g) {
      if (!budget.open(g)) continue;  // counter at 0 / id pool empty: the GPC is closed (¶211)
      qs.push_back(query_gpc_cga(shadow, g, grid));
      most = std::max(most, qs.back().fill.probes);
    }
    probes += most;
    return qs;
  }

  void charge(LaunchStep& s, std::uint32_t rounds) const {
    s.decision_cycles = rounds * cost_.step_cycles + s.probes * cost_.probe_cycles;
  }

  // Plain grid: one water-fill over every SM of the GPU; the rest waits for retirements (¶154).
  LaunchStep plain(GpuState& state, const GridSpec& grid, std::uint64_t max_cgas) const {
    const Topology& topo = state.topology();
    const CtaFootprint fp = footprint(topo.capacity(), grid.shape);
    const ShadowState shadow(state, fp);
    const std::uint32_t n = static_cast<std::uint32_t>(
        std::min<std::uint64_t>(max_cgas, std::numeric_limits<std::uint32_t>::max()));
    const Fill fill = waterfill(shadow.free_range(0, topo.num_sms()), n, /*all_or_nothing=*/false);
    LaunchStep s;
    s.probes = fill.probes;
    charge(s, 1);
    for (std::uint32_t sm = 0; sm < topo.num_sms(); ++sm) {
      for (std::uint32_t k = 0; k < fill.per_sm[sm]; ++k) {
        state.launch(sm, fp);
        s.cgas.push_back({topo.gpc_of(sm), {sm}, fill.speed, {}});
      }
    }
    return s;
  }

  // GPC_CGAs: every tied fastest GPC gets one in this step (¶171); ties beyond max_cgas go to the
  // lowest GPC indices (unspecified, digest §6). A speed-0 GPC is used when it is the only fit:
  // waiting would not make it faster until CTAs retire.
  LaunchStep gpc_cgas(GpuState& state, const GridSpec& grid, std::uint64_t max_cgas,
                      std::span<const std::uint32_t> gpc_budget) const {
    const Topology& topo = state.topology();
    const CtaFootprint fp = footprint(topo.capacity(), grid.shape);
    ShadowState shadow(state, fp);
    const GpcBudget budget(gpc_budget, topo.num_gpcs());
    LaunchStep s;
    const std::vector<GpcQuery> winners = best_gpcs(query_all(shadow, grid, budget, s.probes));
    charge(s, 1);
    for (const GpcQuery& w : winners) {
      if (s.cgas.size() >= max_cgas) break;
      shadow.reserve_range(topo.first_sm(w.gpc), w.fill.per_sm);
      shadow.commit(state, fp);
      s.cgas.push_back({w.gpc, w.sm_of_cta, w.fill.speed, {}});
    }
    return s;
  }

  // GPU_CGA, two passes (¶200–221). Pass I: each round every open GPC speculatively takes one
  // GPC_CGA on the shadow (bumping launch registers) until all n have a home or a round makes no
  // progress; overshoot within a round is cut at n in GPC order. Pass II: reset the launch
  // registers and launch the n GPC_CGAs one by one on the fastest GPC (ties: lowest index). A
  // GPC's successive placements do not depend on other GPCs, so Pass II cannot fail after Pass I.
  LaunchStep gpu_cga(GpuState& state, const GridSpec& grid,
                     std::span<const std::uint32_t> gpc_budget) const {
    const Topology& topo = state.topology();
    const CtaFootprint fp = footprint(topo.capacity(), grid.shape);
    const std::uint32_t n = grid.gpc_cgas_per_gpu_cga;
    XPUSIM_CHECK(n > 0, "check_grid rejects an empty GPU_CGA");
    ShadowState shadow(state, fp);
    GpcBudget budget(gpc_budget, topo.num_gpcs());
    LaunchStep s;
    std::uint32_t rounds = 0, count = 0;
    for (bool progress = true; count < n && progress; ++rounds) {
      progress = false;
      for (const GpcQuery& q : query_all(shadow, grid, budget, s.probes)) {
        if (!q.fill.ok || count == n) continue;
        shadow.reserve_range(topo.first_sm(q.gpc), q.fill.per_sm);
        budget.take(q.gpc);
        ++count;
        progress = true;
      }
    }
    shadow.cancel();  // Pass I only asked "does every GPC_CGA find a home?"
    if (count < n) {  // Fig. 16c block 510 "no": nothing launched, retry after retirements
      charge(s, rounds);
      return s;
    }

    budget.reset();
    CgaPlacement cga;
    cga.speed = std::numeric_limits<std::uint32_t>::max();
    for (std::uint32_t k = 0; k < n; ++k, ++rounds) {
      const std::vector<GpcQuery> best = best_gpcs(query_all(shadow, grid, budget, s.probes));
      XPUSIM_CHECK(!best.empty(), "Pass II places what Pass I found room for");
      const GpcQuery& w = best.front();
      shadow.reserve_range(topo.first_sm(w.gpc), w.fill.per_sm);
      shadow.commit(state, fp);
      budget.take(w.gpc);
      cga.sm_of_cta.insert(cga.sm_of_cta.end(), w.sm_of_cta.begin(), w.sm_of_cta.end());
      cga.gpcs.push_back(w.gpc);
      cga.speed = std::min(cga.speed, w.fill.speed);  // the slowest GPC_CGA paces it (¶163)
    }
    cga.gpc = cga.gpcs.front();
    s.cgas.push_back(std::move(cga));
    charge(s, rounds);
    return s;
  }

  // µGPU_CGAs (¶115, claim 8): every open µGPU is queried in parallel; each places the
  // GPC_CGAs on its own fastest GPCs (query_ugpu_cga) and answers the last query's speed. The
  // fastest µGPU wins and, as for GPC_CGAs (¶171), every tied µGPU launches one in this step.
  // The step is charged the slowest µGPU's rounds and probes, plus the top-level round.
  LaunchStep ugpu_cgas(GpuState& state, const GridSpec& grid, std::uint64_t max_cgas,
                       std::span<const std::uint32_t> gpc_budget) const {
    const Topology& topo = state.topology();
    const CtaFootprint fp = footprint(topo.capacity(), grid.shape);
    ShadowState shadow(state, fp);
    GpcBudget budget(gpc_budget, topo.num_gpcs());
    const auto open = [&](std::uint32_t g, std::uint32_t taken) { return budget.open(g, taken); };
    std::vector<UgpuQuery> best;
    std::uint32_t rounds = 0;
    LaunchStep s;
    for (std::uint32_t u = 0; u < topo.num_ugpus(); ++u) {
      UgpuQuery q = query_ugpu_cga(shadow, u, grid, open);
      rounds = std::max(rounds, q.rounds);
      s.probes = std::max(s.probes, q.probes);
      if (!q.ok || (!best.empty() && q.speed < best.front().speed)) continue;
      if (!best.empty() && q.speed > best.front().speed) best.clear();
      best.push_back(std::move(q));
    }
    charge(s, rounds + 1);
    for (const UgpuQuery& w : best) {
      if (s.cgas.size() >= max_cgas) break;
      for (const std::uint32_t sm : w.sm_of_cta)
        shadow.reserve(sm, 1);
      shadow.commit(state, fp);
      for (const std::uint32_t g : w.gpcs)
        budget.take(g);
      s.cgas.push_back({w.gpcs.front(), w.sm_of_cta, w.speed, w.gpcs});
    }
    return s;
  }

  DecisionCost cost_;
};

}  // namespace

Status register_policy_waterfill(PolicyRegistry& r) {
  return r.add(
      {.name = "waterfill",
       .description =
           "water-filling in a GPC, fastest-GPC selection, two-pass GPU_CGA, recursive CPC/µGPU "
           "query (the patent; default)",
       .make = [](const DecisionCost& cost) -> std::unique_ptr<Policy> {
         return std::make_unique<WaterfillPolicy>(cost);
       },
       .order = 0});
}

}  // namespace xpusim::sched
