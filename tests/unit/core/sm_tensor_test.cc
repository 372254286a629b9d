// The tensor unit in the SM: mm on a warp checked against a naive GEMM, the token scoreboard
// (the math issue waits exactly until the A load's write-back), throughput at the configured
// peak, broadcast and retention variants, bad input as faults with the warp's coordinates.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <random>
#include <vector>

#include "core/sm.h"
#include "kernel/registry.h"

namespace xpusim::core {
namespace {

using kernel::Addr;
using kernel::Lanes;
using kernel::MmInstruction;
using kernel::MmType;
using kernel::Warp;

constexpr std::uint64_t kHz = 1'000'000'000;
constexpr std::uint32_t kLatency = 500;  // FixedLatencyMemory, cycles
constexpr Addr kA = 0x10000, kB = 0x20000, kC = 0x30000, kOut = 0x40000;
constexpr std::uint32_t kK = 8, kN = 16;  // s8: A row = 2 registers

// C (32 x kN, int32) = A (32 x kK, s8, row-major) x B (kK x kN, s8, column-major), all in
// global memory; each lane loads its A row into r256..r257, one mm, C rows stored back.
sim::Task<> gemm_warp(Warp& w) {
  const auto lanes = kernel::lanes<Addr>([](std::uint32_t l) { return kA + kK * l; });
  co_await w.load_registers_global(256, 2, lanes);
  MmInstruction mm{
      .a_type = MmType::kS8, .b_type = MmType::kS8, .c_base = 0, .a_base = 256, .k = kK, .n = kN};
  for (std::uint32_t j = 0; j < kN; ++j)
    mm.b_addresses.push_back(kB + std::uint64_t{kK} * j);
  co_await w.mm(mm);
  for (std::uint32_t j = 0; j < kN; ++j) {
    const auto c =
        kernel::lanes<std::uint32_t>([&](std::uint32_t l) { return w.registers().at(l, j); });
    co_await w.store_global<std::uint32_t>(
        kernel::lanes<Addr>([&](std::uint32_t l) { return kC + 4 * (kN * l + j); }), c);
  }
}

// A from global (kLatency cycles), B from shared memory (fast): the math issue must wait for
// the A token. out[0] = clock after the mm; out[1] = clock at the load's issue.
sim::Task<> token_wait(Warp& w) {
  const std::uint64_t t0 = co_await w.clock();
  const auto lanes = kernel::lanes<Addr>([](std::uint32_t l) { return kA + kK * l; });
  co_await w.load_registers_global(256, 2, lanes);
  MmInstruction mm{.a_type = MmType::kS8,
                   .b_type = MmType::kS8,
                   .c_base = 0,
                   .a_base = 256,
                   .k = kK,
                   .n = kN,
                   .b_shared = true};
  for (std::uint32_t j = 0; j < kN; ++j)
    mm.b_addresses.push_back(std::uint64_t{kK} * j);
  co_await w.mm(mm);
  const std::uint64_t t1 = co_await w.clock();
  co_await w.store_global<std::uint64_t>(
      kernel::lanes<Addr>([](auto l) { return kOut + 8 * l; }),
      kernel::lanes<std::uint64_t>([&](auto l) { return l == 0 ? t1 : t0; }), 3u);
}

// Each warp: args[0] mm instructions of the type args[1] (0: bf16 k=16, 1: s8 k=32), 256
// columns of B in shared memory, A already in registers.
sim::Task<> peak(Warp& w) {
  const bool int8 = w.args().get_u32(1) == 1;
  MmInstruction mm{.a_type = int8 ? MmType::kS8 : MmType::kBF16,
                   .b_type = int8 ? MmType::kS8 : MmType::kBF16,
                   .c_base = 0,
                   .a_base = 256,
                   .k = int8 ? 32u : 16u,
                   .n = 256,
                   .b_shared = true};
  mm.b_addresses.assign(256, 0);  // every column reads the same 32 bytes
  for (std::uint32_t i = 0; i < w.args().get_u32(0); ++i)
    co_await w.mm(mm);
}

// B columns in global memory, t0 or t1 (args[0]), broadcast (args[1]), retention (args[2]).
sim::Task<> fetch_variant(Warp& w) {
  MmInstruction mm{
      .a_type = MmType::kS8, .b_type = MmType::kS8, .c_base = 0, .a_base = 256, .k = 8, .n = 32};
  mm.t1 = w.args().get_u32(0) == 1;
  mm.broadcast = w.args().get_u32(1) == 1;
  mm.retention = w.args().get_u32(2) == 1;
  const std::uint32_t entries = mm.t1 ? 8 : 32;
  for (std::uint32_t i = 0; i < entries; ++i)  // t0: 8 B columns; t1: 128 B-strided rows
    mm.b_addresses.push_back(kB + (mm.t1 ? 128 * i : 8 * i));
  co_await w.mm(mm);
}

// args[2] rounds of one mm with B in global memory (32 s8 columns: 2 lines), warpgroup-wide
// when args[0] is 1; every warp names the same B when args[1] is 1, else its own. Lane 0
// stores the clock after its first mm at kOut + 8 x warp.
sim::Task<> warpgroup_b(Warp& w) {
  MmInstruction mm{
      .a_type = MmType::kS8, .b_type = MmType::kS8, .c_base = 0, .a_base = 256, .k = 8, .n = 32};
  mm.warpgroup = w.args().get_u32(0) == 1;
  const std::uint64_t base = kB + (w.args().get_u32(1) == 1 ? 0 : 256 * w.warp_id());
  for (std::uint32_t j = 0; j < 32; ++j)
    mm.b_addresses.push_back(base + 8 * j);
  for (std::uint32_t i = 0; i < w.args().get_u32(2); ++i) {
    co_await w.mm(mm);
    if (i == 0) {
      const std::uint64_t t = co_await w.clock();
      co_await w.store_global<std::uint64_t>(
          kernel::lanes<Addr>([&](auto) { return kOut + 8 * w.warp_id(); }),
          kernel::lanes<std::uint64_t>([&](auto) { return t; }), 1u);
    }
  }
}

sim::Task<> c_past_file(Warp& w) {
  MmInstruction mm{
      .a_type = MmType::kS8, .b_type = MmType::kS8, .c_base = 500, .a_base = 256, .k = 8, .n = 32};
  mm.b_addresses.assign(32, kB);
  co_await w.mm(mm);
}

sim::Task<> bad_type_pair(Warp& w) {
  MmInstruction mm{
      .a_type = MmType::kS8, .b_type = MmType::kBF16, .c_base = 0, .a_base = 256, .k = 8, .n = 1};
  mm.b_addresses.assign(1, kB);
  co_await w.mm(mm);
}

sim::Task<> exit_with_load_in_flight(Warp& w) {
  co_await w.load_registers_global(256, 4, kernel::lanes<Addr>([](auto l) { return kA + 16 * l; }));
}

// gemm_warp's mm with B in page-table segment 0: b_addresses are element offsets
// (seg:rf:imm).
MmInstruction segment_mm() {
  MmInstruction mm{.a_type = MmType::kS8,
                   .b_type = MmType::kS8,
                   .c_base = 0,
                   .a_base = 256,
                   .k = kK,
                   .n = kN,
                   .segment = 0};
  for (std::uint32_t j = 0; j < kN; ++j)
    mm.b_addresses.push_back(std::uint64_t{kK} * j);
  return mm;
}

// gemm_warp with B in segment 0.
sim::Task<> segment_gemm(Warp& w) {
  co_await w.load_registers_global(
      256, 2, kernel::lanes<Addr>([](std::uint32_t l) { return kA + kK * l; }));
  const MmInstruction mm = segment_mm();
  co_await w.mm(mm);
  for (std::uint32_t j = 0; j < kN; ++j) {
    const auto c =
        kernel::lanes<std::uint32_t>([&](std::uint32_t l) { return w.registers().at(l, j); });
    co_await w.store_global<std::uint32_t>(
        kernel::lanes<Addr>([&](std::uint32_t l) { return kC + 4 * (kN * l + j); }), c);
  }
}

// segment_gemm's mm `rounds` times over (args: rounds), C left in registers: each round
// touches the segment's 4 pages in the same order.
sim::Task<> segment_rounds(Warp& w) {
  co_await w.load_registers_global(
      256, 2, kernel::lanes<Addr>([](std::uint32_t l) { return kA + kK * l; }));
  const MmInstruction mm = segment_mm();
  for (std::uint32_t r = 0; r < w.args().get_u32(0); ++r)
    co_await w.mm(mm);
}

// One t1 mm with retention over B row-major (kK rows of kN s8): rows 128 B apart from kB, or
// (args: 1) element offsets in segment 0. C stays in registers.
sim::Task<> t1_rows(Warp& w) {
  co_await w.load_registers_global(
      256, 2, kernel::lanes<Addr>([](std::uint32_t l) { return kA + kK * l; }));
  const bool seg = w.args().get_u32(0) != 0;
  MmInstruction mm{.a_type = MmType::kS8,
                   .b_type = MmType::kS8,
                   .c_base = 0,
                   .a_base = 256,
                   .k = kK,
                   .n = kN,
                   .t1 = true,
                   .segment = seg ? 0 : -1};
  for (std::uint32_t e = 0; e < kK; ++e)
    mm.b_addresses.push_back(seg ? std::uint64_t{kN} * e : kB + 128 * e);
  co_await w.mm(mm);
}

// One bad operand per case (args: case). 0, 1: a shared register load of 16 B per lane whose
// lane 5 is misaligned / lane 7 is past the 16 KiB window; 2, 3: a bf16 mm with B in shared
// memory whose column 3 is misaligned / column 2 runs past the window. Every other lane or
// column is valid, so the one-pass checks must fall back and name the bad one.
sim::Task<> bad_operand(Warp& w) {
  const std::uint32_t c = w.args().get_u32(0);
  if (c < 2) {
    co_await w.load_registers_shared(256, 4, kernel::lanes<Addr>([c](std::uint32_t l) -> Addr {
                                       if (c == 0 && l == 5) return 16 * l + 4;
                                       if (c == 1 && l == 7) return 16384;
                                       return 16 * l;
                                     }));
    co_return;
  }
  MmInstruction mm{.a_type = MmType::kBF16,
                   .b_type = MmType::kBF16,
                   .c_base = 0,
                   .a_base = 256,
                   .k = 8,
                   .n = 4,
                   .b_shared = true};
  for (std::uint32_t j = 0; j < 4; ++j)
    mm.b_addresses.push_back(16 * j);
  if (c == 2) mm.b_addresses[3] = 49;
  if (c == 3) mm.b_addresses[2] = 16380;
  co_await w.mm(mm);
}

kernel::KernelRegistry registry() {
  kernel::KernelRegistry r;
  using kernel::ArgKind;
  const auto add = [&r](std::string name, kernel::KernelBody body,
                        std::vector<kernel::ArgDecl> args = {}) {
    XPUSIM_CHECK(r.add({.name = std::move(name),
                        .description = "",
                        .args = std::move(args),
                        .body = body,
                        .static_shared_bytes = 16384})
                     .ok(),
                 "test kernel registers");
  };
  add("gemm_warp", gemm_warp);
  add("segment_gemm", segment_gemm);
  add("segment_rounds", segment_rounds, {{"rounds", ArgKind::kU32}});
  add("t1_rows", t1_rows, {{"segment", ArgKind::kU32}});
  add("token_wait", token_wait);
  add("peak", peak, {{"count", ArgKind::kU32}, {"int8", ArgKind::kU32}});
  add("fetch_variant", fetch_variant,
      {{"t1", ArgKind::kU32}, {"broadcast", ArgKind::kU32}, {"retention", ArgKind::kU32}});
  add("warpgroup_b", warpgroup_b,
      {{"warpgroup", ArgKind::kU32}, {"same", ArgKind::kU32}, {"rounds", ArgKind::kU32}});
  add("c_past_file", c_past_file);
  add("bad_type_pair", bad_type_pair);
  add("exit_with_load_in_flight", exit_with_load_in_flight);
  add("bad_operand", bad_operand, {{"case", ArgKind::kU32}});
  return r;
}

// FixedLatencyMemory whose L1 refuses to pin the lines `refuse` names, so that the SM's
// fallback for unpinned t1 lines runs; it records the pins held.
struct PinPort : FixedLatencyMemory {
  using FixedLatencyMemory::FixedLatencyMemory;
  bool pin_l1(std::uint32_t, std::uint64_t addr) override {
    if (refuse && refuse(addr)) return false;
    held.push_back(addr);
    return true;
  }
  void unpin_l1(std::uint32_t, std::uint64_t addr) override {
    const auto it = std::find(held.begin(), held.end(), addr);
    ASSERT_NE(it, held.end()) << "unpin of a line not pinned";
    held.erase(it);
  }
  std::function<bool(std::uint64_t)> refuse;
  std::vector<std::uint64_t> held;
};

struct Rig {
  explicit Rig(bool functional = true, std::uint32_t translation_entries = 16)
      : reg(registry()),
        clock(sim.events(), kHz),
        root(sim, "chip0"),
        port(sim.events(), clock, kLatency),
        sm(root, "sm0", clock, memory, port,
           SmConfig{.id = 0,
                    .tensor = {.translation_cache_entries = translation_entries},
                    .functional = functional,
                    .scheduler = nullptr,
                    .page_table = &pt}) {}
  std::uint64_t run(const std::string& name, std::uint32_t threads, kernel::KernelArgs a = {}) {
    args = std::move(a);
    const kernel::KernelDef* k = *reg.find(name);
    CtaWork work{.kernel = k,
                 .params = {.grid = {1, 1, 1}, .block = {threads, 1, 1}},
                 .args = &args,
                 .block_id = {0, 0, 0}};
    std::uint64_t end = 0;
    XPUSIM_CHECK(sm.launch(work, [&] { end = clock.cycle_at(sim.now()); }).ok(), "CTA fits");
    sim.run();
    return end;
  }
  std::uint64_t stat(const std::string& name) {
    const auto s = sim.stats().find("chip0.sm0." + name);
    XPUSIM_CHECK(s.ok(), "stat exists");
    return (*s)->to_json()["value"].get<std::uint64_t>();
  }
  kernel::KernelRegistry reg;
  sim::Simulation sim;
  sim::Clock clock;
  sim::Component root;
  mem::GlobalMemory memory;
  mem::PageTable pt;
  PinPort port;
  Sm sm;
  kernel::KernelArgs args;
};

// B (kK x kN s8, column-major) as page-table segment 'B': dims {kK, kN}, pages of 4 columns
// scattered in memory (seed2 §2.4–2.5); the mm translates every element.
TEST(SmTensor, BThroughThePageTableTranslatesAndANotLoadedPageFaults) {
  for (const bool evict : {false, true}) {
    Rig r;
    auto seg =
        r.pt.define_segment("B", {.dims = {kK, kN}, .page_dims = {kK, 4}, .element_bytes = 1});
    ASSERT_TRUE(seg.ok());
    ASSERT_TRUE(r.pt.place_ptes(*seg, 0xA0000).ok());
    const std::uint64_t base[4] = {0x90000, 0x50000, 0x70000, 0x60100};
    std::int8_t a[32][kK], b[kN][kK];
    std::mt19937 gen(3);
    for (auto& row : a)
      for (auto& x : row)
        x = static_cast<std::int8_t>(gen() % 256);
    for (auto& col : b)
      for (auto& x : col)
        x = static_cast<std::int8_t>(gen() % 256);
    ASSERT_TRUE(r.memory.write(kA, std::as_bytes(std::span(&a[0][0], 32 * kK))).ok());
    for (std::uint32_t p = 0; p < 4; ++p) {
      ASSERT_TRUE(r.pt.load_page(*seg, p, base[p]).ok());
      ASSERT_TRUE(r.memory.write(base[p], std::as_bytes(std::span(&b[4 * p][0], 4 * kK))).ok());
    }
    if (evict) {
      ASSERT_TRUE(r.pt.evict_page(*seg, 2).ok());
    }
    r.run("segment_gemm", 32);
    if (evict) {
      ASSERT_TRUE(r.sm.fault().has_value());
      EXPECT_NE(r.sm.fault()->message.find("segment_gemm: block (0,0,0) warp 0: mm: B element "
                                           "64: page 2 of segment 'B'"),
                std::string::npos)
          << r.sm.fault()->message;
      EXPECT_NE(r.sm.fault()->message.find("is not loaded"), std::string::npos);
      continue;
    }
    ASSERT_FALSE(r.sm.fault().has_value()) << r.sm.fault()->message;
    for (std::uint32_t i = 0; i < 32; ++i) {
      for (std::uint32_t j = 0; j < kN; ++j) {
        std::int32_t want = 0;
        for (std::uint32_t e = 0; e < kK; ++e)
          want += std::int32_t{a[i][e]} * std::int32_t{b[j][e]};
        std::int32_t got = 0;
        ASSERT_TRUE(
            r.memory.read(kC + 4 * (kN * i + j), std::as_writable_bytes(std::span(&got, 1))).ok());
        EXPECT_EQ(got, want) << i << "," << j;
      }
    }
    EXPECT_EQ(r.stat("mm.b_line_fetches"), 4u);  // one line per page (32 B each)
  }
}

// Segment 'B' of segment_gemm (4 pages of 4 columns) with its PTEs at kPtes, every page loaded.
constexpr Addr kPtes = 0xA0000;
void define_b(Rig& r) {
  auto seg = r.pt.define_segment("B", {.dims = {kK, kN}, .page_dims = {kK, 4}, .element_bytes = 1});
  ASSERT_TRUE(seg.ok());
  ASSERT_TRUE(r.pt.place_ptes(*seg, kPtes).ok());
  for (std::uint32_t p = 0; p < 4; ++p)
    ASSERT_TRUE(r.pt.load_page(*seg, p, 0x50000 + 0x1000 * p).ok());
}

// An LRU cache of `entries` pages over `rounds` mm instructions that each touch pages 0..3:
// the misses (the naive reference the SM's translation cache must match). An mm looks all its
// pages up (a hit becomes the most recent), then fills the missed ones in order when their
// PTEs are back.
std::uint64_t lru_misses(std::uint32_t entries, std::uint32_t rounds) {
  std::vector<std::uint32_t> lru;  // most recent last
  std::uint64_t misses = 0;
  for (std::uint32_t r = 0; r < rounds; ++r) {
    std::vector<std::uint32_t> missed;
    for (std::uint32_t p = 0; p < 4; ++p) {
      const auto it = std::find(lru.begin(), lru.end(), p);
      if (it == lru.end()) {
        missed.push_back(p);
        continue;
      }
      lru.erase(it);
      lru.push_back(p);
    }
    misses += missed.size();
    for (const std::uint32_t p : missed) {
      if (entries == 0) continue;
      if (lru.size() == entries) lru.erase(lru.begin());
      lru.push_back(p);
    }
  }
  return misses;
}

// Seed2 ¶61–63 on the timed path: a page not in the SM's translation cache costs a PTE load
// (one FixedLatencyMemory round trip for all of an mm's misses) before B's lines are fetched;
// a cached one costs nothing.
TEST(SmTensor, TranslationCacheMissesLoadTheirPtesFirst) {
  constexpr std::uint32_t kRounds = 3;
  std::uint64_t cycles_uncached = 0;
  for (const bool functional : {true, false}) {
    for (const std::uint32_t entries : {0u, 2u, 3u, 4u, 16u}) {
      SCOPED_TRACE(testing::Message() << "entries " << entries << " functional " << functional);
      Rig r(functional, entries);
      define_b(r);
      const std::uint64_t cycles = r.run("segment_rounds", 32, kernel::KernelArgs().u32(kRounds));
      ASSERT_FALSE(r.sm.fault().has_value()) << r.sm.fault()->message;
      const std::uint64_t misses = lru_misses(entries, kRounds);
      EXPECT_EQ(r.stat("mm.translation_misses"), misses);
      EXPECT_EQ(r.stat("mm.translation_hits"), 4 * kRounds - misses);
      EXPECT_EQ(r.stat("mm.pte_loads"), misses);  // one warp: no load to join
      // An mm with any miss waits one round trip for its PTEs (with fewer entries than pages,
      // every round misses some).
      const std::uint64_t waits = entries >= 4 ? 1 : kRounds;
      EXPECT_GE(r.stat("mm.translation_cycles"), waits * kLatency);
      EXPECT_LE(r.stat("mm.translation_cycles"), waits * (kLatency + 2));
      if (entries == 0) cycles_uncached = cycles;
      if (entries == 16) {  // the two later rounds' round trips are saved
        EXPECT_GE(cycles_uncached - cycles, (kRounds - 1) * kLatency);
      }
    }
  }
}

// An evicted page bumps the page table's generation: the next mm flushes the SM's cache and
// loads every PTE again, so a stale translation is never used.
TEST(SmTensor, EvictingAPageFlushesTheTranslationCache) {
  Rig r;
  define_b(r);
  const kernel::KernelArgs a = kernel::KernelArgs().u32(1);
  r.run("segment_rounds", 32, a);
  EXPECT_EQ(r.stat("mm.translation_misses"), 4u);
  EXPECT_EQ(r.stat("mm.translation_flushes"), 0u);
  ASSERT_TRUE(r.pt.evict_page(0, 1).ok());
  ASSERT_TRUE(r.pt.load_page(0, 1, 0x58000).ok());
  r.run("segment_rounds", 32, a);
  ASSERT_FALSE(r.sm.fault().has_value()) << r.sm.fault()->message;
  EXPECT_EQ(r.stat("mm.translation_flushes"), 1u);
  EXPECT_EQ(r.stat("mm.translation_misses"), 8u);
  EXPECT_EQ(r.stat("mm.translation_hits"), 0u);
}

// Eight warps miss the same four pages at once: each counts its misses, but a page's PTE is
// loaded once and the others join that load.
TEST(SmTensor, MissesToAPteInFlightJoinItsLoad) {
  Rig r;
  define_b(r);
  r.run("segment_rounds", 8 * 32, kernel::KernelArgs().u32(1));
  ASSERT_FALSE(r.sm.fault().has_value()) << r.sm.fault()->message;
  EXPECT_EQ(r.stat("mm.translation_misses"), 8u * 4);
  EXPECT_EQ(r.stat("mm.pte_loads"), 4u);
  EXPECT_EQ(r.stat("mm.instructions"), 8u);
}

// t1 retention whose odd rows the L1 refuses to pin: the even rows are fetched once, each odd
// row once per column (kN selections), the same at byte addresses and through a segment of
// one-row pages; every pin is released when the math is done, and each element is
// translated once.
TEST(SmTensor, T1RowsTheL1CannotPinAreRereadPerColumn) {
  constexpr Addr kPages = 0x60000;
  for (const std::uint32_t segment : {0u, 1u}) {
    SCOPED_TRACE(segment ? "segment" : "byte addresses");
    Rig r(/*functional=*/false);
    const Addr base = segment ? kPages : kB;
    r.port.refuse = [base](std::uint64_t line) { return (line - base) / 128 % 2 == 1; };
    if (segment) {
      auto seg =
          r.pt.define_segment("B", {.dims = {kN, kK}, .page_dims = {kN, 1}, .element_bytes = 1});
      ASSERT_TRUE(seg.ok());
      ASSERT_TRUE(r.pt.place_ptes(*seg, kPtes).ok());
      for (std::uint32_t e = 0; e < kK; ++e)
        ASSERT_TRUE(r.pt.load_page(*seg, e, kPages + 128 * e).ok());
    }
    r.run("t1_rows", 32, kernel::KernelArgs().u32(segment));
    ASSERT_FALSE(r.sm.fault().has_value()) << r.sm.fault()->message;
    EXPECT_EQ(r.stat("mm.lines_pinned"), kK / 2);
    EXPECT_EQ(r.stat("mm.lines_not_pinned"), kK / 2);
    EXPECT_EQ(r.stat("mm.b_line_fetches"), kK / 2 + kK / 2 * kN);
    EXPECT_TRUE(r.port.held.empty());
    if (segment) {
      EXPECT_EQ(r.pt.counts().translations, std::uint64_t{kK} * kN);
    }
  }
}

TEST(SmTensor, ASegmentWithoutAPteArrayFaultsNamingIt) {
  Rig r;
  auto seg = r.pt.define_segment("B", {.dims = {kK, kN}, .page_dims = {kK, 4}, .element_bytes = 1});
  ASSERT_TRUE(seg.ok());
  for (std::uint32_t p = 0; p < 4; ++p)
    ASSERT_TRUE(r.pt.load_page(*seg, p, 0x50000 + 0x1000 * p).ok());
  const kernel::KernelArgs a = kernel::KernelArgs().u32(1);
  r.run("segment_rounds", 32, a);
  ASSERT_TRUE(r.sm.fault().has_value());
  EXPECT_NE(r.sm.fault()->message.find("mm: segment 'B' has no PTE array in device memory"),
            std::string::npos)
      << r.sm.fault()->message;
}

TEST(SmTensor, AWarpMmEqualsTheNaiveGemm) {
  Rig r;
  std::mt19937 gen(7);
  std::int8_t a[32][kK], b[kN][kK];  // b column-major: b[j][e] = B[e][j]
  for (auto& row : a)
    for (auto& x : row)
      x = static_cast<std::int8_t>(gen() % 256);
  for (auto& col : b)
    for (auto& x : col)
      x = static_cast<std::int8_t>(gen() % 256);
  ASSERT_TRUE(r.memory.write(kA, std::as_bytes(std::span(&a[0][0], 32 * kK))).ok());
  ASSERT_TRUE(r.memory.write(kB, std::as_bytes(std::span(&b[0][0], kN * kK))).ok());
  r.run("gemm_warp", 32);
  ASSERT_FALSE(r.sm.fault().has_value()) << r.sm.fault()->message;
  for (std::uint32_t i = 0; i < 32; ++i) {
    for (std::uint32_t j = 0; j < kN; ++j) {
      std::int32_t want = 0;
      for (std::uint32_t e = 0; e < kK; ++e)
        want += std::int32_t{a[i][e]} * std::int32_t{b[j][e]};
      std::int32_t got = 0;
      ASSERT_TRUE(
          r.memory.read(kC + 4 * (kN * i + j), std::as_writable_bytes(std::span(&got, 1))).ok());
      EXPECT_EQ(got, want) << i << "," << j;
    }
  }
  EXPECT_EQ(r.stat("mm.instructions"), 1u);
  EXPECT_EQ(r.stat("mm.math_issues"), kN);
  EXPECT_EQ(r.stat("mm.macs"), 32u * kN * kK);
  EXPECT_EQ(r.stat("mm.a_register_reads"), 32u * 2);
  EXPECT_EQ(r.stat("mm.b_line_fetches"), 1u);  // 16 columns x 8 B: one 128 B line
}

TEST(SmTensor, TheMathIssueWaitsExactlyForTheALoadsWriteBack) {
  Rig r;
  r.run("token_wait", 32);
  ASSERT_FALSE(r.sm.fault().has_value()) << r.sm.fault()->message;
  std::uint64_t t[2];
  ASSERT_TRUE(r.memory.read(kOut, std::as_writable_bytes(std::span(t))).ok());
  // clock at t0 (ALU latency 4) → the load issues at t0 + 4 and lands kLatency later; the math
  // issues that very cycle and keeps the tensor unit max(16 columns, 32x16x8 / 1024) = 16
  // cycles; the clock after it issues then.
  const SmTiming st;
  const std::uint64_t landed = t[1] + st.alu_latency + kLatency;
  EXPECT_EQ(t[0], landed + kN);
  // B (shared) was there long before: nearly all of the wait is the token's.
  EXPECT_GT(r.stat("mm.token_stall_cycles"), kLatency - 50);
  EXPECT_LT(r.stat("mm.token_stall_cycles"), kLatency);
}

// Two warps per sub-partition: one's B fetch hides under the other's math (one warp alone
// stalls on each fetch: ~89% of the peak).
TEST(SmTensor, TwoWarpsPerSubPartitionReachTheConfiguredPeak) {
  for (const std::uint32_t int8 : {0u, 1u}) {
    Rig r;
    const std::uint32_t count = 8;
    const std::uint64_t cycles = r.run("peak", 8 * 32, kernel::KernelArgs().u32(count).u32(int8));
    const TensorTiming tt;
    const double peak = int8 ? tt.int8_fma_per_cycle : tt.f16_fma_per_cycle;
    const double macs = static_cast<double>(r.stat("mm.macs"));
    EXPECT_EQ(macs, 8.0 * count * 32 * 256 * (int8 ? 32 : 16));
    EXPECT_GT(macs / static_cast<double>(cycles), 0.97 * peak) << int8;
    EXPECT_LE(macs / static_cast<double>(cycles), peak) << int8;
    EXPECT_EQ(r.stat("tensor.busy_cycles"), 8u * count * 256);
  }
}

TEST(SmTensor, BroadcastFetchesBOnceAndRetentionFetchesEachT1LineOnce) {
  const auto lines = [](std::uint32_t t1, std::uint32_t broadcast, std::uint32_t retention) {
    Rig r;
    r.run("fetch_variant", 32, kernel::KernelArgs().u32(t1).u32(broadcast).u32(retention));
    XPUSIM_CHECK(!r.sm.fault().has_value(), "runs");
    return r.stat("mm.b_line_fetches");
  };
  EXPECT_EQ(lines(0, 1, 1), 2u);       // 32 columns x 8 B = 256 B: two lines
  EXPECT_EQ(lines(0, 0, 1), 2u * 32);  // every thread fetches B itself
  EXPECT_EQ(lines(1, 1, 1), 8u);       // t1: 8 rows of 32 B, each in its own line, once
  EXPECT_EQ(lines(1, 1, 0), 8u * 32);  // without retention: per column, per row
}

// A warpgroup-wide mm (wgmma-like) fetches a B its warpgroup names alike once: the first warp
// fetches, the other three take it (and wait for it); a warp's next mm fetches again; warps
// naming different B, or plain mm, each fetch their own.
TEST(SmTensor, AWarpgroupWideMmFetchesItsBOncePerWarpgroup) {
  const auto fetches = [](std::uint32_t warpgroup, std::uint32_t same) {
    Rig r;
    r.run("warpgroup_b", 8 * 32, kernel::KernelArgs().u32(warpgroup).u32(same).u32(2));
    XPUSIM_CHECK(!r.sm.fault().has_value(), "runs");
    EXPECT_EQ(r.stat("mm.instructions"), 16u);
    using P = std::pair<std::uint64_t, std::uint64_t>;  // B lines fetched, fetches taken
    return P{r.stat("mm.b_line_fetches"), r.stat("mm.b_fetches_shared")};
  };
  using P = std::pair<std::uint64_t, std::uint64_t>;
  EXPECT_EQ(fetches(0, 1), P(8 * 2 * 2, 0));   // 8 warps x 2 rounds x 2 lines
  EXPECT_EQ(fetches(1, 1), P(2 * 2 * 2, 12));  // 2 warpgroups; 3 warps x 2 x 2 taken
  EXPECT_EQ(fetches(1, 0), P(8 * 2 * 2, 0));   // B differs per warp

  // The takers go on only when the fetch is back: every warp's first mm ends after a fetch
  // time (kLatency), none before.
  Rig r;
  r.run("warpgroup_b", 4 * 32, kernel::KernelArgs().u32(1).u32(1).u32(1));
  ASSERT_FALSE(r.sm.fault().has_value()) << r.sm.fault()->message;
  std::uint64_t t[4];
  ASSERT_TRUE(r.memory.read(kOut, std::as_writable_bytes(std::span(t))).ok());
  for (std::uint32_t i = 0; i < 4; ++i) {
    EXPECT_GT(t[i], kLatency) << "warp " << i;
    EXPECT_LT(t[i], kLatency + 100) << "warp " << i;
  }
}

TEST(SmTensor, BadInstructionsFaultNamingTheWarp) {
  for (const bool functional : {true, false}) {
    Rig r(functional);
    r.run("c_past_file", 32);
    ASSERT_TRUE(r.sm.fault().has_value());
    EXPECT_NE(r.sm.fault()->message.find("c_past_file: block (0,0,0) warp 0: mm: product "
                                         "registers r500"),
              std::string::npos)
        << r.sm.fault()->message;
    EXPECT_NE(r.sm.fault()->message.find("512-register file"), std::string::npos);
  }
  Rig r;
  r.run("bad_type_pair", 32);
  ASSERT_TRUE(r.sm.fault().has_value());
  EXPECT_NE(r.sm.fault()->message.find("s8"), std::string::npos) << r.sm.fault()->message;
  EXPECT_NE(r.sm.fault()->message.find("bf16"), std::string::npos) << r.sm.fault()->message;
}

// Bad register-load and mm operands fault naming the lane or column, in both modes (timing-only
// checks valid accesses in one pass and only then walks the lanes).
TEST(SmTensor, BadOperandsNameTheLaneOrColumnInBothModes) {
  const std::string want[] = {
      "register load lane 5 address 0x54 is not 16-byte aligned",
      "register load lane 7: shared offset 0x4000 is outside the CTA's 16384 B window",
      "mm: B address 0x31 (column 3) is not 2-byte aligned",
      "mm: B column 2 at shared offset 0x3ffc (+16 B) is outside the CTA's 16384 B window"};
  for (const bool functional : {true, false}) {
    for (std::uint32_t c = 0; c < 4; ++c) {
      SCOPED_TRACE(testing::Message() << "functional " << functional << " case " << c);
      Rig r(functional);
      r.run("bad_operand", 32, kernel::KernelArgs().u32(c));
      ASSERT_TRUE(r.sm.fault().has_value());
      EXPECT_NE(r.sm.fault()->message.find("bad_operand: block (0,0,0) warp 0: " + want[c]),
                std::string::npos)
          << r.sm.fault()->message;
    }
  }
}

TEST(SmTensor, AWarpExitsOnlyAfterItsRegisterLoadsLand) {
  Rig r;
  const std::uint64_t end = r.run("exit_with_load_in_flight", 32);
  EXPECT_FALSE(r.sm.fault().has_value());
  EXPECT_GE(end, kLatency);
  EXPECT_EQ(r.stat("register_loads"), 1u);
}

TEST(SmTensor, TimingOnlyKeepsTheTiming) {
  Rig f(true), t(false);
  EXPECT_EQ(f.run("token_wait", 32), t.run("token_wait", 32));
  EXPECT_EQ(f.stat("mm.token_stall_cycles"), t.stat("mm.token_stall_cycles"));
}

}  // namespace
}  // namespace xpusim::core
