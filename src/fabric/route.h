// Network::route, inline because it runs at every hop: dimension order with a per-dimension
// ring direction and dateline VCs on grids; shortest path with hop-indexed VCs on explicit
// topologies (network.h has the scheme; routing.cc the rest of the routing code).
#pragma once

#include "fabric/network.h"
#include "fabric/network_internal.h"

namespace xpusim::fabric {

[[gnu::always_inline]] inline bool Network::route(std::uint32_t chip, Packet& k) const {
  if (!grid_) {
    const std::uint8_t port = next_hop_[static_cast<std::size_t>(chip) * N_ + k.dst];
    if (port == 0xFF || k.hops >= vcs_) return false;
    k.out = port;
    k.vc = k.hops;  // hop-indexed VCs: the channel dependency graph is acyclic
    return true;
  }
  const auto& c = coord_[chip];
  const auto& t = coord_[k.dst];
  std::uint32_t d = 0;
  while (d < rank_ && c[d] == t[d])
    ++d;
  if (d == rank_) return false;
  if (d != k.dim) {
    // Entering a dimension: pick the direction once (shorter; + on a tie; the healthy one
    // when failures break the other) and restart on VC 0 before the dateline.
    const std::uint32_t n = dims_[d];
    std::uint32_t first = t[d] > c[d] ? 0 : 1;
    if (wraps_[d]) {
      const std::uint32_t plus = t[d] >= c[d] ? t[d] - c[d] : t[d] + n - c[d];
      first = plus <= n - plus ? 0 : 1;
    }
    std::uint32_t dir = first;
    if (holes_ && !healthy_path(chip, d, dir, t[d])) {
      dir = 1 - first;
      if (!wraps_[d] || !healthy_path(chip, d, dir, t[d])) return false;
    }
    k.dim = static_cast<std::uint8_t>(d);
    k.dir = static_cast<std::uint8_t>(dir);
    k.crossed = 0;
  }
  const std::uint32_t port = 2 * d + k.dir;
  const std::uint8_t flags = port_flags_[chip * P_ + port];
  if (!(flags & kPortUsed)) return false;
  if (flags & kPortWraps) k.crossed = 1;  // the dateline: VC 1 from here on
  k.out = static_cast<std::uint8_t>(port);
  k.vc = static_cast<std::uint8_t>(vcs_ >= 2 ? k.vc_base + k.crossed : 0);
  return true;
}

}  // namespace xpusim::fabric
