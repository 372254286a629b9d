// Internal to the fabric unit: the allocation frame (allocation.cc) the policies (one file each
// here, registered through policy.h's AllocationPolicyRegistry) share, so that every policy checks
// its input and the floors the same way and reports the same errors.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "fabric/allocation.h"
#include "fabric/policy.h"
#include "sim/result.h"

namespace xpusim::fabric {

namespace detail {

// The input in whole units, after the checks every policy needs.
struct Frame {
  std::uint64_t units = 0;        // total_bytes / unit_bytes (a partial unit is unusable)
  std::uint64_t floor_units = 0;  // per used VC: min_bytes_per_vc rounded up to the unit
  std::uint64_t floors = 0;       // floor_units x vcs x used ports
  std::uint32_t used_ports = 0;
  std::uint64_t spare() const { return units - floors; }  // units left above the floors
};

// Errors: unit or vcs 0, a received_per_vc of the wrong length, no used port, the total below
// the floors.
Result<Frame> make_frame(const AllocationInput& in);

// Builds the allocation: used port p gets its floors plus extra_units[p], split over its VCs
// floors first, the rest by received_per_vc when `vc_by_counts` and some count is non-zero,
// else equally. Unused ports get 0 whatever extra_units says.
Allocation build_allocation(const AllocationInput& in, const Frame& f,
                            std::span<const std::uint64_t> extra_units, bool vc_by_counts);

// Sum of a port's received_per_vc (its packet count in the profile window).
std::uint64_t received(const PortDemand& p);

// "3 KiB", "544 B": byte counts in messages.
std::string format_bytes(std::uint64_t b);

}  // namespace detail
}  // namespace xpusim::fabric
