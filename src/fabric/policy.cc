#include "fabric/policy.h"

namespace xpusim::fabric {

// Generated from the policies/*.cc files (cmake/registry.cmake).
Status register_allocation_policies(AllocationPolicyRegistry& r);

AllocationPolicyRegistry allocation_policies() {
  AllocationPolicyRegistry r("allocation policy", "allocation policies");
  sim::check_builtin(register_allocation_policies(r));
  return r;
}

std::vector<std::string> policy_names() {
  return allocation_policies().names();
}

Result<std::unique_ptr<AllocationPolicy>> make_policy(std::string_view name) {
  const AllocationPolicyRegistry all = allocation_policies();
  auto e = all.find(name);
  if (!e) return e.errors();
  return (*e)->make();
}

}  // namespace xpusim::fabric
