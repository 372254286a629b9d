// Inputs the docs call valid, or hostile ones, that once hung or gave wrong results (issue 44):
// bit error rates no packet survives (a replay loop that never ended), rings and grids with a
// dimension above 256 chips (coordinates cut to 8 bits), and link failure after the last
// allowed replay.
#include <algorithm>
#include <cstdint>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "fabric/job.h"
#include "fabric/network.h"
#include "fabric/traffic.h"
#include "fabric_test_util.h"
#include "sim/simulation.h"

namespace xpusim::fabric {
namespace {

using namespace testutil;

std::string load_error(const std::string& yaml) {
  const Result<PodSpec> spec = load_pod_string(yaml, "t.yaml");
  return spec.ok() ? std::string("(loaded)") : joined(spec.errors());
}

// ---------------------------------------------------------------------------------------------
// Bit errors: hopeless rates are load errors, and a link gives up after router.max_replays.

TEST(LinkRetry, ARateNoPacketSurvivesIsALoadErrorNamingTheMedium) {
  const std::string e = load_error(
      "name: r\nshape: ring\ndims: [8]\nports_per_chip: 2\n"
      "media: {copper: {bit_error_rate: 1e-2}}\n");
  EXPECT_TRUE(has(e, "media.copper.bit_error_rate: 0.01 lets a maximum packet (544 B")) << e;
  EXPECT_TRUE(has(e, "at least 0.5")) << e;
  EXPECT_EQ(e.find('\n'), e.size() - 1) << e;  // one line
}

TEST(LinkRetry, AnUnusedMediumIsNotChecked) {
  // A ring's links are copper: a bad optical rate concerns no link.
  EXPECT_EQ(load_error("name: r\nshape: ring\ndims: [8]\nports_per_chip: 2\n"
                       "media: {optical: {bit_error_rate: 0.5}}\n"),
            "(loaded)");
}

TEST(LinkRetry, MaxReplaysIsReadAndRangeChecked) {
  const std::string base = "name: r\nshape: ring\ndims: [8]\nports_per_chip: 2\n";
  const Result<PodSpec> s = load_pod_string(base + "router: {max_replays: 7}\n", "t.yaml");
  ASSERT_TRUE(s.ok()) << joined(s.errors());
  EXPECT_EQ(s->max_replays, 7u);
  const Result<PodSpec> d = load_pod_string(base, "t.yaml");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->max_replays, 4u);
  EXPECT_TRUE(has(load_error(base + "router: {max_replays: 255}\n"),
                  "router.max_replays: 255 is out of range [0, 254]"));
}

// A rate a packet usually survives (2/3 per 544-B packet) with no replay allowed: the first hit
// packet takes its link down, and the run stops there instead of spinning.
const char* kFragileRing = R"(name: fragile
shape: ring
dims: [8]
ports_per_chip: 2
media: {copper: {bit_error_rate: 1e-4}}
router: {max_replays: 0}
)";

TEST(LinkRetry, TheLastFailedReplayFailsTheLinkAndStopsTheRun) {
  const Topology topo = pod_yaml(kFragileRing);
  ASSERT_GT(topo.chips(), 0u);
  sim::Simulation sim(1);
  auto net = make_net(sim, topo);
  ASSERT_NE(net, nullptr);
  TrafficSpec ts;
  ts.kind = TrafficKind::kAllReduce;
  ts.bytes = 256 * 1024;
  auto traffic = make_traffic(*net, ts);
  ASSERT_TRUE(traffic.ok());
  ASSERT_TRUE((*traffic)->start().ok());
  EXPECT_EQ(sim.run(), sim::StopReason::kStopped);
  EXPECT_FALSE((*traffic)->done());
  const std::string& f = net->link_failure();
  EXPECT_TRUE(has(f, "(copper, bit_error_rate 0.0001) failed at ")) << f;
  EXPECT_TRUE(has(f, "all 0 replays (router.max_replays)")) << f;
  EXPECT_EQ(f.find('\n'), std::string::npos);
  // The dead link stays quiet: running on ends (no wake at the end of time, no overflow).
  const sim::Tick stopped = sim.now();
  sim.run(stopped + 1'000'000'000);
  EXPECT_EQ(net->link_failure(), f);
}

TEST(LinkRetry, AFabricJobReportsTheFailureWithTheTimeItStopped) {
  const Topology topo = pod_yaml(kFragileRing);
  sim::Simulation sim(1);
  JobOptions jo;
  jo.traffic.kind = TrafficKind::kAllReduce;
  jo.traffic.bytes = 256 * 1024;
  FabricJob job(sim, topo, jo);
  auto r = job.run();
  ASSERT_TRUE(r.ok()) << joined(r.errors());
  EXPECT_FALSE(r->completed);
  EXPECT_TRUE(has(r->failure, "router.max_replays")) << r->failure;
  EXPECT_EQ(r->finish, sim.now());
  EXPECT_GT(r->finish, 0u);
}

TEST(LinkRetry, AMeasuredRttWhoseTimingMessageNeverGetsThroughIsAnError) {
  // 1-byte packets: a max packet and the header-only timing message are nearly the same size,
  // so a rate the load check allows (0.6 per 33-B packet) fails some of 16 probes at once.
  const Topology topo = pod_yaml(R"(name: probe
shape: ring
dims: [8]
ports_per_chip: 2
media: {copper: {bit_error_rate: 1.9e-3}}
router: {max_packet: 1B, max_replays: 0}
buffer: {unit: 1B}
rtt: measured
)");
  ASSERT_GT(topo.chips(), 0u);
  sim::Simulation sim(1);
  NetworkOptions o;
  o.rtt_source = RttSource::kMeasured;
  auto net = Network::create(sim.events(), topo, o);
  ASSERT_FALSE(net.ok());
  EXPECT_TRUE(has(joined(net.errors()), "the RTT timing message failed its send and all 0"))
      << joined(net.errors());
}

// ---------------------------------------------------------------------------------------------
// Dimensions above 256 chips route (coordinates were 8 bits: chip 256 looked like chip 0).

TEST(LargeDimensions, A300ChipRingRoutesEveryPairTheShortWay) {
  const Topology topo = pod_yaml("name: r\nshape: ring\ndims: [300]\nports_per_chip: 2\n");
  ASSERT_EQ(topo.chips(), 300u);
  sim::Simulation sim(1);
  auto net = make_net(sim, topo);
  ASSERT_NE(net, nullptr);
  for (std::uint32_t dst : {1u, 150u, 255u, 256u, 257u, 299u}) {
    auto h = net->hops(0, dst);
    ASSERT_TRUE(h.ok()) << dst << ": " << joined(h.errors());
    EXPECT_EQ(*h, std::min(dst, 300 - dst)) << dst;
  }
  auto h = net->hops(299, 256);
  ASSERT_TRUE(h.ok()) << joined(h.errors());
  EXPECT_EQ(*h, 43u);
}

TEST(LargeDimensions, A300ChipRingFinishesAnAllReduceAndVerifies) {
  const Topology topo = pod_yaml("name: r\nshape: ring\ndims: [300]\nports_per_chip: 2\n");
  sim::Simulation sim(1);
  JobOptions jo;
  jo.traffic.kind = TrafficKind::kAllReduce;
  jo.traffic.bytes = 300 * 64;
  jo.traffic.functional = true;
  FabricJob job(sim, topo, jo);
  auto r = job.run();
  ASSERT_TRUE(r.ok()) << joined(r.errors());
  EXPECT_TRUE(r->completed);
  EXPECT_EQ(r->verify, "ok");
}

TEST(LargeDimensions, MeshAndTorusWithADimensionAbove256Route) {
  for (const char* shape : {"mesh", "torus"}) {
    SCOPED_TRACE(shape);
    const Topology topo =
        pod_yaml(fmt::format("name: g\nshape: {}\ndims: [260, 3]\nports_per_chip: 4\n", shape));
    ASSERT_EQ(topo.chips(), 780u);
    sim::Simulation sim(1);
    auto net = make_net(sim, topo);
    ASSERT_NE(net, nullptr);
    const bool wraps = std::string(shape) == "torus";
    // From (0, 0) to (x, 2): x hops along x, then 2 (mesh) or 1 (torus, the wrap) along y.
    for (std::uint32_t x : {1u, 255u, 256u, 259u}) {
      auto h = net->hops(0, topo.chip_at({x, 2, 0}));
      ASSERT_TRUE(h.ok()) << x << ": " << joined(h.errors());
      const std::uint32_t along_x = wraps ? std::min(x, 260 - x) : x;
      EXPECT_EQ(*h, along_x + (wraps ? 1 : 2)) << x;
    }
    TrafficSpec ts;
    ts.kind = TrafficKind::kUniformRandom;
    ts.bytes = 2048;
    ts.messages = 2;
    auto traffic = make_traffic(*net, ts);
    ASSERT_TRUE(traffic.ok()) << joined(traffic.errors());
    ASSERT_TRUE((*traffic)->start().ok());
    sim.run();
    EXPECT_TRUE((*traffic)->done());
  }
}

// ---------------------------------------------------------------------------------------------
// Host memory: a job the host cannot hold is refused before anything is built, and the kept
// time series stays bounded however fine the sampling and long the run.

TEST(HostMemory, A65536ChipAllToAllIsRefusedNamingTheTrafficNeedAndLimit) {
  const Topology topo = pod_yaml("name: big\nshape: torus\ndims: [64, 32, 32]\n");
  ASSERT_EQ(topo.chips(), 65536u);
  sim::Simulation sim(1);
  JobOptions jo;
  jo.traffic.kind = TrafficKind::kAllToAll;
  jo.traffic.bytes = 64 * 1024;
  jo.host_memory_limit = std::uint64_t{64} << 30;
  jo.host_memory_limit_text = "a test's";
  FabricJob job(sim, topo, jo);
  auto r = job.run();
  ASSERT_FALSE(r.ok());
  const std::string e = joined(r.errors());
  EXPECT_TRUE(has(e, "host memory: the run needs about ")) << e;
  EXPECT_TRUE(has(e, "above the limit of 64.0 GiB (a test's)")) << e;
  EXPECT_TRUE(has(e, "4294901760 messages at once (--traffic alltoall)")) << e;
  EXPECT_EQ(job.network(), nullptr);  // refused before building the network
}

TEST(HostMemory, A65536ChipCollectiveFitsAFewGigabytes) {
  const Topology topo = pod_yaml("name: big\nshape: torus\ndims: [64, 32, 32]\n");
  JobOptions jo;
  jo.traffic.kind = TrafficKind::kAllReduce;
  jo.traffic.algo = CollectiveAlgo::kTorus;
  jo.sample_ps = 100'000;
  jo.keep_series = true;
  const HostMemoryEstimate e = estimate_host_memory(topo, jo);
  EXPECT_LT(e.bytes, std::uint64_t{8} << 30);
  EXPECT_GT(e.bytes, std::uint64_t{1} << 30);  // measured: 4.7 GB peak with --stats
}

TEST(HostMemory, TheKeptSeriesIsThinnedNotGrownWithoutBound) {
  const Topology topo = pod_file("ring-8");
  sim::Simulation sim(1);
  JobOptions jo;
  jo.traffic.kind = TrafficKind::kAllReduce;
  jo.traffic.bytes = 4 << 20;
  jo.sample_ps = 1000;  // 1 ns: about 10^5 samples over the run
  jo.keep_series = true;
  FabricJob job(sim, topo, jo);
  auto r = job.run();
  ASSERT_TRUE(r.ok()) << joined(r.errors());
  ASSERT_TRUE(r->completed);
  const auto& s = r->stats["series"];
  const std::size_t n = s["t_ns"].size();
  EXPECT_LE(n, kMaxSeriesSamples);
  EXPECT_GE(n, kMaxSeriesSamples / 2);
  // The interval doubled each time the series filled: a power-of-two multiple of 1 ns.
  const sim::Tick k = r->sample_ps / 1000;
  EXPECT_EQ(r->sample_ps % 1000, 0u);
  EXPECT_GT(k, 1u);
  EXPECT_EQ(k & (k - 1), 0u) << r->sample_ps;
  EXPECT_DOUBLE_EQ(s["sample_ns"].get<double>(), static_cast<double>(r->sample_ps) / 1000.0);
  EXPECT_EQ(s["link_utilization"].size(), n);
  EXPECT_EQ(s["vc_bytes"].size(), n);
  for (std::size_t i = 1; i < n; ++i) {
    EXPECT_DOUBLE_EQ(s["t_ns"][i].get<double>() - s["t_ns"][i - 1].get<double>(),
                     s["sample_ns"].get<double>());
  }
  // Merged samples average utilization (a link's busy time is counted when a packet starts, so
  // one sample may read above 1); a link's mean over the run is still at most 1.
  const std::size_t links = s["link_utilization"][0].size();
  for (std::size_t l = 0; l < links; ++l) {
    double sum = 0;
    for (const auto& row : s["link_utilization"]) {
      EXPECT_GE(row[l].get<double>(), 0.0);
      sum += row[l].get<double>();
    }
    EXPECT_LE(sum / static_cast<double>(n), 1.0) << "link " << l;
  }
}

TEST(HostMemory, WithoutStatsJsonTheReportFiguresAreTheSame) {
  const Topology topo = pod_file("mesh-4x4");
  JobOptions jo;
  jo.traffic.kind = TrafficKind::kUniformRandom;
  jo.traffic.bytes = 32 * 1024;
  JobReport with, without;
  for (bool json : {true, false}) {
    sim::Simulation sim(1);
    jo.stats_json = json;
    FabricJob job(sim, topo, jo);
    auto r = job.run();
    ASSERT_TRUE(r.ok()) << joined(r.errors());
    (json ? with : without) = *r;
  }
  EXPECT_TRUE(without.stats.is_null());
  EXPECT_FALSE(with.stats.is_null());
  EXPECT_EQ(with.finish, without.finish);
  EXPECT_DOUBLE_EQ(with.link_util_min, without.link_util_min);
  EXPECT_DOUBLE_EQ(with.link_util_mean, without.link_util_mean);
  EXPECT_DOUBLE_EQ(with.link_util_max, without.link_util_max);
  EXPECT_DOUBLE_EQ(with.stall_ns_total, without.stall_ns_total);
  EXPECT_DOUBLE_EQ(with.stall_ns_max, without.stall_ns_max);
  EXPECT_DOUBLE_EQ(with.queue_mean_bytes, without.queue_mean_bytes);
  EXPECT_DOUBLE_EQ(with.queue_max_bytes, without.queue_max_bytes);
  EXPECT_GT(with.link_util_max, 0.0);
}

// ---------------------------------------------------------------------------------------------
// Pod numbers that would overflow the run's tick or byte arithmetic are load errors.

TEST(PodRanges, HugeTimesSizesAndBandwidthsAreRefusedAtLoad) {
  const std::string base = "name: r\nshape: ring\ndims: [8]\nports_per_chip: 2\n";
  const std::pair<const char*, const char*> cases[] = {
      {"router: {latency: 18446744073709551615ps}\n",
       "router.latency: \"18446744073709551615ps\" must be at most"},
      {"router: {max_packet: 8GiB}\n", "router.max_packet: \"8GiB\" must be at most 1 MiB"},
      {"router: {header: 2MiB}\n", "router.header: \"2MiB\" must be at most 1 MiB"},
      {"media: {copper: {latency: 1000000s}}\n",
       "media.copper.latency: \"1000000s\" must be at most"},
      {"media: {copper: {bandwidth: 1B/s}}\n", "media.copper.bandwidth: \"1B/s\" must be at least"},
      {"media: {copper: {bandwidth: 100000TB/s}}\n",
       "media.copper.bandwidth: \"100000TB/s\" must be at most"},
      {"buffer: {bytes: 4096TiB}\n", "buffer.bytes: \"4096TiB\" must be at most"},
  };
  for (const auto& [yaml, needle] : cases) {
    const std::string e = load_error(base + yaml);
    EXPECT_TRUE(has(e, needle)) << yaml << "\n" << e;
  }
}

}  // namespace
}  // namespace xpusim::fabric
