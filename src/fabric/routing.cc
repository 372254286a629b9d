// Routing of the fabric (network.h): the direction checks around failures, hop counts and the
// next-hop tables of explicit topologies. The per-hop decision is inline in route.h.
#include <deque>

#include <fmt/format.h>

#include "fabric/network.h"
#include "fabric/network_internal.h"
#include "fabric/route.h"

namespace xpusim::fabric {

bool Network::healthy_path(std::uint32_t chip, std::uint32_t d, std::uint32_t dir,
                           std::uint32_t target) const {
  std::uint32_t cur = chip;
  for (std::uint32_t steps = 0; coord_[cur][d] != target; ++steps) {
    const PortInfo& pi = topo_.port(cur, 2 * d + dir);
    if (!pi.used || steps > topo_.dims()[d]) return false;
    cur = pi.peer_chip;
  }
  return true;
}

Result<std::uint32_t> Network::hops(std::uint32_t src, std::uint32_t dst) const {
  Packet k;
  k.dst = dst;
  std::uint32_t chip = src;
  std::uint32_t n = 0;
  while (chip != dst) {
    if (!route(chip, k)) {
      const auto name = [&](std::uint32_t x) {
        const auto c = topo_.coord(x);
        return topo_.is_grid() ? fmt::format("{} ({},{},{})", x, c[0], c[1], c[2])
                               : fmt::format("{}", x);
      };
      return Error{fmt::format(
          "route: no path from chip {} to chip {} at chip {}: {} routing cannot pass the "
          "unused or failed ports there",
          name(src), name(dst), name(chip),
          topo_.is_grid() ? "dimension-order" : "shortest-path (with hop-indexed VCs)")};
    }
    chip = topo_.port(chip, k.out).peer_chip;
    ++k.hops;
    ++n;
  }
  return n;
}

// Explicit topologies: next_hop_[c][dst] = the lowest port on a shortest path (BFS over used
// links from every destination); the diameter must fit the hop-indexed VCs.
Status build_next_hops(const Topology& topo, std::uint32_t vcs, std::vector<std::uint8_t>& nh) {
  const std::uint32_t n = topo.chips();
  const std::uint32_t ports = topo.ports_per_chip();
  nh.assign(static_cast<std::size_t>(n) * n, 0xFF);
  std::uint32_t diameter = 0;
  std::vector<std::uint32_t> dist(n);
  for (std::uint32_t dst = 0; dst < n; ++dst) {
    if (!topo.active(dst)) continue;
    std::fill(dist.begin(), dist.end(), kNil);
    dist[dst] = 0;
    std::deque<std::uint32_t> bfs{dst};
    while (!bfs.empty()) {
      const std::uint32_t c = bfs.front();
      bfs.pop_front();
      for (std::uint32_t p = 0; p < ports; ++p) {
        const PortInfo& pi = topo.port(c, p);
        if (!pi.used || dist[pi.peer_chip] != kNil) continue;
        dist[pi.peer_chip] = dist[c] + 1;
        diameter = std::max(diameter, dist[c] + 1);
        bfs.push_back(pi.peer_chip);
      }
    }
    for (std::uint32_t c = 0; c < n; ++c) {
      if (c == dst || dist[c] == kNil) continue;
      for (std::uint32_t p = 0; p < ports; ++p) {
        const PortInfo& pi = topo.port(c, p);
        if (pi.used && dist[pi.peer_chip] + 1 == dist[c]) {
          nh[static_cast<std::size_t>(c) * n + dst] = static_cast<std::uint8_t>(p);
          break;
        }
      }
    }
  }
  if (diameter > vcs) {
    return Error{fmt::format(
        "buffer.vcs: {} is below the explicit topology's diameter {}: hop-indexed VCs (the "
        "deadlock-free scheme for arbitrary graphs) need one VC per hop",
        vcs, diameter)};
  }
  return Ok{};
}

}  // namespace xpusim::fabric
