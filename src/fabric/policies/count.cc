// Profile-guided allocation (seed4 Fig. 4, ¶58-¶59): Q_p = Q_total x packet_num_p /
// sum packet_num_i, where packet_num_p is what port p received (all VCs) in the profile window.
// Busy ports, and ports whose poor links cause retries, get more credits (¶62).
#include <vector>

#include "fabric/policies/policies.h"

namespace xpusim::fabric {
namespace {

class CountPolicy final : public AllocationPolicy {
 public:
  std::string_view name() const override { return "count"; }
  bool needs_counts() const override { return true; }

  Result<Allocation> allocate(const AllocationInput& in) const override {
    std::vector<std::uint64_t> w(in.ports.size(), 0);
    bool any = false;
    for (std::size_t p = 0; p < in.ports.size(); ++p) {
      w[p] = detail::received(in.ports[p]);
      any = any || (in.ports[p].used && w[p] > 0);
    }
    auto f = detail::make_frame(in);
    if (!f) return f.errors();
    // seed4 §5 item 5: all counts 0 is an error, not an all-zero allocation.
    if (!any) {
      return Error{
          "count policy: every used port received 0 packets; the packet-count split (seed4 "
          "¶58) needs a profile window with traffic first"};
    }
    return allocate_weighted(in, w);
  }
};

}  // namespace

Status register_allocation_policy_count(AllocationPolicyRegistry& r) {
  return r.add({.name = "count",
                .description =
                    "in proportion to packets received per port in a profile window (seed4 Fig. 4)",
                .make = []() -> std::unique_ptr<AllocationPolicy> {
                  return std::make_unique<CountPolicy>();
                },
                .order = 2});
}

}  // namespace xpusim::fabric
