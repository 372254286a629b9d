// Choosing the GPC for a GPC_CGA (seed1 ¶163–171, Fig. 28): every mimic GPC answers FAIL or the
// speed the CGA would get there; the fastest wins and all tied GPCs launch at once (¶171). The
// query recurses through the CGA levels (¶169, claim 8): a mimic GPC asked for a GPC_CGA made of
// CPC_CGAs queries its CPCs, and a mimic µGPU asked for a µGPU_CGA queries its GPCs, with one
// layer (place_parts in the .cc) reused at every level.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "sched/gpu_state.h"
#include "sched/grid.h"
#include "sched/waterfill.h"

namespace xpusim::sched {

struct GpcQuery {
  std::uint32_t gpc = 0;
  Fill fill;                               // per_sm indexed from first_sm(gpc)
  std::vector<std::uint32_t> sm_of_cta{};  // SM per CTA (absolute ids), CTA rank order
};

// Skips queries that failed; picks the max speed; returns ALL tied GPCs (ascending index).
std::vector<GpcQuery> best_gpcs(std::span<const GpcQuery> queries);

// One mimic GPC's answer for one cluster of `grid` (ctas_per_cga CTAs) on the shadow's effective
// free slots: multicast_fill when grid.multicast, else all-or-nothing waterfill. fill.per_sm is
// indexed from topology().first_sm(gpc).
Fill query_gpc(const ShadowState& shadow, std::uint32_t gpc, const GridSpec& grid,
               LevelSearch search = LevelSearch::kBinary);

// One GPC_CGA on mimic GPC `gpc`. Without a CPC level: query_gpc. With one (¶169): the GPC asks
// each CPC for the next CPC_CGA (in parallel; a round costs the most probes any CPC made),
// reserves it speculatively on the fastest (ties: the lowest CPC) and goes on until all are
// placed; the answer is FAIL if one finds no CPC, else the speed of the last query. fill.probes
// sums the rounds.
GpcQuery query_gpc_cga(const ShadowState& shadow, std::uint32_t gpc, const GridSpec& grid);

// How many GPC_CGAs of `grid` fit at once in GPCs [first, first + gpcs) of `shadow`, counting up
// to `enough`: query_gpc_cga repeated, each placement reserved on `shadow` (a GPC's successive
// placements do not depend on the other GPCs, so GPC by GPC is the same as any order).
std::uint64_t gpc_cgas_that_fit(ShadowState& shadow, const GridSpec& grid, std::uint32_t first,
                                std::uint32_t gpcs, std::uint64_t enough);

// A mimic µGPU's answer for one µGPU_CGA (¶115, claim 8): grid.gpc_cgas_per_ugpu_cga GPC_CGAs
// placed one by one, each on the fastest open GPC of the µGPU (ties: the lowest) as
// query_gpc_cga answers; FAIL if one finds no GPC, else the last query's speed.
struct UgpuQuery {
  std::uint32_t ugpu = 0;
  bool ok = false;
  std::uint32_t speed = 0;
  std::uint32_t probes = 0;  // summed over the rounds, each the max over the GPCs queried
  std::uint32_t rounds = 0;
  std::vector<std::uint32_t> sm_of_cta;  // GPC_CGA by GPC_CGA, CTA rank order
  std::vector<std::uint32_t> gpcs;       // the GPC of each GPC_CGA
};
// `open(gpc)` says whether a GPC may take another GPC_CGA; `taken` counts this query's own
// placements per GPC (so a per-GPC budget is charged as the query goes).
UgpuQuery query_ugpu_cga(const ShadowState& shadow, std::uint32_t ugpu, const GridSpec& grid,
                         const std::function<bool(std::uint32_t gpc, std::uint32_t taken)>& open);

}  // namespace xpusim::sched
