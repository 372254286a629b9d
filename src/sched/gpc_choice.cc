#include "sched/gpc_choice.h"

#include <algorithm>
#include <limits>

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

namespace {

// What one child domain answers for one sub-CGA: its SMs (absolute, CTA rank order) and speed.
struct Answer {
  bool ok = false;
  std::uint32_t speed = 0;
  std::uint32_t probes = 0;
  std::vector<std::uint32_t> sm_of_cta;
};

struct Placed {
  bool ok = false;
  std::uint32_t speed = 0;
  std::uint32_t probes = 0;
  std::uint32_t rounds = 0;
  std::vector<std::uint32_t> sm_of_cta;
  std::vector<std::uint32_t> child;  // the child domain of each part
};

// The layer reused at every level (claim 8): `parts` sub-CGAs placed one by one on `shadow`.
// Each round asks every open child for one part (`ask(shadow, child, placed)`, with `placed`
// the SMs of the parts so far). The children answer in parallel, so a round costs the most
// probes one made. The part goes to the fastest child (ties: the lowest index); FAIL as soon as
// a round has no answer. The speed is the last query's (¶169 step 3). `shadow` keeps the
// reservations; the caller cancels or commits them.
template <class Ask, class Open>
Placed place_parts(ShadowState& shadow, std::uint32_t children, std::uint32_t parts, const Ask& ask,
                   const Open& open) {
  Placed out;
  std::vector<std::uint32_t> taken(children, 0);
  for (std::uint32_t k = 0; k < parts; ++k, ++out.rounds) {
    std::uint32_t best = children, most = 0;
    Answer win;
    for (std::uint32_t c = 0; c < children; ++c) {
      if (!open(c, taken[c])) continue;
      Answer a = ask(shadow, c, out.sm_of_cta);
      most = std::max(most, a.probes);
      if (!a.ok || (best != children && a.speed <= win.speed)) continue;
      best = c;
      win = std::move(a);
    }
    out.probes += most;
    if (best == children) {
      ++out.rounds;
      return out;  // ok = false: the reservations so far are the caller's to cancel
    }
    for (const std::uint32_t sm : win.sm_of_cta)
      shadow.reserve(sm, 1);
    ++taken[best];
    out.sm_of_cta.insert(out.sm_of_cta.end(), win.sm_of_cta.begin(), win.sm_of_cta.end());
    out.child.push_back(best);
    out.speed = win.speed;
  }
  out.ok = true;
  return out;
}

// The leaf: n CTAs of one CGA over SMs [first, first + count). A multicast cluster keeps one
// CTA per SM across its parts (¶142), so the SMs in `placed` take none.
Answer fill_domain(const ShadowState& shadow, std::uint32_t first, std::uint32_t count,
                   std::uint32_t n, bool multicast, std::span<const std::uint32_t> placed) {
  std::vector<std::uint32_t> free = shadow.free_range(first, count);
  if (multicast) {
    for (const std::uint32_t sm : placed)
      if (sm >= first && sm < first + count) free[sm - first] = 0;
  }
  const Fill f = multicast ? multicast_fill(free, shadow.topology().sms_per_tpc(), n)
                           : waterfill(free, n, /*all_or_nothing=*/true);
  Answer a{.ok = f.ok, .speed = f.speed, .probes = f.probes, .sm_of_cta = {}};
  if (f.ok) a.sm_of_cta = cta_sms(f, first);
  return a;
}

}  // namespace

GpcQuery query_gpc_cga(const ShadowState& shadow, std::uint32_t gpc, const GridSpec& grid) {
  const Topology& topo = shadow.topology();
  GpcQuery q{.gpc = gpc, .fill = {}, .sm_of_cta = {}};
  if (grid.cpc_cgas_per_gpc_cga == 0) {
    q.fill = query_gpc(shadow, gpc, grid);
    if (q.fill.ok) q.sm_of_cta = cta_sms(q.fill, topo.first_sm(gpc));
    return q;
  }
  ShadowState scratch = shadow;  // the mimic GPC's own speculative launches (¶169 step 2)
  const Placed p = place_parts(
      scratch, topo.cpcs_per_gpc(), grid.cpc_cgas_per_gpc_cga,
      [&](const ShadowState& sh, std::uint32_t c, std::span<const std::uint32_t> placed) {
        return fill_domain(sh, topo.cpc_first_sm(gpc, c), topo.sms_in_cpc(gpc, c),
                           grid.ctas_per_cpc_cga(), grid.multicast, placed);
      },
      [](std::uint32_t, std::uint32_t) { return true; });
  q.fill.ok = p.ok;
  q.fill.probes = p.probes;
  if (!p.ok) return q;
  q.fill.speed = p.speed;
  q.fill.per_sm.assign(topo.sms_in_gpc(gpc), 0);
  for (const std::uint32_t sm : p.sm_of_cta)
    ++q.fill.per_sm[sm - topo.first_sm(gpc)];
  q.sm_of_cta = p.sm_of_cta;
  return q;
}

std::uint64_t gpc_cgas_that_fit(ShadowState& shadow, const GridSpec& grid, std::uint32_t first,
                                std::uint32_t gpcs, std::uint64_t enough) {
  std::uint64_t count = 0;
  for (std::uint32_t g = first; g < first + gpcs && count < enough; ++g) {
    for (GpcQuery q = query_gpc_cga(shadow, g, grid); q.fill.ok && count < enough;
         q = query_gpc_cga(shadow, g, grid)) {
      shadow.reserve_range(shadow.topology().first_sm(g), q.fill.per_sm);
      ++count;
    }
  }
  return count;
}

UgpuQuery query_ugpu_cga(const ShadowState& shadow, std::uint32_t ugpu, const GridSpec& grid,
                         const std::function<bool(std::uint32_t, std::uint32_t)>& open) {
  const Topology& topo = shadow.topology();
  const std::uint32_t first = topo.ugpu_first_gpc(ugpu);
  ShadowState scratch = shadow;
  const Placed p = place_parts(
      scratch, topo.gpcs_in_ugpu(ugpu), grid.gpc_cgas_per_ugpu_cga,
      [&](const ShadowState& sh, std::uint32_t g, std::span<const std::uint32_t>) {
        GpcQuery q = query_gpc_cga(sh, first + g, grid);
        return Answer{.ok = q.fill.ok,
                      .speed = q.fill.speed,
                      .probes = q.fill.probes,
                      .sm_of_cta = std::move(q.sm_of_cta)};
      },
      [&](std::uint32_t g, std::uint32_t taken) { return open(first + g, taken); });
  UgpuQuery u{.ugpu = ugpu,
              .ok = p.ok,
              .speed = p.ok ? p.speed : 0,
              .probes = p.probes,
              .rounds = p.rounds,
              .sm_of_cta = {},
              .gpcs = {}};
  if (!p.ok) return u;
  u.sm_of_cta = p.sm_of_cta;
  for (const std::uint32_t g : p.child)
    u.gpcs.push_back(first + g);
  return u;
}

}  // namespace xpusim::sched
