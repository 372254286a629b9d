// The proportional split and the weighted allocation frame (src/fabric/allocation.h), against
// the worked examples of seed4 §3 and a naive reference of the largest-remainder rule.
#include "fabric/allocation.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include <gtest/gtest.h>

namespace xpusim::fabric {
namespace {

using V = std::vector<std::uint64_t>;

// Reference: shares in long double (exact for the small values used), leftover units handed
// out one at a time by a linear scan for the largest fraction, lowest index first.
V reference_split(const V& w, std::uint64_t total) {
  long double sum = 0;
  for (auto x : w)
    sum += static_cast<long double>(x);
  V q(w.size());
  std::vector<long double> frac(w.size());
  std::uint64_t given = 0;
  for (std::size_t i = 0; i < w.size(); ++i) {
    const long double share = static_cast<long double>(total) * w[i] / sum;
    q[i] = static_cast<std::uint64_t>(std::floor(share));
    frac[i] = share - std::floor(share);
    given += q[i];
  }
  std::vector<bool> taken(w.size(), false);
  for (std::uint64_t k = given; k < total; ++k) {
    std::size_t best = w.size();
    for (std::size_t i = 0; i < w.size(); ++i) {
      if (!taken[i] && (best == w.size() || frac[i] > frac[best])) best = i;
    }
    taken[best] = true;
    ++q[best];
  }
  return q;
}

PortDemand used_port(std::uint64_t rtt = 0, V counts = {}) {
  PortDemand p;
  p.used = true;
  p.rtt_ps = rtt;
  p.received_per_vc = std::move(counts);
  return p;
}

TEST(ProportionalSplit, RttWorkedExample) {
  // seed4 §3: PCB 100, PCB 100, copper 300, optical 1000, two unused ports; 4096 units.
  const V w{100, 100, 300, 1000, 0, 0};
  auto q = proportional_split(w, 4096);
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(*q, (V{273, 273, 819, 2731, 0, 0}));
}

TEST(ProportionalSplit, CountWorkedExampleTieGoesToLowestPort) {
  // Remainders .6, .8, 0, .6: port 1 first, then port 0 wins the tie against port 3.
  const V w{10000, 30000, 0, 60000, 0, 0};
  auto q = proportional_split(w, 4096);
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(*q, (V{410, 1229, 0, 2457, 0, 0}));
}

TEST(ProportionalSplit, EqualWeightsLeftoverToLowestIndices) {
  auto q = proportional_split(V{1, 1, 1, 1, 1, 1}, 4096);
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(*q, (V{683, 683, 683, 683, 682, 682}));
}

TEST(ProportionalSplit, AllZeroWeightsIsAnError) {
  auto q = proportional_split(V{0, 0, 0}, 10);
  ASSERT_FALSE(q.ok());
  EXPECT_NE(q.error().message.find("all 3 weights are 0"), std::string::npos);
  EXPECT_FALSE(proportional_split(V{}, 10).ok());
}

TEST(ProportionalSplit, ZeroTotalGivesZeros) {
  auto q = proportional_split(V{5, 0, 7}, 0);
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(*q, (V{0, 0, 0}));
}

TEST(ProportionalSplit, NeedsMoreThan64Bits) {
  // total x w and the weight sum both overflow 64 bits; values from an exact (Python) reference.
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  auto q = proportional_split(V{kMax, kMax - 1, 3, kMax / 3}, kMax - 5);
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(*q, (V{7905747460161236404ull, 7905747460161236404ull, 1, 2635249153387078801ull}));
}

TEST(ProportionalSplit, MatchesNaiveReferenceOnRandomWeights) {
  std::mt19937_64 rng(0x5eed4);
  for (int iter = 0; iter < 2000; ++iter) {
    const std::size_t n = 1 + rng() % 10;
    V w(n);
    std::uint64_t sum = 0;
    for (auto& x : w) {
      // Many zeros and many duplicates, to exercise ties.
      const auto kind = rng() % 4;
      x = kind == 0 ? 0 : kind == 1 ? 1 + rng() % 4 : rng() % 1'000'000;
      sum += x;
    }
    if (sum == 0) w[0] = 1, sum = 1;
    const std::uint64_t total = rng() % 100'000;
    auto q = proportional_split(w, total);
    ASSERT_TRUE(q.ok());
    EXPECT_EQ(*q, reference_split(w, total)) << "iteration " << iter;
    std::uint64_t got = 0;
    for (std::size_t i = 0; i < n; ++i) {
      got += (*q)[i];
      const long double exact = static_cast<long double>(total) * w[i] / sum;
      EXPECT_LT(std::fabs(static_cast<long double>((*q)[i]) - exact), 1.0L);
      if (w[i] == 0) {
        EXPECT_EQ((*q)[i], 0u);
      }
    }
    EXPECT_EQ(got, total);
  }
}

// --- allocate_weighted ---

AllocationInput rtt_example() {
  AllocationInput in;
  in.total_bytes = 4096;
  for (std::uint64_t rtt : {100, 100, 300, 1000})
    in.ports.push_back(used_port(rtt));
  in.ports.push_back(PortDemand{});
  in.ports.push_back(PortDemand{});
  return in;
}

TEST(AllocateWeighted, RttWorkedExampleWithNoFloor) {
  const AllocationInput in = rtt_example();
  // Weights of unused ports are ignored, whatever they are.
  auto a = allocate_weighted(in, V{100, 100, 300, 1000, 777, 5});
  ASSERT_TRUE(a.ok()) << a.error().message;
  EXPECT_EQ(a->port_bytes, (V{273, 273, 819, 2731, 0, 0}));
  EXPECT_EQ(a->total(), 4096u);
  EXPECT_TRUE(check_allocation(in, *a).ok());
}

TEST(AllocateWeighted, FloorsFirstThenWeightsInUnits) {
  AllocationInput in;
  in.total_bytes = 64 * 100 + 10;  // a partial unit is never allocated
  in.unit_bytes = 64;
  in.vcs = 2;
  in.min_bytes_per_vc = 100;  // -> 2 units per VC
  in.ports = {used_port(), used_port(), PortDemand{}};
  // 100 units - 2 ports x 2 VCs x 2 units = 92 spare, split 1:3 -> 23, 69; then per VC
  // equally, the odd unit to VC 0.
  auto a = allocate_weighted(in, V{1, 3, 50});
  ASSERT_TRUE(a.ok()) << a.error().message;
  EXPECT_EQ(a->vc_bytes[0], (V{(2 + 12) * 64, (2 + 11) * 64}));
  EXPECT_EQ(a->vc_bytes[1], (V{(2 + 35) * 64, (2 + 34) * 64}));
  EXPECT_EQ(a->vc_bytes[2], (V{0, 0}));
  EXPECT_EQ(a->port_bytes, (V{27 * 64, 73 * 64, 0}));
  EXPECT_TRUE(check_allocation(in, *a).ok());
}

TEST(AllocateWeighted, VcShareFollowsReceivedCounts) {
  AllocationInput in;
  in.total_bytes = 44;
  in.vcs = 2;
  in.min_bytes_per_vc = 2;
  in.ports = {used_port(0, {1, 3}), used_port(0, {0, 0})};
  // 44 - 8 floor bytes = 36, 18 each; port 0 by 1:3 -> 4.5/13.5 (tie: VC 0), port 1 equal.
  auto a = allocate_weighted(in, V{1, 1});
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->vc_bytes[0], (V{2 + 5, 2 + 13}));
  EXPECT_EQ(a->vc_bytes[1], (V{2 + 9, 2 + 9}));
}

TEST(AllocateWeighted, TotalBelowFloorsNamesTheRule) {
  AllocationInput in;
  in.total_bytes = 3 * 1024;
  in.unit_bytes = 32;
  in.vcs = 2;
  in.min_bytes_per_vc = 544;
  in.ports = {used_port(), used_port(), used_port(), used_port(), PortDemand{}};
  auto a = allocate_weighted(in, V{1, 1, 1, 1, 1});
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.error().message,
            "buffer: 3 KiB of port queues is below the floor of 4 used ports x 2 VCs x 544 B "
            "(one maximum packet per VC)");
  // Exactly the floors is enough: every VC gets its floor and nothing more.
  in.total_bytes = 4 * 2 * 544;
  a = allocate_weighted(in, V{1, 1, 1, 1, 1});
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->port_bytes, (V{1088, 1088, 1088, 1088, 0}));
}

TEST(AllocateWeighted, Errors) {
  AllocationInput in;
  in.total_bytes = 100;
  in.ports = {PortDemand{}, PortDemand{}};
  auto a = allocate_weighted(in, V{1, 1});
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.error().message.find("all ports unused"), std::string::npos);

  in.ports[1].used = true;
  a = allocate_weighted(in, V{5, 0});  // only the unused port has weight
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.error().message.find("weight 0"), std::string::npos);

  a = allocate_weighted(in, V{1});
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.error().message.find("1 port weights for 2 ports"), std::string::npos);

  in.vcs = 2;
  in.ports[1].received_per_vc = {1, 2, 3};
  a = allocate_weighted(in, V{1, 1});
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.error().message.find("3 received_per_vc counts"), std::string::npos);

  in.unit_bytes = 0;
  EXPECT_FALSE(allocate_weighted(in, V{1, 1}).ok());
}

TEST(AllocateWeighted, RandomInputsUseAllUnitsAndPassTheCheck) {
  std::mt19937_64 rng(42);
  for (int iter = 0; iter < 500; ++iter) {
    AllocationInput in;
    in.unit_bytes = std::uint64_t{1} << (rng() % 7);
    in.vcs = 1 + static_cast<std::uint32_t>(rng() % 4);
    in.min_bytes_per_vc = rng() % 600;
    const std::size_t n = 1 + rng() % 8;
    V w(n);
    std::uint64_t used = 0;
    for (std::size_t p = 0; p < n; ++p) {
      PortDemand d;
      d.used = rng() % 4 != 0;
      if (rng() % 2) {
        for (std::uint32_t v = 0; v < in.vcs; ++v)
          d.received_per_vc.push_back(rng() % 50);
      }
      w[p] = 1 + rng() % 1000;
      used += d.used;
      in.ports.push_back(d);
    }
    if (used == 0) in.ports[0].used = true, used = 1;
    const std::uint64_t floor = (in.min_bytes_per_vc + in.unit_bytes - 1) / in.unit_bytes;
    in.total_bytes = (floor * in.vcs * used + rng() % 5000) * in.unit_bytes + rng() % in.unit_bytes;
    auto a = allocate_weighted(in, w);
    ASSERT_TRUE(a.ok()) << a.error().message;
    EXPECT_TRUE(check_allocation(in, *a).ok()) << check_allocation(in, *a).error().message;
    // Nothing is wasted: every whole unit goes to some used port.
    EXPECT_EQ(a->total(), in.total_bytes / in.unit_bytes * in.unit_bytes);
    // Each port's share above its floors is within one unit of its exact share.
    long double wsum = 0;
    for (std::size_t p = 0; p < n; ++p)
      wsum += in.ports[p].used ? w[p] : 0;
    const std::uint64_t spare = in.total_bytes / in.unit_bytes - floor * in.vcs * used;
    for (std::size_t p = 0; p < n; ++p) {
      if (!in.ports[p].used) continue;
      const long double got = a->port_bytes[p] / in.unit_bytes - floor * in.vcs;
      EXPECT_LT(std::fabs(got - spare * (w[p] / wsum)), 1.0L);
    }
  }
}

// --- check_allocation ---

TEST(CheckAllocation, FindsEveryBrokenRule) {
  AllocationInput in;
  in.total_bytes = 256;
  in.unit_bytes = 32;
  in.vcs = 2;
  in.min_bytes_per_vc = 40;  // floor 64 B
  in.ports = {used_port(), PortDemand{}};
  Allocation good{{128, 0}, {{64, 64}, {0, 0}}};
  EXPECT_TRUE(check_allocation(in, good).ok());

  const auto fails_with = [&](const Allocation& a, const std::string& what) {
    auto st = check_allocation(in, a);
    ASSERT_FALSE(st.ok()) << what;
    bool found = false;
    for (const auto& e : st.errors())
      found = found || e.message.find(what) != std::string::npos;
    EXPECT_TRUE(found) << what << " not in: " << st.error().message;
  };
  fails_with({{112, 0}, {{48, 64}, {0, 0}}}, "not a multiple of the 32 B unit");
  fails_with({{96, 0}, {{32, 64}, {0, 0}}}, "below the 64 B floor");
  fails_with({{128, 64}, {{64, 64}, {32, 32}}}, "unused port 1 has 64 B");
  fails_with({{128, 0}, {{64, 32}, {0, 0}}}, "its VCs sum to 96 B");
  fails_with({{320, 0}, {{256, 64}, {0, 0}}}, "more than the 256 B total");
  fails_with({{128, 0}, {{128}, {0, 0}}}, "port 0 has 1 VC sizes");
  fails_with({{128}, {{64, 64}}}, "1 port sizes");
}

}  // namespace
}  // namespace xpusim::fabric
