// `--explain`: why a cluster does or does not fit, GPC by GPC, naming the resource that ran out.
#pragma once

#include <string>
#include <vector>

#include "sched/gpu_state.h"
#include "sched/grid.h"

namespace xpusim::sched {

// One line per GPC saying whether one cluster of `grid` (one CTA for a plain grid) fits on it now
// in `state` (pass an empty state for "on an empty chip") and, if not, which resource ran out on
// which SM, e.g. "GPC 3 (16 SMs): no — needs 16 CTAs, 14 free slots: SM 52 full (shared memory)".
// A µGPU_CGA grid adds one line per µGPU: how many of its GPC_CGAs the µGPU holds at once, e.g.
// "µGPU 1 (GPCs 4-7): no — needs 3 GPC_CGAs at once, holds 2".
std::vector<std::string> explain_fit(const GpuState& state, const GridSpec& grid);

}  // namespace xpusim::sched
