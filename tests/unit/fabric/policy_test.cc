// The allocation policies through their registry (src/fabric/policy.h): the seed4 §3 worked
// examples for rtt and count, the equal baseline's waste, and both regimes of bdp.
#include "fabric/policy.h"

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace xpusim::fabric {
namespace {

using V = std::vector<std::uint64_t>;

std::unique_ptr<AllocationPolicy> policy(std::string_view name) {
  auto p = make_policy(name);
  EXPECT_TRUE(p.ok()) << name;
  return std::move(*p);
}

PortDemand port(bool used, std::uint64_t rtt = 0, V counts = {}, std::uint64_t bdp = 0) {
  PortDemand p;
  p.used = used;
  p.rtt_ps = rtt;
  p.bdp_bytes = bdp;
  p.received_per_vc = std::move(counts);
  return p;
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(PolicyRegistry, NamesInOrderAndEachBuilds) {
  EXPECT_EQ(policy_names(), (std::vector<std::string>{"equal", "rtt", "count", "bdp"}));
  for (const std::string& n : policy_names()) {
    auto p = policy(n);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(p->name(), n);
    EXPECT_EQ(p->needs_counts(), n == "count") << n;
  }
}

TEST(PolicyRegistry, UnknownNameListsTheKnownOnes) {
  auto p = make_policy("fifo");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().message,
            "allocation policy 'fifo' is unknown; known allocation policies: equal, rtt, count, "
            "bdp");
  EXPECT_TRUE(has(make_policy("rrt").error().message, "(did you mean 'rtt'?)"));
}

TEST(PolicyRegistry, EveryEntryDescribesAndBuildsItsPolicy) {
  const AllocationPolicyRegistry r = allocation_policies();
  EXPECT_EQ(r.names(), policy_names());
  for (const auto& e : r.entries()) {
    EXPECT_FALSE(e.description.empty()) << e.name;
    EXPECT_EQ(e.description.find('\n'), std::string::npos) << e.name;
    ASSERT_NE(e.make, nullptr) << e.name;
    const auto p = e.make();
    ASSERT_NE(p, nullptr) << e.name;
    EXPECT_EQ(p->name(), e.name);
  }
}

TEST(RttPolicy, WorkedExample) {
  // seed4 §3: 4096 units; PCB, PCB, copper, optical, two unused ports.
  AllocationInput in;
  in.total_bytes = 4096;
  in.ports = {port(true, 100),  port(true, 100), port(true, 300),
              port(true, 1000), port(false),     port(false)};
  auto a = policy("rtt")->allocate(in);
  ASSERT_TRUE(a.ok()) << a.error().message;
  EXPECT_EQ(a->port_bytes, (V{273, 273, 819, 2731, 0, 0}));
}

TEST(RttPolicy, AllRttZeroIsAnError) {
  AllocationInput in;
  in.total_bytes = 4096;
  in.ports = {port(true), port(true), port(false, 500)};
  auto a = policy("rtt")->allocate(in);
  ASSERT_FALSE(a.ok());
  EXPECT_TRUE(has(a.error().message, "rtt_ps 0")) << a.error().message;
}

TEST(CountPolicy, WorkedExampleUsedButIdlePortGetsZero) {
  // seed4 §3 re-split: counts {10k, 30k, 0, 60k}; port 2 is used but idle, 4 and 5 unused.
  AllocationInput in;
  in.total_bytes = 4096;
  in.ports = {port(true, 100, {10000}),
              port(true, 100, {30000}),
              port(true, 300, {0}),
              port(true, 1000, {60000}),
              port(false),
              port(false)};
  auto a = policy("count")->allocate(in);
  ASSERT_TRUE(a.ok()) << a.error().message;
  EXPECT_EQ(a->port_bytes, (V{410, 1229, 0, 2457, 0, 0}));
}

TEST(CountPolicy, SumsVcsAndSplitsPerVcByCount) {
  AllocationInput in;
  in.total_bytes = 100;
  in.vcs = 2;
  in.ports = {port(true, 0, {10, 30}), port(true, 0, {40, 20}), port(false, 0, {999, 999})};
  // Port weights 40:60 -> 40, 60; VCs 10:30 -> 10, 30 and 40:20 -> 40, 20.
  auto a = policy("count")->allocate(in);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->vc_bytes, (std::vector<V>{{10, 30}, {40, 20}, {0, 0}}));
}

TEST(CountPolicy, NoCountsIsAnError) {
  AllocationInput in;
  in.total_bytes = 100;
  in.ports = {port(true, 5, {0}), port(true), port(false, 0, {7})};
  auto a = policy("count")->allocate(in);
  ASSERT_FALSE(a.ok());
  EXPECT_TRUE(has(a.error().message, "received 0 packets")) << a.error().message;
}

TEST(EqualPolicy, EveryPortSameShareUnusedShareWasted) {
  AllocationInput in;
  in.total_bytes = 4096;
  in.ports = {port(true, 100),  port(true, 100), port(true, 300),
              port(true, 1000), port(false),     port(false)};
  auto a = policy("equal")->allocate(in);
  ASSERT_TRUE(a.ok());
  // 4096 / 6 = 682 r 4: the first four ports get one more; ports 4 and 5 waste theirs.
  EXPECT_EQ(a->port_bytes, (V{683, 683, 683, 683, 0, 0}));
  EXPECT_EQ(a->total(), 4096u - 2 * 682);
}

TEST(EqualPolicy, FloorsFirstAndVcsEqualDespiteCounts) {
  AllocationInput in;
  in.total_bytes = 64 * 40;
  in.unit_bytes = 64;
  in.vcs = 2;
  in.min_bytes_per_vc = 128;  // 2 units per VC
  in.ports = {port(true, 0, {1, 99}), port(false), port(true)};
  // 40 units - 8 floor units = 32 spare over 3 ports: 11, 11, 10; port 1's 11 are wasted.
  auto a = policy("equal")->allocate(in);
  ASSERT_TRUE(a.ok()) << a.error().message;
  EXPECT_EQ(a->vc_bytes[0], (V{(2 + 6) * 64, (2 + 5) * 64}));
  EXPECT_EQ(a->vc_bytes[1], (V{0, 0}));
  EXPECT_EQ(a->vc_bytes[2], (V{(2 + 5) * 64, (2 + 5) * 64}));
  EXPECT_TRUE(check_allocation(in, *a).ok());
}

TEST(BdpPolicy, TargetsFitRestByDemand) {
  AllocationInput in;
  in.total_bytes = 64 * 128;
  in.unit_bytes = 64;
  in.ports = {port(true, 0, {1}, 1000), port(true, 0, {3}, 3000), port(false, 0, {50}, 9000)};
  // Targets 16 and 47 units (rounded up); 65 left by demand 1:3 -> 16, 49 (.25 vs .75).
  auto a = policy("bdp")->allocate(in);
  ASSERT_TRUE(a.ok()) << a.error().message;
  EXPECT_EQ(a->port_bytes, (V{32 * 64, 96 * 64, 0}));
}

TEST(BdpPolicy, TargetsFitNoDemandRestEqual) {
  AllocationInput in;
  in.total_bytes = 64 * 128;
  in.unit_bytes = 64;
  in.ports = {port(true, 0, {}, 1000), port(true, 0, {}, 3000), port(false, 0, {}, 9000)};
  // 65 units left, equal over the two used ports: 33, 32.
  auto a = policy("bdp")->allocate(in);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->port_bytes, (V{(16 + 33) * 64, (47 + 32) * 64, 0}));
}

TEST(BdpPolicy, TargetsDoNotFitSplitByBdp) {
  AllocationInput in;
  in.total_bytes = 64 * 32;
  in.unit_bytes = 64;
  in.ports = {port(true, 0, {9}, 1000), port(true, 0, {1}, 3000), port(false, 0, {}, 9000)};
  auto a = policy("bdp")->allocate(in);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->port_bytes, (V{8 * 64, 24 * 64, 0}));
}

TEST(BdpPolicy, TargetIsAtLeastTheFloors) {
  AllocationInput in;
  in.total_bytes = 1000;
  in.vcs = 2;
  in.min_bytes_per_vc = 100;
  in.ports = {port(true, 0, {}, 0), port(true, 0, {0, 5}, 300)};
  // Targets 200 (floors) and 300; 500 left all to port 1, VC 1 (the only one with packets).
  auto a = policy("bdp")->allocate(in);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->vc_bytes, (std::vector<V>{{100, 100}, {100, 700}}));
}

TEST(AllPolicies, SharedErrorsAndRandomInputsPassTheCheck) {
  for (const std::string& n : policy_names()) {
    AllocationInput in;
    in.total_bytes = 100;
    in.ports = {port(false, 5, {5}, 5)};
    auto a = policy(n)->allocate(in);
    ASSERT_FALSE(a.ok()) << n;
    EXPECT_TRUE(has(a.error().message, "all ports unused")) << n;

    in.ports = {port(true, 5, {5}, 5), port(true, 5, {5}, 5)};
    in.min_bytes_per_vc = 51;
    a = policy(n)->allocate(in);
    ASSERT_FALSE(a.ok()) << n;
    EXPECT_TRUE(has(a.error().message, "below the floor")) << n;
  }
  std::mt19937_64 rng(7);
  for (int iter = 0; iter < 300; ++iter) {
    AllocationInput in;
    in.unit_bytes = 32;
    in.vcs = 1 + static_cast<std::uint32_t>(rng() % 3);
    in.min_bytes_per_vc = rng() % 600;
    std::uint64_t used = 0;
    for (int p = 0; p < 6; ++p) {
      V counts(in.vcs);
      for (auto& c : counts)
        c = 1 + rng() % 100;
      in.ports.push_back(port(rng() % 3 != 0, 1 + rng() % 5000, counts, rng() % 20000));
      used += in.ports.back().used;
    }
    if (used == 0) in.ports[0].used = true, used = 1;
    const std::uint64_t floor = (in.min_bytes_per_vc + 31) / 32 * 32;
    in.total_bytes = floor * in.vcs * used + rng() % 100000;
    for (const std::string& n : policy_names()) {
      auto a = policy(n)->allocate(in);
      ASSERT_TRUE(a.ok()) << n << ": " << a.error().message;
      auto st = check_allocation(in, *a);
      EXPECT_TRUE(st.ok()) << n << ": " << st.error().message;
      // Only the fixed split wastes memory; the others hand out every whole unit.
      if (n != "equal") {
        EXPECT_EQ(a->total(), in.total_bytes / 32 * 32) << n;
      }
    }
  }
}

}  // namespace
}  // namespace xpusim::fabric
