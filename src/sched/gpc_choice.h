// Choosing the GPC for a GPC_CGA (seed1 ¶163–171, Fig. 28): every mimic GPC answers FAIL or the
// speed the CGA would get there; the fastest wins and all tied GPCs launch at once (¶171).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "sched/gpu_state.h"
#include "sched/grid.h"
#include "sched/waterfill.h"

namespace xpusim::sched {

struct GpcQuery {
  std::uint32_t gpc;
  Fill fill;
};

// Skips queries that failed; picks the max speed; returns ALL tied GPCs (ascending index).
std::vector<GpcQuery> best_gpcs(std::span<const GpcQuery> queries);

// One mimic GPC's answer for one cluster of `grid` (ctas_per_cga CTAs) on the shadow's effective
// free slots: multicast_fill when grid.multicast, else all-or-nothing waterfill. fill.per_sm is
// indexed from topology().first_sm(gpc).
Fill query_gpc(const ShadowState& shadow, std::uint32_t gpc, const GridSpec& grid,
               LevelSearch search = LevelSearch::kBinary);

}  // namespace xpusim::sched
