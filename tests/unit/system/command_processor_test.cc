// The one launch path: every Chip::launch goes host → AQL queue → kernel agent → work
// distributor. Kernarg segments round-trip; the barrier bit and barrier-AND packets order
// launches; independent launches overlap; condensed dispatch is faster and its saving is the
// seed3 formula's; bad launches are one-line errors; a bad packet errors only its queue.
#include "system/command_processor.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <limits>

#include "config/chip_spec.h"
#include "sim/simulation.h"
#include "system/chip.h"
#include "system/kernarg.h"

namespace xpusim::system {
namespace {

using kernel::Addr;
using kernel::Warp;

config::ChipSpec tiny() {
  return config::load_chip_file(std::filesystem::path(XPUSIM_CONFIG_DIR) / "chips/tiny.yaml")
      .value();
}

// `cycles` ALU cycles per warp, then lane 0 of warp 0 writes its block id to out[block].
sim::Task<> busy(Warp& w) {
  co_await w.alu_chain(w.args().get_u32(1));
  if (w.warp_id() == 0) {
    const Addr at = w.args().get_ptr(0) + 4 * w.block_id().x;
    co_await w.store_global<std::uint32_t>(kernel::Lanes<Addr>{at},
                                           kernel::Lanes<std::uint32_t>{w.block_id().x + 1}, 1);
  }
}
const kernel::KernelDef kBusy{
    .name = "busy",
    .description = "ALU work, then a word per CTA",
    .args = {{"out", kernel::ArgKind::kPtr}, {"cycles", kernel::ArgKind::kU32}},
    .body = busy,
    .static_shared_bytes = 0};
const kernel::KernelDef kBusyToo{.name = "busy_too",
                                 .description = "as busy, another code object",
                                 .args = kBusy.args,
                                 .body = busy,
                                 .static_shared_bytes = 0};

struct Rig {
  explicit Rig(std::vector<QueueSpec> queues = {QueueSpec{}}, bool functional = true)
      : chip(Chip::create(sim, tiny(),
                          ChipOptions{.functional = functional, .queues = std::move(queues)})
                 .value()) {}
  std::uint64_t stat(const std::string& path) {
    return sim.stats().find(path).value()->to_json()["value"].get<std::uint64_t>();
  }
  std::uint64_t cycle(sim::Tick t) const { return chip->clock().cycle_at(t); }
  sim::Simulation sim{1};
  std::unique_ptr<Chip> chip;
};

const kernel::LaunchParams kOneCta{.grid = {1, 1, 1}, .block = {64, 1, 1}};

TEST(Kernarg, ArgumentsAndLaunchAttributesRoundTripThroughTheSegment) {
  const std::vector<kernel::ArgDecl> sig = {{"a", kernel::ArgKind::kU32},
                                            {"p", kernel::ArgKind::kPtr},
                                            {"x", kernel::ArgKind::kF32},
                                            {"n", kernel::ArgKind::kU64}};
  const auto args = kernel::KernelArgs().u32(7).ptr(0x1234'5678'9A00).f32(1.5f).u64(~0ull);
  const kernel::LaunchParams p{.cluster = {2, 3, 1},
                               .registers_per_thread = 168,
                               .gpc_cgas_per_gpu_cga = 4,
                               .multicast = true,
                               .priority = 9,
                               .policy = "first-fit"};
  const auto bytes = encode_kernarg(args, p).value();
  // CUDA's layout: u32 at 0, ptr at 8 (aligned), f32 at 16, u64 at 24; attributes at 32.
  EXPECT_EQ(explicit_kernarg_bytes(sig), 32u);
  ASSERT_EQ(bytes.size(), kernarg_bytes(sig));
  EXPECT_EQ(std::to_integer<int>(bytes[8]), 0x00);
  EXPECT_EQ(std::to_integer<int>(bytes[9]), 0x9A);
  const DecodedKernarg d = decode_kernarg(bytes, sig).value();
  EXPECT_EQ(d.args.get_u32(0), 7u);
  EXPECT_EQ(d.args.get_ptr(1), 0x1234'5678'9A00u);
  EXPECT_EQ(d.args.get_f32(2), 1.5f);
  EXPECT_EQ(d.args.get_u64(3), ~0ull);
  EXPECT_EQ(d.cluster, (kernel::Dim3{2, 3, 1}));
  EXPECT_EQ(d.registers_per_thread, 168u);
  EXPECT_EQ(d.gpc_cgas_per_gpu_cga, 4u);
  EXPECT_TRUE(d.multicast);
  EXPECT_EQ(d.priority, 9u);
  EXPECT_EQ(d.policy, "first-fit");
  EXPECT_EQ(std::to_integer<int>(bytes[32 + 19]), 4);  // the 4th of sched::policy_names()
  EXPECT_EQ(decode_kernarg(encode_kernarg(args, {}).value(), sig).value().policy, "");

  auto bad = bytes;
  bad[32] = std::byte{0};  // the magic word
  EXPECT_NE(decode_kernarg(bad, sig).error().message.find("magic"), std::string::npos);
  EXPECT_NE(decode_kernarg(std::span(bytes).first(20), sig).error().message.find("needs 56 B"),
            std::string::npos);
  EXPECT_FALSE(encode_kernarg(args, {.cluster = {70000, 1, 1}}).ok());
  EXPECT_EQ(encode_kernarg(args, {.policy = "best"}).error().message,
            "policy 'best' is unknown; known policies: waterfill, prior-art, round-robin, "
            "first-fit");
  bad = bytes;
  bad[32 + 19] = std::byte{9};
  EXPECT_NE(decode_kernarg(bad, sig).error().message.find("policy 9 is past the 4 known"),
            std::string::npos);
}

// The µGPU_CGA grouping shares the 16-bit grouping field with GPU_CGAs (flag bit 1 says which)
// and the CPC split has its own byte at +20 (seed1 ¶115, ¶169).
TEST(Kernarg, UgpuAndCpcLevelsRoundTripAndBadFieldsAreNamed) {
  const std::vector<kernel::ArgDecl> sig = {{"a", kernel::ArgKind::kU32}};
  const auto args = kernel::KernelArgs().u32(1);
  const kernel::LaunchParams p{
      .cluster = {4, 1, 1}, .gpc_cgas_per_ugpu_cga = 300, .cpc_cgas_per_gpc_cga = 2};
  const auto bytes = encode_kernarg(args, p).value();
  const DecodedKernarg d = decode_kernarg(bytes, sig).value();
  EXPECT_EQ(d.gpc_cgas_per_ugpu_cga, 300u);
  EXPECT_EQ(d.gpc_cgas_per_gpu_cga, 1u);
  EXPECT_EQ(d.cpc_cgas_per_gpc_cga, 2u);
  EXPECT_FALSE(d.multicast);
  EXPECT_EQ(std::to_integer<int>(bytes[8 + 18]), 2);  // attributes at 8: flag bit 1
  EXPECT_EQ(std::to_integer<int>(bytes[8 + 20]), 2);
  const DecodedKernarg plain = decode_kernarg(encode_kernarg(args, {}).value(), sig).value();
  EXPECT_EQ(plain.gpc_cgas_per_ugpu_cga, 0u);
  EXPECT_EQ(plain.cpc_cgas_per_gpc_cga, 0u);

  EXPECT_EQ(encode_kernarg(args, {.cpc_cgas_per_gpc_cga = 256}).error().message,
            "cpc_cga 256: at most 255 CPC_CGAs per GPC_CGA");
  EXPECT_EQ(encode_kernarg(args, {.gpc_cgas_per_ugpu_cga = 70000}).error().message,
            "ugpu_cga 70000: at most 65535 GPC_CGAs per µGPU_CGA");
  EXPECT_EQ(
      encode_kernarg(args, {.gpc_cgas_per_gpu_cga = 2, .gpc_cgas_per_ugpu_cga = 2}).error().message,
      "gpu_cga 2 and ugpu_cga 2: the grouping field holds GPU_CGAs or µGPU_CGAs, not both");
  auto bad = bytes;
  bad[8 + 18] = std::byte{4};
  EXPECT_NE(decode_kernarg(bad, sig).error().message.find("flags 0x4"), std::string::npos);
  bad = bytes;
  bad[8 + 21] = std::byte{1};
  EXPECT_NE(decode_kernarg(bad, sig).error().message.find("reserved bytes +21..23"),
            std::string::npos);
  bad = bytes;
  bad[8 + 10] = bad[8 + 11] = std::byte{0};  // a µGPU_CGA of no GPC_CGAs
  EXPECT_NE(decode_kernarg(bad, sig).error().message.find("grouping 0 must be at least 1"),
            std::string::npos);
}

// The narrow, signed and f64 kinds: each little-endian at its own size and alignment (u8 1,
// u16 2, s32 4, s64/f64 8), zero padding between, and back as they went in.
TEST(Kernarg, EveryKindPacksAtItsNaturalSizeAndAlignment) {
  using kernel::ArgKind;
  const std::vector<kernel::ArgDecl> sig = {
      {"a", ArgKind::kU8}, {"b", ArgKind::kU16}, {"c", ArgKind::kU8},  {"d", ArgKind::kS32},
      {"e", ArgKind::kU8}, {"f", ArgKind::kS64}, {"g", ArgKind::kU16}, {"h", ArgKind::kF64}};
  const auto args = kernel::KernelArgs()
                        .u8(0xAB)
                        .u16(0x1234)
                        .u8(0xCD)
                        .s32(-2)
                        .u8(1)
                        .s64(std::numeric_limits<std::int64_t>::min())
                        .u16(0xFFFF)
                        .f64(3.5);
  ASSERT_TRUE(args.check("k", sig).ok());
  const auto bytes = encode_kernarg(args, {}).value();
  EXPECT_EQ(explicit_kernarg_bytes(sig), 40u);
  ASSERT_EQ(bytes.size(), kernarg_bytes(sig));
  EXPECT_EQ(bytes.size(), 64u);  // the attributes at 40
  // a@0, b@2, c@4, d@8, e@12, f@16, g@24, h@32 (3.5 = 0x400C000000000000).
  const std::vector<int> want = {
      0xAB, 0, 0x34, 0x12, 0xCD, 0, 0, 0, 0xFE, 0xFF, 0xFF, 0xFF, 0x01, 0, 0, 0, 0, 0,    0,   0, 0,
      0,    0, 0x80, 0xFF, 0xFF, 0, 0, 0, 0,    0,    0,    0,    0,    0, 0, 0, 0, 0x0C, 0x40};
  for (std::size_t i = 0; i < want.size(); ++i)
    EXPECT_EQ(std::to_integer<int>(bytes[i]), want[i]) << "byte " << i;
  EXPECT_EQ(std::to_integer<int>(bytes[40]), 0x58);  // the attributes' magic
  const DecodedKernarg d = decode_kernarg(bytes, sig).value();
  EXPECT_EQ(d.args.get_u8(0), 0xABu);
  EXPECT_EQ(d.args.get_u16(1), 0x1234u);
  EXPECT_EQ(d.args.get_u8(2), 0xCDu);
  EXPECT_EQ(d.args.get_s32(3), -2);
  EXPECT_EQ(d.args.get_u8(4), 1u);
  EXPECT_EQ(d.args.get_s64(5), std::numeric_limits<std::int64_t>::min());
  EXPECT_EQ(d.args.get_u16(6), 0xFFFFu);
  EXPECT_EQ(d.args.get_f64(7), 3.5);
  // A kind that is not the signature's is named.
  std::vector<kernel::ArgDecl> other = sig;
  other[1].kind = ArgKind::kU32;
  EXPECT_EQ(args.check("k", other).error().message,
            "kernel k: argument 1 (b) is a u16, it must be a u32");
}

TEST(LaunchPath, ALaunchIsAPacketTheAgentDecodesBeforeTheDistributorSeesIt) {
  Rig r;
  const auto id = r.chip->launch(kBusy, kOneCta, kernel::KernelArgs().ptr(0x10000).u32(10));
  ASSERT_TRUE(id.ok());
  r.sim.run();
  const KernelRun& k = r.chip->run(*id);
  ASSERT_TRUE(k.done);
  EXPECT_EQ(r.stat("chip0.cp.packets"), 1u);
  EXPECT_EQ(r.stat("chip0.cp.doorbells"), 1u);
  EXPECT_EQ(r.stat("chip0.cp.q0.kernels"), 1u);
  EXPECT_EQ(r.stat("chip0.cp.q0.bytes_fetched"), 64u);
  // The agent's doorbell, fetch, decode and setup come before the grid reaches the distributor.
  const cp::AgentTiming& t = r.chip->cp_timing();
  EXPECT_EQ(r.cycle(k.dispatched) - r.cycle(k.submitted),
            t.doorbell_cycles + t.fetch_cycles + t.decode_cycles + t.setup_cycles);
  EXPECT_GT(k.first_start, k.dispatched);
  // Its cleanup ends the simulation; the kernel agent charged all of it to this launch.
  EXPECT_EQ(r.cycle(r.sim.now()) - r.cycle(k.completed), t.cleanup_cycles);
  const cp::LaunchRecord* a = r.chip->agent_record(*id);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->overhead_cycles, t.doorbell_cycles + t.fetch_cycles + t.decode_cycles +
                                    t.setup_cycles + t.cleanup_cycles);
  EXPECT_EQ(a->packet_bytes, 64u);
  // The CTAs ran with the arguments the agent read from the kernarg segment.
  std::uint32_t word = 0;
  ASSERT_TRUE(r.chip->memory().read(0x10000, std::as_writable_bytes(std::span(&word, 1))).ok());
  EXPECT_EQ(word, 1u);
}

// Launch intervals [first CTA, completion] of two runs overlap.
bool overlap(const KernelRun& a, const KernelRun& b) {
  return a.first_start < b.completed && b.first_start < a.completed;
}

TEST(LaunchPath, LaunchesOnOneQueueOverlapUnlessTheBarrierBitOrdersThem) {
  for (const bool ordered : {false, true}) {
    Rig r;
    const auto a = r.chip->launch(kBusy, kOneCta, kernel::KernelArgs().ptr(0x10000).u32(2000));
    ASSERT_TRUE(a.ok());
    LaunchOptions o;
    if (ordered) o.after = {*a};
    const auto b =
        r.chip->launch(kBusy, kOneCta, kernel::KernelArgs().ptr(0x20000).u32(2000), {}, o);
    ASSERT_TRUE(b.ok());
    r.sim.run();
    const KernelRun &ka = r.chip->run(*a), &kb = r.chip->run(*b);
    ASSERT_TRUE(ka.done && kb.done);
    if (ordered) {
      EXPECT_FALSE(overlap(ka, kb));
      EXPECT_GE(kb.dispatched, ka.completed);  // the agent waited for a's completion + cleanup
      EXPECT_EQ(r.stat("chip0.cp.q0.barrier_waits"), 1u);
    } else {
      EXPECT_TRUE(overlap(ka, kb)) << "independent launches share the chip";
      EXPECT_EQ(r.stat("chip0.cp.q0.barrier_waits"), 0u);
    }
  }
}

TEST(LaunchPath, ADependencyAcrossQueuesWaitsForTheProducersSignalAndOthersOverlap) {
  Rig r({QueueSpec{}, QueueSpec{}});
  const auto producer = r.chip->launch(kBusy, kOneCta, kernel::KernelArgs().ptr(0x10000).u32(3000),
                                       {}, {.queue = 0, .signal = true});
  const auto other = r.chip->launch(kBusyToo, kOneCta, kernel::KernelArgs().ptr(0x20000).u32(3000),
                                    {}, {.queue = 0});
  const auto consumer = r.chip->launch(kBusy, kOneCta, kernel::KernelArgs().ptr(0x30000).u32(10),
                                       {}, {.queue = 1, .after = {*producer}});
  ASSERT_TRUE(producer.ok() && other.ok() && consumer.ok());
  r.sim.run();
  const KernelRun &p = r.chip->run(*producer), &o = r.chip->run(*other),
                  &c = r.chip->run(*consumer);
  ASSERT_TRUE(p.done && o.done && c.done);
  EXPECT_GE(c.first_start, p.completed) << "the consumer starts after its producer's completion";
  EXPECT_TRUE(overlap(p, o)) << "two independent kernels are resident at one moment";
  EXPECT_EQ(r.stat("chip0.cp.barrier_packets"), 1u);
  EXPECT_EQ(r.chip->command_processor().signal(p.signal).load_acquire(), 0);  // HSA: 1 → 0
}

TEST(LaunchPath, CondensedDispatchSavesWhatTheSeed3FormulaSays) {
  // A Kripke-like chain: 4 code objects, 10 rounds, each launch after the one before.
  std::uint64_t total[2] = {}, formula[2] = {};
  for (int mode = 0; mode < 2; ++mode) {
    Rig r({QueueSpec{.dispatch = mode == 0 ? DispatchMode::kStandard : DispatchMode::kCondensed}});
    const kernel::KernelDef* defs[4] = {&kBusy, &kBusyToo, &kBusy, &kBusyToo};
    std::optional<std::uint32_t> prev;
    for (int round = 0; round < 10; ++round) {
      for (int k = 0; k < 4; ++k) {
        LaunchOptions o;
        if (prev) o.after = {*prev};
        const auto id =
            r.chip->launch(*defs[k], {.grid = {2, 1, 1}, .block = {64, 1, 1}},
                           kernel::KernelArgs().ptr(0x10000 * (k % 2 + 1)).u32(50), {}, o);
        ASSERT_TRUE(id.ok());
        prev = *id;
      }
    }
    r.sim.run();
    ASSERT_TRUE(r.chip->all_done());
    const cp::AgentTiming& t = r.chip->cp_timing();
    const cp::KernelAgent& agent = r.chip->command_processor().agent(0);
    const std::uint64_t packets = agent.packets(), kernels = agent.kernels();
    EXPECT_EQ(kernels, 40u);
    total[mode] = r.cycle(r.sim.now());
    // Digest §3, written out independently of the agent: per dispatch packet fetch, decode,
    // setup and cleanup; per condensed packet fetch, decode and one cleanup; per condensed
    // kernel diff + setup; the doorbell once; plus the kernels' own time (launch to completion).
    std::uint64_t x = 0;
    for (std::uint32_t id = 0; id < r.chip->launches(); ++id) {
      const KernelRun& k = r.chip->run(id);
      x += r.cycle(k.completed) - r.cycle(k.dispatched);
    }
    if (mode == 0) {
      EXPECT_EQ(packets, 40u);
      formula[mode] = t.doorbell_cycles +
                      40 * (t.fetch_cycles + t.decode_cycles + t.setup_cycles + t.cleanup_cycles) +
                      x;
    } else {
      EXPECT_EQ(r.stat("chip0.cp.reference_packets"), 2u);  // kBusy and kBusyToo; kernargs shared
      const std::uint64_t condensed = r.stat("chip0.cp.condensed_packets");
      EXPECT_EQ(condensed, 2u);  // 38 one-slot diffs: 31 + 7
      EXPECT_EQ(packets, 2 + condensed);
      formula[mode] = t.doorbell_cycles +
                      2 * (t.fetch_cycles + t.decode_cycles + t.setup_cycles + t.cleanup_cycles) +
                      condensed * (t.fetch_cycles + t.decode_cycles + t.cleanup_cycles) +
                      38 * (t.diff_cycles + t.setup_cycles) + x;
    }
  }
  EXPECT_LT(total[1], total[0]);
  const double saving = static_cast<double>(total[0] - total[1]);
  const double predicted = static_cast<double>(formula[0]) - static_cast<double>(formula[1]);
  EXPECT_NEAR(saving, predicted, 0.05 * predicted);
}

// after_any: a barrier-OR packet. The consumer starts once the short producer has completed,
// while the long one still runs.
TEST(LaunchPath, ABarrierOrWaitsForTheFirstOfItsProducers) {
  Rig r({QueueSpec{}, QueueSpec{}, QueueSpec{}});
  const auto slow = r.chip->launch(kBusy, kOneCta, kernel::KernelArgs().ptr(0x10000).u32(20000), {},
                                   {.queue = 0, .signal = true});
  const auto fast = r.chip->launch(kBusyToo, kOneCta, kernel::KernelArgs().ptr(0x20000).u32(500),
                                   {}, {.queue = 1, .signal = true});
  ASSERT_TRUE(slow.ok() && fast.ok());
  const auto consumer = r.chip->launch(kBusy, kOneCta, kernel::KernelArgs().ptr(0x30000).u32(10),
                                       {}, {.queue = 2, .after_any = {*slow, *fast}});
  ASSERT_TRUE(consumer.ok()) << consumer.error().message;
  r.sim.run();
  const KernelRun &s = r.chip->run(*slow), &f = r.chip->run(*fast), &c = r.chip->run(*consumer);
  ASSERT_TRUE(s.done && f.done && c.done);
  EXPECT_GE(c.first_start, f.completed) << "after its first producer";
  EXPECT_LT(c.completed, s.completed) << "without waiting for the other";
  EXPECT_EQ(r.stat("chip0.cp.barrier_packets"), 1u);

  // Errors: a producer without a signal, more than one packet's five slots.
  Rig e({QueueSpec{}, QueueSpec{}});
  const auto args = kernel::KernelArgs().ptr(0x10000).u32(1);
  std::vector<std::uint32_t> six;
  for (int i = 0; i < 6; ++i)
    six.push_back(e.chip->launch(kBusy, kOneCta, args, {}, {.signal = true}).value());
  const auto plain = e.chip->launch(kBusy, kOneCta, args).value();
  EXPECT_EQ(
      e.chip->launch(kBusy, kOneCta, args, {}, {.queue = 1, .after_any = {plain}}).error().message,
      "busy: after_any names launch 6 (busy), which has no completion signal to wait for "
      "(launch it with a signal)");
  EXPECT_EQ(
      e.chip->launch(kBusy, kOneCta, args, {}, {.queue = 1, .after_any = six}).error().message,
      "busy: waits for any of 6 launches: a barrier-OR packet holds at most 5 dependencies "
      "(HSA)");
}

// A launch group: its launches go on its queue, the first after the group's dependencies, and
// launches made from their completion callbacks join it; a marker packet completes the group's
// signal after its last launch, and a launch on another queue waiting for that signal starts
// only then.
TEST(LaunchPath, ALaunchGroupEndsWithAMarkerThatAnotherQueueWaitsFor) {
  Rig r({QueueSpec{}, QueueSpec{}});
  const std::uint64_t signal = r.chip->new_signal();
  bool finished = false;
  const auto g =
      r.chip->begin_group({.queue = 1, .signal = signal, .finished = [&] { finished = true; }});
  ASSERT_TRUE(g.ok());
  const auto first = r.chip->launch(
      kBusy, kOneCta, kernel::KernelArgs().ptr(0x10000).u32(1000),
      [&](const KernelRun&) {  // the host side launches a second kernel when the first is done
        ASSERT_TRUE(
            r.chip->launch(kBusyToo, kOneCta, kernel::KernelArgs().ptr(0x20000).u32(1000)).ok());
      });
  ASSERT_TRUE(first.ok());
  r.chip->end_group();
  const auto waiter = r.chip->launch(kBusy, kOneCta, kernel::KernelArgs().ptr(0x30000).u32(10), {},
                                     {.queue = 0, .wait_all = {signal}});
  ASSERT_TRUE(waiter.ok());
  r.sim.run();
  ASSERT_EQ(r.chip->group_launches(*g).size(), 2u);
  const KernelRun& second = r.chip->run(r.chip->group_launches(*g)[1]);
  EXPECT_EQ(r.chip->run(*first).queue, 1u);
  EXPECT_EQ(second.queue, 1u) << "a launch from a group's callback joins the group";
  EXPECT_TRUE(finished && r.chip->group_finished(*g));
  const KernelRun& w = r.chip->run(*waiter);
  ASSERT_TRUE(w.done && second.done);
  EXPECT_GE(w.first_start, second.completed) << "the marker follows the group's last launch";
  EXPECT_EQ(r.chip->command_processor().signal(signal).load_acquire(), 0);
  EXPECT_EQ(r.stat("chip0.cp.barrier_packets"), 2u);  // the waiter's barrier-AND, the marker
}

// A group whose kernel faults never finishes: its signal gets the error value, so a barrier on
// another queue waiting for it fails (a queue error) instead of waiting forever.
sim::Task<> dsmem_fault(Warp& w) {
  co_await w.load_dsmem<std::uint32_t>(kernel::Lanes<Addr>{kernel::cluster_address(1, 0)}, 1);
}
const kernel::KernelDef kFault{.name = "dsmem_fault",
                               .description = "reads DSMEM of a rank it does not have",
                               .args = {},
                               .body = dsmem_fault,
                               .static_shared_bytes = 16};

TEST(LaunchPath, AGroupWhoseKernelFaultsFailsWhatWaitsForIt) {
  Rig r({QueueSpec{}, QueueSpec{}});
  const std::uint64_t signal = r.chip->new_signal();
  bool finished = false;
  ASSERT_TRUE(
      r.chip->begin_group({.queue = 0, .signal = signal, .finished = [&] { finished = true; }})
          .ok());
  ASSERT_TRUE(r.chip->launch(kFault, kOneCta, kernel::KernelArgs()).ok());
  r.chip->end_group();
  const auto waiter = r.chip->launch(kBusy, kOneCta, kernel::KernelArgs().ptr(0x30000).u32(10), {},
                                     {.queue = 1, .wait_all = {signal}});
  ASSERT_TRUE(waiter.ok());
  r.sim.run();
  EXPECT_FALSE(finished);
  EXPECT_LT(r.chip->command_processor().signal(signal).load_acquire(), 0);
  EXPECT_FALSE(r.chip->run(*waiter).on_distributor());
  ASSERT_EQ(r.chip->queue_errors().size(), 2u);  // the fault's queue and the failed barrier's
  EXPECT_NE(r.chip->queue_errors()[1].find("barrier-AND"), std::string::npos)
      << r.chip->queue_errors()[1];
}

TEST(LaunchPath, BadLaunchesAreOneLineErrorsAndQueueNothing) {
  Rig r({QueueSpec{}, QueueSpec{}});
  const auto args = kernel::KernelArgs().ptr(0x10000).u32(1);
  const auto a = r.chip->launch(kBusy, kOneCta, args);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(r.chip->launch(kBusy, kOneCta, args, {}, {.queue = 2}).error().message,
            "busy: queue 2: the chip has 2 queues");
  EXPECT_EQ(r.chip->launch(kBusy, kOneCta, args, {}, {.after = {5}}).error().message,
            "busy: depends on launch 5, which does not exist (launches so far: 1)");
  EXPECT_EQ(r.chip->launch(kBusy, kOneCta, args, {}, {.queue = 1, .after = {*a}}).error().message,
            "busy: depends on launch 0 (busy) on queue 0, which has no completion signal to wait "
            "for (launch it with a signal)");
  EXPECT_NE(r.chip->launch(kBusy, {.grid = {1u << 23, 1, 1}, .block = {1024, 1, 1}}, args)
                .error()
                .message.find("AQL dispatch packet"),
            std::string::npos);
  EXPECT_EQ(r.chip->launches(), 1u);

  sim::Simulation sim;
  for (const auto& [queues, message] : std::vector<std::pair<std::vector<QueueSpec>, std::string>>{
           {{}, "queues: a chip needs at least one queue"},
           {{QueueSpec{.size = 48}},
            "queue 0: size 48: must be a power of two from 1 to 1048576 (HSA)"},
           {{QueueSpec{}, QueueSpec{.size = 0}},
            "queue 1: size 0: must be a power of two from 1 to 1048576 (HSA)"}}) {
    const auto chip = Chip::create(sim, tiny(), ChipOptions{.queues = queues});
    ASSERT_FALSE(chip.ok());
    EXPECT_EQ(chip.error().message, message);
  }
}

TEST(LaunchPath, ABadKernargSegmentErrorsItsQueueAndTheOtherQueueStillCompletes) {
  Rig r({QueueSpec{}, QueueSpec{}});
  const auto bad = r.chip->launch(kBusy, kOneCta, kernel::KernelArgs().ptr(0x10000).u32(1));
  const auto good =
      r.chip->launch(kBusyToo, kOneCta, kernel::KernelArgs().ptr(0x20000).u32(1), {}, {.queue = 1});
  ASSERT_TRUE(bad.ok() && good.ok());
  // Overwrite the launch attributes' magic word before the agent reads the segment.
  const std::uint64_t magic_at = r.chip->run(*bad).kernarg_address + 16;
  const std::uint32_t zero = 0;
  ASSERT_TRUE(r.chip->memory().write(magic_at, std::as_bytes(std::span(&zero, 1))).ok());
  r.sim.run();
  EXPECT_FALSE(r.chip->run(*bad).done);
  EXPECT_TRUE(r.chip->run(*good).done);
  const auto errors = r.chip->queue_errors();
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("queue 0: packet 0: kernel busy"), std::string::npos) << errors[0];
  EXPECT_NE(errors[0].find("magic"), std::string::npos) << errors[0];
}

TEST(LaunchPath, DistributorAttributesReachTheGridFromTheKernarg) {
  Rig r;
  const auto id = r.chip->launch(
      kBusy, {.grid = {4, 1, 1}, .cluster = {2, 1, 1}, .block = {64, 1, 1}, .priority = 3},
      kernel::KernelArgs().ptr(0x10000).u32(1));
  ASSERT_TRUE(id.ok());
  r.sim.run();
  const KernelRun& k = r.chip->run(*id);
  ASSERT_TRUE(k.done);
  const sched::GridSpec& g = r.chip->distributor().grid(k.grid);
  EXPECT_EQ(g.priority, 3u);
  EXPECT_EQ(g.kind, sched::ClusterKind::kGpcCga);
  EXPECT_EQ(g.cluster.x, 2u);
  EXPECT_GE(r.chip->distributor().grid_peak(k.grid).clusters, 1u);
}

}  // namespace
}  // namespace xpusim::system
