// Latency-based allocation (seed4 Fig. 3, ¶52-¶53): Q_p = Q_total x RTT_p / sum RTT_i over the
// used ports, 0 for unused ports. A longer round trip keeps more bytes in flight per credit.
#include <vector>

#include "fabric/policies/policies.h"

namespace xpusim::fabric {
namespace {

class RttPolicy final : public AllocationPolicy {
 public:
  std::string_view name() const override { return "rtt"; }

  Result<Allocation> allocate(const AllocationInput& in) const override {
    std::vector<std::uint64_t> w(in.ports.size(), 0);
    bool any = false;
    for (std::size_t p = 0; p < in.ports.size(); ++p) {
      w[p] = in.ports[p].rtt_ps;
      any = any || (in.ports[p].used && w[p] > 0);
    }
    auto f = detail::make_frame(in);  // its errors (no used port, floors) come first
    if (!f) return f.errors();
    if (!any) {
      return Error{
          "rtt policy: every used port has rtt_ps 0; the RTT split (seed4 ¶52) needs a round "
          "trip per used port"};
    }
    return allocate_weighted(in, w);
  }
};

}  // namespace

Status register_allocation_policy_rtt(AllocationPolicyRegistry& r) {
  return r.add(
      {.name = "rtt",
       .description = "each used port's share in proportion to its round-trip time (seed4 Fig. 3)",
       .make = []() -> std::unique_ptr<AllocationPolicy> { return std::make_unique<RttPolicy>(); },
       .order = 1});
}

}  // namespace xpusim::fabric
