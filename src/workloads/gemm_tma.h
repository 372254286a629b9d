// gemm.tma: the flagship GEMM — a warp-specialised, TMA-fed, mbarrier-pipelined kernel on the
// `mm` tensor instruction, C (M x N, fp32 or int32) = A (M x K, K-major) x B, with B given as
// Bt (N x K, K-major), bf16 or s8 inputs. conv.tma (conv_tma.h) runs the same kernel with an
// im2col A operand. The kernel's structure is described in gemm_tma.cc and docs/workloads.md.
//
// This header is what the two workloads share: the tiling parameters and their checks, the
// shared-memory layout, the kernel body with its pluggable operand loads, the kernel
// arguments, and the host helpers (inputs, tensor maps, launch, measurements).
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "kernel/op.h"
#include "kernel/registry.h"
#include "kernel/warp.h"
#include "sim/result.h"
#include "sim/task.h"
#include "system/workload.h"
#include "tma/tensor_map.h"

namespace xpusim::workloads {

// Device memory of both workloads, from the chip's allocator: A (or the conv input), B (Bt,
// or the filter), C (or the conv output), and the tensor maps of A, B and C, 128 B apart.
struct TmaGemmBuffers {
  kernel::Addr a = 0, b = 0, c = 0, maps = 0;
};
// Errors: the chip's memory is full (named with `workload` and the operand).
Result<TmaGemmBuffers> allocate_tma_gemm(system::Chip& chip, std::string_view workload,
                                         std::uint64_t a_bytes, std::uint64_t b_bytes,
                                         std::uint64_t c_bytes);

// The tiling both workloads take (parameters of the same names).
struct TmaGemmTiling {
  bool int8 = false;            // type 1: s8 -> int32; 0: bf16 -> fp32
  std::uint32_t consumers = 4;  // consumer warps; the CTA tile has 32 x consumers rows
  std::uint32_t tile_n = 128;   // C columns per CTA (mm n)
  std::uint32_t tile_k = 64;    // K elements per step (mm k), resolved (never 0)
  std::uint32_t stages = 4;     // ring depth
  std::uint32_t cluster_m = 1;  // CTAs of a cluster along M (grid y)
  std::uint32_t cluster_n = 1;  // ... along N (grid x)
  bool multicast = false;       // share A along cluster_n, B along cluster_m
  bool swizzle = true;          // SWIZZLE_128B on the A map and the C staging
  bool copy = false;            // consumers copy A and B with per-thread loads (no TMA loads)
  // mm is warpgroup-wide (MmInstruction::warpgroup): consumer warps 0.. form whole
  // warpgroups and the producer is the last warp; else the producer is warp 0.
  bool warpgroup_mm = false;

  std::uint32_t eb() const { return int8 ? 1 : 2; }
  std::uint32_t tile_m() const { return 32 * consumers; }
  std::uint32_t row_bytes() const { return tile_k * eb(); }  // one A or B row of a stage
  std::uint32_t cluster_size() const { return cluster_m * cluster_n; }
  // Rows of A / B one CTA loads per step: a slice with multicast, else the whole tile.
  std::uint32_t a_rows() const { return multicast ? tile_m() / cluster_n : tile_m(); }
  std::uint32_t b_rows() const { return multicast ? tile_n / cluster_m : tile_n; }
  // Columns per C store box (<= 128 B rows, so the C staging can take SWIZZLE_128B).
  std::uint32_t c_box_cols() const { return tile_n < 32 ? tile_n : 32; }
};

// The CTA's dynamic shared memory: the stage ring, the C staging area (reusing the ring after
// the last step), then full[s] and empty[s] (8 B each).
struct TmaGemmLayout {
  std::uint32_t a_bytes = 0;      // A tile of one stage (tile_m rows)
  std::uint32_t b_bytes = 0;      // B tile (tile_n rows)
  std::uint32_t stage_bytes = 0;  // a + b, rounded up to 1024 (SWIZZLE_128B alignment)
  std::uint32_t staging_bytes = 0;
  std::uint32_t barriers = 0;  // offset of full[0]; empty[0] follows full[stages-1]
  std::uint32_t total = 0;

  std::uint32_t stage_a(std::uint32_t s) const { return s * stage_bytes; }
  std::uint32_t stage_b(std::uint32_t s) const { return s * stage_bytes + a_bytes; }
  std::uint32_t full(std::uint32_t s) const { return barriers + 8 * s; }
};
TmaGemmLayout tma_gemm_layout(const TmaGemmTiling& t);

// The parameters tma_gemm_tiling reads (type, consumers, tile_n, tile_k, stages, cluster_m,
// cluster_n, multicast, swizzle, copy, seed), with defaults.
std::vector<system::ParamDecl> tma_gemm_tiling_params();
// Reads the tiling and appends every rule it breaks that does not depend on the problem size
// (tile shapes, registers, box limits, multicast slices, shared memory) to `errors`, each one
// line prefixed by `workload`.
TmaGemmTiling tma_gemm_tiling(const system::ParamValues& values, const config::ChipSpec& spec,
                              std::string_view workload, std::vector<Error>& errors);

// The kernel arguments both kernels start with (kernels.h style declarations, in order).
std::vector<kernel::ArgDecl> tma_gemm_arg_decls();
kernel::KernelArgs tma_gemm_args(const TmaGemmTiling& t, const TmaGemmBuffers& at, std::uint64_t m,
                                 std::uint64_t n, std::uint64_t k, std::uint64_t k_steps);
inline constexpr std::size_t kTmaGemmArgCount = 18;  // conv.tma's own arguments follow
inline constexpr std::size_t kTmaGemmArgTileK = 11;  // tile_k, which the operand loads read

// The TMA load of one operand slice for K step `kt`: `row` is the first global row (A: an
// output row m; B: an output column n) of the slice, `smem` its destination in the stage,
// `mbar` the stage's full barrier, `cta_mask` the multicast ranks (0: this CTA only). The
// loader reads its tensor map and any extra arguments from the warp's kernel arguments.
using OperandLoad = kernel::TmaOp (*)(const kernel::Warp& w, std::uint64_t kt, std::uint64_t row,
                                      std::uint32_t smem, std::uint32_t mbar,
                                      std::uint16_t cta_mask);
// Tile loads of the 2-D maps at arguments 0 (A: {K, M}) and 1 (Bt: {K, N}).
kernel::TmaOp gemm_load_a(const kernel::Warp& w, std::uint64_t kt, std::uint64_t row,
                          std::uint32_t smem, std::uint32_t mbar, std::uint16_t cta_mask);
kernel::TmaOp gemm_load_b(const kernel::Warp& w, std::uint64_t kt, std::uint64_t row,
                          std::uint32_t smem, std::uint32_t mbar, std::uint16_t cta_mask);

// The kernel body: warp 0 produces (TMA loads into the ring), warps 1.. consume (mm), then
// the C tile leaves through TMA stores. Null loads select gemm.tma's copy = 1 variant (the
// consumers copy the tiles of the 2-D A and Bt at arguments 3 and 4 themselves).
sim::Task<> tma_gemm_body(kernel::Warp& w, OperandLoad load_a, OperandLoad load_b);

// ---- host helpers -------------------------------------------------------------------------

// Random operand bytes: s8 uniform, or bf16 uniform in [-1, 1) (as gemm.mm).
std::vector<std::uint8_t> tma_random_operand(std::mt19937_64& gen, std::uint64_t elements,
                                             bool int8);
// Element i of such an operand as a number.
double tma_operand_value(const std::vector<std::uint8_t>& bytes, std::uint64_t i, bool int8);
// One C element against its reference sum (s8: the int32 wrap of `sum`, exact; bf16:
// |got - sum| <= terms · 2^-22 · abs_sum + 1e-30). `where` names the element ("C[3][4]").
Status check_tma_result(std::string_view workload, const std::string& where, std::uint32_t bits,
                        double sum, double abs_sum, std::uint64_t terms, bool int8);

// Encodes with the cuda.h rules and writes the 128 B blob to `at`; errors are prefixed
// "<workload>: <what> tensor map: ".
Status write_tensor_map(system::Chip& chip, kernel::Addr at, const Result<tma::TensorMap>& map,
                        std::string_view workload, std::string_view what);
// The C (output) map over the M x N fp32 / int32 matrix at `c`, box {c_box_cols, tile_m}.
Result<tma::TensorMap> tma_gemm_c_map(const TmaGemmTiling& t, kernel::Addr c, std::uint64_t m,
                                      std::uint64_t n);

// Launch dimensions for an M x N output (grid rounded up to whole tiles and clusters).
kernel::LaunchParams tma_gemm_launch(const TmaGemmTiling& t, std::uint64_t m, std::uint64_t n);

// Stats read before the launch and differenced in the report.
struct TmaGemmCounters {
  double mm = 0, busy = 0, tma_read = 0, wavefronts = 0, conflicts = 0;
};
TmaGemmCounters read_tma_gemm_counters(system::Chip& chip);

// cycles, TFLOP/s (TOPS), % of dense peak, tensor-unit busy, mm instructions, shared
// wavefronts and bank conflicts, TMA bytes read and the L2 hit rate; `ops` = 2·M·N·K, `shape` goes
// into the cycles note.
Result<std::vector<system::Measurement>> tma_gemm_measurements(
    system::Chip& chip, std::uint32_t launch, const TmaGemmTiling& t, double ops,
    double expected_mm, const TmaGemmCounters& before, const std::string& shape);
// "CTA 128 x 128 x 64 (4 consumers), 4 stages, cluster 2x1 multicast, swizzle, TMA".
std::string tma_gemm_tiling_text(const TmaGemmTiling& t);

// The kernel "gemm_tma" and the workload "gemm.tma".
Status register_gemm_tma(kernel::KernelRegistry& kernels, system::WorkloadRegistry& workloads);

}  // namespace xpusim::workloads
