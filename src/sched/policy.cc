#include "sched/policy.h"

#include <limits>
#include <numeric>
#include <string>

namespace xpusim::sched {

// Generated from the policy_*.cc files (cmake/registry.cmake).
Status register_policies(PolicyRegistry& r);

PolicyRegistry policies() {
  PolicyRegistry r("policy", "policies");
  sim::check_builtin(register_policies(r));
  return r;
}

std::vector<std::string> policy_names() {
  return policies().names();
}

Result<std::unique_ptr<Policy>> make_policy(std::string_view name, const DecisionCost& cost) {
  const PolicyRegistry all = policies();
  auto e = all.find(name);
  if (!e) return e.errors();
  return (*e)->make(cost);
}

GpcBudget::GpcBudget(std::span<const std::uint32_t> budget, std::uint32_t num_gpcs)
    : budget_(budget), used_(num_gpcs, 0), hi_(num_gpcs) {
  XPUSIM_CHECK(budget.empty() || budget.size() == num_gpcs, "one budget entry per GPC");
}

bool GpcBudget::open(std::uint32_t gpc, std::uint32_t extra) const {
  if (gpc < lo_ || gpc >= hi_) return false;
  return budget_.empty() || std::uint64_t{used_[gpc]} + extra < budget_[gpc];
}

CgaPlacement cluster_placement(const Topology& topo, const ClusterPick& pick) {
  return CgaPlacement{
      pick.gpc,
      pick.sm_of_cta.empty() ? cta_sms(pick.fill, topo.first_sm(pick.gpc)) : pick.sm_of_cta,
      pick.fill.speed,
      {}};
}

namespace {

std::optional<CgaPlacement> place_parts(GpuState& state, const GridSpec& grid,
                                        GpcBudget& gpc_budget, const PickCluster& pick) {
  const Topology& topo = state.topology();
  const CtaFootprint fp = footprint(topo.capacity(), grid.shape);
  ShadowState shadow(state, fp);
  GpcBudget budget = gpc_budget;  // speculative until every GPC_CGA has a home
  CgaPlacement out;
  out.speed = std::numeric_limits<std::uint32_t>::max();
  for (std::uint32_t k = 0; k < grid.gpc_cgas_per_unit(); ++k) {
    const std::optional<ClusterPick> p = pick(shadow, budget);
    if (!p) {
      shadow.cancel();  // ¶123: all GPC_CGAs of a GPU_CGA launch together or none does
      return std::nullopt;
    }
    shadow.reserve_range(topo.first_sm(p->gpc), p->fill.per_sm);
    budget.take(p->gpc);
    const std::vector<std::uint32_t> sms =
        p->sm_of_cta.empty() ? cta_sms(p->fill, topo.first_sm(p->gpc)) : p->sm_of_cta;
    out.sm_of_cta.insert(out.sm_of_cta.end(), sms.begin(), sms.end());
    out.gpcs.push_back(p->gpc);
    out.speed = std::min(out.speed, p->fill.speed);  // the slowest part paces the CGA (¶163)
  }
  shadow.commit(state, fp);
  gpc_budget = budget;
  out.gpc = out.gpcs.empty() ? 0 : out.gpcs.front();
  return out;
}

}  // namespace

std::optional<CgaPlacement> place_gpu_cga(GpuState& state, const GridSpec& grid,
                                          GpcBudget& gpc_budget, const PickCluster& pick) {
  if (grid.kind != ClusterKind::kUgpuCga) return place_parts(state, grid, gpc_budget, pick);
  const Topology& topo = state.topology();
  for (std::uint32_t u = 0; u < topo.num_ugpus(); ++u) {
    GpcBudget budget = gpc_budget;
    budget.limit(topo.ugpu_first_gpc(u), topo.gpcs_in_ugpu(u));
    if (std::optional<CgaPlacement> c = place_parts(state, grid, budget, pick)) {
      budget.limit(0, topo.num_gpcs());
      gpc_budget = budget;
      return c;
    }
  }
  return std::nullopt;
}

std::optional<ClusterPick> fill_cluster(const ShadowState& shadow, std::uint32_t gpc,
                                        const GridSpec& grid, FillFn fill) {
  const Topology& topo = shadow.topology();
  std::vector<std::uint32_t> free = shadow.free_range(topo.first_sm(gpc), topo.sms_in_gpc(gpc));
  if (grid.cpc_cgas_per_gpc_cga == 0) {
    Fill f = fill(free, grid.ctas_per_cga(), grid.multicast);
    if (!f.ok) return std::nullopt;
    return ClusterPick{gpc, std::move(f)};
  }
  ClusterPick out{gpc, {}, {}};
  out.fill.per_sm.assign(free.size(), 0);
  out.fill.speed = std::numeric_limits<std::uint32_t>::max();
  for (std::uint32_t k = 0; k < grid.cpc_cgas_per_gpc_cga; ++k) {
    bool placed = false;
    for (std::uint32_t c = 0; c < topo.cpcs_per_gpc() && !placed; ++c) {
      const std::uint32_t at = topo.cpc_first_sm(gpc, c) - topo.first_sm(gpc);
      const std::span<const std::uint32_t> cpc(free.data() + at, topo.sms_in_cpc(gpc, c));
      const Fill f = fill(cpc, grid.ctas_per_cpc_cga(), grid.multicast);
      if (!f.ok) continue;
      placed = true;
      for (std::size_t i = 0; i < f.per_sm.size(); ++i) {
        free[at + i] -= f.per_sm[i];
        out.fill.per_sm[at + i] += f.per_sm[i];
        if (grid.multicast && f.per_sm[i] > 0) free[at + i] = 0;  // one CTA per SM (¶142)
      }
      const std::vector<std::uint32_t> sms = cta_sms(f, topo.first_sm(gpc) + at);
      out.sm_of_cta.insert(out.sm_of_cta.end(), sms.begin(), sms.end());
      out.fill.speed = std::min(out.fill.speed, f.speed);
    }
    if (!placed) return std::nullopt;
  }
  out.fill.ok = true;
  return out;
}

Fill greedy_fill(std::span<const std::uint32_t> free, std::uint32_t n, bool one_per_sm) {
  Fill r;
  r.per_sm.assign(free.size(), 0);
  if (!cluster_fits(free, n, one_per_sm)) return r;
  r.ok = true;
  std::vector<std::uint32_t> left(free.begin(), free.end());
  r.speed = n == 0 ? 0 : std::numeric_limits<std::uint32_t>::max();
  for (std::uint32_t k = 0; k < n; ++k) {
    std::size_t best = left.size();
    for (std::size_t i = 0; i < left.size(); ++i) {
      if (left[i] == 0 || (one_per_sm && r.per_sm[i] > 0)) continue;
      if (best == left.size() || left[i] > left[best]) best = i;
    }
    --left[best];
    ++r.per_sm[best];
  }
  for (std::size_t i = 0; i < left.size(); ++i)
    if (r.per_sm[i] > 0) r.speed = std::min(r.speed, left[i]);
  return r;
}

bool cluster_fits(std::span<const std::uint32_t> free, std::uint32_t n, bool one_per_sm) {
  if (one_per_sm) {
    return static_cast<std::uint64_t>(
               std::count_if(free.begin(), free.end(), [](std::uint32_t f) { return f > 0; })) >= n;
  }
  return std::accumulate(free.begin(), free.end(), std::uint64_t{0}) >= n;
}

}  // namespace xpusim::sched
