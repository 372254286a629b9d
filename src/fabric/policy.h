// Allocation policies in a registry, one file each under policies/ (docs/fabric.md):
//   equal  - the fixed hardware split: every port, used or not, the same share (baseline)
//   rtt    - proportional to each used port's round-trip time (seed4 Fig. 3, ¶52-¶53)
//   count  - proportional to packets received per port in a profile window (Fig. 4, ¶58-¶59)
//   bdp    - ours: each used port at least its bandwidth-delay product where memory allows,
//            the rest by demand (received counts; equal when there are none)
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "fabric/allocation.h"
#include "sim/registry.h"
#include "sim/result.h"

namespace xpusim::fabric {

class AllocationPolicy {
 public:
  virtual ~AllocationPolicy() = default;
  virtual std::string_view name() const = 0;
  // True when the policy needs received-packet counts (a profiling run first).
  virtual bool needs_counts() const { return false; }
  virtual Result<Allocation> allocate(const AllocationInput& in) const = 0;
};

// The policies by name: one policies/*.cc each, which defines
// `Status register_allocation_policy_<stem>(AllocationPolicyRegistry&)` (cmake/registry.cmake).
using AllocationPolicyFactory = std::unique_ptr<AllocationPolicy> (*)();
using AllocationPolicyRegistry = sim::Registry<AllocationPolicyFactory>;
// Built on each call, in the order reports and sweeps list them: the equal baseline first, then
// rtt, count, bdp.
AllocationPolicyRegistry allocation_policies();

// Thin wrappers over allocation_policies(). An unknown name: one line with the known ones.
std::vector<std::string> policy_names();
Result<std::unique_ptr<AllocationPolicy>> make_policy(std::string_view name);

}  // namespace xpusim::fabric
