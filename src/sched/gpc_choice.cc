#include "sched/gpc_choice.h"

#include <algorithm>

#include "sched/multicast.h"

namespace xpusim::sched {

std::vector<GpcQuery> best_gpcs(std::span<const GpcQuery> queries) {
  std::vector<GpcQuery> best;
  for (const GpcQuery& q : queries) {
    if (!q.fill.ok) continue;  // a FAIL is never chosen (digest §5.7)
    if (!best.empty() && q.fill.speed < best.front().fill.speed) continue;
    if (!best.empty() && q.fill.speed > best.front().fill.speed) best.clear();
    best.push_back(q);
  }
  // ¶171: every tied GPC launches; report them in GPC order whatever the query order was.
  std::sort(best.begin(), best.end(),
            [](const GpcQuery& a, const GpcQuery& b) { return a.gpc < b.gpc; });
  return best;
}

Fill query_gpc(const ShadowState& shadow, std::uint32_t gpc, const GridSpec& grid,
               LevelSearch search) {
  const Topology& topo = shadow.topology();
  const std::vector<std::uint32_t> free =
      shadow.free_range(topo.first_sm(gpc), topo.sms_in_gpc(gpc));
  if (grid.multicast) return multicast_fill(free, topo.sms_per_tpc(), grid.ctas_per_cga());
  return waterfill(free, grid.ctas_per_cga(), /*all_or_nothing=*/true, search);  // ¶141
}

}  // namespace xpusim::sched
