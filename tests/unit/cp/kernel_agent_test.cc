// The packet processor: the Kripke replay against the digest §3 timing formula, packets and
// bytes per iteration, barrier packets, and bad packets putting only their queue in error.
#include "cp/kernel_agent.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "cp/condensed.h"
#include "cp/host.h"
#include "cp/replay.h"

namespace xpusim::cp {
namespace {

TEST(KripkeReplay, MeasuredTimeEqualsTheTimingFormulaInBothModes) {
  for (const std::uint64_t x : {10u, 500u, 20000u}) {
    for (const ReplayMode mode : {ReplayMode::kStandard, ReplayMode::kCondensed}) {
      for (const bool every : {false, true}) {  // cleanup after every kernel, or as needed
        ReplayConfig cfg;
        cfg.timing.skip_unneeded_cleanup = !every;
        cfg.mode = mode;
        cfg.iterations = 7;
        cfg.kernel_cycles = x;
        auto r = run_replay(cfg);
        ASSERT_TRUE(r.ok()) << r.error().message;
        EXPECT_EQ(r->total_cycles, r->formula_cycles) << name(mode) << " x=" << x;
        EXPECT_EQ(r->kernels, 42u);
        EXPECT_EQ(r->execution_cycles, 42 * x);
      }
    }
  }
}

TEST(KripkeReplay, CondensedFetchesOnePacketPerIterationAfterTheFirst) {
  ReplayConfig cfg;
  cfg.iterations = 10;
  cfg.mode = ReplayMode::kStandard;
  auto standard = run_replay(cfg);
  cfg.mode = ReplayMode::kCondensed;
  auto condensed = run_replay(cfg);
  ASSERT_TRUE(standard.ok() && condensed.ok());
  EXPECT_EQ(standard->packets, 60u);  // 6 per iteration, 384 B
  EXPECT_EQ(standard->bytes_fetched, 60u * 64);
  EXPECT_EQ(condensed->packets, 6u + 9u);  // references once, then 1 per iteration (64 B)
  EXPECT_LT(condensed->total_cycles, standard->total_cycles);
  // The saving per condensed iteration: 5 × (E + fetch + decode) + 5 cleanups − 6 diffs.
  const AgentTiming t;
  const std::uint64_t per = 5 * (cfg.enqueue_cycles + t.fetch_cycles + t.decode_cycles) +
                            5 * t.cleanup_cycles - 6 * t.diff_cycles;
  EXPECT_EQ(standard->total_cycles - condensed->total_cycles, 9 * per);
}

TEST(KripkeReplay, BadConfigIsAnError) {
  ReplayConfig cfg;
  cfg.iterations = 0;
  EXPECT_FALSE(run_replay(cfg).ok());
  EXPECT_FALSE(parse_replay_mode("fast").ok());
}

// One queue + agent on a fixed-time launcher, for the packet-level tests.
struct Rig {
  Rig()
      : clock(sim.events(), 1'000'000'000), root(sim, "host0"), host(memory), launcher(sim, clock) {
    for (int i = 0; i < 2; ++i) {
      queues.push_back(std::move(host.create_queue(16)).value());
    }
    for (int i = 0; i < 2; ++i) {
      agents.push_back(
          std::make_unique<KernelAgent>(root, fmt::format("cp{}", i), clock, queues[i], launcher));
      agents[i]->register_kernel(0xA0, "k");
      agents[i]->register_signal(0x5, done[i]);
    }
    launcher.set_cycles(0xA0, 100);
  }
  DispatchPacket kernel(std::uint64_t signal = 0) const {
    DispatchPacket p;
    p.header = {.type = PacketType::kKernelDispatch,
                .barrier = true,
                .acquire = FenceScope::kAgent,
                .release = FenceScope::kSystem};
    p.setup = 1;
    p.workgroup_size = {64, 1, 1};
    p.grid_size = {64, 1, 1};
    p.kernel_object = 0xA0;
    p.completion_signal = signal;
    return p;
  }
  sim::Simulation sim;
  sim::Clock clock;
  sim::Component root;
  mem::GlobalMemory memory;
  Host host;
  FixedTimeLauncher launcher;
  std::vector<AqlQueue> queues;
  Signal done[2] = {Signal(1), Signal(1)};
  std::vector<std::unique_ptr<KernelAgent>> agents;
};

TEST(KernelAgent, ACondensedPacketOnAnEmptyRstSlotErrorsOnlyItsQueue) {
  Rig r;
  CondensedPacket c;
  c.header.type = PacketType::kCondensedDispatch;
  c.kernels.push_back({.ref_num = 3, .diff_vector = 0, .values = {}});
  ASSERT_TRUE(r.host.submit(r.queues[0], c).ok());
  ASSERT_TRUE(r.host.submit(r.queues[1], r.kernel(0x5)).ok());
  r.sim.run();
  EXPECT_FALSE(r.queues[0].active());
  EXPECT_NE(r.queues[0].error()->message.find("RST slot 3"), std::string::npos)
      << r.queues[0].error()->message;
  EXPECT_TRUE(r.queues[1].active());
  EXPECT_EQ(r.done[1].load_acquire(), 0);  // the other queue's kernel completed
  EXPECT_EQ(r.agents[1]->kernels(), 1u);
}

TEST(KernelAgent, AnUnregisteredKernelObjectErrorsTheQueueAndItsSignal) {
  Rig r;
  DispatchPacket p = r.kernel(0x5);
  p.kernel_object = 0xBAD;
  ASSERT_TRUE(r.host.submit(r.queues[0], p).ok());
  r.sim.run();
  EXPECT_FALSE(r.queues[0].active());
  EXPECT_NE(r.queues[0].error()->message.find("kernel_object 0xbad"), std::string::npos)
      << r.queues[0].error()->message;
  EXPECT_EQ(r.done[0].load_acquire(), kErrorSignalValue);
}

TEST(KernelAgent, AnUnknownPacketTypeErrorsTheQueue) {
  Rig r;
  PacketBytes raw{};
  raw[0] = std::byte{0x2A};  // type 42
  ASSERT_TRUE(r.host.submit(r.queues[0], raw).ok());
  r.sim.run();
  EXPECT_FALSE(r.queues[0].active());
  ASSERT_TRUE(r.queues[0].error().has_value());
  EXPECT_FALSE(r.queues[0].error()->message.empty());
}

TEST(KernelAgent, ABarrierAndWaitsForItsDependencySignal) {
  Rig r;
  Signal dep(1);
  r.agents[0]->register_signal(0x9, dep);
  BarrierPacket b;
  b.header = {.type = PacketType::kBarrierAnd,
              .barrier = true,
              .acquire = FenceScope::kNone,
              .release = FenceScope::kNone};
  b.dep_signal = {0x9, 0, 0, 0, 0};
  ASSERT_TRUE(r.host.submit(r.queues[0], b).ok());
  ASSERT_TRUE(r.host.submit(r.queues[0], r.kernel(0x5)).ok());
  r.sim.events().post(50'000'000, [&] { dep.store_release(0); });  // at 50 us
  r.sim.run();
  EXPECT_EQ(r.done[0].load_acquire(), 0);
  EXPECT_EQ(r.agents[0]->kernels(), 1u);
  EXPECT_GT(r.sim.now(), 50'000'000u);  // the kernel ran only after the barrier released
}

// A dependency that failed (a negative signal, as a faulted kernel's) fails a barrier-AND at
// once, and its queue with it; a barrier-OR fails only once every dependency has failed, and is
// met by one that completes.
TEST(KernelAgent, ABarrierOnAFailedDependencyFailsItsQueue) {
  for (const PacketType type : {PacketType::kBarrierAnd, PacketType::kBarrierOr}) {
    Rig r;
    Signal failed(1), ok(1);
    r.agents[0]->register_signal(0x9, failed);
    r.agents[0]->register_signal(0xA, ok);
    BarrierPacket b;
    b.header = {
        .type = type, .barrier = true, .acquire = FenceScope::kNone, .release = FenceScope::kNone};
    b.dep_signal = {0x9, 0xA, 0, 0, 0};
    ASSERT_TRUE(r.host.submit(r.queues[0], b).ok());
    ASSERT_TRUE(r.host.submit(r.queues[0], r.kernel(0x5)).ok());
    r.sim.events().post(10'000'000, [&] { failed.store_release(kErrorSignalValue); });
    r.sim.events().post(50'000'000, [&] { ok.store_release(0); });
    r.sim.run();
    if (type == PacketType::kBarrierAnd) {
      ASSERT_FALSE(r.queues[0].active());
      EXPECT_NE(r.queues[0].error()->message.find(
                    "barrier-AND: dep_signal 0x9 is -1: the packet it waits for failed"),
                std::string::npos)
          << r.queues[0].error()->message;
      EXPECT_EQ(r.agents[0]->kernels(), 0u);
    } else {
      EXPECT_TRUE(r.queues[0].active());
      EXPECT_EQ(r.agents[0]->kernels(), 1u);  // the second dependency met the OR
      EXPECT_GT(r.sim.now(), 50'000'000u);
    }
  }
}

TEST(KernelAgent, AReferencePacketFillsTheRstAndACondensedPacketReplaysIt) {
  Rig r;
  DispatchPacket ref = r.kernel(0x5);
  ref.is_reference = true;
  ref.ref_num = 2;
  ASSERT_TRUE(r.host.submit(r.queues[0], ref).ok());
  CondensedPacket c;
  c.header.type = PacketType::kCondensedDispatch;
  c.kernels.push_back({.ref_num = 2, .diff_vector = 0, .values = {}});
  c.kernels.push_back({.ref_num = 2, .diff_vector = 0, .values = {}});
  ASSERT_TRUE(r.host.submit(r.queues[0], c).ok());
  r.done[0].store_release(3);
  r.sim.run();
  EXPECT_TRUE(r.queues[0].active());
  EXPECT_TRUE(r.agents[0]->reference_table().occupied(2));
  EXPECT_EQ(r.agents[0]->kernels(), 3u);
  EXPECT_EQ(r.done[0].load_acquire(), 0);  // each kernel needs cleanup: 3 decrements
}

}  // namespace
}  // namespace xpusim::cp
