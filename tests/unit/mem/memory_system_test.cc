// The memory hierarchy's timing and policies on a small chip at 1 GHz (1 cycle = 1000 ps):
// 2 GPCs x 4 SMs, 4 L2 slices in 2 partitions, 8 HBM channels. Expected times are computed
// from the parameters, never typed in.
#include "mem/memory_system.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <vector>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "sim/component.h"
#include "sim/simulation.h"
#include "small_chip.h"

namespace xpusim::mem {
namespace {

constexpr sim::Tick kCycle = 1000;  // ps at 1 GHz

// One L2 slice of `ways` x `sets` lines (and one partition), for the replacement rules.
MemoryParams one_slice(MemoryTiming timing, std::uint32_t ways, std::uint32_t sets,
                       std::uint32_t mshrs) {
  MemoryParams p = small_chip(timing);
  p.map.l2_slices = 1;
  p.map.l2_partitions = 1;
  p.l2 = L2Params{.size_bytes = std::uint64_t{ways} * sets * 128,
                  .slices = 1,
                  .ways = ways,
                  .hit_latency_cycles = 80,
                  .mshrs_per_slice = mshrs};
  return p;
}

// One simulation with one memory system; requests record their completion ticks.
struct Rig {
  explicit Rig(const MemoryParams& p) : top(sim, "chip0"), mem(top, p) {}

  // Issues a load at the current tick; the returned slot holds its completion tick.
  std::size_t load(std::uint32_t sm, Addr addr, std::uint32_t bytes, bool cache_l1 = true) {
    const std::size_t id = done.size();
    done.push_back(sim::kMaxTick);
    mem.load(
        MemRequest{.addr = addr, .bytes = bytes, .write = false, .sm = sm, .sector_mask = 0},
        [this, id] { done[id] = sim.now(); }, cache_l1);
    return id;
  }
  std::size_t store(std::uint32_t sm, Addr addr, std::uint32_t bytes) {
    const std::size_t id = done.size();
    done.push_back(sim::kMaxTick);
    mem.store(MemRequest{.addr = addr, .bytes = bytes, .write = true, .sm = sm, .sector_mask = 0},
              [this, id] { done[id] = sim.now(); });
    return id;
  }
  // Runs until idle; returns how long the given request took from `from`.
  sim::Tick run() {
    sim.run();
    mem.settle();  // as the chip does when a kernel ends
    return sim.now();
  }
  double stat(const std::string& path) {
    auto s = sim.stats().find(path);
    EXPECT_TRUE(s.ok()) << path;
    return s.ok() ? (*s)->to_json()["value"].get<double>() : -1;
  }

  sim::Simulation sim{1};
  sim::Component top;
  MemorySystem mem;
  std::vector<sim::Tick> done;
};

// Address of a line in `slice` whose slice is in the SM's near partition or not.
Addr line_in_slice(const MemorySystem& mem, std::uint32_t slice, std::uint64_t nth = 0) {
  for (std::uint64_t line = 0;; ++line) {
    if (mem.address_map().slice_of_line(line) == slice && nth-- == 0) return line * 128;
  }
}

// The hierarchy's rules hold in both timings (MemoryTiming): every test below runs twice.
class BothTimings : public testing::TestWithParam<MemoryTiming> {};
INSTANTIATE_TEST_SUITE_P(MemorySystem, BothTimings,
                         testing::Values(MemoryTiming::kEvents, MemoryTiming::kTransactions),
                         [](const testing::TestParamInfo<MemoryTiming>& i) {
                           return std::string(to_string(i.param));
                         });

TEST_P(BothTimings, L1HitAfterMissTakesTheHitLatency) {
  Rig r(small_chip(GetParam()));
  const auto a = r.load(0, 0x1000, 4);
  r.run();
  const sim::Tick t0 = r.sim.now();
  const auto b = r.load(0, 0x1004, 4);  // same sector
  r.run();
  EXPECT_GT(r.done[a], 32 * kCycle) << "the first load went to L2";
  EXPECT_EQ(r.done[b] - t0, 32 * kCycle);
  EXPECT_EQ(r.stat("chip0.mem.l1.sm0.load_hits"), 1);
  EXPECT_EQ(r.stat("chip0.mem.l1.sm0.load_misses"), 1);
  // Another sector of the same line is a (sector) miss: the line's other sectors were not fetched.
  r.load(0, 0x1040, 4);
  r.run();
  EXPECT_EQ(r.stat("chip0.mem.l1.sm0.load_misses"), 2);
}

TEST_P(BothTimings, L1EvictsInLruOrderWhenASetOverflows) {
  Rig r(small_chip(GetParam()));  // L1: 2 sets x 4 ways; even lines share set 0
  for (Addr line : {0, 2, 4, 6}) {
    r.load(0, line * 128, 4);
    r.run();
  }
  r.load(0, 0 * 128, 4);  // line 0 becomes most recent; line 2 is now the LRU
  r.run();
  r.load(0, 8 * 128, 4);  // ways + 1: evicts line 2
  r.run();
  L1Cache& l1 = r.mem.l1(0);
  EXPECT_TRUE(l1.contains(0, 1));
  EXPECT_FALSE(l1.contains(2, 1));
  for (std::uint64_t line : {4, 6, 8})
    EXPECT_TRUE(l1.contains(line, 1)) << line;
  EXPECT_EQ(r.stat("chip0.mem.l1.sm0.evictions"), 1);
  r.load(0, 10 * 128, 4);  // next victim: line 4
  r.run();
  EXPECT_FALSE(l1.contains(4, 1));
  EXPECT_TRUE(l1.contains(0, 1));
}

TEST_P(BothTimings, StoresWriteThroughWithoutAllocatingInL1) {
  Rig r(small_chip(GetParam()));
  const auto s = r.store(0, 0x2000, 4);
  r.run();
  EXPECT_NE(r.done[s], sim::kMaxTick) << "the store was acknowledged";
  EXPECT_FALSE(r.mem.l1(0).contains(0x2000 / 128, 1)) << "no-allocate";
  EXPECT_EQ(r.stat("chip0.mem.l1.sm0.store_misses"), 1);
  EXPECT_EQ(r.stat("chip0.mem.l2.writes"), 1);
  // The load misses L1 but hits the sector the store left valid in L2: no HBM read.
  r.load(0, 0x2000, 4);
  r.run();
  EXPECT_EQ(r.stat("chip0.mem.l1.sm0.load_misses"), 1);
  EXPECT_EQ(r.stat("chip0.mem.l2.hits"), 1);
  EXPECT_EQ(r.stat("chip0.mem.l2.hbm_read_sectors"), 0);
  // Now resident in L1: a store to it updates L1 and still goes to L2 (write-through).
  r.store(0, 0x2000, 4);
  r.run();
  EXPECT_EQ(r.stat("chip0.mem.l1.sm0.store_hits"), 1);
  EXPECT_EQ(r.stat("chip0.mem.l2.writes"), 2);
}

TEST_P(BothTimings, L2MergesASecondMissToAnInFlightSector) {
  Rig r(small_chip(GetParam()));
  const auto a = r.load(0, 0x3000, 4);
  const auto b = r.load(1, 0x3010, 4);  // same sector, another SM of the same GPC
  r.run();
  EXPECT_EQ(r.stat("chip0.mem.l2.misses"), 1);
  EXPECT_EQ(r.stat("chip0.mem.l2.merged_misses"), 1);
  EXPECT_EQ(r.stat("chip0.mem.l2.hbm_read_sectors"), 1) << "one HBM read for both";
  double hbm_reads = 0;
  for (std::size_t c = 0; c < r.mem.hbm().channels(); ++c)
    hbm_reads += r.stat("chip0.mem.hbm.ch" + std::to_string(c) + ".reads");
  EXPECT_EQ(hbm_reads, 1);
  ASSERT_NE(r.done[a], sim::kMaxTick);
  ASSERT_NE(r.done[b], sim::kMaxTick);
  // Both wait for the fill: far beyond an L2 hit, and within a port slot of each other.
  const sim::Tick hbm = 150 * sim::kNanosecond;
  EXPECT_GT(r.done[a], hbm);
  EXPECT_GT(r.done[b], hbm);
  EXPECT_LE(r.done[b] - r.done[a], 2 * kCycle);
}

TEST_P(BothTimings, MshrFullBackPressureDelaysButNeverDrops) {
  MemoryParams p = small_chip(GetParam());
  p.map.l2_slices = 1;
  p.map.l2_partitions = 1;
  p.l2.slices = 1;
  p.l2.mshrs_per_slice = 2;
  Rig r(p);
  std::vector<std::size_t> ids;
  for (Addr i = 0; i < 6; ++i)
    ids.push_back(r.load(0, 0x10000 + i * 4096, 4));
  r.run();
  for (std::size_t id : ids)
    ASSERT_NE(r.done[id], sim::kMaxTick) << "request " << id << " was lost";
  EXPECT_EQ(r.stat("chip0.mem.l2.misses"), 6);
  EXPECT_EQ(r.stat("chip0.mem.l2.mshr_full_stalls"), 4);
  EXPECT_EQ(r.stat("chip0.mem.l2.slice0.mshr_peak"), 2);
  // The two that got MSHRs finish before any of the four that waited for one.
  const sim::Tick first_two = std::max(r.done[ids[0]], r.done[ids[1]]);
  for (std::size_t i = 2; i < ids.size(); ++i)
    EXPECT_GT(r.done[ids[i]], first_two) << i;
  EXPECT_GT(r.done[ids[4]], std::max(r.done[ids[2]], r.done[ids[3]]));
}

TEST_P(BothTimings, DirtyLinesAreWrittenBackOnEviction) {
  Rig r(one_slice(GetParam(), /*ways=*/2, /*sets=*/1, /*mshrs=*/4));
  r.store(0, 0x0000, 64);  // line A, sectors 0-1 dirty
  r.run();
  r.store(0, 0x1000, 4);  // line B, sector 0 dirty
  r.run();
  r.load(0, 0x2000, 4);  // line C fills: evicts A (the LRU)
  r.run();
  EXPECT_EQ(r.stat("chip0.mem.l2.evictions"), 1);
  EXPECT_EQ(r.stat("chip0.mem.l2.writebacks"), 1);
  EXPECT_EQ(r.stat("chip0.mem.l2.slice0.writeback_sectors"), 2);
  double hbm_writes = 0;
  for (std::size_t c = 0; c < r.mem.hbm().channels(); ++c)
    hbm_writes += r.stat("chip0.mem.hbm.ch" + std::to_string(c) + ".write_bytes");
  EXPECT_EQ(hbm_writes, 64);
}

// A dirty victim holds one of its slice's write-back buffers until its HBM write is done;
// with every buffer held, the write that evicts is acknowledged when the first frees. One
// one-line slice: B evicts A, then C evicts B while A's write-back (128 B at 1 B/ns after
// 1000 ns of latency, from B's arrival) is still in flight.
TEST_P(BothTimings, AWriteWaitsForAWriteBackBufferWhenAllAreHeld) {
  struct Acks {
    sim::Tick b = 0, c = 0;
    double stalls = 0;
  };
  const auto run = [&](std::uint32_t buffers) {
    MemoryParams p = one_slice(GetParam(), /*ways=*/1, /*sets=*/1, /*mshrs=*/4);
    p.l2.writeback_buffers_per_slice = buffers;
    p.hbm = HbmParams{.channels = 8,
                      .bandwidth_bytes_per_s = 8'000'000'000,  // 1 B/ns a channel
                      .latency = 1000 * sim::kNanosecond};
    Rig r(p);
    r.store(0, 0x0000, 128);  // A, dirty
    r.run();
    Acks a;
    const sim::Tick t_b = r.sim.now();
    const std::size_t b = r.store(0, 0x1000, 128);  // evicts A: its write-back starts
    r.run();
    a.b = r.done[b] - t_b;
    const sim::Tick t_c = r.sim.now();
    const std::size_t c = r.store(0, 0x2000, 128);  // evicts B: needs a second buffer
    r.run();
    a.c = r.done[c] - t_c;
    a.stalls = r.stat("chip0.mem.l2.writeback_full_stalls");
    return a;
  };
  const Acks unbounded = run(0), two = run(2), one = run(1);
  EXPECT_EQ(two.b, unbounded.b);
  EXPECT_EQ(two.c, unbounded.c);
  EXPECT_EQ(two.stalls, 0);
  EXPECT_EQ(one.b, unbounded.b);  // A's eviction found the buffer free
  EXPECT_EQ(one.stalls, 1);
  // C reaches the slice as long after B as it was issued after B (B's acknowledgement), and
  // waits there until A's write-back is done, 1128 ns after B's arrival.
  ASSERT_LT(unbounded.b, 1128 * sim::kNanosecond);
  EXPECT_EQ(one.c, unbounded.c + 1128 * sim::kNanosecond - unbounded.b);
}

// A missing line takes its way when its data arrives, not at the miss: until then the line
// that will be its victim can still hit, and being hit makes another line the victim.
TEST_P(BothTimings, AMissEvictsItsVictimAtTheFillNotAtTheMiss) {
  Rig r(one_slice(GetParam(), /*ways=*/2, /*sets=*/1, /*mshrs=*/4));
  const Addr a = 0x0000, b = 0x1000, c = 0x2000;
  r.load(0, a, 4, /*cache_l1=*/false);
  r.run();
  r.load(0, b, 4, false);
  r.run();  // the set holds A (least recently used) and B
  const sim::Tick t0 = r.sim.now();
  const std::size_t load_c = r.load(0, c, 4, false);
  // 100 cycles on, C's read is in HBM: A reaches the slice 70 cycles later, before C's fill.
  r.sim.run(t0 + 100 * kCycle);
  ASSERT_EQ(r.done[load_c], sim::kMaxTick) << "C must still be in flight";
  const std::size_t hit_a = r.load(0, a, 4, false);
  r.run();
  EXPECT_LT(r.done[hit_a], r.done[load_c]) << "A hits while C is in flight";
  EXPECT_EQ(r.stat("chip0.mem.l2.hits"), 1);
  EXPECT_EQ(r.stat("chip0.mem.l2.misses"), 3);
  EXPECT_EQ(r.stat("chip0.mem.l2.evictions"), 1);
  // C's fill evicted B, the least recently used by then; A stayed.
  r.load(0, a, 4, false);
  r.run();
  EXPECT_EQ(r.stat("chip0.mem.l2.hits"), 2);
  r.load(0, b, 4, false);
  r.run();
  EXPECT_EQ(r.stat("chip0.mem.l2.misses"), 4);
}

// One way, one MSHR: a read of a resident line's missing sector waits for the MSHR, whose
// fill evicts that line; the read then misses the whole line.
TEST_P(BothTimings, AReadBehindFullMshrsRefetchesALineEvictedMeanwhile) {
  Rig r(one_slice(GetParam(), /*ways=*/1, /*sets=*/1, /*mshrs=*/1));
  const Addr a = 0x0000, b = 0x1000;
  r.load(0, a, 4, /*cache_l1=*/false);  // A's sector 0
  r.run();
  const std::size_t load_b = r.load(0, b, 4, false);   // takes the MSHR
  const std::size_t load_a = r.load(0, a, 64, false);  // A's sectors 0-1: sector 1 missing
  r.run();
  EXPECT_GT(r.done[load_a], r.done[load_b]);
  EXPECT_EQ(r.stat("chip0.mem.l2.slice0.hbm_read_sectors"), 1 + 1 + 2);
  EXPECT_EQ(r.stat("chip0.mem.l2.evictions"), 2);  // A by B, then B by A
}

TEST_P(BothTimings, FarPartitionAddsExactlyTheCrossPartitionPenalty) {
  const MemoryParams p = small_chip(GetParam());
  Rig r(p);
  const Addr addr = line_in_slice(r.mem, 0);  // partition 0: near GPC 0 (SM 0), far for SM 4
  ASSERT_EQ(r.mem.crossbar().near_partition(0), 0u);
  ASSERT_EQ(r.mem.crossbar().near_partition(4), 1u);
  r.load(0, addr, 4, false);  // warm the L2
  r.run();
  const auto timed = [&](std::uint32_t sm) {
    const sim::Tick t0 = r.sim.now();
    const auto id = r.load(sm, addr, 4, /*cache_l1=*/false);
    r.run();
    return r.done[id] - t0;
  };
  const sim::Tick near = timed(0);
  const sim::Tick far = timed(4);
  EXPECT_EQ(far - near, p.crossbar.cross_partition_cycles * kCycle);
  // The near L2 hit is the sum of its stages: L1 lookup, request (1 cycle + wire), slice
  // pipeline, response (one 32 B sector on a 64 B/cycle port + wire).
  EXPECT_EQ(near, (p.l1.hit_latency_cycles + 1 + p.crossbar.latency_cycles +
                   p.l2.hit_latency_cycles + 1 + p.crossbar.latency_cycles) *
                      kCycle);
}

TEST_P(BothTimings, StreamingReadsSaturateHbmBandwidth) {
  MemoryParams p = small_chip(GetParam());
  p.map.l2_partitions = 1;  // no far-partition penalty in the arithmetic
  p.map.l2_slices = 16;
  p.l2.slices = 16;
  p.l2.mshrs_per_slice = 4096;              // neither MSHRs ...
  p.crossbar.slice_bytes_per_cycle = 1024;  // ... nor slice ports limit: HBM does
  Rig r(p);
  constexpr std::uint64_t kSectors = 4096;
  const std::uint32_t sector = p.map.sector_bytes;
  for (std::uint64_t i = 0; i < kSectors; ++i)
    r.load(static_cast<std::uint32_t>(i % 8), 0x100000 + i * sector, sector, false);
  r.run();
  sim::Tick last = 0;
  for (sim::Tick t : r.done) {
    ASSERT_NE(t, sim::kMaxTick);
    last = std::max(last, t);
  }
  // Expected: the unloaded path of one HBM read, plus the time HBM needs for all the bytes.
  const double ps_per_byte = 1e12 / static_cast<double>(p.hbm.bandwidth_bytes_per_s);
  const double path =
      static_cast<double>((p.l1.hit_latency_cycles + 1 + p.crossbar.latency_cycles +
                           p.l2.hit_latency_cycles + 1 + p.crossbar.latency_cycles) *
                              kCycle +
                          p.hbm.latency);
  const double expected = path + static_cast<double>(kSectors * sector) * ps_per_byte;
  // Tolerance: one interleave block of imbalance on a channel plus a few cycles of rounding.
  const double per_channel_ps_per_byte = ps_per_byte * p.hbm.channels;
  const double tolerance =
      static_cast<double>(p.map.hbm_interleave_bytes) * per_channel_ps_per_byte + 4 * kCycle;
  EXPECT_NEAR(static_cast<double>(last), expected, tolerance);
  EXPECT_EQ(r.stat("chip0.mem.l2.hbm_read_sectors"), kSectors);
  for (std::size_t c = 0; c < r.mem.hbm().channels(); ++c) {
    EXPECT_EQ(r.stat("chip0.mem.hbm.ch" + std::to_string(c) + ".read_bytes"),
              kSectors * sector / p.hbm.channels)
        << "channel " << c;
  }
}

// Requests one at a time (each run to idle) share no resource: each path's latency is the sum
// of its stages, which the transaction-level timing computes the same way.
std::vector<sim::Tick> unloaded_requests(MemoryTiming timing) {
  Rig r(small_chip(timing));
  const Addr near = line_in_slice(r.mem, 0);  // partition 0: near SM 0, far for SM 4
  std::vector<sim::Tick> took;
  const auto timed = [&](std::size_t id) {
    const sim::Tick t0 = r.sim.now();
    r.run();
    took.push_back(r.done[id] - t0);
  };
  timed(r.load(0, near, 4, false));        // L2 miss: HBM
  timed(r.load(0, near, 4, false));        // L2 hit
  timed(r.load(4, near, 4, false));        // far L2 hit
  timed(r.load(0, near + 32, 64, false));  // two sectors missing in a resident line
  timed(r.store(0, near + 4096, 4));       // store: acknowledged after the slice
  timed(r.load(1, near + 4096, 4));        // L1 miss, L2 hit on the stored sector
  timed(r.load(1, near + 4096, 4));        // L1 hit
  return took;
}

TEST(MemorySystem, TransactionsTimeAnUnloadedRequestExactlyAsEvents) {
  const std::vector<sim::Tick> events = unloaded_requests(MemoryTiming::kEvents);
  const std::vector<sim::Tick> transactions = unloaded_requests(MemoryTiming::kTransactions);
  EXPECT_EQ(events, transactions);
  EXPECT_GT(events[0], events[1]) << "the miss went to HBM";
}

TEST(MemorySystem, TransactionsDoNotHoldAHitBehindAMissResponseBookedFirst) {
  // A miss booked on the slice's response port for ~300 cycles ahead, then a hit that leaves
  // at once: on a FIFO port booked at issue the hit would wait for the miss's reply.
  Rig r(small_chip(MemoryTiming::kTransactions));
  const Addr hit = line_in_slice(r.mem, 0, 0);
  const Addr miss = line_in_slice(r.mem, 0, 1);
  r.load(0, hit, 4, false);
  r.run();
  const sim::Tick t0 = r.sim.now();
  const auto alone = r.load(0, hit, 4, false);
  r.run();
  const sim::Tick hit_alone = r.done[alone] - t0;
  const sim::Tick t1 = r.sim.now();
  const auto m = r.load(1, miss, 4, false);
  const auto h = r.load(0, hit, 4, false);
  r.run();
  EXPECT_GT(r.done[m], r.done[h] + 100 * kCycle) << "the miss's reply leaves later";
  // One request-port cycle behind the miss's request, no more.
  EXPECT_LE(r.done[h] - t1, hit_alone + kCycle);
}

TEST(MemorySystem, LoadLinesAnswersOnceWhenItsLastLineIsBack) {
  // The same four loads (one an L1 hit) one by one and as one access: the access ends when the
  // slowest line does, and the L1 then holds every line.
  struct Recorder final : RequestClient {
    explicit Recorder(sim::Simulation& s) : sim(s) {}
    void request_done(std::uint64_t tag) override { done.emplace_back(tag, sim.now()); }
    sim::Simulation& sim;
    std::vector<std::pair<std::uint64_t, sim::Tick>> done;
  };
  const MemoryParams p = small_chip(MemoryTiming::kTransactions);
  std::vector<LineRequest> lines;
  for (Addr a : {0x8000, 0x8080, 0x9000, 0x20000})
    lines.push_back({.line_addr = a, .sector_mask = 1});
  const auto warm = [&](Rig& r) {
    r.load(0, 0x8080, 4);  // in L1 before the access
    r.run();
  };
  Rig one(p);
  warm(one);
  const sim::Tick t0 = one.sim.now();
  for (const LineRequest& m : lines)
    one.load(0, m.line_addr, 4);
  one.run();
  const sim::Tick slowest = *std::max_element(one.done.begin() + 1, one.done.end()) - t0;

  Rig all(p);
  warm(all);
  ASSERT_TRUE(all.mem.batches_accesses());
  Recorder rec(all.sim);
  const sim::Tick t1 = all.sim.now();
  all.mem.load_lines(0, lines, rec, 7);
  all.run();
  ASSERT_EQ(rec.done.size(), 1u);
  EXPECT_EQ(rec.done[0].first, 7u);
  EXPECT_EQ(rec.done[0].second - t1, slowest);
  for (const LineRequest& m : lines)
    EXPECT_TRUE(all.mem.l1(0).contains(m.line_addr / 128, 1)) << m.line_addr;
  EXPECT_EQ(all.stat("chip0.mem.loads"), one.stat("chip0.mem.loads"));
  EXPECT_EQ(all.stat("chip0.mem.l1.sm0.load_hits"), 1);

  // Stores: acknowledged once, when the last acknowledgement is back.
  Recorder acks(all.sim);
  all.mem.store_lines(0, lines, acks, 8);
  all.run();
  ASSERT_EQ(acks.done.size(), 1u);
  EXPECT_EQ(all.stat("chip0.mem.l2.writes"), 4);
}

TEST(MemorySystem, DsmemLoadIsARoundTripOverTwoPorts) {
  const MemoryParams p = small_chip();
  Rig r(p);
  sim::Tick done = 0;
  r.mem.dsmem().load(1, 2, 128, [&] { done = r.sim.now(); });
  r.run();
  // Request: 8 B (1 cycle at 32 B/cycle) + latency; data: 128 B (4 cycles) + latency.
  EXPECT_EQ(done, (1 + p.dsmem.latency_cycles + 4 + p.dsmem.latency_cycles) * kCycle);
  sim::Tick stored = 0;
  const sim::Tick t0 = r.sim.now();
  r.mem.dsmem().store(1, 2, 64, [&] { stored = r.sim.now(); });
  r.run();
  EXPECT_EQ(stored - t0, (2 + p.dsmem.latency_cycles + 1 + p.dsmem.latency_cycles) * kCycle);
}

// A push (a TMA multicast line): `arrived` when its data reaches the target, `acked` when the
// acknowledgement is back. Two pushes from one SM share its port; an ack that starts another
// push reuses the pooled transfer it arrived on.
TEST(MemorySystem, DsmemPushArrivesThenAcksAndPushesChain) {
  const MemoryParams p = small_chip();
  const sim::Tick lat = p.dsmem.latency_cycles;
  Rig r(p);
  std::vector<sim::Tick> arrived(3, 0), acked(3, 0);
  r.mem.dsmem().push(
      1, 2, 128, [&] { arrived[0] = r.sim.now(); },
      [&] {
        acked[0] = r.sim.now();
        r.mem.dsmem().push(
            1, 2, 64, [&] { arrived[2] = r.sim.now(); }, [&] { acked[2] = r.sim.now(); });
      });
  r.mem.dsmem().push(
      1, 3, 128, [&] { arrived[1] = r.sim.now(); }, [&] { acked[1] = r.sim.now(); });
  r.run();
  // 128 B is 4 cycles of SM 1's port; the second push waits for the first.
  EXPECT_EQ(arrived[0], (4 + lat) * kCycle);
  EXPECT_EQ(arrived[1], (8 + lat) * kCycle);
  // The 8 B ack is 1 cycle of the target's port.
  EXPECT_EQ(acked[0], arrived[0] + (1 + lat) * kCycle);
  EXPECT_EQ(acked[1], arrived[1] + (1 + lat) * kCycle);
  // The chained push leaves at the first ack (SM 1's port idle again): 64 B is 2 cycles.
  EXPECT_EQ(arrived[2], acked[0] + (2 + lat) * kCycle);
  EXPECT_EQ(acked[2], arrived[2] + (1 + lat) * kCycle);
}

// A push client that records, per tag, the arrival tick, the acknowledgement tick the arrival
// was told and the tick of the acknowledgement event; the hooks may start further pushes.
struct PushRecorder : PushClient {
  PushRecorder(Rig& r, std::size_t tags) : rig(r), arrived(tags), acked_at(tags), acked(tags) {}
  void push_arrived(std::uint64_t tag, sim::Tick at) override {
    arrived.at(tag) = rig.sim.now();
    acked_at.at(tag) = at;
    if (on_arrived) on_arrived(tag);
  }
  void push_acked(std::uint64_t tag) override {
    ++ack_events;
    acked.at(tag) = rig.sim.now();
    if (on_acked) on_acked(tag);
  }
  Rig& rig;
  std::vector<sim::Tick> arrived, acked_at, acked;
  int ack_events = 0;
  std::function<void(std::uint64_t)> on_arrived, on_acked;
};

// The typed push (a client and a tag instead of two callbacks, for the TMA multicast) keeps
// the same timeline, and a push started from an acknowledgement reuses its pooled transfer.
TEST(MemorySystem, TypedDsmemPushKeepsTheTimeline) {
  const MemoryParams p = small_chip();
  const sim::Tick lat = p.dsmem.latency_cycles;
  Rig r(p);
  PushRecorder c(r, 3);
  c.on_acked = [&](std::uint64_t tag) {
    if (tag == 0) r.mem.dsmem().push(1, 2, 64, c, 2);
  };
  r.mem.dsmem().push(1, 2, 128, c, 0);
  r.mem.dsmem().push(1, 3, 128, c, 1);
  r.run();
  EXPECT_EQ(c.ack_events, 3);
  EXPECT_EQ(c.arrived[0], (4 + lat) * kCycle);
  EXPECT_EQ(c.arrived[1], (8 + lat) * kCycle);
  EXPECT_EQ(c.acked[0], c.arrived[0] + (1 + lat) * kCycle);
  EXPECT_EQ(c.acked[1], c.arrived[1] + (1 + lat) * kCycle);
  EXPECT_EQ(c.arrived[2], c.acked[0] + (2 + lat) * kCycle);
  EXPECT_EQ(c.acked[2], c.arrived[2] + (1 + lat) * kCycle);
  // Each arrival already knew the tick of its acknowledgement.
  EXPECT_EQ(c.acked_at, c.acked);
}

// A push without an acknowledgement event: push_acked never runs, the arrival carries the
// tick the acknowledgement reaches the sender, and that acknowledgement still occupies the
// receiver's port (a later push from the receiver queues behind it).
TEST(MemorySystem, DsmemPushWithoutAckEventReportsTheAckTick) {
  const MemoryParams p = small_chip();
  const sim::Tick lat = p.dsmem.latency_cycles;
  Rig r(p);
  PushRecorder c(r, 2);
  // SM 2 answers on its own port, which the acknowledgement of push 0 holds first.
  c.on_arrived = [&](std::uint64_t tag) {
    if (tag == 0) r.mem.dsmem().push(2, 1, 128, c, 1, /*ack_event=*/false);
  };
  r.mem.dsmem().push(1, 2, 128, c, 0, /*ack_event=*/false);
  r.run();
  EXPECT_EQ(c.ack_events, 0);
  EXPECT_EQ(c.arrived[0], (4 + lat) * kCycle);
  EXPECT_EQ(c.acked_at[0], c.arrived[0] + (1 + lat) * kCycle);
  // Push 1 leaves SM 2's port after the 1-cycle acknowledgement: 4 cycles of data.
  EXPECT_EQ(c.arrived[1], c.arrived[0] + (1 + 4 + lat) * kCycle);
  EXPECT_EQ(c.acked_at[1], c.arrived[1] + (1 + lat) * kCycle);
}

TEST(MemorySystem, DsmemPushAtBooksAheadAndKeepsTheUnloadedTimes) {
  const MemoryParams p = small_chip(MemoryTiming::kTransactions);
  const sim::Tick lat = p.dsmem.latency_cycles;
  Rig r(p);
  // A push booked 1000 cycles ahead, then one for now on the same port: the later one made
  // first does not hold the earlier one back (the port is a calendar).
  const auto ahead = r.mem.dsmem().push_at(1, 2, 128, 1000 * kCycle);
  const auto at_once = r.mem.dsmem().push_at(1, 2, 128, 0);
  EXPECT_EQ(ahead.arrived, (1000 + 4 + lat) * kCycle);
  EXPECT_EQ(ahead.acked, ahead.arrived + (1 + lat) * kCycle);
  EXPECT_EQ(at_once.arrived, (4 + lat) * kCycle);
  EXPECT_EQ(at_once.acked, at_once.arrived + (1 + lat) * kCycle);
  EXPECT_EQ(r.stat("chip0.mem.dsmem.bytes"), 256);
  r.run();
  EXPECT_EQ(r.sim.now(), 0u) << "push_at schedules nothing";
}

// A port's calendar keeps 16 384 cycles, half of them behind its newest booking: a push for a
// cycle further back starts at the oldest cycle kept, and the stat counts it.
TEST(MemorySystem, ADsmemPushFarBehindTheNewestIsCountedLate) {
  const MemoryParams p = small_chip(MemoryTiming::kTransactions);
  const sim::Tick lat = p.dsmem.latency_cycles;
  Rig r(p);
  (void)r.mem.dsmem().push_at(1, 2, 128, 100'000 * kCycle);  // word 1562: 1434 is the oldest
  EXPECT_EQ(r.stat("chip0.mem.dsmem.late_bookings"), 0);
  const auto late = r.mem.dsmem().push_at(1, 2, 128, 0);
  EXPECT_EQ(late.arrived, (1434 * 64 + 4 + lat) * kCycle);
  // Both legs are late: the copy on SM 1's port, its acknowledgement on SM 2's.
  EXPECT_EQ(r.stat("chip0.mem.dsmem.late_bookings"), 2);
  EXPECT_EQ(r.stat("chip0.mem.xbar.late_bookings"), 0);
}

// A fixed pseudo-random stream of loads and stores over several SMs.
std::string run_stream(MemoryTiming timing) {
  Rig r(small_chip(timing));
  std::uint64_t x = 12345;
  for (int i = 0; i < 3000; ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    const auto sm = static_cast<std::uint32_t>((x >> 33) % 8);
    const Addr addr = ((x >> 20) % 4096) * 32;
    if ((x >> 60) % 4 == 0) {
      r.store(sm, addr, 32);
    } else {
      r.load(sm, addr, 32);
    }
    if (i % 64 == 63) r.sim.run(r.sim.now() + 50 * kCycle);
  }
  r.run();
  return r.sim.stats().dump();
}

TEST_P(BothTimings, SameRequestStreamGivesIdenticalStats) {
  const std::string a = run_stream(GetParam());
  const std::string b = run_stream(GetParam());
  EXPECT_EQ(a, b);
  // The stream exercised the interesting paths.
  const auto l2 = nlohmann::json::parse(a)["chip0.mem.l2"];
  EXPECT_GT(l2["hits"]["value"].get<double>(), 0);
  EXPECT_GT(l2["misses"]["value"].get<double>(), 0);
  EXPECT_GT(l2["merged_misses"]["value"].get<double>(), 0);
  EXPECT_GT(l2["writes"]["value"].get<double>(), 0);
}

}  // namespace
}  // namespace xpusim::mem
