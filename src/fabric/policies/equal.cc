// The fixed hardware split, the baseline of seed4 §5 item 9: every port gets the same share
// whether or not it carries traffic, so an unused port's share is wasted.
#include <vector>

#include "fabric/policies/policies.h"

namespace xpusim::fabric {
namespace {

class EqualPolicy final : public AllocationPolicy {
 public:
  std::string_view name() const override { return "equal"; }

  Result<Allocation> allocate(const AllocationInput& in) const override {
    auto f = detail::make_frame(in);
    if (!f) return f.errors();
    // Floors first, like every policy (a used VC must hold one maximum packet), then the rest
    // in equal shares over all ports, used or not. An unused port's share is not programmed
    // (check_allocation wants 0 there): it stays in the sum as waste, which is exactly what a
    // fixed split costs. The per-VC split is equal too: fixed hardware reads no counters.
    std::vector<std::uint64_t> ones(in.ports.size(), 1);
    auto extra = proportional_split(ones, f->spare());
    if (!extra) return extra.errors();
    return detail::build_allocation(in, *f, *extra, /*vc_by_counts=*/false);
  }
};

}  // namespace

Status register_allocation_policy_equal(AllocationPolicyRegistry& r) {
  return r.add({.name = "equal",
                .description =
                    "baseline: every port, used or not, the same share (the fixed hardware split)",
                .make = []() -> std::unique_ptr<AllocationPolicy> {
                  return std::make_unique<EqualPolicy>();
                },
                .order = 0});
}

}  // namespace xpusim::fabric
