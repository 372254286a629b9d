// Routing of the fabric (network.h): dimension order with a per-dimension ring direction and
// dateline VCs on grids; shortest path with hop-indexed VCs on explicit topologies.
#include <deque>

#include <fmt/format.h>

#include "fabric/network.h"
#include "fabric/network_internal.h"

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

bool Network::route(std::uint32_t chip, Packet& k) const {
  if (!topo_.is_grid()) {
    const std::uint8_t port = next_hop_[static_cast<std::size_t>(chip) * N_ + k.dst];
    if (port == 0xFF || k.hops >= vcs_) return false;
    k.out = port;
    k.vc = k.hops;  // hop-indexed VCs: the channel dependency graph is acyclic
    return true;
  }
  const auto& c = coord_[chip];
  const auto& t = coord_[k.dst];
  std::uint32_t d = 0;
  const std::uint32_t rank = topo_.rank();
  while (d < rank && c[d] == t[d])
    ++d;
  if (d == rank) return false;
  if (d != k.dim) {
    // Entering a dimension: pick the direction once (shorter; + on a tie; the healthy one
    // when failures break the other) and restart on VC 0 before the dateline.
    const std::uint32_t n = topo_.dims()[d];
    std::uint32_t first = t[d] > c[d] ? 0 : 1;
    if (topo_.wraps(d)) {
      const std::uint32_t plus = (t[d] + n - c[d]) % n;
      first = plus <= n - plus ? 0 : 1;
    }
    std::uint32_t dir = first;
    if (holes_ && !healthy_path(chip, d, dir, t[d])) {
      dir = 1 - first;
      if (!topo_.wraps(d) || !healthy_path(chip, d, dir, t[d])) return false;
    }
    k.dim = static_cast<std::uint8_t>(d);
    k.dir = static_cast<std::uint8_t>(dir);
    k.crossed = 0;
  }
  const std::uint32_t port = 2 * d + k.dir;
  const Output& out = out_[chip * P_ + port];
  if (!out.used) return false;
  if (out.wraps) k.crossed = 1;  // the dateline: VC 1 from here on
  k.out = static_cast<std::uint8_t>(port);
  const std::uint32_t classes = vcs_ >= 2 ? vcs_ / 2 : 1;
  k.vc = static_cast<std::uint8_t>(vcs_ >= 2 ? 2 * (k.msg % classes) + k.crossed : 0);
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
