// Splitting a chip's shared buffer memory among its ports' receive queues (seed4 ¶52-¶59).
// The patent's equations were images; docs/fabric.md states the reconstruction:
//   Q_p = Q_total x w_p / sum(w)  for used ports, 0 for unused ports,
// in whole allocation units, leftover units to the largest remainders (ties: lowest port).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "sim/result.h"

namespace xpusim::fabric {

// What a policy may know about one port when it sizes the queues.
struct PortDemand {
  bool used = false;
  std::uint64_t rtt_ps = 0;                    // expected or measured round trip (0 when unused)
  std::uint64_t bdp_bytes = 0;                 // link bandwidth x RTT
  std::vector<std::uint64_t> received_per_vc;  // packets received in the last profile window
};

struct AllocationInput {
  std::uint64_t total_bytes = 0;       // Q_total: the port-queue region of the buffer memory
  std::uint64_t unit_bytes = 1;        // every size is a multiple of this
  std::uint32_t vcs = 1;               // virtual channels per port
  std::uint64_t min_bytes_per_vc = 0;  // floor for every VC of a used port (one max packet)
  std::vector<PortDemand> ports;
};

// Sizes in bytes, multiples of unit_bytes; port_bytes[p] = sum of vc_bytes[p].
struct Allocation {
  std::vector<std::uint64_t> port_bytes;
  std::vector<std::vector<std::uint64_t>> vc_bytes;  // [port][vc]
  std::uint64_t total() const;
};

// Largest-remainder split of `total` units by integer weights, exact (128-bit) arithmetic:
// q_i = floor(total x w_i / W), then one unit each to the largest remainders, ties to the
// lowest index. Zero weight -> zero units. Error when every weight is zero.
Result<std::vector<std::uint64_t>> proportional_split(std::span<const std::uint64_t> weights,
                                                      std::uint64_t total);

// The common frame every weighted policy uses: each used (port, VC) first gets the floor
// (min_bytes_per_vc rounded up to the unit), the remaining units are split across ports by
// `port_weights` (proportional_split), and a port's share above its floors across its VCs by
// its received_per_vc counts (equal when they are all zero). Unused ports get 0.
// Errors: no used port; total below the sum of the floors; all weights of used ports zero.
Result<Allocation> allocate_weighted(const AllocationInput& in,
                                     std::span<const std::uint64_t> port_weights);

// Checks an allocation against its input: sizes are unit multiples, unused ports have 0,
// used VCs hold at least the floor, the sum does not exceed total_bytes. For tests and for
// refusing to program a broken allocation.
Status check_allocation(const AllocationInput& in, const Allocation& a);

}  // namespace xpusim::fabric
