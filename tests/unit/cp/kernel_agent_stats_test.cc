// The agent's per-kernel accounting (dispatch overhead charged to the right launch), the
// write_index rule, and a launcher that refuses a dispatch.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "cp/condensed.h"
#include "cp/host.h"
#include "cp/kernel_agent.h"

namespace xpusim::cp {
namespace {

// Runs kernels for 100 cycles, after a 7-cycle launch latency; refuses kernel object 0xBAD.
class TestLauncher : public GridLauncher {
 public:
  TestLauncher(sim::Simulation& sim, const sim::Clock& clock) : sim_(sim), clock_(clock) {}
  Status launch(const DispatchPacket& kernel, Done done) override {
    if (kernel.kernel_object == 0xBAD) return Error{"workgroup of 4096 threads exceeds 1024"};
    const std::uint64_t c = clock_.cycle_at(sim_.now());
    const GridTimes t{.first_start = clock_.edge(c + 7), .completed = clock_.edge(c + 107)};
    sim_.events().post(t.completed, [t, done = std::move(done)] { done(t); });
    return Ok{};
  }

 private:
  sim::Simulation& sim_;
  const sim::Clock& clock_;
};

struct Rig {
  Rig()
      : clock(sim.events(), 1'000'000'000), root(sim, "host0"), host(memory), launcher(sim, clock) {
    queue = std::make_unique<AqlQueue>(std::move(host.create_queue(8)).value());
    agent = std::make_unique<KernelAgent>(root, "cp", clock, *queue, launcher);
    agent->register_kernel(0xA0, "first");
    agent->register_kernel(0xA1, "second kernel");  // stats path: second_kernel
    agent->register_kernel(0xBAD, "too_big");
    agent->register_signal(0x5, done);
  }
  DispatchPacket kernel(std::uint64_t object, std::uint64_t signal = 0) const {
    DispatchPacket p;
    p.header = {.type = PacketType::kKernelDispatch,
                .barrier = true,
                .acquire = FenceScope::kAgent,
                .release = signal != 0 ? FenceScope::kSystem : FenceScope::kNone};
    p.setup = 1;
    p.workgroup_size = {64, 1, 1};
    p.grid_size = {64, 1, 1};
    p.kernel_object = object;
    p.completion_signal = signal;
    return p;
  }
  sim::Simulation sim;
  sim::Clock clock;
  sim::Component root;
  mem::GlobalMemory memory;
  Host host;
  TestLauncher launcher;
  std::unique_ptr<AqlQueue> queue;
  Signal done{1};
  std::unique_ptr<KernelAgent> agent;
};

TEST(KernelAgentStats, StandardPacketsChargeTheDoorbellToTheFirstKernelAndEachItsOwnCleanup) {
  Rig r;
  r.sim.run();  // the agent goes idle, waiting on its doorbell
  const std::vector<PacketBytes> packets = {encode(r.kernel(0xA0)), encode(r.kernel(0xA1, 0x5))};
  ASSERT_TRUE(r.host.submit_all(*r.queue, packets).ok());
  r.sim.run();
  const AgentTiming t;
  const auto k = r.agent->kernel_summaries();
  ASSERT_EQ(k.size(), 3u);
  EXPECT_EQ(k[0].name, "first");
  EXPECT_EQ(k[0].launches, 1u);
  const std::uint64_t per = t.fetch_cycles + t.decode_cycles + t.setup_cycles + t.cleanup_cycles;
  EXPECT_EQ(k[0].overhead_cycles, t.doorbell_cycles + per);
  EXPECT_EQ(k[1].overhead_cycles, per);
  EXPECT_EQ(k[0].latency_cycles, 7u);
  EXPECT_EQ(k[0].run_cycles, 100u);
  EXPECT_EQ(k[2].launches, 0u);
  // Everything the agent spent is charged to some launch.
  EXPECT_EQ(k[0].overhead_cycles + k[1].overhead_cycles, r.agent->overhead_cycles());
  EXPECT_EQ(r.agent->execution_cycles(), 2 * 107u);
  // The per-kernel stats live under the agent, the name made a path segment.
  EXPECT_TRUE(r.sim.stats().find("host0.cp.second_kernel.dispatch_overhead").ok());
}

TEST(KernelAgentStats, ACondensedPacketChargesFetchAndDecodeToItsFirstKernel) {
  Rig r;
  DispatchPacket a = r.kernel(0xA0), b = r.kernel(0xA1, 0x5);
  a.is_reference = true;
  a.ref_num = 0;
  b.is_reference = true;
  b.ref_num = 1;
  ASSERT_TRUE(r.host.submit_all(*r.queue, std::vector{encode(a), encode(b)}).ok());
  r.sim.run();
  const auto before = r.agent->kernel_summaries();
  CondensedPacket c;
  c.header.type = PacketType::kCondensedDispatch;
  c.kernels.push_back({.ref_num = 0, .diff_vector = 0, .values = {}});
  c.kernels.push_back({.ref_num = 1, .diff_vector = 0, .values = {}});
  r.done.store_release(1);
  ASSERT_TRUE(r.host.submit(*r.queue, c).ok());
  r.sim.run();
  const auto after = r.agent->kernel_summaries();
  const AgentTiming t;
  // Kernel 0 needs no cleanup inside the packet (no release, no signal, ¶146).
  EXPECT_EQ(after[0].overhead_cycles - before[0].overhead_cycles,
            t.doorbell_cycles + t.fetch_cycles + t.decode_cycles + t.diff_cycles + t.setup_cycles);
  EXPECT_EQ(after[1].overhead_cycles - before[1].overhead_cycles,
            t.diff_cycles + t.setup_cycles + t.cleanup_cycles);
  EXPECT_EQ(r.done.load_acquire(), 0);
}

TEST(KernelAgentStats, AWriteIndexPastReadIndexPlusSizeIsAQueueError) {
  Rig r;
  ASSERT_TRUE(r.host.submit(*r.queue, r.kernel(0xA0)).ok());
  r.queue->store_write_index(r.queue->read_index() + r.queue->size() + 3);  // a rogue producer
  r.queue->ring_doorbell(r.queue->write_index() - 1);
  r.sim.run();
  ASSERT_FALSE(r.queue->active());
  EXPECT_NE(r.queue->error()->message.find("write_index 11 runs past read_index 0 + size 8"),
            std::string::npos)
      << r.queue->error()->message;
  EXPECT_EQ(r.agent->kernels(), 0u);  // nothing was launched from the overwritten ring
}

TEST(KernelAgentStats, AWriteIndexBehindReadIndexIsAQueueError) {
  Rig r;
  ASSERT_TRUE(r.host.submit(*r.queue, r.kernel(0xA0)).ok());
  r.sim.run();
  ASSERT_EQ(r.queue->read_index(), 1u);
  r.queue->store_write_index(0);
  r.queue->ring_doorbell(0);
  r.sim.run();
  ASSERT_FALSE(r.queue->active());
  EXPECT_NE(r.queue->error()->message.find("write_index 0 is behind read_index 1"),
            std::string::npos)
      << r.queue->error()->message;
}

TEST(KernelAgentStats, ALaunchTheLauncherRefusesErrorsTheQueueNamingTheKernel) {
  Rig r;
  ASSERT_TRUE(r.host.submit(*r.queue, r.kernel(0xBAD, 0x5)).ok());
  r.sim.run();
  ASSERT_FALSE(r.queue->active());
  EXPECT_EQ(r.queue->error()->message,
            "queue 0: packet 0: kernel too_big (0xbad): workgroup of 4096 threads exceeds 1024");
  EXPECT_EQ(r.done.load_acquire(), kErrorSignalValue);
  EXPECT_EQ(r.agent->kernels(), 0u);
}

}  // namespace
}  // namespace xpusim::cp
