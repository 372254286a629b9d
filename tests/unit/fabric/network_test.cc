// The fabric network (src/fabric/network.h): the credit protocol's buffer invariants under
// random traffic with stalling senders, torus deadlock freedom with dateline VCs, routing
// checked against independent hop counts (with and without failed links), determinism,
// re-allocation only when drained, policies through the register path, bit-error retries and
// measured RTTs.
#include "fabric/network.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "fabric/traffic.h"
#include "fabric_test_util.h"
#include "sim/rng.h"
#include "sim/simulation.h"

namespace xpusim::fabric {
namespace {

using namespace testutil;

constexpr sim::Tick kDeadline = 1'000'000'000;  // 1 ms: far beyond any run here

// Tiny buffers: every port VC holds exactly one maximum packet (512 B + 32 B header = 544 B,
// a multiple of the 32 B unit), outbound and inbound likewise, so senders stall constantly.
// Size = 544 x (used ports) + 544 + 544 x used ports x vcs (the pod check's minimum).
const char* kRing8Tiny = R"(name: ring-8-tiny
shape: ring
dims: [8]
ports_per_chip: 2
buffer: {bytes: 3808, unit: 32B, outbound: 544B, inbound: 544B, vcs: 2}
)";

const char* kTorus4x4Tiny = R"(name: torus-4x4-tiny
shape: torus
dims: [4, 4]
ports_per_chip: 4
buffer: {bytes: 7072, unit: 32B, outbound: 544B, inbound: 544B, vcs: 2}
)";

const char* kMesh4x4Tiny = R"(name: mesh-4x4-tiny
shape: mesh
dims: [4, 4]
ports_per_chip: 4
buffer: {bytes: 7072, unit: 32B, outbound: 544B, inbound: 544B, vcs: 2}
)";

const char* kTpuTiny = R"(name: tpuv4-tiny
shape: tpuv4
dims: [4, 4, 4]
media:
  optical: {bit_error_rate: 0}
buffer: {bytes: 10336, unit: 32B, outbound: 544B, inbound: 544B, vcs: 2}
)";

NetworkOptions seeded(std::uint64_t seed) {
  NetworkOptions o;
  o.seed = seed;
  return o;
}
NetworkOptions with_policy(const char* policy) {
  NetworkOptions o;
  o.policy = policy;
  return o;
}
NetworkOptions with_rtt(RttSource src) {
  NetworkOptions o;
  o.rtt_source = src;
  return o;
}

struct UniformRun {
  bool done = false;
  sim::Tick finish = 0;
  std::string stats;
};

// ---------------------------------------------------------------------------------------------
// 1. Credit protocol invariants under random traffic.

struct PodCase {
  const char* name;
  const char* yaml;
};

class CreditInvariants : public ::testing::TestWithParam<PodCase> {};

TEST_P(CreditInvariants, UniformRandomKeepsBuffersInBoundsAndDeliversEverything) {
  const Topology topo = pod_yaml(GetParam().yaml);
  ASSERT_GT(topo.chips(), 0u);
  const std::uint64_t max_packet = topo.spec().max_packet_bytes;
  for (std::uint64_t seed : {1u, 2u, 7u}) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    sim::Simulation sim(seed);
    auto net = make_net(sim, topo, seeded(seed));
    ASSERT_NE(net, nullptr);
    TrafficSpec ts;
    ts.kind = TrafficKind::kUniformRandom;
    ts.bytes = 6 * 1024 + 100;  // uneven message sizes (not multiples of a packet)
    ts.messages = 8;
    ts.seed = seed;
    auto traffic = make_traffic(*net, ts);
    ASSERT_TRUE(traffic.ok());
    InvariantChecker check(sim, *net, traffic->get(), 20'000, kDeadline);
    check.begin();
    ASSERT_TRUE((*traffic)->start().ok());
    const sim::StopReason why = sim.run(kDeadline * 2);
    EXPECT_EQ(why, sim::StopReason::kDrained);  // no deadlock: the queue ran dry
    ASSERT_TRUE((*traffic)->done()) << "deadlock: traffic did not finish";
    EXPECT_TRUE((*traffic)->verify().ok()) << (*traffic)->verify().error().message;
    EXPECT_EQ(net->messages_pending(), 0u);
    EXPECT_EQ(net->messages_delivered(), topo.active_chips() * ts.messages);
    EXPECT_TRUE(net->drained());
    EXPECT_EQ(check.violations(), 0u);
    EXPECT_GT(check.checks(), 20u);
    EXPECT_GT(check.nonempty_seen(), 0u);  // the checks saw traffic in the queues

    // Packets: every message is cut into ceil(bytes / max_packet) packets (sizes are
    // independent of the random destinations).
    std::uint64_t per_chip = 0;
    for (std::uint32_t i = 0; i < ts.messages; ++i) {
      const std::uint64_t b = ts.bytes / ts.messages + (i < ts.bytes % ts.messages);
      per_chip += packets_of(b, max_packet);
    }
    EXPECT_EQ(net->packets_injected(), per_chip * topo.active_chips());
    // Every hop is one link transmission and one receive (BER 0: no retries).
    std::uint64_t sent = 0, received = 0, stall = 0;
    for (std::uint32_t c = 0; c < topo.chips(); ++c) {
      for (std::uint32_t p = 0; p < topo.ports_per_chip(); ++p) {
        if (!topo.port(c, p).used) continue;
        sent += net->output_stats(c, p).packets;
        stall += net->output_stats(c, p).stall_ps;
        EXPECT_EQ(net->output_stats(c, p).retries, 0u);
        for (std::uint32_t v = 0; v < net->vcs(); ++v) {
          received += net->received(c, p, v);
          const std::uint32_t q = net->buffer(c).port_queue(p, v);
          EXPECT_LE(net->queue_stats(c, p, v).max_used, net->buffer(c).capacity(q));
          EXPECT_EQ(net->queue_used(c, p, v), 0u);
        }
      }
    }
    EXPECT_EQ(sent, net->packet_hops());
    EXPECT_EQ(received, net->packet_hops());
    EXPECT_GE(net->packet_hops(), net->packets_injected());
    EXPECT_GT(stall, 0u) << "the tiny buffer should make senders wait for credits";
  }
}

INSTANTIATE_TEST_SUITE_P(
    TinyPods, CreditInvariants,
    ::testing::Values(PodCase{"ring8", kRing8Tiny}, PodCase{"torus4x4", kTorus4x4Tiny},
                      PodCase{"mesh4x4", kMesh4x4Tiny}, PodCase{"tpuv4", kTpuTiny}),
    [](const ::testing::TestParamInfo<PodCase>& i) { return std::string(i.param.name); });

// Direct sends of random sizes (0 bytes, one byte, packet boundaries) with a sink that checks
// every delivery: each message arrives once, at its destination, and the hop count of the
// fabric is exactly the sum over packets of the routed hops.
TEST(CreditInvariants, RandomSendsArriveOnceWithExactHopCount) {
  const Topology topo = pod_yaml(kTpuTiny);
  sim::Simulation sim(5);
  auto net = make_net(sim, topo);
  ASSERT_NE(net, nullptr);
  RecordingSink sink;
  sim::Rng rng = sim::Rng::for_stream(99, "test.sends");
  const std::array<std::uint64_t, 7> sizes{0, 1, 511, 512, 513, 1024, 3000};
  std::uint64_t want_hops = 0, want_packets = 0;
  for (std::uint64_t i = 0; i < 400; ++i) {
    const auto src = static_cast<std::uint32_t>(rng.uniform(topo.chips()));
    auto dst = static_cast<std::uint32_t>(rng.uniform(topo.chips()));
    if (dst == src) dst = (dst + 1) % topo.chips();
    const std::uint64_t bytes = sizes[rng.uniform(sizes.size())];
    auto id = net->send(src, dst, bytes, sink.sent(), &sink);
    ASSERT_TRUE(id.ok());
    sink.expect(*id, src, dst, sink.sent());
    auto h = net->hops(src, dst);
    ASSERT_TRUE(h.ok());
    want_packets += packets_of(bytes, 512);
    want_hops += packets_of(bytes, 512) * *h;
  }
  InvariantChecker check(sim, *net, nullptr, 25'000, kDeadline);
  check.begin();
  EXPECT_EQ(sim.run(kDeadline * 2), sim::StopReason::kDrained);
  EXPECT_EQ(sink.delivered_count(), sink.sent());
  EXPECT_EQ(net->messages_pending(), 0u);
  EXPECT_EQ(net->packets_injected(), want_packets);
  EXPECT_EQ(net->packet_hops(), want_hops);
  EXPECT_TRUE(net->drained());
  EXPECT_EQ(check.violations(), 0u);
}

TEST(NetworkSend, RejectsSelfInactiveAndOutOfRange) {
  const Topology topo = pod_file("ring-8");
  sim::Simulation sim(1);
  auto net = make_net(sim, topo);
  ASSERT_NE(net, nullptr);
  auto self = net->send(3, 3, 64, 0, nullptr);
  ASSERT_FALSE(self.ok());
  EXPECT_TRUE(has(self.error().message, "itself"));
  EXPECT_FALSE(net->send(0, 8, 64, 0, nullptr).ok());
  EXPECT_EQ(net->messages_pending(), 0u);
  EXPECT_EQ(net->packets_injected(), 0u);
}

// ---------------------------------------------------------------------------------------------
// 2. Torus deadlock freedom.

TEST(TorusDeadlock, Ring8TinyBufferAllToAllFinishes) {
  const Topology topo = pod_yaml(kRing8Tiny);
  sim::Simulation sim(3);
  auto net = make_net(sim, topo);
  ASSERT_NE(net, nullptr);
  TrafficSpec ts;
  ts.kind = TrafficKind::kAllToAll;
  ts.bytes = 7 * 4096;  // 4 KiB to each of 7 peers: many packets per message
  auto traffic = make_traffic(*net, ts);
  ASSERT_TRUE(traffic.ok());
  InvariantChecker check(sim, *net, traffic->get(), 50'000, kDeadline);
  check.begin();
  ASSERT_TRUE((*traffic)->start().ok());
  EXPECT_EQ(sim.run(kDeadline * 2), sim::StopReason::kDrained);
  ASSERT_TRUE((*traffic)->done());
  EXPECT_TRUE((*traffic)->verify().ok());
  EXPECT_EQ(net->packets_injected(), 8u * 7u * 8u);
  EXPECT_TRUE(net->drained());
  EXPECT_EQ(check.violations(), 0u);
  // Both VCs carried traffic on some port (the dateline moved packets to VC 1).
  std::uint64_t vc0 = 0, vc1 = 0;
  for (std::uint32_t c = 0; c < 8; ++c) {
    for (std::uint32_t p = 0; p < 2; ++p) {
      vc0 += net->received(c, p, 0);
      vc1 += net->received(c, p, 1);
    }
  }
  EXPECT_GT(vc0, 0u);
  EXPECT_GT(vc1, 0u);
}

TEST(TorusDeadlock, OneVcOnATorusIsRefusedNamingTheDateline) {
  for (const char* shape : {"ring\ndims: [8]\nports_per_chip: 2", "torus\ndims: [4, 4]"}) {
    const Topology topo =
        pod_yaml(std::string("name: one-vc\nshape: ") + shape + "\nbuffer: {vcs: 1}\n");
    ASSERT_GT(topo.chips(), 0u);
    sim::Simulation sim(1);
    auto net = Network::create(sim.events(), topo, {});
    ASSERT_FALSE(net.ok()) << shape;
    EXPECT_TRUE(has(joined(net.errors()), "dateline")) << joined(net.errors());
  }
  // A mesh has no wrap-around: one VC is fine.
  const Topology mesh = pod_yaml("name: m\nshape: mesh\ndims: [4, 4]\nbuffer: {vcs: 1}\n");
  sim::Simulation sim(1);
  EXPECT_TRUE(Network::create(sim.events(), mesh, {}).ok());
}

// ---------------------------------------------------------------------------------------------
// 3. Routing.

TEST(Routing, TorusHopsAreTheSumOfShortestRingDistances) {
  const Topology topo = pod_file("tpuv4-4x4x4");
  sim::Simulation sim(1);
  auto net = make_net(sim, topo);
  ASSERT_NE(net, nullptr);
  std::uint32_t pairs = 0;
  for (std::uint32_t s = 0; s < topo.chips(); ++s) {
    for (std::uint32_t d = 0; d < topo.chips(); ++d) {
      if (s == d) continue;
      const auto a = topo.coord(s), b = topo.coord(d);
      std::uint32_t want = 0;
      for (int k = 0; k < 3; ++k) {
        const std::uint32_t diff = a[k] > b[k] ? a[k] - b[k] : b[k] - a[k];
        want += std::min(diff, 4 - diff);
      }
      auto h = net->hops(s, d);
      ASSERT_TRUE(h.ok()) << s << "->" << d;
      EXPECT_EQ(*h, want) << s << "->" << d;
      ++pairs;
    }
  }
  EXPECT_EQ(pairs, 64u * 63u);
}

TEST(Routing, MeshHopsAreManhattanDistance) {
  const Topology topo = pod_file("mesh-4x4");
  sim::Simulation sim(1);
  auto net = make_net(sim, topo);
  ASSERT_NE(net, nullptr);
  for (std::uint32_t s = 0; s < topo.chips(); ++s) {
    for (std::uint32_t d = 0; d < topo.chips(); ++d) {
      if (s == d) continue;
      const auto a = topo.coord(s), b = topo.coord(d);
      const std::uint32_t want =
          (a[0] > b[0] ? a[0] - b[0] : b[0] - a[0]) + (a[1] > b[1] ? a[1] - b[1] : b[1] - a[1]);
      auto h = net->hops(s, d);
      ASSERT_TRUE(h.ok());
      EXPECT_EQ(*h, want) << s << "->" << d;
    }
  }
}

TEST(Routing, FailedRingLinkRoutesTheOtherWayAndEverythingStillArrives) {
  // Link chip 2 -> chip 3 (port 0 of chip 2, +x) has failed.
  const Topology topo = pod_yaml(R"(name: ring-failed
shape: ring
dims: [8]
ports_per_chip: 2
failed_links:
  - {chip: [2], port: 0}
)");
  ASSERT_FALSE(topo.port(2, 0).used);
  ASSERT_FALSE(topo.port(3, 1).used);
  sim::Simulation sim(1);
  auto net = make_net(sim, topo);
  ASSERT_NE(net, nullptr);
  const std::uint32_t n = 8;
  std::uint32_t detours = 0;
  for (std::uint32_t s = 0; s < n; ++s) {
    for (std::uint32_t d = 0; d < n; ++d) {
      if (s == d) continue;
      const std::uint32_t plus = (d + n - s) % n, minus = n - plus;
      // The + path crosses links (s+i, s+i+1) for i < plus; the - path crosses (s-i-1, s-i).
      bool plus_ok = true, minus_ok = true;
      for (std::uint32_t i = 0; i < plus; ++i)
        plus_ok &= (s + i) % n != 2;
      for (std::uint32_t i = 0; i < minus; ++i)
        minus_ok &= (s + n - i - 1) % n != 2;
      const bool prefer_plus = plus <= minus;
      std::uint32_t want = prefer_plus ? plus : minus;
      if (prefer_plus && !plus_ok) want = minus;
      if (!prefer_plus && !minus_ok) want = plus;
      if (want != std::min(plus, minus)) ++detours;
      auto h = net->hops(s, d);
      ASSERT_TRUE(h.ok()) << s << "->" << d << ": " << h.error().message;
      EXPECT_EQ(*h, want) << s << "->" << d;
    }
  }
  EXPECT_GT(detours, 0u);
  EXPECT_EQ(*net->hops(2, 3), 7u);
  EXPECT_EQ(*net->hops(3, 2), 7u);
  EXPECT_EQ(*net->hops(1, 4), 5u);  // +3 would cross 2->3: five hops the other way

  // All-to-all over the broken ring completes, and nothing crossed the failed link.
  TrafficSpec ts;
  ts.kind = TrafficKind::kAllToAll;
  ts.bytes = 7 * 1000;
  auto traffic = make_traffic(*net, ts);
  ASSERT_TRUE(traffic.ok());
  ASSERT_TRUE((*traffic)->start().ok());
  sim.run();
  ASSERT_TRUE((*traffic)->done());
  EXPECT_TRUE((*traffic)->verify().ok());
  EXPECT_EQ(net->output_stats(2, 0).packets, 0u);
  EXPECT_EQ(net->output_stats(3, 1).packets, 0u);
}

TEST(Routing, FailedMeshLinkMakesExactlyTheCrossingPairsUnroutable) {
  // mesh-4x4 with the +x link of (1,1) failed: dimension order (x first) cannot avoid it.
  const Topology topo = pod_yaml(R"(name: mesh-failed
shape: mesh
dims: [4, 4]
ports_per_chip: 6
failed_links:
  - {chip: [1, 1], port: 0}
)");
  sim::Simulation sim(1);
  auto net = make_net(sim, topo);
  ASSERT_NE(net, nullptr);
  std::uint32_t broken = 0;
  for (std::uint32_t s = 0; s < 16; ++s) {
    for (std::uint32_t d = 0; d < 16; ++d) {
      if (s == d) continue;
      const auto a = topo.coord(s), b = topo.coord(d);
      const bool crosses = a[1] == 1 && ((a[0] <= 1 && b[0] >= 2) || (a[0] >= 2 && b[0] <= 1));
      auto h = net->hops(s, d);
      EXPECT_EQ(h.ok(), !crosses) << s << "->" << d;
      if (!h.ok()) {
        ++broken;
        EXPECT_TRUE(has(h.error().message, "no path from chip")) << h.error().message;
      }
    }
  }
  EXPECT_EQ(broken, 2u * 2u * 8u);  // 2 sources x 8 destinations, each direction
  const std::uint32_t src = topo.chip_at({1, 1, 0}), dst = topo.chip_at({2, 1, 0});
  auto id = net->send(src, dst, 100, 0, nullptr);
  ASSERT_FALSE(id.ok());
  EXPECT_TRUE(has(id.error().message, "no path from chip 5 (1,1,0) to chip 6 (2,1,0)"))
      << id.error().message;
  EXPECT_EQ(net->messages_pending(), 0u);
}

// ---------------------------------------------------------------------------------------------
// 5. Determinism.

UniformRun run_uniform(const Topology& topo, std::uint64_t seed) {
  UniformRun r;
  sim::Simulation sim(seed);
  auto net = make_net(sim, topo, seeded(seed));
  if (!net) return r;
  TrafficSpec ts;
  ts.kind = TrafficKind::kUniformRandom;
  ts.bytes = 8192;
  ts.messages = 8;
  ts.seed = seed;
  auto traffic = make_traffic(*net, ts);
  EXPECT_TRUE(traffic.ok());
  EXPECT_TRUE((*traffic)->start().ok());
  sim.run();
  r.done = (*traffic)->done();
  r.finish = (*traffic)->finish_time();
  r.stats = net->stats_json(r.finish).dump();
  return r;
}

TEST(Determinism, SameSeedSameResultDifferentSeedDifferentFinish) {
  const Topology topo = pod_file("tpuv4-4x4x4");
  const UniformRun a = run_uniform(topo, 11), b = run_uniform(topo, 11), c = run_uniform(topo, 12);
  ASSERT_TRUE(a.done && b.done && c.done);
  EXPECT_GT(a.finish, 0u);
  EXPECT_EQ(a.finish, b.finish);
  EXPECT_EQ(a.stats, b.stats);
  EXPECT_NE(a.finish, c.finish);
  EXPECT_NE(a.stats, c.stats);
}

// ---------------------------------------------------------------------------------------------
// 6. Re-allocation only when drained.

TEST(Reallocate, RefusedInFlightThenReprogramsFromCountsOnceDrained) {
  const Topology topo = pod_file("tpuv4-4x4x4");
  sim::Simulation sim(4);
  auto net = make_net(sim, topo);
  ASSERT_NE(net, nullptr);
  EXPECT_EQ(net->policy_name(), "rtt");
  TrafficSpec ts;
  ts.kind = TrafficKind::kUniformRandom;
  ts.bytes = 16 * 1024;
  ts.messages = 8;
  ts.seed = 4;
  auto traffic = make_traffic(*net, ts);
  ASSERT_TRUE(traffic.ok());
  ASSERT_TRUE((*traffic)->start().ok());
  sim.run(1'000'000);  // 1 us: well inside the run
  ASSERT_FALSE((*traffic)->done());
  EXPECT_FALSE(net->drained());
  const auto before = all_ranges(*net);
  for (const char* pol : {"count", "equal", "rtt"}) {
    const Status s = net->reallocate(pol);
    ASSERT_FALSE(s.ok()) << pol;
    EXPECT_TRUE(has(s.error().message, "not drained")) << s.error().message;
  }
  EXPECT_EQ(all_ranges(*net), before);
  EXPECT_EQ(net->policy_name(), "rtt");

  sim.run();
  ASSERT_TRUE((*traffic)->done());
  EXPECT_TRUE((*traffic)->verify().ok());
  settle(sim);
  ASSERT_TRUE(net->drained());
  EXPECT_EQ(all_ranges(*net), before);  // a refused reallocate changed nothing

  // Count policy from the traffic's counters: the VC split follows the received counts.
  const AllocationInput in = net->allocation_input(0);
  ASSERT_TRUE(net->reallocate("count").ok());
  EXPECT_EQ(net->policy_name(), "count");
  const auto after = all_ranges(*net);
  EXPECT_NE(after, before);
  // The port of chip 0 that received the most gets at least as much as the one that got least.
  std::uint32_t hi = 0, lo = 0;
  std::uint64_t hi_n = 0, lo_n = ~0ULL;
  for (std::uint32_t p = 0; p < topo.ports_per_chip(); ++p) {
    std::uint64_t n = 0;
    for (std::uint64_t x : in.ports[p].received_per_vc)
      n += x;
    if (n > hi_n) {
      hi_n = n;
      hi = p;
    }
    if (n < lo_n) {
      lo_n = n;
      lo = p;
    }
  }
  ASSERT_GT(hi_n, lo_n);
  const BufferMemory& m = net->buffer(0);
  EXPECT_GE(m.capacity(m.port_queue(hi, 0)) + m.capacity(m.port_queue(hi, 1)),
            m.capacity(m.port_queue(lo, 0)) + m.capacity(m.port_queue(lo, 1)));

  // Credits match the new sizes: more traffic runs to completion without overflow.
  TrafficSpec more = ts;
  more.kind = TrafficKind::kAllToAll;
  more.bytes = 63 * 600;
  auto again = make_traffic(*net, more);
  ASSERT_TRUE(again.ok());
  InvariantChecker check(sim, *net, again->get(), 50'000, sim.now() + kDeadline);
  check.begin();
  ASSERT_TRUE((*again)->start().ok());
  EXPECT_EQ(sim.run(sim.now() + 2 * kDeadline), sim::StopReason::kDrained);
  ASSERT_TRUE((*again)->done());
  EXPECT_TRUE((*again)->verify().ok());
  EXPECT_EQ(check.violations(), 0u);
  EXPECT_TRUE(net->drained());
  // And back to rtt with cleared counters reproduces the original layout exactly (rtt splits a
  // port between its VCs by the counters, evenly when there are none).
  net->clear_counters();
  ASSERT_TRUE(net->reallocate("rtt").ok());
  EXPECT_EQ(all_ranges(*net), before);
}

TEST(Reallocate, UnknownPolicyChangesNothing) {
  const Topology topo = pod_file("ring-8");
  sim::Simulation sim(1);
  auto net = make_net(sim, topo);
  ASSERT_NE(net, nullptr);
  const auto before = all_ranges(*net);
  EXPECT_FALSE(net->reallocate("fifo").ok());
  EXPECT_EQ(all_ranges(*net), before);
  EXPECT_EQ(net->policy_name(), "rtt");
}

// ---------------------------------------------------------------------------------------------
// 7. Policies through the network.

std::uint64_t port_capacity(const Network& net, std::uint32_t chip, std::uint32_t p) {
  std::uint64_t sum = 0;
  const BufferMemory& m = net.buffer(chip);
  for (std::uint32_t v = 0; v < net.vcs(); ++v)
    sum += m.capacity(m.port_queue(p, v));
  return sum;
}

TEST(Policies, RttOrdersOpticalOverCopperOverPcbOnEveryChip) {
  const Topology topo = pod_file("tpuv4-4x4x4");
  sim::Simulation sim(1);
  auto net = make_net(sim, topo, with_policy("rtt"));
  ASSERT_NE(net, nullptr);
  std::uint32_t chips_with_all_three = 0;
  for (std::uint32_t c = 0; c < topo.chips(); ++c) {
    std::map<Medium, std::vector<std::uint64_t>> by;
    for (std::uint32_t p = 0; p < topo.ports_per_chip(); ++p) {
      if (topo.port(c, p).used) by[topo.port(c, p).medium].push_back(port_capacity(*net, c, p));
    }
    if (by.size() != 3) {
      // The 8 chips inside the cube have no wrap-around (optical) link: copper over pcb only.
      EXPECT_EQ(by.count(Medium::kOptical), 0u) << "chip " << c;
      for (std::uint64_t k : by[Medium::kCopper]) {
        for (std::uint64_t b : by[Medium::kPcb])
          EXPECT_GT(k, b) << "chip " << c;
      }
      continue;
    }
    ++chips_with_all_three;
    for (std::uint64_t o : by[Medium::kOptical]) {
      for (std::uint64_t k : by[Medium::kCopper])
        EXPECT_GT(o, k) << "chip " << c;
    }
    for (std::uint64_t k : by[Medium::kCopper]) {
      for (std::uint64_t b : by[Medium::kPcb])
        EXPECT_GT(k, b) << "chip " << c;
    }
  }
  EXPECT_EQ(chips_with_all_three, 64u - 8u);  // all but the 2x2x2 interior
}

TEST(Policies, EqualGivesEveryUsedPortTheSameSize) {
  const Topology topo = pod_file("tpuv4-4x4x4");
  sim::Simulation sim(1);
  auto net = make_net(sim, topo, with_policy("equal"));
  ASSERT_NE(net, nullptr);
  for (std::uint32_t c = 0; c < topo.chips(); ++c) {
    const BufferMemory& m = net->buffer(c);
    // Equal shares up to the allocation unit (the remainder units go to the first ports).
    std::uint64_t lo = ~0ULL, hi = 0;
    for (std::uint32_t p = 0; p < topo.ports_per_chip(); ++p) {
      for (std::uint32_t v = 0; v < net->vcs(); ++v) {
        lo = std::min(lo, m.capacity(m.port_queue(p, v)));
        hi = std::max(hi, m.capacity(m.port_queue(p, v)));
      }
    }
    EXPECT_GE(lo, 544u);
    EXPECT_LE(hi - lo, m.unit()) << "chip " << c;
    // The same layout on every chip (all have 6 used ports).
    for (std::uint32_t q = 0; q < m.queues(); ++q) {
      EXPECT_EQ(m.capacity(q), net->buffer(0).capacity(q)) << "chip " << c;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// 8. Bit errors.

TEST(BitErrors, RetriesInflateReceivedCountsAndTheCollectiveStillVerifies) {
  const Topology topo = pod_yaml(R"(name: tpuv4-ber
shape: tpuv4
dims: [4, 4, 4]
media:
  optical: {bit_error_rate: 1e-5}
)");
  sim::Simulation sim(8);
  auto net = make_net(sim, topo, seeded(8));
  ASSERT_NE(net, nullptr);
  TrafficSpec ts;
  ts.kind = TrafficKind::kAllReduce;
  ts.algo = CollectiveAlgo::kTorus;
  ts.bytes = 16 * 1024;
  ts.functional = true;
  auto traffic = make_traffic(*net, ts);
  ASSERT_TRUE(traffic.ok());
  ASSERT_TRUE((*traffic)->start().ok());
  sim.run();
  ASSERT_TRUE((*traffic)->done());
  EXPECT_TRUE((*traffic)->verify().ok()) << (*traffic)->verify().error().message;
  std::uint64_t optical_retries = 0, optical_packets = 0;
  for (std::uint32_t c = 0; c < topo.chips(); ++c) {
    for (std::uint32_t p = 0; p < topo.ports_per_chip(); ++p) {
      const PortInfo& pi = topo.port(c, p);
      if (!pi.used) continue;
      const OutputStats& s = net->output_stats(c, p);
      std::uint64_t rx = 0;
      for (std::uint32_t v = 0; v < net->vcs(); ++v)
        rx += net->received(pi.peer_chip, pi.peer_port, v);
      // seed4 ¶62: the receiver counts every attempt.
      EXPECT_EQ(rx, s.packets + s.retries) << "chip " << c << " port " << p;
      if (pi.medium == Medium::kOptical) {
        optical_retries += s.retries;
        optical_packets += s.packets;
      } else {
        EXPECT_EQ(s.retries, 0u);
      }
    }
  }
  EXPECT_GT(optical_packets, 0u);
  EXPECT_GT(optical_retries, 0u);
  // 544 wire bytes at 1e-5: about 4.3% of the packets need a replay.
  const double rate = static_cast<double>(optical_retries) / static_cast<double>(optical_packets);
  EXPECT_GT(rate, 0.01);
  EXPECT_LT(rate, 0.15);
}

// ---------------------------------------------------------------------------------------------
// 9. RTT: measured vs the table.

TEST(Rtt, MeasuredIsHeaderSerializationPlusTwoLatenciesPlusRouter) {
  const Topology topo = pod_yaml(R"(name: tpuv4-rtt
shape: tpuv4
dims: [4, 4, 4]
media:
  pcb:     {latency: 30ns,  per_metre: 5ns, bandwidth: 50GB/s, length: 0.3}
  copper:  {latency: 60ns,  per_metre: 5ns, bandwidth: 50GB/s, length: 1}
  optical: {latency: 200ns, per_metre: 5ns, bandwidth: 40GB/s, bit_error_rate: 0, length: 20}
router: {latency: 50ns, header: 32B}
)");
  sim::Simulation sim(1);
  auto measured = make_net(sim, topo, with_rtt(RttSource::kMeasured));
  auto table = make_net(sim, topo, with_rtt(RttSource::kTable));
  ASSERT_NE(measured, nullptr);
  ASSERT_NE(table, nullptr);
  // One-way latencies: pcb 30 + 1.5 ns, copper 60 + 5 ns, optical 200 + 100 ns. Header
  // serialization: 32 B at 50 GB/s = 640 ps, at 40 GB/s = 800 ps.
  const std::map<Medium, std::pair<sim::Tick, sim::Tick>> lat_ser{
      {Medium::kPcb, {31'500, 640}},
      {Medium::kCopper, {65'000, 640}},
      {Medium::kOptical, {300'000, 800}}};
  std::map<Medium, int> seen;
  for (std::uint32_t c = 0; c < topo.chips(); ++c) {
    for (std::uint32_t p = 0; p < topo.ports_per_chip(); ++p) {
      const PortInfo& pi = topo.port(c, p);
      ASSERT_TRUE(pi.used);
      const auto [lat, ser] = lat_ser.at(pi.medium);
      EXPECT_EQ(measured->port_rtt(c, p), ser + 2 * lat + 50'000);
      EXPECT_EQ(table->port_rtt(c, p), 2 * lat + 2 * 50'000);
      const std::uint64_t bw =
          pi.medium == Medium::kOptical ? 40'000'000'000ULL : 50'000'000'000ULL;
      EXPECT_EQ(measured->port_bdp(c, p),
                (bw * (ser + 2 * lat + 50'000) + 999'999'999'999ULL) / 1'000'000'000'000ULL);
      ++seen[pi.medium];
    }
  }
  EXPECT_EQ(seen.size(), 3u);
}

// A one-hop stream: every packet but the last is consumed on arrival into an empty queue, the
// case the network does at send time (router.cc, arrive_consumed). The timeline, counters
// and credits must be those of arrivals done at arrival time, computed here by hand.
class TimedSink final : public MessageSink {
 public:
  explicit TimedSink(const Network& net) : net_(net) {}
  void delivered(MessageId, std::uint32_t, std::uint32_t, std::uint64_t) override {
    times.push_back(net_.now());
  }
  std::vector<sim::Tick> times;

 private:
  const Network& net_;
};

// 8 packets of 512 B + 32 B header at 50 GB/s: 10 880 ps each, back to back (the outbound
// queue refills as each leaves); copper 60 ns + 1 m x 5 ns one way, router 50 ns.
constexpr sim::Tick kSer = 10'880, kLat = 65'000, kRouter = 50'000;

// One 8-packet message from chip 0 to chip 1 on a ring-8 pod; returns when it was delivered
// (0 on failure) after `since`.
struct OneHopStream {
  explicit OneHopStream(const Topology& topo) : net(make_net(sim, topo)), sink(*net) {}
  sim::Tick send_and_run(std::uint64_t tag) {
    const sim::Tick since = sim.now();
    const std::size_t before = sink.times.size();
    EXPECT_TRUE(net->send(0, 1, 8 * 512, tag, &sink).ok());
    EXPECT_EQ(sim.run(kDeadline), sim::StopReason::kDrained);
    return sink.times.size() == before + 1 ? sink.times.back() - since : 0;
  }
  sim::Simulation sim{1};
  std::unique_ptr<Network> net;
  TimedSink sink;
};

TEST(SendTimeArrivals, OneHopStreamKeepsTheHandComputedTimelineCountsAndCredits) {
  const Topology topo = pod_file("ring-8");
  OneHopStream s(topo);
  EXPECT_EQ(s.send_and_run(0), 8 * kSer + kLat + kRouter);
  // Chip 1 receives on its -x port (1), VC 0 (no wrap-around crossed): 8 packets, never more
  // than one in the queue, empty now; every credit is back at the sender.
  Network& net = *s.net;
  EXPECT_EQ(net.received(1, 1, 0), 8u);
  EXPECT_EQ(net.queue_stats(1, 1, 0).max_used, 544u);
  EXPECT_EQ(net.queue_used(1, 1, 0), 0u);
  EXPECT_EQ(net.packet_hops(), 8u);
  // The last credit is still on its way back (credits need no event to land).
  EXPECT_FALSE(net.drained());
  s.sim.events().post(s.sim.now() + kLat, [] {});
  s.sim.run(kDeadline);
  EXPECT_TRUE(net.drained());
  // Full credits again: the same message takes exactly as long a second time.
  EXPECT_EQ(s.send_and_run(1), 8 * kSer + kLat + kRouter);
  EXPECT_EQ(net.received(1, 1, 0), 16u);
}

TEST(SendTimeArrivals, OnePacketOfCreditPacesTheStreamByTheCreditRoundTrip) {
  // One packet of credit per VC: packet i + 1 leaves when packet i's credit is back, one
  // latency after its arrival (it is consumed at once), so credits timed from the send instead
  // of the arrival would show here as a faster stream.
  const Topology topo = pod_yaml(kRing8Tiny);
  OneHopStream s(topo);
  EXPECT_EQ(s.send_and_run(0), 7 * (kSer + 2 * kLat + kRouter) + kSer + kLat + kRouter);
  EXPECT_EQ(s.net->received(1, 1, 0), 8u);
}

TEST(SendTimeArrivals, CreditsFromConsumedAndForwardedPacketsStayInArrivalOrder) {
  // Tiny buffers (one packet per port VC): a consumed stream 0 -> 1 and a forwarded stream
  // 0 -> 2 share chip 1's -x queue; the forwarded packets wait there for chip 2's credits, so
  // consumed packets arrive behind them (no shortcut) or into an empty queue (shortcut), and
  // their credits interleave. Everything must arrive, with exact counts, and the buffers must
  // stay consistent throughout.
  const Topology topo = pod_yaml(kRing8Tiny);
  sim::Simulation sim(3);
  auto net = make_net(sim, topo);
  ASSERT_NE(net, nullptr);
  RecordingSink sink;
  for (std::uint32_t i = 0; i < 24; ++i) {
    const std::uint32_t dst = i % 3 == 0 ? 2 : 1;
    auto id = net->send(0, dst, 3 * 512 + 7, sink.sent(), &sink);
    ASSERT_TRUE(id.ok());
    sink.expect(*id, 0, dst, sink.sent());
  }
  InvariantChecker check(sim, *net, nullptr, 5'000, kDeadline);
  check.begin();
  EXPECT_EQ(sim.run(kDeadline * 2), sim::StopReason::kDrained);
  EXPECT_EQ(sink.delivered_count(), 24u);
  // 4 packets a message; 8 messages go two hops.
  EXPECT_EQ(net->packets_injected(), 96u);
  EXPECT_EQ(net->packet_hops(), 96u + 32u);
  EXPECT_EQ(net->received(1, 1, 0), 96u);
  EXPECT_EQ(net->received(2, 1, 0), 32u);
  EXPECT_TRUE(net->drained());
  EXPECT_EQ(check.violations(), 0u);
}

}  // namespace
}  // namespace xpusim::fabric
