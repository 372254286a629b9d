// Topology: the chips and links of a pod as built from its PodSpec, with the per-port metadata
// of seed4 ¶51 (id, used, medium, cable length) and each port's expected round-trip time.
//
// Port numbering on grids (ring, mesh, torus, tpuv4): port 2d goes to +d, port 2d+1 to -d
// (d = 0 for x, 1 for y, 2 for z); ports beyond 2 x rank are unconnected.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "fabric/pod_spec.h"
#include "sim/result.h"
#include "sim/tick.h"

namespace xpusim::fabric {

inline constexpr std::uint32_t kNoChip = 0xFFFF'FFFF;

struct PortInfo {
  bool connected = false;  // a cable is attached
  bool used = false;       // connected, both chips in the job, link healthy (seed4 ¶41-¶42)
  Medium medium = Medium::kCopper;
  double length_m = 0.0;
  std::uint32_t peer_chip = kNoChip;
  std::uint32_t peer_port = 0;
  std::uint32_t link = 0;  // index into links(); valid when connected
};

struct LinkInfo {
  std::uint32_t chip_a = 0, port_a = 0, chip_b = 0, port_b = 0;
  Medium medium = Medium::kCopper;
  double length_m = 0.0;
  std::uint64_t bandwidth_bytes_per_s = 0;  // per direction
  sim::Tick latency_ps = 0;                 // one-way: medium latency + length x per-metre
  double bit_error_rate = 0.0;
  bool failed = false;
  bool used = false;     // both ends in the job and not failed
  bool wraps = false;    // a torus wrap-around link (the dateline of its ring)
  std::uint8_t dim = 0;  // grid dimension it runs along (grids only)
};

class Topology {
 public:
  const PodSpec& spec() const { return spec_; }
  std::uint32_t chips() const { return chips_; }
  std::uint32_t ports_per_chip() const { return spec_.ports_per_chip; }
  bool is_grid() const { return spec_.shape != Shape::kExplicit; }
  // Grid extent per dimension (1 for dimensions beyond the rank); explicit: {chips, 1, 1}.
  const std::array<std::uint32_t, 3>& dims() const { return dims_; }
  std::uint32_t rank() const { return rank_; }
  // True when dimension d wraps around in the pod (torus, tpuv4, ring).
  bool wraps(std::uint32_t d) const { return wrap_[d]; }

  std::array<std::uint32_t, 3> coord(std::uint32_t chip) const;
  std::uint32_t chip_at(const std::array<std::uint32_t, 3>& c) const;
  // In the job: inside the slice and not failed.
  bool active(std::uint32_t chip) const { return active_[chip]; }
  std::uint32_t active_chips() const { return active_count_; }

  const PortInfo& port(std::uint32_t chip, std::uint32_t p) const {
    return ports_[chip * spec_.ports_per_chip + p];
  }
  const std::vector<LinkInfo>& links() const { return links_; }
  std::uint32_t used_ports(std::uint32_t chip) const;

  // Expected round trip of the link behind a port from the latency table (seed4 ¶52):
  // 2 x (medium latency + length x per-metre) + 2 x router latency; 0 for an unused port.
  sim::Tick table_rtt(std::uint32_t chip, std::uint32_t p) const;

  // Human-readable one-line summary ("tpuv4 4x4x4: 64 chips, 192 links (96 optical)...").
  std::string summary() const;

 private:
  friend Result<Topology> build_topology(const PodSpec& spec);
  PodSpec spec_;
  std::uint32_t chips_ = 0, rank_ = 0, active_count_ = 0;
  std::array<std::uint32_t, 3> dims_{1, 1, 1};
  std::array<bool, 3> wrap_{};
  std::vector<bool> active_;
  std::vector<PortInfo> ports_;  // chips x ports_per_chip
  std::vector<LinkInfo> links_;
};

// Builds the graph: grid links per shape (tpuv4: PCB inside a tray, electrical_medium inside a
// cube, optical across cube faces and on wrap-around links), explicit links, then the slice
// and failures mark ports unused. Errors: a failed chip or link naming no chip or port, a port
// used twice, no used port at all ("all ports unused"), a slice outside the pod.
Result<Topology> build_topology(const PodSpec& spec);

}  // namespace xpusim::fabric
