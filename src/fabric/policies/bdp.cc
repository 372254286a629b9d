// Ours, not the patent's: a port whose queue holds its bandwidth-delay product never stalls
// on credits, and more does not help it (seed4 §5 item 9, §7). So each used port first gets
// its BDP where memory allows; the rest follows demand.
#include <algorithm>
#include <vector>

#include "fabric/policies/policies.h"

namespace xpusim::fabric {
namespace {

class BdpPolicy final : public AllocationPolicy {
 public:
  std::string_view name() const override { return "bdp"; }

  Result<Allocation> allocate(const AllocationInput& in) const override {
    auto f = detail::make_frame(in);
    if (!f) return f.errors();
    const std::uint64_t unit = in.unit_bytes;
    const std::uint64_t port_floor = f->floor_units * in.vcs;
    // Target above the floors, in units: BDP rounded up, never below the floors.
    std::vector<std::uint64_t> extra(in.ports.size(), 0), demand(in.ports.size(), 0),
        bdp(in.ports.size(), 0);
    __extension__ unsigned __int128 targets = 0;  // many 64-bit targets may overflow
    bool any_demand = false;
    for (std::size_t p = 0; p < in.ports.size(); ++p) {
      const PortDemand& d = in.ports[p];
      if (!d.used) continue;
      const std::uint64_t target =
          std::max(d.bdp_bytes / unit + (d.bdp_bytes % unit != 0), port_floor);
      extra[p] = target - port_floor;
      targets += extra[p];
      bdp[p] = d.bdp_bytes;
      demand[p] = detail::received(d);
      any_demand = any_demand || demand[p] > 0;
    }
    // Not every BDP fits: the memory is the bottleneck, share it in proportion to the BDPs.
    if (targets > f->spare()) return allocate_weighted(in, bdp);
    // Every BDP fits: the rest goes by received packets, equally among used ports without.
    if (!any_demand) {
      for (std::size_t p = 0; p < in.ports.size(); ++p)
        demand[p] = in.ports[p].used ? 1 : 0;
    }
    auto rest = proportional_split(demand, f->spare() - static_cast<std::uint64_t>(targets));
    if (!rest) return rest.errors();
    for (std::size_t p = 0; p < in.ports.size(); ++p)
      extra[p] += (*rest)[p];
    return detail::build_allocation(in, *f, extra, /*vc_by_counts=*/true);
  }
};

}  // namespace

Status register_allocation_policy_bdp(AllocationPolicyRegistry& r) {
  return r.add(
      {.name = "bdp",
       .description = "ours: each used port its bandwidth-delay product where memory allows, the "
                      "rest by demand",
       .make = []() -> std::unique_ptr<AllocationPolicy> { return std::make_unique<BdpPolicy>(); },
       .order = 3});
}

}  // namespace xpusim::fabric
