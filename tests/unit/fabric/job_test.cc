// FabricJob (src/fabric/job.h): the profile run of count-based policies, in-run
// re-allocation on a schedule (pausing injection until drained, retrying after a timeout),
// and the report.
#include "fabric/job.h"

#include <cstdint>
#include <string>

#include <gtest/gtest.h>

#include "fabric_test_util.h"
#include "sim/simulation.h"

namespace xpusim::fabric {
namespace {

using namespace testutil;

JobOptions allreduce_job(std::uint64_t bytes) {
  JobOptions jo;
  jo.traffic.kind = TrafficKind::kAllReduce;
  jo.traffic.algo = CollectiveAlgo::kBidirRing;
  jo.traffic.bytes = bytes;
  jo.traffic.functional = true;
  return jo;
}

JobReport run_job(const Topology& topo, const JobOptions& jo, std::string* policy = nullptr) {
  sim::Simulation sim(1);
  FabricJob job(sim, topo, jo);
  auto r = job.run();
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : joined(r.errors()));
  if (!r.ok()) return {};
  if (policy) *policy = std::string(job.network()->policy_name());
  return *r;
}

TEST(FabricJob, PlainRunReportsCompletionAndConsistentNumbers) {
  const Topology topo = pod_file("tpuv4-4x4x4");
  const JobReport r = run_job(topo, allreduce_job(16 * 1024));
  ASSERT_TRUE(r.completed);
  EXPECT_EQ(r.verify, "ok");
  EXPECT_EQ(r.start, 0u);
  EXPECT_GT(r.finish, r.start);
  EXPECT_EQ(r.profile_ps, 0u);
  EXPECT_EQ(r.reallocations, 0u);
  EXPECT_EQ(r.realloc_retries, 0u);
  const double bus = 2.0 * 63.0 / 64.0 * 16.0 * 1024.0;
  EXPECT_DOUBLE_EQ(r.bus_bandwidth, bus / (static_cast<double>(r.finish - r.start) * 1e-12));
  EXPECT_EQ(r.stats["packets_injected"].get<std::uint64_t>(), r.packets);
  EXPECT_EQ(r.stats["packet_hops"].get<std::uint64_t>(), r.packet_hops);
  EXPECT_GE(r.packet_hops, r.packets);
  EXPECT_EQ(r.stats["links"].size(), 64u * 6u);
  EXPECT_GT(r.link_util_max, 0.0);
  EXPECT_LE(r.link_util_max, 1.0);
  EXPECT_LE(r.link_util_min, r.link_util_mean);
  EXPECT_LE(r.link_util_mean, r.link_util_max);
}

TEST(FabricJob, ScheduledReallocationHappensAndTheCollectiveStillVerifies) {
  const Topology topo = pod_file("tpuv4-4x4x4");
  const JobOptions base = allreduce_job(32 * 1024);
  const JobReport plain = run_job(topo, base);
  ASSERT_TRUE(plain.completed);
  JobOptions jo = base;
  jo.realloc.at = {plain.finish / 3, plain.finish / 2};
  jo.realloc.policy = "count";
  std::string policy;
  const JobReport r = run_job(topo, jo, &policy);
  ASSERT_TRUE(r.completed);
  EXPECT_EQ(r.verify, "ok");
  EXPECT_GE(r.reallocations, 1u);
  EXPECT_EQ(r.realloc_retries, 0u);  // the default 2 us timeout is plenty for this drain
  EXPECT_EQ(policy, "count");
  // Pausing to drain costs time: the run is not faster than the plain one.
  EXPECT_GE(r.finish, plain.finish);
  // Same data moved: the same number of packets.
  EXPECT_EQ(r.packets, plain.packets);
}

TEST(FabricJob, TinyPauseTimeoutRetriesAndStillCompletes) {
  const Topology topo = pod_file("tpuv4-4x4x4");
  const JobOptions base = allreduce_job(32 * 1024);
  const JobReport plain = run_job(topo, base);
  ASSERT_TRUE(plain.completed);
  JobOptions jo = base;
  jo.realloc.at = {plain.finish / 3};
  jo.realloc.pause_timeout_ps = 1;
  jo.realloc.retry_after_ps = plain.finish / 10;
  jo.realloc.policy = "equal";
  const JobReport r = run_job(topo, jo);
  ASSERT_TRUE(r.completed);
  EXPECT_EQ(r.verify, "ok");
  EXPECT_GE(r.realloc_retries, 1u);
}

TEST(FabricJob, CountPolicyRunsTheProfileFirst) {
  const Topology topo = pod_file("tpuv4-4x4x4");
  JobOptions jo = allreduce_job(8 * 1024);
  jo.net.policy = "count";
  jo.profile = TrafficKind::kAllToAll;
  jo.profile_bytes = 63 * 256;
  std::string policy;
  const JobReport r = run_job(topo, jo, &policy);
  ASSERT_TRUE(r.completed);
  EXPECT_EQ(r.verify, "ok");
  EXPECT_GT(r.profile_ps, 0u);
  EXPECT_GE(r.start, r.profile_ps);  // the measured traffic starts after the profile run
  EXPECT_GT(r.finish, r.start);
  EXPECT_EQ(policy, "count");
  EXPECT_EQ(r.reallocations, 0u);
}

TEST(FabricJob, BadPolicyAndBadTrafficAreErrors) {
  const Topology topo = pod_file("ring-8");
  {
    sim::Simulation sim(1);
    JobOptions jo = allreduce_job(4096);
    jo.net.policy = "fifo";
    FabricJob job(sim, topo, jo);
    EXPECT_FALSE(job.run().ok());
  }
  {
    sim::Simulation sim(1);
    JobOptions jo = allreduce_job(4095);
    FabricJob job(sim, topo, jo);
    auto r = job.run();
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(has(joined(r.errors()), "multiple of 4"));
  }
}

TEST(FabricJob, SeriesAreSampledWhenKept) {
  const Topology topo = pod_file("ring-8");
  JobOptions jo = allreduce_job(64 * 1024);
  jo.sample_ps = 100'000;
  jo.keep_series = true;
  const JobReport r = run_job(topo, jo);
  ASSERT_TRUE(r.completed);
  ASSERT_TRUE(r.stats.contains("series"));
  const auto& s = r.stats["series"];
  ASSERT_GT(s["t_ns"].size(), 1u);
  EXPECT_EQ(s["t_ns"].size(), s["link_utilization"].size());
  EXPECT_EQ(s["link_utilization"][0].size(), 16u);  // 8 chips x 2 used ports
  EXPECT_EQ(s["vc_bytes"][0].size(), 32u);          // x 2 VCs
  EXPECT_DOUBLE_EQ(s["t_ns"][0].get<double>(), 100.0);
}

TEST(FabricJob, StopsAtTheLastDeliveryWhileTheSamplerWouldRunOn) {
  // The sampler reschedules itself forever: only the traffic's done callback ends the loop at
  // the last delivery (else the run would go on to the time limit).
  const Topology topo = pod_file("ring-8");
  JobOptions jo = allreduce_job(64 * 1024);
  jo.sample_ps = 100'000;
  jo.time_limit = 1'000'000'000;  // 1 ms, far past the ~20 us all-reduce
  sim::Simulation sim(1);
  FabricJob job(sim, topo, jo);
  auto r = job.run();
  ASSERT_TRUE(r.ok()) << joined(r.errors());
  ASSERT_TRUE(r->completed);
  EXPECT_EQ(sim.now(), r->finish);
  EXPECT_LT(sim.now(), jo.time_limit);
}

TEST(FabricJob, ReallocTimesCountFromTheTrafficStart) {
  const Topology topo = pod_file("tpuv4-4x4x4");
  JobOptions jo = allreduce_job(32 * 1024);
  jo.net.policy = "count";
  jo.profile_bytes = 63 * 256;
  const JobReport plain = run_job(topo, jo);
  jo.realloc.at = {plain.profile_ps / 2};  // before the profile's end in absolute time
  EXPECT_GE(run_job(topo, jo).reallocations, 1u);
}

}  // namespace
}  // namespace xpusim::fabric
