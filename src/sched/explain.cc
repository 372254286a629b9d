#include "sched/explain.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "sched/gpc_choice.h"
#include "sched/policy.h"

namespace xpusim::sched {

namespace {

constexpr std::size_t kListed = 4;  // SMs named per line; the rest are counted

std::string describe(std::uint32_t sm, std::uint32_t free, Resource r) {
  if (free == 0) return fmt::format("SM {} full ({})", sm, name(r));
  return fmt::format("SM {} holds {} more ({})", sm, free, name(r));
}

// A cluster split into CPC_CGAs (seed1 ¶169): what each CPC of GPC g has free.
std::string cpc_line(const Topology& topo, std::uint32_t g, std::span<const std::uint32_t> free,
                     const GridSpec& grid, bool fits) {
  std::vector<std::string> per_cpc;
  for (std::uint32_t c = 0; c < topo.cpcs_per_gpc(); ++c) {
    const std::uint32_t at = topo.cpc_first_sm(g, c) - topo.first_sm(g);
    const auto cpc = free.subspan(at, topo.sms_in_cpc(g, c));
    per_cpc.push_back(
        grid.multicast
            ? fmt::format("{}", std::count_if(cpc.begin(), cpc.end(), [](auto f) { return f > 0; }))
            : fmt::format("{}", std::accumulate(cpc.begin(), cpc.end(), std::uint64_t{0})));
  }
  return fmt::format(
      "GPC {} ({} SMs): {} — needs {} CPC_CGAs of {} CTAs, each in one CPC; its "
      "{} CPCs have {} {}",
      g, topo.sms_in_gpc(g), fits ? "yes" : "no", grid.cpc_cgas_per_gpc_cga,
      grid.ctas_per_cpc_cga(), topo.cpcs_per_gpc(), fmt::join(per_cpc, ", "),
      grid.multicast ? "SMs with a free slot (multicast)" : "free slots");
}

}  // namespace

std::vector<std::string> explain_fit(const GpuState& state, const GridSpec& grid) {
  const Topology& topo = state.topology();
  const SmCapacity& cap = topo.capacity();
  const CtaFootprint fp = footprint(cap, grid.shape);
  const std::uint32_t n = grid.ctas_per_cga();
  std::vector<std::string> lines;
  for (std::uint32_t g = 0; g < topo.num_gpcs(); ++g) {
    const std::uint32_t first = topo.first_sm(g), count = topo.sms_in_gpc(g);
    std::vector<std::uint32_t> free(count);
    for (std::uint32_t i = 0; i < count; ++i)
      free[i] = state.free_slots(first + i, fp);
    const bool cpcs = grid.cpc_cgas_per_gpc_cga != 0;
    const bool fits = cpcs ? query_gpc_cga(ShadowState(state, fp), g, grid).fill.ok
                           : cluster_fits(free, n, grid.multicast);
    std::string line =
        cpcs ? cpc_line(topo, g, free, grid, fits)
        : grid.multicast
            ? fmt::format(
                  "GPC {} ({} SMs): {} — needs {} SMs with a free slot (multicast), {} have one", g,
                  count, fits ? "yes" : "no", n,
                  std::count_if(free.begin(), free.end(), [](auto f) { return f > 0; }))
            : fmt::format("GPC {} ({} SMs): {} — needs {} CTAs, {} free slots", g, count,
                          fits ? "yes" : "no", n,
                          std::accumulate(free.begin(), free.end(), std::uint64_t{0}));
    if (!fits) {
      // The tightest SMs first, each with the resource that bounds it (limiting_resource).
      std::vector<std::uint32_t> order(count);
      std::iota(order.begin(), order.end(), 0u);
      std::stable_sort(order.begin(), order.end(),
                       [&](std::uint32_t a, std::uint32_t b) { return free[a] < free[b]; });
      const auto resource = [&](std::uint32_t i) {
        return limiting_resource(cap, state.usage(first + i), fp);
      };
      const bool uniform = std::all_of(order.begin(), order.end(), [&](std::uint32_t i) {
        return free[i] == free[0] && resource(i) == resource(0);
      });
      if (uniform && count > 1) {
        line += free[0] == 0
                    ? fmt::format(": every SM full ({})", name(resource(0)))
                    : fmt::format(": every SM holds {} more ({})", free[0], name(resource(0)));
      } else {
        std::vector<std::string> parts;
        for (std::size_t k = 0; k < std::min(kListed, order.size()); ++k)
          parts.push_back(describe(first + order[k], free[order[k]], resource(order[k])));
        if (order.size() > kListed)
          parts.push_back(fmt::format("+{} more SMs", order.size() - kListed));
        line += fmt::format(": {}", fmt::join(parts, ", "));
      }
    }
    lines.push_back(std::move(line));
  }
  if (grid.kind == ClusterKind::kUgpuCga) {
    // How many GPC_CGAs each µGPU holds at once (each µGPU on its own shadow of `state`).
    for (std::uint32_t u = 0; u < topo.num_ugpus(); ++u) {
      const std::uint32_t first = topo.ugpu_first_gpc(u), gpcs = topo.gpcs_in_ugpu(u);
      const std::uint32_t need = grid.gpc_cgas_per_ugpu_cga;
      ShadowState shadow(state, fp);
      const std::uint64_t holds = gpc_cgas_that_fit(shadow, grid, first, gpcs, need);
      lines.push_back(
          fmt::format("µGPU {} (GPCs {}-{}): {} — needs {} GPC_CGAs at once, holds {}{}", u, first,
                      first + gpcs - 1, holds >= need ? "yes" : "no", need, holds,
                      holds >= need ? " or more" : ""));
    }
  }
  return lines;
}

}  // namespace xpusim::sched
