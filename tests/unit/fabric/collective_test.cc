// Collectives on the fabric (src/fabric/collective.h): functional all-reduce (ring, bidir,
// torus), all-gather and reduce-scatter on several pods and sizes (including sizes that leave
// most chunks empty), the bus-bytes convention, and input errors.
#include "fabric/collective.h"

#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "fabric_test_util.h"
#include "sim/simulation.h"

namespace xpusim::fabric {
namespace {

using namespace testutil;

struct Outcome {
  bool started = false, done = false;
  std::string verify;
  double bus_bytes = 0;
  std::size_t members = 0;
  sim::Tick finish = 0;
  std::uint64_t pending = 1;
};

Outcome run_collective(const Topology& topo, TrafficKind kind, CollectiveAlgo algo,
                       std::uint64_t bytes) {
  Outcome o;
  sim::Simulation sim(1);
  auto net = make_net(sim, topo);
  if (!net) return o;
  TrafficSpec ts;
  ts.kind = kind;
  ts.algo = algo;
  ts.bytes = bytes;
  ts.functional = true;
  auto traffic = make_traffic(*net, ts);
  EXPECT_TRUE(traffic.ok());
  if (!traffic.ok()) return o;
  const Status s = (*traffic)->start();
  EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().message);
  if (!s.ok()) return o;
  o.started = true;
  sim.run();
  o.done = (*traffic)->done();
  const Status v = (*traffic)->verify();
  o.verify = v.ok() ? "ok" : v.error().message;
  o.bus_bytes = (*traffic)->bus_bytes();
  o.members = static_cast<const Collective&>(**traffic).members().size();
  o.finish = (*traffic)->finish_time();
  o.pending = net->messages_pending();
  return o;
}

struct Case {
  const char* pod;
  TrafficKind kind;
  CollectiveAlgo algo;
};

class CollectiveVerifies : public ::testing::TestWithParam<Case> {};

TEST_P(CollectiveVerifies, EverySizeMatchesTheNaiveReference) {
  const Topology topo = pod_file(GetParam().pod);
  ASSERT_GT(topo.chips(), 0u);
  // 4 KiB, an odd element count, and a single element (most chunks empty).
  for (std::uint64_t bytes : {std::uint64_t{4096}, std::uint64_t{4 * 1000 + 4}, std::uint64_t{4}}) {
    SCOPED_TRACE(::testing::Message() << "bytes " << bytes);
    const Outcome o = run_collective(topo, GetParam().kind, GetParam().algo, bytes);
    ASSERT_TRUE(o.started);
    EXPECT_TRUE(o.done);
    EXPECT_EQ(o.verify, "ok");
    EXPECT_EQ(o.pending, 0u);
    EXPECT_GT(o.finish, 0u);
    EXPECT_EQ(o.members, topo.active_chips());
    const double n = static_cast<double>(o.members);
    const double b = static_cast<double>(bytes);
    switch (GetParam().kind) {
      case TrafficKind::kAllReduce:
        EXPECT_DOUBLE_EQ(o.bus_bytes, 2.0 * (n - 1) / n * b);
        break;
      case TrafficKind::kAllGather:
        EXPECT_DOUBLE_EQ(o.bus_bytes, (n - 1) / n * b * n);
        break;
      default:
        EXPECT_DOUBLE_EQ(o.bus_bytes, (n - 1) / n * b);
        break;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Pods, CollectiveVerifies,
    ::testing::Values(
        Case{"tpuv4-4x4x4", TrafficKind::kAllReduce, CollectiveAlgo::kRing},
        Case{"tpuv4-4x4x4", TrafficKind::kAllReduce, CollectiveAlgo::kBidirRing},
        Case{"tpuv4-4x4x4", TrafficKind::kAllReduce, CollectiveAlgo::kTorus},
        Case{"tpuv4-4x4x4", TrafficKind::kAllGather, CollectiveAlgo::kRing},
        Case{"tpuv4-4x4x4", TrafficKind::kReduceScatter, CollectiveAlgo::kRing},
        Case{"ring-8", TrafficKind::kAllReduce, CollectiveAlgo::kRing},
        Case{"ring-8", TrafficKind::kAllReduce, CollectiveAlgo::kBidirRing},
        Case{"ring-8", TrafficKind::kAllReduce, CollectiveAlgo::kTorus},
        Case{"ring-8", TrafficKind::kAllGather, CollectiveAlgo::kRing},
        Case{"ring-8", TrafficKind::kReduceScatter, CollectiveAlgo::kRing},
        Case{"slice-4x4-failed-link", TrafficKind::kAllReduce, CollectiveAlgo::kRing},
        Case{"slice-4x4-failed-link", TrafficKind::kAllReduce, CollectiveAlgo::kBidirRing},
        Case{"slice-4x4-failed-link", TrafficKind::kAllReduce, CollectiveAlgo::kTorus},
        Case{"slice-4x4-failed-link", TrafficKind::kAllGather, CollectiveAlgo::kRing},
        Case{"slice-4x4-failed-link", TrafficKind::kReduceScatter, CollectiveAlgo::kRing},
        Case{"mesh-4x4", TrafficKind::kAllReduce, CollectiveAlgo::kTorus}),
    [](const ::testing::TestParamInfo<Case>& i) {
      std::string name = std::string(i.param.pod) + "_" + std::string(traffic_name(i.param.kind)) +
                         "_" + std::string(algo_name(i.param.algo));
      for (char& ch : name) {
        if (ch == '-') ch = '_';
      }
      return name;
    });

TEST(CollectiveBusBytes, AllReduceIsTwoNMinusOneOverNTimesTheBuffer) {
  const Topology topo = pod_file("tpuv4-4x4x4");
  const Outcome o = run_collective(topo, TrafficKind::kAllReduce, CollectiveAlgo::kRing, 4004);
  ASSERT_TRUE(o.started);
  EXPECT_DOUBLE_EQ(o.bus_bytes, 2.0 * 63.0 / 64.0 * 4004.0);
  EXPECT_EQ(o.members, 64u);
}

TEST(CollectiveSlice, MembersAreTheSixteenSliceChips) {
  const Topology topo = pod_file("slice-4x4-failed-link");
  sim::Simulation sim(1);
  auto net = make_net(sim, topo);
  ASSERT_NE(net, nullptr);
  TrafficSpec ts;
  ts.kind = TrafficKind::kAllReduce;
  ts.bytes = 64;
  ts.functional = true;
  Collective coll(*net, ts);
  ASSERT_TRUE(coll.start().ok());
  ASSERT_EQ(coll.members().size(), 16u);
  for (std::uint32_t c : coll.members()) {
    EXPECT_TRUE(topo.active(c));
    EXPECT_EQ(topo.coord(c)[2], 0u);
  }
  // Snake order: successive members are grid neighbours.
  for (std::size_t i = 0; i + 1 < coll.members().size(); ++i) {
    const auto a = topo.coord(coll.members()[i]), b = topo.coord(coll.members()[i + 1]);
    const std::uint32_t d =
        (a[0] > b[0] ? a[0] - b[0] : b[0] - a[0]) + (a[1] > b[1] ? a[1] - b[1] : b[1] - a[1]);
    EXPECT_EQ(d, 1u) << i;
  }
  sim.run();
  EXPECT_TRUE(coll.done());
  EXPECT_TRUE(coll.verify().ok());
}

TEST(CollectiveErrors, BadInputsAreRefused) {
  const Topology topo = pod_file("ring-8");
  sim::Simulation sim(1);
  auto net = make_net(sim, topo);
  ASSERT_NE(net, nullptr);
  TrafficSpec ts;
  ts.kind = TrafficKind::kAllReduce;
  ts.bytes = 4002;  // not whole 32-bit elements
  auto t = make_traffic(*net, ts);
  ASSERT_TRUE(t.ok());
  const Status s = (*t)->start();
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(has(s.error().message, "multiple of 4"));
  ts.bytes = 4096;
  ts.kind = TrafficKind::kAllGather;
  ts.algo = CollectiveAlgo::kBidirRing;
  EXPECT_FALSE(make_traffic(*net, ts).ok());
  // Timing-only runs cannot be verified.
  ts.kind = TrafficKind::kAllReduce;
  ts.algo = CollectiveAlgo::kRing;
  auto timing = make_traffic(*net, ts);
  ASSERT_TRUE(timing.ok());
  ASSERT_TRUE((*timing)->start().ok());
  sim.run();
  EXPECT_TRUE((*timing)->done());
  EXPECT_FALSE((*timing)->verify().ok());
}

TEST(CollectiveTiming, BidirIsFasterThanRingForLargeBuffers) {
  const Topology topo = pod_file("ring-8");
  const Outcome ring =
      run_collective(topo, TrafficKind::kAllReduce, CollectiveAlgo::kRing, 256 * 1024);
  const Outcome bidir =
      run_collective(topo, TrafficKind::kAllReduce, CollectiveAlgo::kBidirRing, 256 * 1024);
  ASSERT_TRUE(ring.done && bidir.done);
  EXPECT_EQ(ring.verify, "ok");
  EXPECT_EQ(bidir.verify, "ok");
  EXPECT_LT(bidir.finish, ring.finish);
}

}  // namespace
}  // namespace xpusim::fabric
