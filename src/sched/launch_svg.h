// The picture of a launch study (`xpusim launch --svg`): the placement map at peak residency
// (one row per GPC, one cell per SM, each CTA a slice coloured by its cluster) above the SM
// utilization-over-time curve.
#pragma once

#include <string>

#include "sched/launch_run.h"

namespace xpusim::sched {

std::string launch_svg(const Topology& topo, const LaunchReport& report, const std::string& title);

}  // namespace xpusim::sched
