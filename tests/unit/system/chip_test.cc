// The chip: SMs + memory hierarchy + work distributor running real kernels. Functional results
// against plain C++ loops, DSMEM and cluster.sync across SMs, launch errors, faults, the hang
// report, timing-only equality and determinism.
#include "system/chip.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <numeric>
#include <set>
#include <utility>

#include "config/chip_spec.h"
#include "sim/simulation.h"
#include "system/host_memory.h"

namespace xpusim::system {
namespace {

using kernel::Addr;
using kernel::Lanes;
using kernel::Warp;

config::ChipSpec h100() {
  return config::load_chip_file(std::filesystem::path(XPUSIM_CONFIG_DIR) / "chips/h100-sxm5.yaml")
      .value();
}

// out[i] = in[i] + 1 over n elements, a grid-stride loop.
sim::Task<> add_one(Warp& w) {
  const Addr in = w.args().get_ptr(0), out = w.args().get_ptr(1);
  const std::uint64_t n = w.args().get_u64(2);
  const std::uint64_t stride =
      std::uint64_t{w.params().grid.count()} * w.params().threads_per_block();
  for (auto i = w.global_thread_ids(); i[0] < n;) {
    kernel::LaneMask m = 0;
    for (std::uint32_t l = 0; l < 32; ++l)
      m |= (i[l] < n ? kernel::LaneMask{1} << l : 0);
    auto x = co_await w.load_global<std::uint32_t>(Warp::lane_addresses(in, 4, i), m);
    for (auto& v : x)
      v += 1;
    co_await w.store_global<std::uint32_t>(Warp::lane_addresses(out, 4, i), x, m);
    for (auto& v : i)
      v += stride;
  }
}

const kernel::KernelDef kAddOne{.name = "add_one",
                                .description = "out = in + 1",
                                .args = {{"in", kernel::ArgKind::kPtr},
                                         {"out", kernel::ArgKind::kPtr},
                                         {"n", kernel::ArgKind::kU64}},
                                .body = add_one,
                                .static_shared_bytes = 0};

// Each CTA of a cluster writes its rank into its shared word 0, cluster.sync, then lane 0 of
// warp 0 reads the next rank's word over DSMEM, adds it into rank 0's word 1 atomically, and
// writes what it read to out[block].
sim::Task<> ring(Warp& w) {
  const std::uint32_t rank = w.cluster_rank(), size = w.cluster_size();
  if (w.warp_id() == 0) {
    co_await w.store_shared<std::uint32_t>(Lanes<Addr>{}, Lanes<std::uint32_t>{rank + 100}, 1);
  }
  co_await w.cluster_sync();
  if (w.warp_id() == 0) {
    const Addr next = kernel::cluster_address((rank + 1) % size, 0);
    const auto v = co_await w.load_dsmem<std::uint32_t>(Lanes<Addr>{next}, 1);
    co_await w.atomic_add_dsmem<std::uint32_t>(Lanes<Addr>{kernel::cluster_address(0, 4)},
                                               Lanes<std::uint32_t>{v[0]}, 1);
    const auto& b = w.block_id();
    co_await w.store_global<std::uint32_t>(Lanes<Addr>{w.args().get_ptr(0) + 4 * b.x}, v, 1);
  }
  co_await w.cluster_sync();
  if (w.warp_id() == 0 && rank == 0) {
    const auto sum = co_await w.load_shared<std::uint32_t>(Lanes<Addr>{4}, 1);
    co_await w.store_global<std::uint32_t>(
        Lanes<Addr>{w.args().get_ptr(1) + 4 * w.coords().cluster_id.x}, sum, 1);
  }
}

const kernel::KernelDef kRing{
    .name = "ring",
    .description = "DSMEM ring",
    .args = {{"out", kernel::ArgKind::kPtr}, {"sums", kernel::ArgKind::kPtr}},
    .body = ring,
    .static_shared_bytes = 64};

sim::Task<> wait_forever(Warp& w) {
  if (w.warp_id() == 0) co_await w.mbarrier_init(0, 2);
  co_await w.sync_threads();
  if (w.warp_id() == 0) co_await w.mbarrier_arrive(0);
  co_await w.mbarrier_wait_parity(0, 0);
}

const kernel::KernelDef kHang{.name = "hang",
                              .description = "an mbarrier that expects two arrivals gets one",
                              .args = {},
                              .body = wait_forever,
                              .static_shared_bytes = 8};

struct Fixture {
  explicit Fixture(ChipOptions o = {}) : chip(Chip::create(sim, h100(), o).value()) {}
  sim::Simulation sim{1};
  std::unique_ptr<Chip> chip;
};

TEST(Chip, AddOneOverManyCtasMatchesTheLoop) {
  Fixture f;
  constexpr std::uint64_t n = 20'000;
  std::vector<std::uint32_t> in(n);
  std::iota(in.begin(), in.end(), 7u);
  ASSERT_TRUE(f.chip->memory().write(0x10000, std::as_bytes(std::span(in))).ok());
  const kernel::LaunchParams p{.grid = {40, 1, 1}, .block = {256, 1, 1}};
  auto id = f.chip->launch(kAddOne, p, kernel::KernelArgs().ptr(0x10000).ptr(0x100000).u64(n));
  ASSERT_TRUE(id.ok()) << id.error().message;
  f.sim.run();
  ASSERT_FALSE(f.chip->fault());
  ASSERT_TRUE(f.chip->run(*id).done);
  std::vector<std::uint32_t> out(n);
  ASSERT_TRUE(f.chip->memory().read(0x100000, std::as_writable_bytes(std::span(out))).ok());
  for (std::uint64_t i = 0; i < n; ++i)
    ASSERT_EQ(out[i], in[i] + 1) << i;
  // Every element's line went through L2: n * 4 B read in 128 B lines.
  std::uint64_t hbm_read = 0;
  for (const std::string& path : f.sim.stats().paths()) {
    if (path.find("chip0.mem.hbm.") == 0 && path.ends_with(".read_bytes")) {
      hbm_read += f.sim.stats().find(path).value()->to_json()["value"].get<std::uint64_t>();
    }
  }
  EXPECT_GE(hbm_read, n * 4);
  EXPECT_GT(f.chip->run(*id).completed, f.chip->run(*id).first_start);
}

TEST(Chip, TimingOnlyGivesIdenticalTimingAndMovesNoData) {
  sim::Tick t[2];
  for (int mode = 0; mode < 2; ++mode) {
    Fixture f(ChipOptions{.functional = mode == 0});
    const kernel::LaunchParams p{.grid = {16, 1, 1}, .block = {128, 1, 1}};
    auto id = f.chip->launch(kAddOne, p, kernel::KernelArgs().ptr(0x10000).ptr(0x100000).u64(4096));
    ASSERT_TRUE(id.ok());
    f.sim.run();
    t[mode] = f.chip->run(*id).completed;
    if (mode == 1) {  // only the command processor's: its ring and the kernarg segment
      EXPECT_EQ(f.chip->memory().pages_allocated(), 2u);
      std::uint32_t word = 1;
      ASSERT_TRUE(
          f.chip->memory().read(0x100000, std::as_writable_bytes(std::span(&word, 1))).ok());
      EXPECT_EQ(word, 0u);
    }
  }
  EXPECT_EQ(t[0], t[1]);
}

TEST(Chip, DsmemRingAcrossAClusterOfFour) {
  Fixture f;
  const kernel::LaunchParams p{.grid = {8, 1, 1}, .cluster = {4, 1, 1}, .block = {64, 1, 1}};
  auto id = f.chip->launch(kRing, p, kernel::KernelArgs().ptr(0x1000).ptr(0x2000));
  ASSERT_TRUE(id.ok()) << id.error().message;
  f.sim.run();
  ASSERT_FALSE(f.chip->fault()) << f.chip->fault()->message;
  std::uint32_t out[8], sums[2];
  ASSERT_TRUE(f.chip->memory().read(0x1000, std::as_writable_bytes(std::span(out))).ok());
  ASSERT_TRUE(f.chip->memory().read(0x2000, std::as_writable_bytes(std::span(sums))).ok());
  for (std::uint32_t b = 0; b < 8; ++b)
    EXPECT_EQ(out[b], 100 + (b % 4 + 1) % 4) << b;
  EXPECT_EQ(sums[0], 100 + 101 + 102 + 103);
  EXPECT_EQ(sums[1], sums[0]);
  // The CTAs of a cluster ran on different SMs of one GPC and talked over the network.
  const auto* loads = f.sim.stats().find("chip0.mem.dsmem.loads").value();
  EXPECT_GT(loads->to_json()["value"].get<std::uint64_t>(), 0u);
}

TEST(Chip, DsmemToARankOutsideTheClusterFaultsWithCoordinates) {
  Fixture f;
  const kernel::LaunchParams p{.grid = {2, 1, 1}, .block = {32, 1, 1}};  // clusters of one
  auto id = f.chip->launch(kRing, p, kernel::KernelArgs().ptr(0x1000).ptr(0x2000));
  ASSERT_TRUE(id.ok());
  f.sim.run();
  // Rank (0 + 1) % 1 = 0 is fine; the atomic to rank 0 too: a cluster of one works.
  ASSERT_FALSE(f.chip->fault());
  sim::Task<> (*bad)(Warp&) = [](Warp& w) -> sim::Task<> {
    co_await w.load_dsmem<std::uint32_t>(Lanes<Addr>{kernel::cluster_address(3, 0)}, 1);
  };
  const kernel::KernelDef k{
      .name = "bad_rank", .description = "", .args = {}, .body = bad, .static_shared_bytes = 16};
  Fixture g;
  ASSERT_TRUE(g.chip->launch(k, {.grid = {1, 1, 1}, .block = {32, 1, 1}}, {}).ok());
  g.sim.run();
  ASSERT_TRUE(g.chip->fault());
  EXPECT_NE(g.chip->fault()->message.find("bad_rank: block (0,0,0) warp 0"), std::string::npos)
      << g.chip->fault()->message;
  EXPECT_NE(
      g.chip->fault()->message.find("rank 3 is outside its CGA (cluster (0,0,0) of 1 CTA(s))"),
      std::string::npos)
      << g.chip->fault()->message;
}

// Warp 0 of each CTA writes the SM it runs on to out[blockIdx.x].
sim::Task<> where(Warp& w) {
  if (w.warp_id() != 0) co_return;
  co_await w.store_global<std::uint32_t>(Lanes<Addr>{w.args().get_ptr(0) + 4 * w.block_id().x},
                                         Lanes<std::uint32_t>{w.coords().sm}, 1);
}

const kernel::KernelDef kWhere{.name = "where",
                               .description = "each CTA's SM",
                               .args = {{"out", kernel::ArgKind::kPtr}},
                               .body = where,
                               .static_shared_bytes = 0};

// h100-sxm5.yaml: GPCs of 9, 9, 8 x6 TPCs, 3 CPCs each (extra TPCs to the lower CPCs), 2 µGPUs
// of 4 GPCs. The CPC and µGPU of an SM, worked out here without the Topology class.
std::pair<std::uint32_t, std::uint32_t> cpc_and_ugpu(std::uint32_t sm) {
  const std::uint32_t tpcs[8] = {9, 9, 8, 8, 8, 8, 8, 8};
  std::uint32_t tpc = sm / 2, cpc = 0;
  for (std::uint32_t g = 0; g < 8; ++g) {
    for (std::uint32_t c = 0; c < 3; ++c, ++cpc) {
      const std::uint32_t n = tpcs[g] / 3 + (c < tpcs[g] % 3 ? 1 : 0);
      if (tpc < n) return {cpc, g / 4};
      tpc -= n;
    }
  }
  return {~0u, ~0u};
}

// A kernel launch with µGPU_CGAs of CPC-split clusters goes through the kernarg segment and the
// command processor to the distributor: every pair of ranks of a cluster shares a CPC, the three
// clusters of a µGPU_CGA share a µGPU, and DSMEM across the cluster still works.
TEST(Chip, CpcCgasAndUgpuCgasPlaceWhereTheyMust) {
  Fixture f;
  const kernel::LaunchParams p{.grid = {48, 1, 1},
                               .cluster = {4, 1, 1},
                               .block = {64, 1, 1},
                               .gpc_cgas_per_ugpu_cga = 3,
                               .cpc_cgas_per_gpc_cga = 2};
  ASSERT_TRUE(f.chip->launch(kWhere, p, kernel::KernelArgs().ptr(0x1000)).ok());
  f.sim.run();
  ASSERT_FALSE(f.chip->fault()) << f.chip->fault()->message;
  std::uint32_t sm[48];
  ASSERT_TRUE(f.chip->memory().read(0x1000, std::as_writable_bytes(std::span(sm))).ok());
  std::set<std::uint32_t> ugpus;
  for (std::uint32_t b = 0; b < 48; ++b) {
    const auto [cpc, ugpu] = cpc_and_ugpu(sm[b]);
    EXPECT_EQ(cpc, cpc_and_ugpu(sm[b / 2 * 2]).first) << "block " << b << " on SM " << sm[b];
    EXPECT_EQ(ugpu, cpc_and_ugpu(sm[b / 12 * 12]).second) << "block " << b << " on SM " << sm[b];
    ugpus.insert(ugpu);
  }
  EXPECT_EQ(ugpus.size(), 2u) << "the four µGPU_CGAs use both µGPUs";

  Fixture g;
  const kernel::LaunchParams ring{
      .grid = {8, 1, 1}, .cluster = {4, 1, 1}, .block = {64, 1, 1}, .cpc_cgas_per_gpc_cga = 4};
  ASSERT_TRUE(g.chip->launch(kRing, ring, kernel::KernelArgs().ptr(0x1000).ptr(0x2000)).ok());
  g.sim.run();
  ASSERT_FALSE(g.chip->fault()) << g.chip->fault()->message;
  std::uint32_t sums[2];
  ASSERT_TRUE(g.chip->memory().read(0x2000, std::as_writable_bytes(std::span(sums))).ok());
  EXPECT_EQ(sums[0], 100 + 101 + 102 + 103);
  EXPECT_EQ(sums[1], sums[0]);

  auto both = g.chip->launch(kWhere,
                             {.grid = {8, 1, 1},
                              .cluster = {2, 1, 1},
                              .block = {32, 1, 1},
                              .gpc_cgas_per_gpu_cga = 2,
                              .gpc_cgas_per_ugpu_cga = 2},
                             kernel::KernelArgs().ptr(0x1000));
  ASSERT_FALSE(both.ok());
  EXPECT_EQ(both.error().message,
            "where: gpu_cga 2 and ugpu_cga 2: a launch groups its GPC_CGAs into GPU_CGAs or into "
            "µGPU_CGAs, not both");
  auto split = g.chip->launch(
      kWhere,
      {.grid = {8, 1, 1}, .cluster = {4, 1, 1}, .block = {32, 1, 1}, .cpc_cgas_per_gpc_cga = 3},
      kernel::KernelArgs().ptr(0x1000));
  ASSERT_FALSE(split.ok());
  EXPECT_EQ(split.error().message,
            "where: cpc_cgas_per_gpc_cga = 3 does not divide the cluster's 4 CTAs into equal "
            "CPC_CGAs");
}

// One CGA memory slot (seed1 ¶222): the two clusters of the ring run one after the other, the
// second only after the first's cga_complete, and the DSMEM results are as with no pool.
TEST(Chip, ACgaMemorySlotPoolOfOneSerialisesTheClusters) {
  Fixture f(ChipOptions{.cga_memory_slots = 1});
  const kernel::LaunchParams p{.grid = {8, 1, 1}, .cluster = {4, 1, 1}, .block = {64, 1, 1}};
  ASSERT_TRUE(f.chip->launch(kRing, p, kernel::KernelArgs().ptr(0x1000).ptr(0x2000)).ok());
  f.sim.run();
  ASSERT_FALSE(f.chip->fault()) << f.chip->fault()->message;
  std::uint32_t sums[2];
  ASSERT_TRUE(f.chip->memory().read(0x2000, std::as_writable_bytes(std::span(sums))).ok());
  EXPECT_EQ(sums[0], 100 + 101 + 102 + 103);
  EXPECT_EQ(sums[1], sums[0]);
  const auto stat = [&](const char* path) {
    return f.sim.stats().find(path).value()->to_json()["value"].get<double>();
  };
  EXPECT_EQ(stat("chip0.cwd.cga_slots_peak"), 1.0);
  EXPECT_GT(stat("chip0.cwd.cga_slot_stalls"), 0.0);
  EXPECT_EQ(f.chip->distributor().max_running_clusters(), 1u);

  Fixture g(ChipOptions{.cga_memory_slots = 1});
  auto gpu = g.chip->launch(
      kRing,
      {.grid = {8, 1, 1}, .cluster = {4, 1, 1}, .block = {64, 1, 1}, .gpc_cgas_per_gpu_cga = 2},
      kernel::KernelArgs().ptr(0x1000).ptr(0x2000));
  ASSERT_FALSE(gpu.ok());
  EXPECT_EQ(gpu.error().message,
            "ring: a launch unit of 2 GPC_CGAs needs 2 CGA memory slots at once, but the pool "
            "has 1 (cga_memory_slots; every GPC_CGA holds one, seed1 ¶222)");
  EXPECT_FALSE(Chip::create(g.sim, h100(), ChipOptions{.cga_memory_slots = 70000}).ok());
}

TEST(Chip, BadLaunchesAreNamedErrors) {
  Fixture f;
  const kernel::KernelArgs ok = kernel::KernelArgs().ptr(0).ptr(0).u64(1);
  auto wrong_args = f.chip->launch(kAddOne, {.grid = {1, 1, 1}, .block = {32, 1, 1}},
                                   kernel::KernelArgs().ptr(0).u32(1));
  ASSERT_FALSE(wrong_args.ok());
  EXPECT_NE(wrong_args.error().message.find("add_one"), std::string::npos);
  auto too_big = f.chip->launch(kAddOne, {.grid = {1, 1, 1}, .block = {2048, 1, 1}}, ok);
  ASSERT_FALSE(too_big.ok());
  EXPECT_NE(too_big.error().message.find("thread"), std::string::npos) << too_big.error().message;
  auto smem = f.chip->launch(
      kAddOne, {.grid = {1, 1, 1}, .block = {32, 1, 1}, .dynamic_shared_bytes = 1 << 20}, ok);
  ASSERT_FALSE(smem.ok());
  EXPECT_NE(smem.error().message.find("shared"), std::string::npos) << smem.error().message;
  auto cluster = f.chip->launch(kAddOne, {.grid = {3, 1, 1}, .cluster = {2, 1, 1}}, ok);
  ASSERT_FALSE(cluster.ok());
  EXPECT_EQ(f.chip->launches(), 0u);
}

TEST(Chip, NeverCompletingMbarrierEndsInAHangReport) {
  Fixture f;
  ASSERT_TRUE(f.chip->launch(kHang, {.grid = {1, 1, 1}, .block = {64, 1, 1}}, {}).ok());
  f.sim.run();
  EXPECT_FALSE(f.chip->all_done());
  const auto report = f.chip->hang_report();
  ASSERT_EQ(report.size(), 2u);
  EXPECT_NE(report[0].find("chip0.sm"), std::string::npos) << report[0];
  EXPECT_NE(report[0].find("mbarrier at 0x0 waiting for parity 0"), std::string::npos) << report[0];
  EXPECT_NE(report[0].find("pending"), std::string::npos) << report[0];
}

// add_one over 64 CTAs and a DSMEM ring of two clusters, run to the end: the stats.
std::string add_one_and_ring(Fixture& f) {
  EXPECT_TRUE(f.chip
                  ->launch(kAddOne, {.grid = {64, 1, 1}, .block = {128, 1, 1}},
                           kernel::KernelArgs().ptr(0x10000).ptr(0x200000).u64(30000))
                  .ok());
  EXPECT_TRUE(f.chip
                  ->launch(kRing, {.grid = {4, 1, 1}, .cluster = {2, 1, 1}, .block = {64, 1, 1}},
                           kernel::KernelArgs().ptr(0x1000).ptr(0x2000))
                  .ok());
  f.sim.run();
  EXPECT_TRUE(f.chip->all_done());
  return f.sim.stats().dump();
}

TEST(Chip, SameRunTwiceGivesIdenticalStats) {
  Fixture a, b;
  EXPECT_EQ(add_one_and_ring(a), add_one_and_ring(b));
}

// ChipOptions::memory_thread: warp loads and stores timed on a second host thread give the
// same stats as on one (loads, stores, DSMEM, cluster barriers), and a hang is still reported.
TEST(Chip, AMemoryThreadGivesTheSameStats) {
  Fixture one({.memory_timing = mem::MemoryTiming::kTransactions});
  Fixture two({.memory_timing = mem::MemoryTiming::kTransactions, .memory_thread = true});
  ASSERT_FALSE(one.chip->memory_system().has_worker());
  ASSERT_TRUE(two.chip->memory_system().has_worker());
  EXPECT_EQ(add_one_and_ring(one), add_one_and_ring(two));

  Fixture hang({.memory_timing = mem::MemoryTiming::kTransactions, .memory_thread = true});
  ASSERT_TRUE(hang.chip->launch(kHang, {.grid = {1, 1, 1}, .block = {64, 1, 1}}, {}).ok());
  hang.sim.run();
  EXPECT_FALSE(hang.chip->all_done());
  EXPECT_EQ(hang.chip->hang_report().size(), 2u);
}

TEST(Chip, AMemoryThreadNeedsTheTransactionTiming) {
  sim::Simulation sim(1);
  const auto chip = Chip::create(sim, h100(), {.memory_thread = true});
  ASSERT_FALSE(chip.ok());
  EXPECT_EQ(chip.error().message,
            "memory_thread: needs memory_timing transactions (events steps every request "
            "through the units in time order, on one thread)");
}

TEST(Chip, BadRasterizationKnobsAreNamedErrors) {
  sim::Simulation sim(1);
  EXPECT_EQ(Chip::create(sim, h100(), {.distributor = {.raster_delta_bits = 32}}).error().message,
            "distributor raster_delta_bits 32: must be 1 to 31");
  EXPECT_EQ(Chip::create(sim, h100(), {.distributor = {.bus_bytes_per_cycle = 0}}).error().message,
            "distributor: central_decode_cycles, id_bytes, bus_bytes_per_cycle and "
            "packets_per_cycle must be at least 1");
}

TEST(Chip, ACacheTooBigForTheHostIsRefusedBeforeAnythingIsAllocated) {
  // H100: 50 MiB of L2 in 128 B lines at 33 B a line (tags, sector bits, LRU, in-flight).
  config::ChipSpec spec = h100();
  const auto items = host_memory_items(spec);
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(items[0].key, "l2.size");
  EXPECT_EQ(items[0].bytes, (50u << 20) / 128 * 33);
  // A schema-valid 1 TiB L2 once aborted with bad_alloc (or swapped the host) at build time.
  spec.l2.size_bytes = std::uint64_t{1} << 40;
  sim::Simulation sim(1);
  const auto chip = Chip::create(sim, spec, {.host_memory_limit = std::uint64_t{16} << 30});
  ASSERT_FALSE(chip.ok());
  EXPECT_EQ(chip.error().message,
            "l2.size = 1 TiB: the L2's tags need 264.0 GiB of host memory (264.0 GiB for the "
            "chip's caches), more than the 16.0 GiB limit");
  EXPECT_TRUE(Chip::create(sim, h100(), {.host_memory_limit = 1 << 30}).ok());
}

}  // namespace
}  // namespace xpusim::system
