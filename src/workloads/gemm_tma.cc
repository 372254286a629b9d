// gemm.tma: C = A·B the way a Hopper GEMM is built (CUTLASS's warp-specialised TMA pipeline),
// on the `mm` tensor instruction.
//
// Kernel gemm_tma (grid (N/TN, M/TM), cluster (cluster_n, cluster_m, 1), 1 + TM/32 warps):
//   - warp 0, the producer, runs the K loop ahead of the consumers through an S-stage ring in
//     shared memory. Per K step kt (stage s = kt mod S, round r = kt / S): wait empty[s] (parity
//     (r & 1) ^ 1, so the first round passes on fresh barriers), arrive.expect_tx on full[s]
//     with the whole stage's bytes, then one TMA load for the A tile (TM x TK) and one for the
//     B tile (TN x TK) into stage s, completing on full[s];
//   - warps 1..TM/32, the consumers, wait full[s] (parity r & 1), load their 32 A rows into
//     r256.. with load_registers_shared (16 B per lane per op, through the same swizzle the TMA
//     wrote with), issue one mm (k = TK, n = TN, B columns = the stage's B rows), and release
//     the stage: one arrive on empty[s] of every CTA that writes into this CTA's stages;
//   - multicast: the cluster_m CTAs of a cluster column share the B tile and the cluster_n CTAs
//     of a row share the A tile; CTA g of a group loads row slice g of the shared tile with the
//     group's cta_mask, so global memory is read once per cluster. full[s] still expects the
//     whole stage; empty[s] counts consumers x the CTAs writing into this one (itself
//     included), because a producer may refill stage s only when every destination freed it;
//   - copy = 1 replaces the producer by the consumers' own 16-byte load_global/store_shared
//     copies into the same ring (bar.sync 1 among consumers between copy and mm);
//   - epilogue: the consumers (after bar.sync 1: everyone is done with the ring, which the
//     staging reuses) write their C rows into the staging area in the layout of the C map's
//     boxes ({32 columns, TM rows}, swizzled like A); bar.sync 2 over the whole CTA; the
//     producer stores the boxes with tma_store, commit_group and wait_group 0. A cluster ends
//     with cluster.sync, so no CTA exits while a peer may still arrive on its barriers.
// conv.tma reuses this body with its own operand loads (OperandLoad).
//
// Verification (functional mode): every C element against a naive GEMM, with gemm.mm's rules
// (check_tma_result).
#include "workloads/gemm_tma.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <memory>
#include <span>

#include "sim/float_formats.h"
#include "tma/swizzle.h"
#include "tma/tensor_map_encode.h"
#include "tma/tensor_map_io.h"
#include "workloads/ubench/common.h"

namespace xpusim::workloads {
namespace {

using kernel::Addr;
using kernel::kWarpSize;
using kernel::LaneMask;
using kernel::MmInstruction;
using kernel::MmType;
using kernel::TmaOp;
using kernel::Warp;
using U16 = std::uint16_t;
using U32 = std::uint32_t;
using U64 = std::uint64_t;

constexpr std::string_view kKernel = "gemm_tma";
constexpr std::string_view kName = "gemm.tma";
constexpr U32 kABase = 256;     // first A register (seed2 ¶95)
constexpr U32 kMaxARegs = 256;  // r256..r511
constexpr U32 kMaxTileN = 256;  // C in r0..r255
constexpr U64 kMaxDim = 16384;  // every matrix fits in 4 GiB
constexpr U32 kRegsPerThread = 128;
constexpr U32 kConsumerBarrier = 1;  // bar.sync among the consumer warps
constexpr U32 kCtaBarrier = 2;       // bar.sync over the whole CTA before the C stores

struct Chunk {  // 16 bytes: one lane's share of a copy or a register load
  std::uint32_t w[4];
};

std::uint64_t param(const system::ParamValues& v, std::string_view name) {
  return ubench::param(v, name);
}

U32 round_up(U32 x, U32 to) {
  return (x + to - 1) / to * to;
}

// The kernel's view of its arguments (tma_gemm_args order).
struct KernelView {
  Addr map_a = 0, map_b = 0, map_c = 0, a = 0, b = 0;
  U64 m = 0, n = 0, k = 0, k_steps = 0;
  TmaGemmTiling t{};

  static KernelView read(const Warp& w) {
    const kernel::KernelArgs& a = w.args();
    KernelView v;
    v.map_a = a.get_ptr(0), v.map_b = a.get_ptr(1), v.map_c = a.get_ptr(2);
    v.a = a.get_ptr(3), v.b = a.get_ptr(4);
    v.m = a.get_u32(5), v.n = a.get_u32(6), v.k = a.get_u32(7), v.k_steps = a.get_u32(8);
    v.t.int8 = a.get_u32(9) == 1;
    v.t.tile_n = a.get_u32(10);
    v.t.tile_k = a.get_u32(kTmaGemmArgTileK);
    v.t.stages = a.get_u32(12);
    v.t.cluster_m = a.get_u32(13);
    v.t.cluster_n = a.get_u32(14);
    v.t.multicast = a.get_u32(15) == 1;
    v.t.swizzle = a.get_u32(16) == 1;
    v.t.warpgroup_mm = a.get_u32(17) == 1;
    v.t.copy = false;  // the body sets it: null operand loads select the copy variant
    v.t.consumers = w.params().warps_per_block() - 1;
    return v;
  }
};

TmaOp tile_load(Addr map, std::int32_t c0, std::int32_t c1, U32 smem, U32 mbar, U16 mask) {
  TmaOp op{.kind = kernel::TmaKind::kLoadTile, .descriptor = map};
  op.coords[0] = c0;
  op.coords[1] = c1;
  op.rank = 2;
  op.smem = smem;
  op.mbar = mbar;
  op.cta_mask = mask;
  return op;
}

// Built outside the coroutine: GCC 12 cannot keep a braced coordinate list in a frame.
TmaOp tile_store(Addr map, U64 c0, U64 c1, U32 smem) {
  TmaOp op{.kind = kernel::TmaKind::kStoreTile, .descriptor = map};
  op.coords[0] = static_cast<std::int32_t>(c0);
  op.coords[1] = static_cast<std::int32_t>(c1);
  op.rank = 2;
  op.smem = smem;
  return op;
}

}  // namespace

TmaGemmLayout tma_gemm_layout(const TmaGemmTiling& t) {
  TmaGemmLayout l;
  l.a_bytes = t.tile_m() * t.row_bytes();
  l.b_bytes = t.tile_n * t.row_bytes();
  l.stage_bytes = round_up(l.a_bytes + l.b_bytes, 1024);
  l.staging_bytes = t.tile_m() * t.tile_n * 4;
  l.barriers = round_up(std::max(t.stages * l.stage_bytes, l.staging_bytes), 8);
  l.total = l.barriers + 16 * t.stages;
  return l;
}

std::vector<system::ParamDecl> tma_gemm_tiling_params() {
  return {
      {.name = "type",
       .description = "0: bf16 inputs, fp32 C; 1: s8 inputs, int32 C",
       .default_value = 0,
       .min = 0,
       .max = 1},
      {.name = "consumers",
       .description = "consumer warps (32 C rows each); the CTA adds one producer warp",
       .default_value = 4,
       .min = 1,
       .max = 8},
      {.name = "tile_n",
       .description = "C columns per CTA (mm n): 16, 32, or a multiple of 32 up to 256",
       .default_value = 128,
       .min = 16,
       .max = kMaxTileN},
      {.name = "tile_k",
       .description =
           "K elements per step (mm k), a multiple of 16; 0: 128 bytes (64 bf16, 128 s8)",
       .default_value = 0,
       .min = 0,
       .max = 256},
      {.name = "stages",
       .description = "pipeline stages (A and B tiles) in shared memory",
       .default_value = 4,
       .min = 1,
       .max = 8},
      {.name = "cluster_m",
       .description = "CTAs per cluster along M (they share the B tile with multicast)",
       .default_value = 1,
       .min = 1,
       .max = 16},
      {.name = "cluster_n",
       .description = "CTAs per cluster along N (they share the A tile with multicast)",
       .default_value = 1,
       .min = 1,
       .max = 16},
      {.name = "multicast",
       .description = "1: each shared tile is loaded once per cluster (TMA multicast)",
       .default_value = 0,
       .min = 0,
       .max = 1},
      {.name = "swizzle",
       .description = "1: SWIZZLE_128B on the A map and the C staging; 0: no swizzle",
       .default_value = 1,
       .min = 0,
       .max = 1},
      {.name = "copy",
       .description = "1: no TMA loads; the consumers copy A and B with 16 B loads and stores",
       .default_value = 0,
       .min = 0,
       .max = 1},
      {.name = "warpgroup_mm",
       .description = "1: mm is warpgroup-wide (wgmma-like: B fetched once per 4 consumer "
                      "warps; consumers a multiple of 4, the producer warp last)",
       .default_value = 0,
       .min = 0,
       .max = 1},
      {.name = "seed",
       .description = "random inputs' seed",
       .default_value = 1,
       .min = 0,
       .max = 0xFFFF'FFFF},
  };
}

TmaGemmTiling tma_gemm_tiling(const system::ParamValues& values, const config::ChipSpec& spec,
                              std::string_view workload, std::vector<Error>& errors) {
  TmaGemmTiling t;
  t.int8 = param(values, "type") == 1;
  t.consumers = static_cast<U32>(param(values, "consumers"));
  t.tile_n = static_cast<U32>(param(values, "tile_n"));
  t.tile_k = static_cast<U32>(param(values, "tile_k"));
  if (t.tile_k == 0) t.tile_k = 128 / t.eb();
  t.stages = static_cast<U32>(param(values, "stages"));
  t.cluster_m = static_cast<U32>(param(values, "cluster_m"));
  t.cluster_n = static_cast<U32>(param(values, "cluster_n"));
  t.multicast = param(values, "multicast") == 1;
  t.swizzle = param(values, "swizzle") == 1;
  t.copy = param(values, "copy") == 1;
  t.warpgroup_mm = param(values, "warpgroup_mm") == 1;
  const auto err = [&](std::string msg) {
    errors.push_back({fmt::format("{}: {}", workload, msg)});
  };

  if (t.tile_n % 16 != 0) {
    err(fmt::format("tile_n {} is not a multiple of 16", t.tile_n));
  } else if (t.tile_n > 32 && t.tile_n % 32 != 0) {
    err(fmt::format("tile_n {} is not a multiple of 32 (above 32, C leaves in 32-column boxes)",
                    t.tile_n));
  }
  if (t.tile_k % 16 != 0) {
    err(fmt::format("tile_k {} is not a multiple of 16", t.tile_k));
  } else if (t.row_bytes() / 4 > kMaxARegs) {
    err(fmt::format("tile_k {} needs {} A registers; r{}.. holds {}", t.tile_k, t.row_bytes() / 4,
                    kABase, kMaxARegs));
  } else if (t.swizzle && t.row_bytes() > 128) {
    err(fmt::format("tile_k {} makes {} B rows; swizzle 1 (SWIZZLE_128B) needs at most 128 B",
                    t.tile_k, t.row_bytes()));
  }
  if (t.multicast && t.cluster_size() == 1) {
    err("multicast 1 needs a cluster of more than one CTA (cluster_m or cluster_n > 1)");
  }
  if (t.multicast && t.copy) err("multicast 1 needs TMA loads (copy 0)");
  if (t.warpgroup_mm && t.consumers % 4 != 0) {
    err(
        fmt::format("warpgroup_mm 1 needs consumers a multiple of 4 (a warpgroup is 4 warps), "
                    "got {}",
                    t.consumers));
  }
  if (t.cluster_size() > 16) {
    err(fmt::format("cluster {} x {} has {} CTAs; a multicast mask holds 16", t.cluster_m,
                    t.cluster_n, t.cluster_size()));
  }
  if (t.multicast && errors.empty()) {
    // Each CTA's slice must be a whole number of rows at a box-aligned shared offset.
    const U32 align = t.swizzle ? tma::swizzle_alignment(tma::Swizzle::k128B) : 128;
    if (t.tile_m() % t.cluster_n != 0 || (t.a_rows() * t.row_bytes()) % align != 0) {
      err(
          fmt::format("multicast: the A tile's {} rows do not split into cluster_n {} slices of "
                      "a multiple of {} B",
                      t.tile_m(), t.cluster_n, align));
    }
    if (t.tile_n % t.cluster_m != 0 || (t.b_rows() * t.row_bytes()) % 128 != 0) {
      err(
          fmt::format("multicast: the B tile's {} rows do not split into cluster_m {} slices of "
                      "a multiple of 128 B",
                      t.tile_n, t.cluster_m));
    }
  }
  if (errors.empty()) {
    const TmaGemmLayout l = tma_gemm_layout(t);
    if (l.total > spec.sm.shared_memory_per_block_bytes) {
      err(
          fmt::format("{} stages of {} B (+ barriers) need {} B of shared memory; a CTA may "
                      "have {} B",
                      t.stages, l.stage_bytes, l.total, spec.sm.shared_memory_per_block_bytes));
    }
  }
  return t;
}

std::vector<kernel::ArgDecl> tma_gemm_arg_decls() {
  using kernel::ArgKind;
  return {
      {"map_a", ArgKind::kPtr},     {"map_b", ArgKind::kPtr},     {"map_c", ArgKind::kPtr},
      {"a", ArgKind::kPtr},         {"b", ArgKind::kPtr},         {"m", ArgKind::kU32},
      {"n", ArgKind::kU32},         {"k", ArgKind::kU32},         {"k_steps", ArgKind::kU32},
      {"type", ArgKind::kU32},      {"tile_n", ArgKind::kU32},    {"tile_k", ArgKind::kU32},
      {"stages", ArgKind::kU32},    {"cluster_m", ArgKind::kU32}, {"cluster_n", ArgKind::kU32},
      {"multicast", ArgKind::kU32}, {"swizzle", ArgKind::kU32},   {"warpgroup_mm", ArgKind::kU32}};
}

Result<TmaGemmBuffers> allocate_tma_gemm(system::Chip& chip, std::string_view workload, U64 a_bytes,
                                         U64 b_bytes, U64 c_bytes) {
  TmaGemmBuffers at;
  const std::pair<Addr*, std::pair<std::string_view, U64>> parts[] = {
      {&at.a, {"A", a_bytes}},
      {&at.b, {"B", b_bytes}},
      {&at.c, {"C", c_bytes}},
      {&at.maps, {"tensor maps", 3 * 128}}};
  for (const auto& [to, what] : parts) {
    auto x = chip.allocate(fmt::format("{}: {}", workload, what.first), what.second);
    if (!x) return x.errors();
    *to = *x;
  }
  return at;
}

kernel::KernelArgs tma_gemm_args(const TmaGemmTiling& t, const TmaGemmBuffers& at, U64 m, U64 n,
                                 U64 k, U64 k_steps) {
  return kernel::KernelArgs()
      .ptr(at.maps)
      .ptr(at.maps + 128)
      .ptr(at.maps + 256)
      .ptr(at.a)
      .ptr(at.b)
      .u32(static_cast<U32>(m))
      .u32(static_cast<U32>(n))
      .u32(static_cast<U32>(k))
      .u32(static_cast<U32>(k_steps))
      .u32(t.int8 ? 1 : 0)
      .u32(t.tile_n)
      .u32(t.tile_k)
      .u32(t.stages)
      .u32(t.cluster_m)
      .u32(t.cluster_n)
      .u32(t.multicast ? 1 : 0)
      .u32(t.swizzle ? 1 : 0)
      .u32(t.warpgroup_mm ? 1 : 0);
}

TmaOp gemm_load_a(const Warp& w, U64 kt, U64 row, U32 smem, U32 mbar, U16 cta_mask) {
  const U32 tk = w.args().get_u32(kTmaGemmArgTileK);
  return tile_load(w.args().get_ptr(0), static_cast<std::int32_t>(kt * tk),
                   static_cast<std::int32_t>(row), smem, mbar, cta_mask);
}

TmaOp gemm_load_b(const Warp& w, U64 kt, U64 row, U32 smem, U32 mbar, U16 cta_mask) {
  const U32 tk = w.args().get_u32(kTmaGemmArgTileK);
  return tile_load(w.args().get_ptr(1), static_cast<std::int32_t>(kt * tk),
                   static_cast<std::int32_t>(row), smem, mbar, cta_mask);
}

sim::Task<> tma_gemm_body(Warp& w, OperandLoad load_a, OperandLoad load_b) {
  KernelView v = KernelView::read(w);
  // copy mode is gemm_tma's: its loads are null (conv.tma always passes both).
  v.t.copy = load_a == nullptr;
  const TmaGemmTiling& t = v.t;
  const TmaGemmLayout lay = tma_gemm_layout(t);
  const U32 tm = t.tile_m(), tn = t.tile_n, tk = t.tile_k, rb = t.row_bytes();
  const U32 stages = t.stages, consumers = t.consumers;
  const U32 cw = t.c_box_cols();
  const tma::Swizzle swz = t.swizzle ? tma::Swizzle::k128B : tma::Swizzle::kNone;
  const tma::SwizzleXor swz_xor = tma::swizzle_xor(swz);  // once, not a switch per lane
  const auto swizzled = [swz_xor](U64 offset) {
    return Addr{tma::swizzle_offset(swz_xor, static_cast<U32>(offset))};
  };
  const U64 m0 = U64{w.block_id().y} * tm, n0 = U64{w.block_id().x} * tn;
  const bool cluster = t.cluster_size() > 1;

  // Cluster geometry (ranks x-fastest: rank = cy·cluster_n + cx). The A group shares this
  // CTA's M tile (same cy), the B group its N tile (same cx).
  const U32 rank = w.cluster_rank(), cn = t.cluster_n, cm = t.cluster_m;
  const U32 cx = rank % cn, cy = rank / cn;
  U32 group_a = 0, group_b = 0;
  for (U32 i = 0; i < cn; ++i)
    group_a |= 1u << (cy * cn + i);
  for (U32 i = 0; i < cm; ++i)
    group_b |= 1u << (i * cn + cx);
  const U32 writers = t.multicast ? (group_a | group_b) : (1u << rank);
  const U16 mask_a = t.multicast && cn > 1 ? static_cast<U16>(group_a) : 0;
  const U16 mask_b = t.multicast && cm > 1 ? static_cast<U16>(group_b) : 0;
  const U32 slice_a = t.multicast ? cx : 0, slice_b = t.multicast ? cy : 0;
  const auto empty = [&](U32 s) { return lay.barriers + 8 * (stages + s); };
  const U32 stage_tx = lay.a_bytes + lay.b_bytes;

  // With warpgroup-wide mm the consumers are warps 0.. (whole warpgroups), the producer last.
  const U32 producer_warp = t.warpgroup_mm ? consumers : 0;
  const bool producer = w.warp_id() == producer_warp;
  const U32 consumer = t.warpgroup_mm ? w.warp_id() : w.warp_id() - 1;  // consumers only

  if (!t.copy) {
    if (producer) {
      for (U32 s = 0; s < stages; ++s) {
        co_await w.mbarrier_init(lay.full(s), 1);
        co_await w.mbarrier_init(empty(s), consumers * static_cast<U32>(std::popcount(writers)));
      }
    }
    // Peers multicast into this CTA and arrive on its barriers: they must see them initialised.
    if (cluster) {
      co_await w.cluster_sync();
    } else {
      co_await w.sync_threads();
    }
  }

  if (producer) {
    if (!t.copy) {
      for (U64 kt = 0; kt < v.k_steps; ++kt) {
        const U32 s = static_cast<U32>(kt % stages);
        const U32 round = static_cast<U32>(kt / stages);
        co_await w.mbarrier_wait_parity(empty(s), (round & 1) ^ 1);
        co_await w.mbarrier_arrive_expect_tx(lay.full(s), stage_tx);
        const U32 rows_a = t.a_rows(), rows_b = t.b_rows();
        co_await Warp::TmaAwaiter(
            w, load_a(w, kt, m0 + U64{slice_a} * rows_a, lay.stage_a(s) + slice_a * rows_a * rb,
                      lay.full(s), mask_a));
        co_await Warp::TmaAwaiter(
            w, load_b(w, kt, n0 + U64{slice_b} * rows_b, lay.stage_b(s) + slice_b * rows_b * rb,
                      lay.full(s), mask_b));
      }
    }
  } else {
    // One mm per stage (the B addresses differ): column j of B is row j of the stage's Bt tile.
    std::vector<MmInstruction> mm(stages);
    for (U32 s = 0; s < stages; ++s) {
      MmInstruction& m = mm[s];
      m.a_type = m.b_type = t.int8 ? MmType::kS8 : MmType::kBF16;
      m.c_base = 0;
      m.a_base = kABase;
      m.k = tk;
      m.n = tn;
      m.b_shared = true;
      m.warpgroup = t.warpgroup_mm;
      m.b_strided = true;  // column j of the stage's Bt tile starts j rows in
      m.b_start = lay.stage_b(s);
      m.b_stride = rb;
    }
    // C starts at 0: a register reads 0 until written, so the tn moves below are only charged.
    const kernel::RegisterFile& regs = w.registers();
    co_await w.alu(tn);

    const U32 row0 = consumer * kWarpSize;  // this warp's first row of the CTA tile
    // copy mode: the consumers' threads copy 16 B chunks of both tiles of step kt.
    const auto copy_tiles = [&](U64 kt, U32 s) -> sim::Task<> {
      const U32 per_row = rb / 16;
      const U32 threads = consumers * kWarpSize;
      for (U32 tile = 0; tile < 2; ++tile) {
        const bool is_a = tile == 0;
        const U32 chunks = (is_a ? tm : tn) * per_row;
        for (U32 c0 = consumer * kWarpSize; c0 < chunks; c0 += threads) {
          LaneMask mask = 0;
          const auto src = kernel::lanes<Addr>([&](U32 l) {
            const U32 c = c0 + l;
            if (c >= chunks) return v.a;
            mask |= LaneMask{1} << l;
            const U64 row = (is_a ? m0 : n0) + c / per_row;
            return (is_a ? v.a : v.b) + (row * v.k + kt * tk) * t.eb() + (c % per_row) * 16;
          });
          const auto dst = kernel::lanes<Addr>([&](U32 l) {
            const U32 c = c0 + l;
            const U64 local = U64{c / per_row} * rb + (c % per_row) * 16;
            return is_a ? swizzled(lay.stage_a(s) + local) : Addr{lay.stage_b(s) + local};
          });
          const auto data = co_await w.load_global<Chunk>(src, mask);
          co_await w.store_shared<Chunk>(dst, data, mask);
        }
      }
    };

    for (U64 kt = 0; kt < v.k_steps; ++kt) {
      const U32 s = static_cast<U32>(kt % stages);
      const U32 round = static_cast<U32>(kt / stages);
      if (t.copy) {
        co_await copy_tiles(kt, s);
        co_await w.bar_sync(kConsumerBarrier, consumers * kWarpSize);
      } else {
        co_await w.mbarrier_wait_parity(lay.full(s), round & 1);
      }
      // Lane l's A row (row0 + l) of the stage, 16 B per lane per load, as the TMA laid it out.
      for (U32 q = 0; q < rb / 16; ++q) {
        const auto at = kernel::lanes<Addr>(
            [&](U32 l) { return swizzled(lay.stage_a(s) + U64{row0 + l} * rb + U64{q} * 16); });
        co_await w.load_registers_shared(kABase + 4 * q, 4, at);
      }
      co_await w.mm(mm[s]);
      if (t.copy) {
        // One buffer: nobody may overwrite it before every consumer's mm has read it.
        if (stages == 1) co_await w.bar_sync(kConsumerBarrier, consumers * kWarpSize);
      } else {
        for (U32 r = 0; r < 16; ++r) {
          if ((writers >> r & 1) == 0) continue;
          if (r == rank) {
            co_await w.mbarrier_arrive(empty(s));
          } else {
            co_await w.mbarrier_arrive_cluster(r, empty(s));
          }
        }
      }
    }

    // Epilogue: every consumer is done with the ring before the staging overwrites it.
    co_await w.bar_sync(kConsumerBarrier, consumers * kWarpSize);
    for (U32 j = 0; j < tn; j += 4) {
      const U32 box = j / cw, col = j % cw;
      const auto at = kernel::lanes<Addr>([&](U32 l) {
        return swizzled(U64{box} * tm * cw * 4 + U64{row0 + l} * cw * 4 + U64{col} * 4);
      });
      const auto data = kernel::lanes<Chunk>([&](U32 l) {
        return Chunk{{regs.at(l, j), regs.at(l, j + 1), regs.at(l, j + 2), regs.at(l, j + 3)}};
      });
      co_await w.store_shared<Chunk>(at, data);
    }
  }

  co_await w.bar_sync(kCtaBarrier, (consumers + 1) * kWarpSize);
  if (producer && m0 < v.m) {  // a CTA wholly past M (cluster rounding) stores nothing
    for (U32 box = 0; box < tn / cw && n0 + U64{box} * cw < v.n; ++box) {
      co_await Warp::TmaAwaiter(w, tile_store(v.map_c, n0 + U64{box} * cw, m0, box * tm * cw * 4));
    }
    co_await w.tma_commit_group();
    co_await w.tma_wait_group(0);
  }
  if (cluster) co_await w.cluster_sync();
}

// ---- host helpers -------------------------------------------------------------------------

std::vector<std::uint8_t> tma_random_operand(std::mt19937_64& gen, U64 elements, bool int8) {
  const U32 eb = int8 ? 1 : 2;
  std::vector<std::uint8_t> bytes(elements * eb, 0);
  for (U64 i = 0; i < elements; ++i) {
    if (int8) {
      bytes[i] = static_cast<std::uint8_t>(gen() >> 56);
    } else {  // uniform in [-1, 1) with 24 random bits, rounded to bf16
      const float x = static_cast<float>(static_cast<double>(gen() >> 40) / 8388608.0 - 1.0);
      const std::uint16_t b = float_to_bf16(x);
      bytes[2 * i] = static_cast<std::uint8_t>(b & 0xFF);
      bytes[2 * i + 1] = static_cast<std::uint8_t>(b >> 8);
    }
  }
  return bytes;
}

double tma_operand_value(const std::vector<std::uint8_t>& bytes, U64 i, bool int8) {
  if (int8) return static_cast<std::int8_t>(bytes[i]);
  return bf16_to_float(static_cast<std::uint16_t>(bytes[2 * i] | (bytes[2 * i + 1] << 8)));
}

Status check_tma_result(std::string_view workload, const std::string& where, U32 bits, double sum,
                        double abs_sum, U64 terms, bool int8) {
  if (int8) {
    const auto want =
        static_cast<std::int32_t>(static_cast<std::uint32_t>(static_cast<std::int64_t>(sum)));
    const auto got = static_cast<std::int32_t>(bits);
    if (got == want) return Ok{};
    return Error{fmt::format("{}: {} = {}, want {} (int32, exact)", workload, where, got, want)};
  }
  const double got = std::bit_cast<float>(bits);
  const double tol = static_cast<double>(terms) * std::ldexp(1.0, -22) * abs_sum + 1e-30;
  if (std::fabs(got - sum) <= tol) return Ok{};
  return Error{fmt::format(
      "{}: {} = {:.9g}, want {:.9g} (|error| {:.3g} > tolerance K·2^-22·Σ|a·b| = {:.3g})", workload,
      where, got, sum, std::fabs(got - sum), tol)};
}

Status write_tensor_map(system::Chip& chip, Addr at, const Result<tma::TensorMap>& map,
                        std::string_view workload, std::string_view what) {
  if (!map) {
    std::vector<Error> errors;
    for (const Error& e : map.errors())
      errors.push_back({fmt::format("{}: {} tensor map: {}", workload, what, e.message)});
    return errors;
  }
  const tma::TensorMapBlob blob = tma::to_blob(*map);
  return chip.memory().write(at, std::span<const std::byte>(blob));
}

Result<tma::TensorMap> tma_gemm_c_map(const TmaGemmTiling& t, Addr c, U64 m, U64 n) {
  return tma::encode_tiled({.data_type = t.int8 ? tma::DataType::kInt32 : tma::DataType::kFloat32,
                            .rank = 2,
                            .global_address = c,
                            .global_dim = {n, m},
                            .global_strides = {n * 4},
                            .box_dim = {t.c_box_cols(), t.tile_m()},
                            .element_strides = {1, 1},
                            .swizzle = t.swizzle ? tma::Swizzle::k128B : tma::Swizzle::kNone});
}

kernel::LaunchParams tma_gemm_launch(const TmaGemmTiling& t, U64 m, U64 n) {
  const auto tiles = [](U64 extent, U64 tile, U64 cluster) {
    const U64 count = (extent + tile - 1) / tile;
    return static_cast<U32>((count + cluster - 1) / cluster * cluster);
  };
  return {.grid = {tiles(n, t.tile_n, t.cluster_n), tiles(m, t.tile_m(), t.cluster_m), 1},
          .cluster = {t.cluster_n, t.cluster_m, 1},
          .block = {32 * (t.consumers + 1), 1, 1},
          .dynamic_shared_bytes = tma_gemm_layout(t).total,
          .registers_per_thread = kRegsPerThread};
}

namespace {
// A TMA unit's stats live under the first SM it serves (tma.sms_per_unit may share one), so
// the sum skips SMs without the stat. Errors: no SM has it.
Result<double> sum_over_tma_units(system::Chip& chip, std::string_view stat) {
  double sum = 0;
  bool found = false;
  for (std::uint32_t i = 0; i < chip.num_sms(); ++i) {
    if (auto v = ubench::stat_value(chip, fmt::format("{}.tma.{}", chip.sm(i).path(), stat))) {
      sum += *v;
      found = true;
    }
  }
  if (!found) return Error{fmt::format("no SM has a tma.{} stat", stat)};
  return sum;
}
}  // namespace

TmaGemmCounters read_tma_gemm_counters(system::Chip& chip) {
  TmaGemmCounters c;
  if (auto v = ubench::sum_over_sms(chip, "mm.instructions")) c.mm = *v;
  if (auto v = ubench::sum_over_sms(chip, "tensor.busy_cycles")) c.busy = *v;
  if (auto v = sum_over_tma_units(chip, "bytes_read")) c.tma_read = *v;
  if (auto v = ubench::sum_over_sms(chip, "shared_wavefronts")) c.wavefronts = *v;
  if (auto v = ubench::sum_over_sms(chip, "bank_conflicts")) c.conflicts = *v;
  return c;
}

std::string tma_gemm_tiling_text(const TmaGemmTiling& t) {
  return fmt::format("CTA {} x {} x {} ({} consumer{}{}), {} stage{}, cluster {}x{}{}, {}, {}",
                     t.tile_m(), t.tile_n, t.tile_k, t.consumers, t.consumers == 1 ? "" : "s",
                     t.warpgroup_mm ? ", warpgroup-wide mm" : "", t.stages,
                     t.stages == 1 ? "" : "s", t.cluster_m, t.cluster_n,
                     t.multicast ? " multicast" : "", t.swizzle ? "swizzle 128B" : "no swizzle",
                     t.copy ? "per-thread copies" : "TMA loads");
}

Result<std::vector<system::Measurement>> tma_gemm_measurements(system::Chip& chip, U32 launch,
                                                               const TmaGemmTiling& t, double ops,
                                                               double expected_mm,
                                                               const TmaGemmCounters& before,
                                                               const std::string& shape) {
  const config::ChipSpec& spec = chip.spec();
  const system::KernelRun& run = chip.run(launch);
  const double ps = static_cast<double>(run.completed - run.first_start);
  const double cycles = ubench::ps_to_sm_cycles(spec, ps);
  const double tflops = ps == 0 ? 0 : ops / ps;  // ops per ps = Tops/s
  const double peak = t.int8 ? spec.peak_int8_dense_tops() : spec.peak_bf16_dense_tflops();
  const TmaGemmCounters now = read_tma_gemm_counters(chip);
  const double sms = static_cast<double>(ubench::busy_sms(chip).size());
  const double cores = spec.sm.tensor.cores;
  const bool functional = chip.options().functional;
  const kernel::Dim3 grid = run.params.grid;
  std::vector<system::Measurement> out{
      {.name = "cycles",
       .measured = cycles,
       .configured = std::nullopt,
       .unit = "cycles",
       .note = fmt::format("first CTA start to last CTA exit, SM clock; {}{}", shape,
                           functional ? "" : "; C not verified (timing-only)")},
      {.name = t.int8 ? "TOPS" : "TFLOP/s",
       .measured = tflops,
       .configured = peak,
       .unit = t.int8 ? "TOPS" : "TFLOP/s",
       .note = fmt::format(
           "2·M·N·K over first CTA start to last CTA exit; configured = the chip's dense {} peak",
           t.int8 ? "int8" : "bf16")},
      {.name = "% of dense peak",
       .measured = peak == 0 ? 0 : 100.0 * tflops / peak,
       .configured = std::nullopt,
       .unit = "%",
       .note = fmt::format("{} CTAs on {} of {} SMs", grid.count(), sms, chip.num_sms())},
      {.name = "tensor-unit busy",
       .measured = cycles * sms * cores == 0
                       ? 0
                       : 100.0 * (now.busy - before.busy) / (cycles * sms * cores),
       .configured = std::nullopt,
       .unit = "%",
       .note = "sum of sm*.tensor.busy_cycles / (cycles x SMs used x tensor cores per SM)"},
      {.name = "mm instructions",
       .measured = now.mm - before.mm,
       .configured = expected_mm,
       .unit = "instructions",
       .note = "configured = CTAs x consumers x K steps"},
      {.name = "shared wavefronts",
       .measured = now.wavefronts - before.wavefronts,
       .configured = std::nullopt,
       .unit = "wavefronts",
       .note = "sum of sm*.shared_wavefronts (the warps' shared loads, stores, register loads)"},
      {.name = "bank conflicts",
       .measured = now.conflicts - before.conflicts,
       .configured = std::nullopt,
       .unit = "wavefronts",
       .note = "sum of sm*.bank_conflicts (wavefronts beyond the conflict-free minimum)"},
  };
  if (auto v = sum_over_tma_units(chip, "bytes_read")) {
    out.push_back({.name = "TMA bytes read",
                   .measured = *v - before.tma_read,
                   .configured = std::nullopt,
                   .unit = "bytes",
                   .note = "sum of the TMA units' tma.bytes_read (global bytes they read)"});
  }
  if (auto rate = ubench::l2_hit_rate(chip)) out.push_back(*rate);
  return out;
}

namespace {

sim::Task<> gemm_tma_kernel(Warp& w) {
  // copy mode has no TMA loads: the body copies when the loads are null.
  if (w.args().get_u32(kTmaGemmArgCount) == 1) return tma_gemm_body(w, nullptr, nullptr);
  return tma_gemm_body(w, gemm_load_a, gemm_load_b);
}

class GemmTma final : public system::Workload {
 public:
  std::string_view name() const override { return kName; }
  std::string_view description() const override {
    return "C = A x B (bf16 -> fp32 or s8 -> int32) on mm, fed by a TMA producer warp through an "
           "mbarrier ring (clusters, multicast, swizzle), C out through TMA stores";
  }
  std::vector<system::ParamDecl> params() const override {
    std::vector<system::ParamDecl> p{
        {.name = "m",
         .description = "rows of A and C",
         .default_value = 256,
         .min = 32,
         .max = kMaxDim},
        {.name = "n",
         .description = "columns of C (rows of Bt)",
         .default_value = 256,
         .min = 16,
         .max = kMaxDim},
        {.name = "k",
         .description = "columns of A and Bt",
         .default_value = 256,
         .min = 16,
         .max = kMaxDim},
    };
    for (system::ParamDecl& d : tma_gemm_tiling_params())
      p.push_back(std::move(d));
    return p;
  }

  Status setup(system::Chip& chip, const kernel::KernelRegistry& kernels,
               const system::ParamValues& values) override {
    m_ = param(values, "m"), n_ = param(values, "n"), k_ = param(values, "k");
    std::vector<Error> errors;
    t_ = tma_gemm_tiling(values, chip.spec(), kName, errors);
    const U64 rows = U64{t_.tile_m()} * t_.cluster_m, cols = U64{t_.tile_n} * t_.cluster_n;
    if (m_ % rows != 0) {
      errors.push_back(
          {fmt::format("{}: m {} is not a multiple of {} (tile rows {} = 32 x "
                       "consumers {}, x cluster_m {})",
                       kName, m_, rows, t_.tile_m(), t_.consumers, t_.cluster_m)});
    }
    if (n_ % cols != 0) {
      errors.push_back({fmt::format("{}: n {} is not a multiple of {} (tile_n {} x cluster_n {})",
                                    kName, n_, cols, t_.tile_n, t_.cluster_n)});
    }
    if (t_.tile_k != 0 && k_ % t_.tile_k != 0) {
      errors.push_back(
          {fmt::format("{}: k {} is not a multiple of tile_k {}", kName, k_, t_.tile_k)});
    }
    if (!errors.empty()) return errors;
    auto kdef = kernels.find(kKernel);
    if (!kdef) return kdef.errors();

    const U32 eb = t_.eb();
    auto at = allocate_tma_gemm(chip, kName, m_ * k_ * eb, n_ * k_ * eb, m_ * n_ * 4);
    if (!at) return at.errors();
    at_ = *at;
    // Inputs (functional mode only: timing-only runs at 8192^3 must not build them).
    const bool functional = chip.options().functional;
    if (functional) {
      std::mt19937_64 gen(param(values, "seed"));
      a_ = tma_random_operand(gen, m_ * k_, t_.int8);
      bt_ = tma_random_operand(gen, n_ * k_, t_.int8);
      if (auto st = chip.memory().write(at_.a, std::as_bytes(std::span(a_))); !st) return st;
      if (auto st = chip.memory().write(at_.b, std::as_bytes(std::span(bt_))); !st) return st;
    }
    const tma::DataType in = t_.int8 ? tma::DataType::kUint8 : tma::DataType::kBfloat16;
    const auto operand_map = [&](Addr at, U64 rows_total, U32 box_rows, bool swizzled) {
      return tma::encode_tiled({.data_type = in,
                                .rank = 2,
                                .global_address = at,
                                .global_dim = {k_, rows_total},
                                .global_strides = {k_ * eb},
                                .box_dim = {t_.tile_k, box_rows},
                                .element_strides = {1, 1},
                                .swizzle = swizzled ? tma::Swizzle::k128B : tma::Swizzle::kNone});
    };
    std::vector<Error> map_errors;
    const auto write = [&](Addr at, const Result<tma::TensorMap>& map, std::string_view what) {
      if (auto st = write_tensor_map(chip, at, map, kName, what); !st) {
        for (const Error& e : st.errors())
          map_errors.push_back(e);
      }
    };
    write(at_.maps, operand_map(at_.a, m_, t_.a_rows(), t_.swizzle), "A");
    write(at_.maps + 128, operand_map(at_.b, n_, t_.b_rows(), false), "B");
    write(at_.maps + 256, tma_gemm_c_map(t_, at_.c, m_, n_), "C");
    if (!map_errors.empty()) return map_errors;

    before_ = read_tma_gemm_counters(chip);
    auto id = chip.launch(**kdef, tma_gemm_launch(t_, m_, n_),
                          tma_gemm_args(t_, at_, m_, n_, k_, k_ / t_.tile_k).u32(t_.copy ? 1 : 0));
    if (!id) return id.errors();
    launch_ = *id;
    return Ok{};
  }

  Result<std::vector<system::Measurement>> report(system::Chip& chip) override {
    if (auto st = ubench::check_completed(chip, launch_, kName); !st) return st.errors();
    if (chip.options().functional) {
      if (auto st = verify(chip); !st) return st.errors();
    }
    const double ops =
        2.0 * static_cast<double>(m_) * static_cast<double>(n_) * static_cast<double>(k_);
    const double expected_mm = static_cast<double>(m_ / 32) * static_cast<double>(n_ / t_.tile_n) *
                               static_cast<double>(k_ / t_.tile_k);
    const std::string shape = fmt::format("{} x {} x {} {}, {}", m_, n_, k_,
                                          t_.int8 ? "s8" : "bf16", tma_gemm_tiling_text(t_));
    return tma_gemm_measurements(chip, launch_, t_, ops, expected_mm, before_, shape);
  }

 private:
  // Every C element against the naive GEMM; the error names the first mismatch.
  Status verify(system::Chip& chip) {
    std::vector<std::uint32_t> c(m_ * n_);
    if (auto st = chip.memory().read(at_.c, std::as_writable_bytes(std::span(c))); !st) {
      return st;
    }
    std::vector<double> a(m_ * k_), bt(n_ * k_);
    for (U64 i = 0; i < m_ * k_; ++i)
      a[i] = tma_operand_value(a_, i, t_.int8);
    for (U64 i = 0; i < n_ * k_; ++i)
      bt[i] = tma_operand_value(bt_, i, t_.int8);
    for (U64 i = 0; i < m_; ++i) {
      for (U64 j = 0; j < n_; ++j) {
        double sum = 0, abs_sum = 0;
        for (U64 e = 0; e < k_; ++e) {
          const double p = a[i * k_ + e] * bt[j * k_ + e];
          sum += p;
          abs_sum += std::fabs(p);
        }
        if (auto st = check_tma_result(kName, fmt::format("C[{}][{}]", i, j), c[i * n_ + j], sum,
                                       abs_sum, k_, t_.int8);
            !st) {
          return st;
        }
      }
    }
    return Ok{};
  }

  U64 m_ = 0, n_ = 0, k_ = 0;
  TmaGemmTiling t_{};
  std::vector<std::uint8_t> a_, bt_;
  TmaGemmCounters before_{};
  U32 launch_ = 0;
  TmaGemmBuffers at_;
};

}  // namespace

Status register_gemm_tma(kernel::KernelRegistry& kernels, system::WorkloadRegistry& workloads) {
  std::vector<kernel::ArgDecl> args = tma_gemm_arg_decls();
  args.push_back({"copy", kernel::ArgKind::kU32});
  if (auto st = kernels.add({.name = std::string(kKernel),
                             .description = "C = A x B with mm: a TMA producer warp fills an "
                                            "mbarrier ring, consumer warps multiply (gemm.tma)",
                             .args = std::move(args),
                             .body = gemm_tma_kernel,
                             .static_shared_bytes = 0});
      !st) {
    return st;
  }
  return workloads.add(std::make_unique<GemmTma>());
}

}  // namespace xpusim::workloads
