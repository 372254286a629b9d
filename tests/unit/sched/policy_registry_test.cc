// sched::policies(): the four policies in listing order (the default first), each with a
// one-line description and a factory that builds the policy of that name.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "sched/policy.h"

namespace xpusim::sched {
namespace {

TEST(PolicyRegistry, ListsTheFourPoliciesDefaultFirstAndEachBuilds) {
  const PolicyRegistry r = policies();
  EXPECT_EQ(r.names(),
            (std::vector<std::string>{"waterfill", "prior-art", "round-robin", "first-fit"}));
  EXPECT_EQ(policy_names(), r.names());
  for (const auto& e : r.entries()) {
    EXPECT_FALSE(e.description.empty()) << e.name;
    EXPECT_EQ(e.description.find('\n'), std::string::npos) << e.name;
    ASSERT_NE(e.make, nullptr) << e.name;
    const auto p = e.make(DecisionCost{});
    ASSERT_NE(p, nullptr) << e.name;
    EXPECT_EQ(p->name(), e.name);
    EXPECT_EQ(p->one_cta_per_packet(), e.name == "prior-art") << e.name;
  }
}

TEST(PolicyRegistry, MakePolicyGoesThroughTheRegistry) {
  auto p = make_policy("round-robin");
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ((*p)->name(), "round-robin");
  auto bad = make_policy("waterfil");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message,
            "policy 'waterfil' is unknown (did you mean 'waterfill'?); known policies: "
            "waterfill, prior-art, round-robin, first-fit");
}

}  // namespace
}  // namespace xpusim::sched
