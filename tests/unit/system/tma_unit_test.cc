// The TMA unit's timing pipeline on a whole chip (tma/tma_unit.h, core/sm_tma.cc): loads land
// the golden model's bytes and complete their barrier by bytes, stores complete through bulk
// groups, the descriptor cache and its look-ahead, multicast reading global once, dropped
// requests in the hang report, a full queue, a shared unit, timing-only equality.
#include <gtest/gtest.h>

#include <filesystem>
#include <numeric>

#include "config/chip_spec.h"
#include "sim/simulation.h"
#include "system/chip.h"
#include "tma/copy_engine.h"
#include "tma/tensor_map_encode.h"
#include "tma/tensor_map_io.h"

namespace xpusim::system {
namespace {

using kernel::Addr;
using kernel::Lanes;
using kernel::Warp;

constexpr Addr kIn = 0x100000;     // 256 x 256 u32 source tensor
constexpr Addr kOut = 0x800000;    // same shape, the destination
constexpr Addr kMapIn = 0x40000;   // tensor-map blobs (128 B each)
constexpr Addr kMapIn2 = 0x40080;  // a second map over the same tensor
constexpr Addr kMapOut = 0x40100;
constexpr std::uint32_t kDim = 256;
constexpr std::uint32_t kBox = 32;  // 32 x 32 u32 = 4 KiB boxes
constexpr std::uint32_t kBoxBytes = kBox * kBox * 4;
constexpr std::uint32_t kSmem = 1024;  // box offset in shared memory (barriers below it)

config::ChipSpec tiny() {
  return config::load_chip_file(std::filesystem::path(XPUSIM_CONFIG_DIR) / "chips/tiny.yaml")
      .value();
}

tma::TensorMap map_over(Addr base, std::uint32_t box_x, std::uint32_t box_y) {
  return tma::encode_tiled({.data_type = tma::DataType::kUint32,
                            .rank = 2,
                            .global_address = base,
                            .global_dim = {kDim, kDim},
                            .global_strides = {kDim * 4},
                            .box_dim = {box_x, box_y},
                            .element_strides = {1, 1}})
      .value();
}

void write_map(Chip& chip, Addr at, const tma::TensorMap& m) {
  const tma::TensorMapBlob blob = tma::to_blob(m);
  ASSERT_TRUE(chip.memory().write(at, blob).ok());
}

// Warp 0, one lane: load box (x, y) of map 0 into shared memory, wait on its barrier, store it
// through map 2 at the same coordinates, wait for the store's group.
sim::Task<> roundtrip(Warp& w) {
  if (w.warp_id() != 0) co_return;
  const Addr in = w.args().get_u64(0), out = w.args().get_u64(1);
  const auto x = static_cast<std::int32_t>(w.args().get_u32(2) * kBox);
  const auto y = static_cast<std::int32_t>(w.args().get_u32(3) * kBox);
  co_await w.mbarrier_init(0, 1);
  co_await w.mbarrier_arrive_expect_tx(0, kBoxBytes);
  co_await w.tma_load_tile(in, {x, y}, kSmem, 0);
  co_await w.mbarrier_wait_parity(0, 0);
  co_await w.tma_store(out, {x, y}, kSmem);
  co_await w.tma_commit_group();
  co_await w.tma_wait_group(0);
}

const kernel::KernelDef kRoundtrip{.name = "tma_roundtrip",
                                   .description = "load a box, store it back elsewhere",
                                   .args = {{"in_map", kernel::ArgKind::kU64},
                                            {"out_map", kernel::ArgKind::kU64},
                                            {"bx", kernel::ArgKind::kU32},
                                            {"by", kernel::ArgKind::kU32}},
                                   .body = roundtrip,
                                   .static_shared_bytes = kSmem + kBoxBytes};

// `count` loads alternating between maps 0 and 1 onto one barrier expecting them all.
sim::Task<> alternate(Warp& w) {
  if (w.warp_id() != 0) co_return;
  const Addr a = w.args().get_u64(0), b = w.args().get_u64(1);
  const std::uint32_t count = w.args().get_u32(2), bytes = w.args().get_u32(3);
  co_await w.mbarrier_init(0, 1);
  co_await w.mbarrier_arrive_expect_tx(0, count * bytes);
  for (std::uint32_t i = 0; i < count; ++i) {
    co_await w.tma_load_tile(i % 2 == 0 ? a : b, {0, static_cast<std::int32_t>(i % 2 * 64)}, kSmem,
                             0);
  }
  co_await w.mbarrier_wait_parity(0, 0);
}

const kernel::KernelDef kAlternate{.name = "tma_alternate",
                                   .description = "loads alternating between two maps",
                                   .args = {{"a", kernel::ArgKind::kU64},
                                            {"b", kernel::ArgKind::kU64},
                                            {"count", kernel::ArgKind::kU32},
                                            {"bytes", kernel::ArgKind::kU32}},
                                   .body = alternate,
                                   .static_shared_bytes = kSmem + 64 * 1024};

// A cluster of 2: both ranks expect the box on their barrier; rank 0 loads it once with a
// multicast mask of both; each rank writes its copy to out + rank * box bytes (bulk store).
sim::Task<> multicast(Warp& w) {
  if (w.warp_id() != 0) co_return;
  const Addr in = w.args().get_u64(0), out = w.args().get_ptr(1);
  const std::uint16_t mask = static_cast<std::uint16_t>(w.args().get_u32(2));
  co_await w.mbarrier_init(0, 1);
  co_await w.mbarrier_arrive_expect_tx(0, kBoxBytes);
  co_await w.cluster_sync();
  if (w.cluster_rank() == 0) co_await w.tma_load_tile(in, {kBox, kBox}, kSmem, 0, mask);
  if (w.cluster_rank() == 1 && mask == 1) co_await w.tma_load_tile(in, {kBox, kBox}, kSmem, 0);
  co_await w.mbarrier_wait_parity(0, 0);
  co_await w.tma_bulk_store(kSmem, out + Addr{w.cluster_rank()} * kBoxBytes, kBoxBytes);
  co_await w.tma_commit_group();
  co_await w.tma_wait_group(0);
}

const kernel::KernelDef kMulticast{.name = "tma_multicast",
                                   .description = "one load multicast to a cluster of two",
                                   .args = {{"in_map", kernel::ArgKind::kU64},
                                            {"out", kernel::ArgKind::kPtr},
                                            {"mask", kernel::ArgKind::kU32}},
                                   .body = multicast,
                                   .static_shared_bytes = kSmem + kBoxBytes};

// A cluster of 2: rank 0 loads a box with `mask` (3: both ranks, 1: itself); every rank the
// mask names waits for it on its barrier. No other TMA operation: rank 0's unit times one.
sim::Task<> multicast_only(Warp& w) {
  if (w.warp_id() != 0) co_return;
  const Addr in = w.args().get_u64(0);
  const std::uint32_t mask = w.args().get_u32(1);
  co_await w.mbarrier_init(0, 1);
  co_await w.mbarrier_arrive_expect_tx(0, kBoxBytes);
  co_await w.cluster_sync();
  if (w.cluster_rank() == 0) {
    co_await w.tma_load_tile(in, {0, 0}, kSmem, 0, static_cast<std::uint16_t>(mask));
  }
  if ((mask >> w.cluster_rank() & 1) != 0) co_await w.mbarrier_wait_parity(0, 0);
}

const kernel::KernelDef kMulticastOnly{
    .name = "tma_multicast_only",
    .description = "one load, multicast or not, and nothing else",
    .args = {{"in_map", kernel::ArgKind::kU64}, {"mask", kernel::ArgKind::kU32}},
    .body = multicast_only,
    .static_shared_bytes = kSmem + kBoxBytes};

// A load with three coordinates on a 2-D map: dropped at setup; its barrier never completes.
sim::Task<> bad_load(Warp& w) {
  if (w.warp_id() != 0) co_return;
  co_await w.mbarrier_init(0, 1);
  co_await w.mbarrier_arrive_expect_tx(0, kBoxBytes);
  co_await w.tma_load_tile(w.args().get_u64(0), {0, 0, 0}, kSmem, 0);
  co_await w.mbarrier_wait_parity(0, 0);
}

const kernel::KernelDef kBadLoad{.name = "tma_bad_load",
                                 .description = "a load the TMA unit drops",
                                 .args = {{"in_map", kernel::ArgKind::kU64}},
                                 .body = bad_load,
                                 .static_shared_bytes = kSmem + kBoxBytes};

// `count` tile prefetches back to back (no completion to wait for).
sim::Task<> prefetches(Warp& w) {
  if (w.warp_id() != 0) co_return;
  for (std::uint32_t i = 0; i < w.args().get_u32(1); ++i) {
    co_await w.tma_prefetch(w.args().get_u64(0), {0, static_cast<std::int32_t>(i % 8 * kBox)});
  }
}

const kernel::KernelDef kPrefetches{
    .name = "tma_prefetches",
    .description = "many L2 prefetches",
    .args = {{"map", kernel::ArgKind::kU64}, {"count", kernel::ArgKind::kU32}},
    .body = prefetches,
    .static_shared_bytes = 0};

// An arrive on the barrier of rank 3 in a launch without clusters (a cluster of one).
sim::Task<> bad_remote_arrive(Warp& w) {
  if (w.warp_id() != 0) co_return;
  co_await w.mbarrier_init(0, 1);
  co_await w.mbarrier_arrive_cluster(3, 0);
}

const kernel::KernelDef kBadRemoteArrive{.name = "bad_remote_arrive",
                                         .description = "a remote arrive outside the cluster",
                                         .args = {},
                                         .body = bad_remote_arrive,
                                         .static_shared_bytes = 8};

struct Fixture {
  explicit Fixture(config::ChipSpec spec = tiny(), ChipOptions o = {})
      : chip(Chip::create(sim, spec, o).value()) {
    std::vector<std::uint32_t> in(kDim * kDim);
    std::iota(in.begin(), in.end(), 1u);
    EXPECT_TRUE(chip->memory().write(kIn, std::as_bytes(std::span(in))).ok());
    write_map(*chip, kMapIn, map_over(kIn, kBox, kBox));
    write_map(*chip, kMapOut, map_over(kOut, kBox, kBox));
  }
  double stat(const std::string& path) {
    auto s = sim.stats().find(path);
    EXPECT_TRUE(s.ok()) << path;
    return s.ok() ? (*s)->to_json()["value"].get<double>() : 0;
  }
  // A stat summed over every SM's TMA unit.
  double tma_sum(const std::string& name) {
    double total = 0;
    for (const std::string& p : sim.stats().paths()) {
      if (p.ends_with(".tma." + name)) total += stat(p);
    }
    return total;
  }
  std::uint32_t read_u32(Addr a) const {
    std::uint32_t v = 0;
    EXPECT_TRUE(chip->memory().read(a, std::as_writable_bytes(std::span(&v, 1))).ok());
    return v;
  }
  sim::Simulation sim{1};
  std::unique_ptr<Chip> chip;
};

const kernel::LaunchParams kOneWarp{.grid = {1, 1, 1}, .block = {32, 1, 1}};

TEST(TmaUnit, ALoadLandsTheGoldenBytesAndAStoreWritesThemBack) {
  Fixture f;
  auto id = f.chip->launch(kRoundtrip, kOneWarp,
                           kernel::KernelArgs().u64(kMapIn).u64(kMapOut).u32(2).u32(5));
  ASSERT_TRUE(id.ok()) << id.error().message;
  f.sim.run();
  ASSERT_FALSE(f.chip->fault()) << f.chip->fault()->message;
  ASSERT_TRUE(f.chip->run(*id).done);
  // Box (2, 5): elements x in [64, 96), y in [160, 192); nothing else written.
  for (std::uint32_t y = 0; y < kDim; y += 7) {
    for (std::uint32_t x = 0; x < kDim; x += 3) {
      const bool inside = x >= 64 && x < 96 && y >= 160 && y < 192;
      ASSERT_EQ(f.read_u32(kOut + (Addr{y} * kDim + x) * 4), inside ? y * kDim + x + 1 : 0u)
          << x << "," << y;
    }
  }
  EXPECT_EQ(f.tma_sum("requests"), 2);
  EXPECT_EQ(f.tma_sum("bytes_read"), kBoxBytes);
  EXPECT_EQ(f.tma_sum("bytes_written"), kBoxBytes);
  EXPECT_EQ(f.tma_sum("global_requests"), 2 * kBoxBytes / 128);
  // Each map's descriptor was fetched once: two misses.
  EXPECT_EQ(f.tma_sum("descriptor_misses"), 2);
  // The round trip takes at least a descriptor fetch and a data read from HBM.
  const auto cycles = f.chip->clock().cycle_at(f.chip->run(*id).completed);
  EXPECT_GT(cycles, 2 * f.chip->spec().hbm.latency_ps / 1000);
}

TEST(TmaUnit, TimingOnlyGivesTheSameTimingAndWritesNothing) {
  sim::Tick t[2];
  for (int mode = 0; mode < 2; ++mode) {
    Fixture f(tiny(), ChipOptions{.functional = mode == 0});
    auto id = f.chip->launch(kRoundtrip, kOneWarp,
                             kernel::KernelArgs().u64(kMapIn).u64(kMapOut).u32(1).u32(1));
    ASSERT_TRUE(id.ok());
    f.sim.run();
    ASSERT_TRUE(f.chip->run(*id).done);
    t[mode] = f.chip->run(*id).completed;
    if (mode == 1) {
      EXPECT_EQ(f.read_u32(kOut + (32 * kDim + 32) * 4), 0u);
    }
  }
  EXPECT_EQ(t[0], t[1]);
}

// Runs `count` alternating loads of 128 x 32 u32 boxes with a one-entry descriptor cache;
// returns the cycles the unit waited for descriptors and the descriptor hits.
std::pair<double, double> alternate_run(bool lookahead, std::uint32_t count) {
  config::ChipSpec spec = tiny();
  spec.tma.descriptor_cache_entries = 1;
  spec.tma.descriptor_lookahead = lookahead ? 1 : 0;
  Fixture f(spec);
  write_map(*f.chip, kMapIn2, map_over(kIn, kBox, 128));
  write_map(*f.chip, kMapIn, map_over(kIn, kBox, 128));
  auto id =
      f.chip->launch(kAlternate, kOneWarp,
                     kernel::KernelArgs().u64(kMapIn).u64(kMapIn2).u32(count).u32(kBox * 128 * 4));
  EXPECT_TRUE(id.ok());
  f.sim.run();
  EXPECT_TRUE(f.chip->run(*id).done);
  return {f.tma_sum("descriptor_wait_cycles"), f.tma_sum("descriptor_hits")};
}

// With the transaction-level memory timing a load's box is issued at once, each line timed
// whole (TmaUnit::issue_box). Alone on the chip it takes exactly as long as line by line.
TEST(TmaUnit, ABoxIssuedAtOnceTakesAsLongAsLineByLineWhenAlone) {
  sim::Tick t[2];
  double lines[2];
  for (int timing = 0; timing < 2; ++timing) {
    Fixture f(tiny(), ChipOptions{.memory_timing = timing == 0 ? mem::MemoryTiming::kEvents
                                                               : mem::MemoryTiming::kTransactions});
    auto id = f.chip->launch(kRoundtrip, kOneWarp,
                             kernel::KernelArgs().u64(kMapIn).u64(kMapOut).u32(1).u32(1));
    ASSERT_TRUE(id.ok());
    f.sim.run();
    ASSERT_FALSE(f.chip->fault()) << f.chip->fault()->message;
    ASSERT_TRUE(f.chip->run(*id).done);
    t[timing] = f.chip->run(*id).completed;
    lines[timing] = f.tma_sum("global_requests");
    EXPECT_EQ(f.read_u32(kOut + (32 * kDim + 32) * 4), 32 * kDim + 32 + 1) << timing;
  }
  EXPECT_EQ(t[0], t[1]);
  EXPECT_EQ(lines[0], lines[1]);
}

TEST(TmaUnit, LookAheadHidesTheDescriptorFetchWhenTwoDescriptorsAlternate) {
  constexpr std::uint32_t kCount = 8;
  const auto [off_wait, off_hits] = alternate_run(false, kCount);
  const auto [on_wait, on_hits] = alternate_run(true, kCount);
  // Without look-ahead a one-entry cache misses every time and the unit waits for each fetch
  // (an L2 hit, ~250 cycles, after the first two). With it only the first two miss (the
  // second was not queued yet when the first was taken): each next descriptor is fetched
  // while the current request is set up and streams.
  EXPECT_EQ(off_hits, 0);
  EXPECT_EQ(on_hits, kCount - 2);
  EXPECT_GT(off_wait, on_wait + (kCount - 2) * 200) << off_wait << " vs " << on_wait;
}

// The TMA tests that hold in both memory timings run in each.
class TmaBothTimings : public testing::TestWithParam<mem::MemoryTiming> {
 protected:
  ChipOptions options() const { return ChipOptions{.memory_timing = GetParam()}; }
};
INSTANTIATE_TEST_SUITE_P(TmaUnit, TmaBothTimings,
                         testing::Values(mem::MemoryTiming::kEvents,
                                         mem::MemoryTiming::kTransactions),
                         [](const testing::TestParamInfo<mem::MemoryTiming>& i) {
                           return std::string(mem::to_string(i.param));
                         });

TEST_P(TmaBothTimings, MulticastReadsGlobalOnceAndCreditsEveryReceiver) {
  for (const std::uint32_t mask : {3u, 1u}) {
    Fixture f(tiny(), options());
    const kernel::LaunchParams p{.grid = {2, 1, 1}, .cluster = {2, 1, 1}, .block = {32, 1, 1}};
    auto id = f.chip->launch(kMulticast, p, kernel::KernelArgs().u64(kMapIn).ptr(kOut).u32(mask));
    ASSERT_TRUE(id.ok()) << id.error().message;
    f.sim.run();
    ASSERT_FALSE(f.chip->fault()) << f.chip->fault()->message;
    ASSERT_TRUE(f.chip->run(*id).done) << mask;
    for (std::uint32_t rank = 0; rank < 2; ++rank) {
      for (std::uint32_t i = 0; i < kBox * kBox; i += 31) {
        const std::uint32_t want = (kBox + i / kBox) * kDim + kBox + i % kBox + 1;
        ASSERT_EQ(f.read_u32(kOut + rank * kBoxBytes + i * 4), want) << rank << " " << i;
      }
    }
    // Multicast: one read of the box, one copy over the SM-to-SM network; without it each
    // rank reads its own.
    EXPECT_EQ(f.tma_sum("bytes_read"), mask == 3 ? kBoxBytes : 2 * kBoxBytes);
    EXPECT_EQ(f.tma_sum("dsmem_bytes"), mask == 3 ? kBoxBytes : 0);
  }
}

// A multicast load ends (its latency sample, its CTA free to exit) only when the last copy's
// acknowledgement is back over the SM-to-SM network, one latency after that copy landed: at
// least two network latencies after the same load without multicast ends. The network's
// 32 B/cycle port sends the 32 lines of the box in 128 cycles, less than one latency here,
// so ending at the last landing instead would come out short of it.
TEST_P(TmaBothTimings, AMulticastLoadEndsWhenItsLastAcknowledgementIsBack) {
  config::ChipSpec spec = tiny();
  spec.dsmem.latency_cycles = 600;
  double latency[2] = {0, 0};
  for (const std::uint32_t mask : {1u, 3u}) {
    Fixture f(spec, options());
    const kernel::LaunchParams p{.grid = {2, 1, 1}, .cluster = {2, 1, 1}, .block = {32, 1, 1}};
    auto id = f.chip->launch(kMulticastOnly, p, kernel::KernelArgs().u64(kMapIn).u32(mask));
    ASSERT_TRUE(id.ok()) << id.error().message;
    f.sim.run();
    ASSERT_FALSE(f.chip->fault()) << f.chip->fault()->message;
    ASSERT_TRUE(f.chip->run(*id).done) << mask;
    int units = 0;
    for (const std::string& path : f.sim.stats().paths()) {
      if (!path.ends_with(".tma.latency")) continue;
      const nlohmann::json j = (*f.sim.stats().find(path))->to_json();
      if (j["value"].get<double>() == 0) continue;
      ++units;
      EXPECT_EQ(j["value"].get<double>(), 1) << path;
      latency[mask == 3] = j["mean"].get<double>();
    }
    EXPECT_EQ(units, 1) << mask;
  }
  EXPECT_GE(latency[1], latency[0] + 2 * 600) << latency[0] << " " << latency[1];
}

TEST(TmaUnit, ADroppedRequestIsNamedInTheHangReport) {
  Fixture f;
  auto id = f.chip->launch(kBadLoad, kOneWarp, kernel::KernelArgs().u64(kMapIn));
  ASSERT_TRUE(id.ok());
  f.sim.run();
  EXPECT_FALSE(f.chip->run(*id).done);
  ASSERT_EQ(f.chip->tma_errors().size(), 1u);
  EXPECT_NE(f.chip->tma_errors()[0].find("TMA request dropped: tma.load_tile"), std::string::npos)
      << f.chip->tma_errors()[0];
  const auto report = f.chip->hang_report();
  ASSERT_EQ(report.size(), 2u);
  EXPECT_NE(report[0].find("mbarrier at 0x0 waiting for parity 0"), std::string::npos) << report[0];
  EXPECT_NE(report[1].find("coordinate"), std::string::npos) << report[1];
  EXPECT_EQ(f.tma_sum("dropped"), 1);
}

TEST(TmaUnit, ARemoteArriveOutsideTheClusterIsAFaultNamingTheRank) {
  Fixture f;
  ASSERT_TRUE(f.chip->launch(kBadRemoteArrive, kOneWarp, kernel::KernelArgs()).ok());
  f.sim.run();
  ASSERT_TRUE(f.chip->fault());
  EXPECT_NE(f.chip->fault()->message.find(
                "warp 0: remote mbarrier arrive: rank 3 is not a running CTA of the cluster of 1"),
            std::string::npos)
      << f.chip->fault()->message;
}

TEST(TmaUnit, AFullQueueHoldsTheWarpUntilThereIsRoom) {
  config::ChipSpec spec = tiny();
  spec.tma.queue_depth = 1;
  Fixture f(spec);
  auto id = f.chip->launch(kPrefetches, kOneWarp, kernel::KernelArgs().u64(kMapIn).u32(12));
  ASSERT_TRUE(id.ok());
  f.sim.run();
  ASSERT_TRUE(f.chip->run(*id).done);
  EXPECT_GT(f.tma_sum("queue_full"), 0);
  EXPECT_EQ(f.tma_sum("requests"), 12);
  EXPECT_EQ(f.tma_sum("global_requests"), 12 * kBoxBytes / 128);
}

TEST(TmaUnit, SeveralSmsCanShareOneUnit) {
  config::ChipSpec spec = tiny();
  spec.tma.sms_per_unit = 2;
  Fixture f(spec);
  std::size_t units = 0;
  for (const std::string& p : f.sim.stats().paths())
    units += p.ends_with(".tma.requests") ? 1 : 0;
  EXPECT_EQ(units, f.chip->num_sms() / 2);
  const kernel::LaunchParams p{.grid = {8, 1, 1}, .block = {32, 1, 1}};
  // Every CTA copies box (2, 5).
  auto id =
      f.chip->launch(kRoundtrip, p, kernel::KernelArgs().u64(kMapIn).u64(kMapOut).u32(2).u32(5));
  ASSERT_TRUE(id.ok());
  f.sim.run();
  ASSERT_TRUE(f.chip->run(*id).done);
  EXPECT_EQ(f.tma_sum("requests"), 16);
  EXPECT_EQ(f.read_u32(kOut + (160 * kDim + 64) * 4), 160 * kDim + 64 + 1);
}

// A descriptor rewritten in memory while the unit holds it (seed0 ¶73: built on the GPU at run
// time): load box (0, 0) through the map at `slot`, copy the 128 bytes at `from` over it with
// ordinary stores, invalidate it (`invalidate` != 0), load box (0, 0) again and write it out.
sim::Task<> rewrite(Warp& w) {
  if (w.warp_id() != 0) co_return;
  const Addr slot = w.args().get_u64(0), from = w.args().get_u64(1), out = w.args().get_ptr(3);
  co_await w.mbarrier_init(0, 1);
  co_await w.mbarrier_arrive_expect_tx(0, kBoxBytes);
  co_await w.tma_load_tile(slot, {0, 0}, kSmem, 0);
  co_await w.mbarrier_wait_parity(0, 0);
  const Lanes<std::uint64_t> ids = kernel::lanes<std::uint64_t>([](std::uint32_t l) { return l; });
  const Lanes<std::uint32_t> blob =
      co_await w.load_global<std::uint32_t>(Warp::lane_addresses(from, 4, ids));
  co_await w.store_global<std::uint32_t>(Warp::lane_addresses(slot, 4, ids), blob);
  if (w.args().get_u32(2) != 0) co_await w.tma_invalidate_descriptor(slot);
  co_await w.mbarrier_arrive_expect_tx(0, kBoxBytes);
  co_await w.tma_load_tile(slot, {0, 0}, kSmem, 0);
  co_await w.mbarrier_wait_parity(0, 1);
  co_await w.tma_bulk_store(kSmem, out, kBoxBytes);
  co_await w.tma_commit_group();
  co_await w.tma_wait_group(0);
}

const kernel::KernelDef kRewrite{.name = "tma_rewrite",
                                 .description = "a tensor map rewritten between two loads",
                                 .args = {{"slot", kernel::ArgKind::kU64},
                                          {"from", kernel::ArgKind::kU64},
                                          {"invalidate", kernel::ArgKind::kU32},
                                          {"out", kernel::ArgKind::kPtr}},
                                 .body = rewrite,
                                 .static_shared_bytes = kSmem + kBoxBytes};

// The second load reads through the new map whether or not the kernel invalidated it: with the
// invalidate the entry is gone (a miss); without, the hit finds the bytes changed and fetches
// again (counted stale). Rewriting the same bytes is still a hit.
TEST(TmaUnit, ARewrittenDescriptorIsNeverUsedStale) {
  constexpr Addr kSlot = 0x40200, kNewMap = 0x40280;
  const Addr shifted = kIn + Addr{kBox} * kDim * 4;  // the same tensor, 32 rows down
  for (const int variant : {0, 1, 2}) {  // 0: invalidate, 1: no invalidate, 2: same bytes
    Fixture f;
    write_map(*f.chip, kSlot, map_over(kIn, kBox, kBox));
    write_map(*f.chip, kNewMap, map_over(variant == 2 ? kIn : shifted, kBox, kBox));
    auto id = f.chip->launch(
        kRewrite, kOneWarp,
        kernel::KernelArgs().u64(kSlot).u64(kNewMap).u32(variant == 0 ? 1 : 0).ptr(kOut));
    ASSERT_TRUE(id.ok()) << id.error().message;
    f.sim.run();
    ASSERT_FALSE(f.chip->fault()) << f.chip->fault()->message;
    ASSERT_TRUE(f.chip->run(*id).done);
    const std::uint32_t row0 = variant == 2 ? 0 : kBox;  // the box's first tensor row
    for (std::uint32_t i = 0; i < kBox * kBox; i += 37) {
      ASSERT_EQ(f.read_u32(kOut + Addr{i} * 4), (row0 + i / kBox) * kDim + i % kBox + 1)
          << "variant " << variant << " element " << i;
    }
    EXPECT_EQ(f.tma_sum("descriptor_invalidations"), variant == 0 ? 1 : 0) << variant;
    EXPECT_EQ(f.tma_sum("descriptor_stale"), variant == 1 ? 1 : 0) << variant;
    EXPECT_EQ(f.tma_sum("descriptor_misses"), variant == 2 ? 1 : 2) << variant;
    EXPECT_EQ(f.tma_sum("descriptor_hits"), variant == 2 ? 1 : 0) << variant;
  }
}

// Bulk reductions and the global-to-global copy (seed0 ¶48, ¶159): warp 0 of each CTA.
//   mode 0: bulk-load 512 B of the source tensor into shared memory, then add them (u32) into
//           `out` with cp.reduce.async.bulk.global;
//   mode 1: copy 4 KiB + 48 B of global memory from in + 16 to out (the TMA's global -> global);
//   mode 2 (a cluster of 2): each rank loads 512 B (rank r from in + r * 512); rank 0 adds
//           its block into rank 1's (shared::cluster), which writes the sum to `out`.
constexpr std::uint32_t kRedBytes = 512;
constexpr std::uint32_t kCopyBytes = 4096 + 48;

sim::Task<> bulk_ops(Warp& w) {
  if (w.warp_id() != 0) co_return;
  const Addr out = w.args().get_ptr(0);
  const std::uint32_t mode = w.args().get_u32(1);
  if (mode == 1) {
    co_await w.tma_bulk_copy_global(kIn + 16, out, kCopyBytes);
  } else {
    co_await w.mbarrier_init(0, 1);
    co_await w.mbarrier_init(8, 1);
    co_await w.mbarrier_arrive_expect_tx(8, kRedBytes);
    co_await w.tma_bulk_load(kIn + Addr{w.cluster_rank()} * kRedBytes, kRedBytes, kSmem, 8);
    co_await w.mbarrier_wait_parity(8, 0);
    if (mode == 0) {
      co_await w.tma_bulk_reduce(kSmem, out, kRedBytes, kernel::TmaReduce::kAdd,
                                 kernel::TmaElement::kU32);
    } else {
      if (w.cluster_rank() == 1) co_await w.mbarrier_arrive_expect_tx(0, kRedBytes);
      co_await w.cluster_sync();
      if (w.cluster_rank() == 0) {
        co_await w.tma_bulk_reduce_to_cluster(kSmem, 1, kSmem, 0, kRedBytes,
                                              kernel::TmaReduce::kAdd, kernel::TmaElement::kU32);
      } else {
        co_await w.mbarrier_wait_parity(0, 0);
        co_await w.tma_bulk_store(kSmem, out, kRedBytes);
      }
    }
  }
  co_await w.tma_commit_group();
  co_await w.tma_wait_group(0);
}

const kernel::KernelDef kBulkOps{
    .name = "tma_bulk_ops",
    .description = "bulk reductions and a global-to-global copy",
    .args = {{"out", kernel::ArgKind::kPtr}, {"mode", kernel::ArgKind::kU32}},
    .body = bulk_ops,
    .static_shared_bytes = kSmem + kRedBytes};

TEST(TmaUnit, BulkReductionsAndTheGlobalCopyMoveTheGoldenBytes) {
  for (const std::uint32_t mode : {0u, 1u, 2u}) {
    Fixture f;
    std::vector<std::uint32_t> old(kRedBytes / 4, 1000);
    if (mode == 0) {
      ASSERT_TRUE(f.chip->memory().write(kOut, std::as_bytes(std::span(old))).ok());
    }
    const kernel::LaunchParams p =
        mode == 2
            ? kernel::LaunchParams{.grid = {2, 1, 1}, .cluster = {2, 1, 1}, .block = {32, 1, 1}}
            : kOneWarp;
    auto id = f.chip->launch(kBulkOps, p, kernel::KernelArgs().ptr(kOut).u32(mode));
    ASSERT_TRUE(id.ok()) << id.error().message;
    f.sim.run();
    ASSERT_FALSE(f.chip->fault()) << f.chip->fault()->message;
    ASSERT_TRUE(f.chip->run(*id).done) << mode;
    // The source tensor holds i + 1 at element i.
    const std::uint32_t n = mode == 1 ? kCopyBytes / 4 : kRedBytes / 4;
    for (std::uint32_t i = 0; i < n; ++i) {
      const std::uint32_t want = mode == 0   ? 1000 + i + 1
                                 : mode == 1 ? i + 4 + 1  // from in + 16 B
                                             : (i + 1) + (n + i + 1);
      ASSERT_EQ(f.read_u32(kOut + Addr{i} * 4), want) << "mode " << mode << " element " << i;
    }
    if (mode == 1) {
      // Reads and writes of 4 KiB + 48 B: 33 lines each ([16, 4160) from a line start).
      EXPECT_EQ(f.tma_sum("bytes_read"), kCopyBytes);
      EXPECT_EQ(f.tma_sum("bytes_written"), kCopyBytes);
      EXPECT_EQ(f.tma_sum("global_requests"), 33 + 33);
      // Each write waits for a read: the copy takes at least a read's and a write's latency.
      const auto cycles = f.chip->clock().cycle_at(f.chip->run(*id).completed);
      EXPECT_GT(cycles, 2 * f.chip->spec().hbm.latency_ps / 1000);
    }
    if (mode == 0) {
      EXPECT_EQ(f.tma_sum("bytes_written"), kRedBytes);
    }
    if (mode == 2) {
      EXPECT_EQ(f.tma_sum("dsmem_bytes"), kRedBytes);
    }
  }
}

// Tensor and non-tensor requests mixed (seed0 ¶85-86): warp 0 issues 8 tile loads, each
// through its own tensor map (a one-entry descriptor cache without look-ahead: every one
// misses), each followed by a 1 KiB bulk load. out[0] = cycles until the bulk loads are all
// in, out[1] = until the tile loads are.
constexpr std::uint32_t kMixed = 8;
constexpr Addr kMixedMaps = 0x60000;                 // 8 maps, 128 B apart
constexpr std::uint32_t kMixedBytes = kBox * 8 * 4;  // a 32 x 8 u32 box = 1 KiB

sim::Task<> mixed(Warp& w) {
  if (w.warp_id() != 0) co_return;
  co_await w.mbarrier_init(0, 1);
  co_await w.mbarrier_init(8, 1);
  co_await w.mbarrier_arrive_expect_tx(0, kMixed * kMixedBytes);
  co_await w.mbarrier_arrive_expect_tx(8, kMixed * kMixedBytes);
  const std::uint64_t t0 = co_await w.clock();
  for (std::uint32_t i = 0; i < kMixed; ++i) {
    co_await w.tma_load_tile(kMixedMaps + Addr{i} * 128, {0, static_cast<std::int32_t>(8 * i)},
                             kSmem, 0);
    co_await w.tma_bulk_load(kIn + Addr{i} * 4096, kMixedBytes, kSmem + kMixedBytes, 8);
  }
  co_await w.mbarrier_wait_parity(8, 0);
  const std::uint64_t bulk = co_await w.clock() - t0;
  co_await w.mbarrier_wait_parity(0, 0);
  const std::uint64_t tiles = co_await w.clock() - t0;
  const Addr out = w.args().get_ptr(0);
  co_await w.store_global<std::uint64_t>(
      kernel::lanes<Addr>([&](std::uint32_t l) { return out + 8 * (l % 2); }),
      kernel::lanes<std::uint64_t>([&](std::uint32_t l) { return l % 2 == 0 ? bulk : tiles; }),
      0b11);
}

const kernel::KernelDef kMixedKernel{.name = "tma_mixed",
                                     .description = "tile loads that miss, bulk loads between",
                                     .args = {{"out", kernel::ArgKind::kPtr}},
                                     .body = mixed,
                                     .static_shared_bytes = kSmem + 2 * kMixedBytes};

// {bulk loads done, tile loads done} in cycles, with one queue or split queues.
std::pair<std::uint64_t, std::uint64_t> mixed_run(bool split) {
  config::ChipSpec spec = tiny();
  spec.tma.descriptor_cache_entries = 1;
  spec.tma.descriptor_lookahead = 0;
  spec.tma.split_queues = split ? 1 : 0;
  Fixture f(spec);
  for (std::uint32_t i = 0; i < kMixed; ++i)
    write_map(*f.chip, kMixedMaps + Addr{i} * 128, map_over(kIn, kBox, 8));
  auto id = f.chip->launch(kMixedKernel, kOneWarp, kernel::KernelArgs().ptr(kOut));
  EXPECT_TRUE(id.ok());
  f.sim.run();
  EXPECT_FALSE(f.chip->fault()) << f.chip->fault()->message;
  EXPECT_TRUE(f.chip->run(*id).done);
  std::uint64_t v[2] = {};
  EXPECT_TRUE(f.chip->memory().read(kOut, std::as_writable_bytes(std::span(v))).ok());
  return {v[0], v[1]};
}

TEST(TmaUnit, SplitQueuesLetBulkRequestsPassADescriptorFetch) {
  const auto [one_bulk, one_tiles] = mixed_run(false);
  const auto [split_bulk, split_tiles] = mixed_run(true);
  // One FIFO: bulk load i waits behind tile load i's descriptor fetch, so the bulk loads end
  // with the tiles. Split: they pass the waiting tile load and are in after about one memory
  // latency; the tile loads, still one descriptor fetch after another, take as long as before.
  EXPECT_GT(one_bulk, 3 * split_bulk);
  EXPECT_LE(split_tiles, one_tiles * 105 / 100);
  EXPECT_GE(split_tiles, one_tiles * 95 / 100);
}

}  // namespace
}  // namespace xpusim::system
