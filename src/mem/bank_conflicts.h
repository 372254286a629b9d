// Shared-memory bank-conflict analysis: how many wavefronts (shared-memory data cycles) one
// warp-wide access needs. Used by the SMEM timing model and to check swizzle layouts (seed0
// §3.6, Figs. 9b-9d: 8 cycles unswizzled vs 1 with SWIZZLE_128B).
//
// The rule (CUDA Programming Guide, "Shared Memory" for compute capability 5.x and newer;
// Nsight Compute's "wavefront" = one pass through the shared-memory data stage):
//  - shared memory is `banks` banks of `bank_bytes` (32 x 4 B = one 128 B row); consecutive
//    words go to consecutive banks: bank(word) = word % banks, word = address / bank_bytes;
//  - one wavefront returns at most one row (banks x bank_bytes bytes), so a warp access is split
//    into phases of lanes: all 32 lanes for accesses up to 4 B, half warps (lanes 0-15, 16-31)
//    for 8 B, quarter warps (0-7, 8-15, 16-23, 24-31) for 16 B (LDS.64/LDS.128, ldmatrix);
//  - inside a phase, lanes reading the same word share it (broadcast / multicast, no
//    conflict); different words in the same bank serialize. A phase needs
//    max over banks of (distinct words in that bank) wavefronts; lanes of different phases
//    never conflict with each other;
//  - the access costs the sum over phases that have at least one active lane.
// Not modelled: Volta/Turing's packing of uniform-address LDS.128 into fewer wavefronts.
// docs/tma.md ("Swizzle and bank conflicts") has the sources and worked examples.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "sim/result.h"

namespace xpusim::mem {

inline constexpr std::uint32_t kWarpLanes = 32;

struct BankGeometry {
  std::uint32_t banks = 32;
  std::uint32_t bank_bytes = 4;
};

// One active lane's part of a warp-wide shared-memory access. All lanes of one access use the
// same width (one instruction has one width): 1, 2, 4, 8 or 16 bytes, naturally aligned.
struct LaneAccess {
  std::uint32_t lane = 0;     // 0..31; decides the phase for 8 B and 16 B accesses
  std::uint32_t address = 0;  // byte offset in the CTA's shared memory
  std::uint32_t bytes = 4;
};

struct BankConflictCost {
  std::uint32_t wavefronts = 0;  // shared-memory data cycles the access takes
  std::uint32_t phases = 0;      // phases with an active lane: the conflict-free minimum
  std::uint32_t conflict_wavefronts() const { return wavefronts - phases; }
};

// Maps a logical shared-memory byte address to the physical one (e.g. a tensor-map swizzle).
// It is applied to the address of every bank word an access touches, so it must move aligned
// words as a whole (every TMA swizzle moves 8 B or larger granules).
using AddressMap = std::function<std::uint32_t(std::uint32_t)>;

// The cost of one warp-wide (or partial) access. Errors name the lane and the rule: width not
// 1/2/4/8/16, mixed widths, a misaligned address, a lane outside 0..31 or listed twice, an
// address map that splits a bank word, or a geometry with zero banks or a bank width that is
// not a power of two.
Result<BankConflictCost> bank_conflict_cost(std::span<const LaneAccess> accesses,
                                            const BankGeometry& geometry = {},
                                            const AddressMap& map = {});

// The same cost for a warp access already known to be valid (lane l active when bit l of
// `mask` is set, at addresses[l]; one width of 1/2/4/8/16 B, naturally aligned; no address
// map): the SM's per-instruction path. It builds no lane records and does not allocate; a
// phase with no two words in one bank costs one pass over its lanes. Geometries of more than
// 64 banks take the general path.
BankConflictCost valid_warp_access_cost(std::span<const std::uint64_t, kWarpLanes> addresses,
                                        std::uint32_t mask, std::uint32_t bytes,
                                        const BankGeometry& geometry = {});

// Lanes 0..n-1 each access `bytes` at addresses[lane].
std::vector<LaneAccess> warp_access(std::span<const std::uint32_t> addresses, std::uint32_t bytes);

// `rows` lanes (default 8: one 16 B phase) each reading one 16 B chunk: lane r reads chunk
// `chunk_column` of row r, i.e. base + r * row_pitch + 16 * chunk_column.
std::vector<LaneAccess> column_chunk_access(std::uint32_t base, std::uint32_t row_pitch,
                                            std::uint32_t chunk_column, std::uint32_t rows = 8);

// Where one 8x8 matrix of 16-bit elements (8 rows of 16 B) starts in a row-major buffer.
struct MatrixOrigin {
  std::uint32_t row = 0;    // first row of the matrix
  std::uint32_t chunk = 0;  // 16 B column of the matrix
};

// ldmatrix.x4-style access: lane t gives the row address of row t % 8 of matrix t / 8, and
// reads those 16 B. The default origins are the four 8x8 quarters of a 16x16 tile in the
// order an mma.m16n8k16 A fragment loads them: (rows 0-7, k 0-7), (rows 8-15, k 0-7),
// (rows 0-7, k 8-15), (rows 8-15, k 8-15).
std::vector<LaneAccess> ldmatrix_x4_access(std::uint32_t base, std::uint32_t row_pitch,
                                           std::span<const MatrixOrigin, 4> origins);
std::vector<LaneAccess> ldmatrix_x4_access(std::uint32_t base, std::uint32_t row_pitch);

}  // namespace xpusim::mem
