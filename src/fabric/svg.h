// Link-utilization drawing of a grid pod (`xpusim fabric --svg`): chips on their x/y grid, one
// panel per z plane, each link coloured from blue (idle) to red (busy) by the busier of its
// two directions; wrap-around links are drawn as stubs leaving both edge chips.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "fabric/topology.h"

namespace xpusim::fabric {

// `links`: the "links" array of Network::stats_json.
std::string utilization_svg(const Topology& topo, const nlohmann::json& links);

}  // namespace xpusim::fabric
