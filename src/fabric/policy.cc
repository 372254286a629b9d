#include "fabric/policy.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>

#include "fabric/policies/policies.h"

namespace xpusim::fabric {

namespace {
struct Entry {
  std::string_view name;
  std::unique_ptr<AllocationPolicy> (*make)();
};
// Registry order is the order reports and sweeps list them: baseline first.
constexpr std::array<Entry, 4> kPolicies{{{"equal", make_equal_policy},
                                          {"rtt", make_rtt_policy},
                                          {"count", make_count_policy},
                                          {"bdp", make_bdp_policy}}};
}  // namespace

std::vector<std::string> policy_names() {
  std::vector<std::string> names;
  for (const Entry& e : kPolicies)
    names.emplace_back(e.name);
  return names;
}

Result<std::unique_ptr<AllocationPolicy>> make_policy(std::string_view name) {
  for (const Entry& e : kPolicies) {
    if (e.name == name) return e.make();
  }
  return Error{fmt::format("policy: unknown allocation policy '{}' (known: {})", name,
                           fmt::join(policy_names(), ", "))};
}

}  // namespace xpusim::fabric
