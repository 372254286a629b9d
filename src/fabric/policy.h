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

// The names make_policy accepts, in registry order.
std::vector<std::string> policy_names();
// Error for an unknown name lists the known ones.
Result<std::unique_ptr<AllocationPolicy>> make_policy(std::string_view name);

}  // namespace xpusim::fabric
