// The bit-exact functional model of the TMA unit's copy engine (seed0 ¶93-¶162): what bytes
// one TMA operation moves, and which memory requests it generates. It is usable alone (no
// simulation, no timing); the TMA timing pipeline consumes CopyReport.
//
// Conventions shared by every operation:
//  - A box is written to (or read from) shared memory densely, dim 0 innermost, in traversal
//    order, starting at the destination offset, then passed through swizzle_offset() (keyed
//    on the CTA-relative offset, seed0 ¶142).
//  - Loads fill out-of-bounds elements (any coordinate < 0 or >= global_dim) with zero or the
//    data type's NaN pattern (oob_fill_pattern) and generate no global request for them
//    (seed0 §5.2 model choice). Stores and reductions skip out-of-bounds elements.
//  - Global requests never cross a 128 B line and are listed in issue order.
//  - A bad request (coordinate count, misaligned or out-of-window shared-memory range, CTA
//    mask outside the cluster, ...) is an Error naming the item, the value and the rule, and
//    nothing is written (seed0 ¶88: the request is dropped).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "mem/global_memory.h"
#include "mem/shared_memory.h"
#include "sim/result.h"
#include "tma/request_list.h"
#include "tma/tensor_map.h"

namespace xpusim::tma {

// What one operation did.
struct CopyReport {
  // complete_tx bytes each destination mbarrier must expect: the whole box as written to
  // shared memory, out-of-bounds fill included (PTX mbarrier::complete_tx::bytes semantics).
  std::uint64_t bytes_per_destination = 0;
  std::uint32_t destinations = 0;  // CTAs written (multicast) or 1; 0 for stores/prefetch
  RequestList global_requests;     // run-length coded; iterates one GlobalRequest each
  std::uint64_t elements = 0;      // elements traversed (in and out of bounds)
  std::uint64_t oob_elements = 0;  // filled (loads) or skipped (stores, reductions)
};

// One shared-memory destination of a load: a CTA's window and the byte offset in it.
struct SmemTarget {
  mem::SharedMemory* smem = nullptr;
  std::uint32_t offset = 0;
};

// The CTAs of `cluster` selected by a 16-bit multicast mask (bit i = CTA rank i), all at
// `offset`. Error if a set bit names a rank >= cluster.size() or the mask is 0.
Result<std::vector<SmemTarget>> multicast_targets(std::span<mem::SharedMemory* const> cluster,
                                                  std::uint16_t cta_mask, std::uint32_t offset);

// The bytes an out-of-bounds element is filled with, little-endian, element_bits/8 long
// (zeros, or the canonical NaN of a float type when oob_fill is kNanRequestZeroFma).
std::vector<std::byte> oob_fill_pattern(const TensorMap& map);

// Appends the ≤128 B, line-bounded requests covering [addr, addr + bytes).
void append_line_requests(RequestList& out, mem::Addr addr, std::uint64_t bytes);

// Bytes one box delivers to shared memory (the expect_tx figure of a load).
std::uint64_t box_bytes(const TensorMap& map);
// Shared-memory bytes one box spans: box_bytes plus the gaps after rows shorter than the
// swizzle span (box_image.h RowLayout).
std::uint64_t box_footprint(const TensorMap& map);

// ---- tensor operations (cp.async.bulk.tensor family) ----------------------------------------

// Tile-mode load, global -> shared, to one or more CTAs (multicast: global is read once).
// `coords` has map.rank signed entries (dim 0 first); negative coordinates are allowed.
Result<CopyReport> load_tile(const TensorMap& map, std::span<const std::int32_t> coords,
                             const mem::GlobalMemory& global, std::span<const SmemTarget> dst);

struct BoxPlan;

// A tiled tensor map checked and planned once for many requests, as the TMA unit keeps a
// fetched descriptor (PTX prefetch.tensormap; seed0's descriptor is read once per request
// stream). A load through it skips re-validating the map and rebuilding the coordinate-free
// half of the box plan — the bulk of the per-request work for small boxes
// (docs/performance.md). Same results and errors as the TensorMap overload.
class PreparedTileMap {
 public:
  static Result<PreparedTileMap> prepare(const TensorMap& map);
  const TensorMap& map() const { return map_; }
  const BoxPlan& shape() const { return *shape_; }

 private:
  TensorMap map_;
  std::shared_ptr<const BoxPlan> shape_;  // immutable, so copies may share it
};

Result<CopyReport> load_tile(const PreparedTileMap& map, std::span<const std::int32_t> coords,
                             const mem::GlobalMemory& global, std::span<const SmemTarget> dst);

// Timing only: what that load_tile reports (the same checks, errors, requests and counts)
// without reading global memory or writing shared memory.
Result<CopyReport> load_tile_requests(const PreparedTileMap& map,
                                      std::span<const std::int32_t> coords,
                                      std::span<const SmemTarget> dst);

// im2col-mode load. `coords` = {C, W, (H, (D,)) N}; `offsets` has rank-2 entries (W, H, D
// order), each < 2^16 as in PTX.
Result<CopyReport> load_im2col(const TensorMap& map, std::span<const std::int32_t> coords,
                               std::span<const std::uint16_t> offsets,
                               const mem::GlobalMemory& global, std::span<const SmemTarget> dst);
// Timing only: what that load_im2col reports (the same checks, errors, requests and counts)
// without reading global memory or writing shared memory.
Result<CopyReport> load_im2col_requests(const TensorMap& map, std::span<const std::int32_t> coords,
                                        std::span<const std::uint16_t> offsets,
                                        std::span<const SmemTarget> dst);

// Tile-mode store, shared -> global; out-of-bounds elements are not written.
Result<CopyReport> store_tile(const TensorMap& map, std::span<const std::int32_t> coords,
                              const mem::SharedMemory& smem, std::uint32_t smem_offset,
                              mem::GlobalMemory& global);

enum class ReduceOp : std::uint8_t { kAdd, kMin, kMax, kInc, kDec, kAnd, kOr, kXor };
std::string_view name(ReduceOp op);

// Tile-mode reduction, shared -> global: global[e] = op(global[e], shared[e]) with the
// element type's semantics; an op the type does not support is an Error.
Result<CopyReport> reduce_tile(const TensorMap& map, ReduceOp op,
                               std::span<const std::int32_t> coords, const mem::SharedMemory& smem,
                               std::uint32_t smem_offset, mem::GlobalMemory& global);

// im2col-mode store and reduction, shared -> global (seed0 ¶158-¶159; PTX .im2col_no_offs):
// the column a load_im2col at `coords` with zero offsets would write is read from shared memory
// and each in-bounds pixel's channels go back to their place (reduce: combined with op);
// out-of-bounds pixels and channels are skipped.
Result<CopyReport> store_im2col(const TensorMap& map, std::span<const std::int32_t> coords,
                                const mem::SharedMemory& smem, std::uint32_t smem_offset,
                                mem::GlobalMemory& global);
Result<CopyReport> reduce_im2col(const TensorMap& map, ReduceOp op,
                                 std::span<const std::int32_t> coords,
                                 const mem::SharedMemory& smem, std::uint32_t smem_offset,
                                 mem::GlobalMemory& global);

// L2 prefetch of a box: requests only, no data effect.
Result<CopyReport> prefetch_tile(const TensorMap& map, std::span<const std::int32_t> coords);

// ---- bulk (descriptor-less) operations (cp.async.bulk family), 16 B units -------------------
// Sizes and addresses must be multiples of 16; size 0 is a no-op (seed0 ¶161).

Result<CopyReport> bulk_global_to_shared(const mem::GlobalMemory& global, mem::Addr src,
                                         std::span<const SmemTarget> dst, std::uint32_t bytes);
Result<CopyReport> bulk_shared_to_global(const mem::SharedMemory& smem, std::uint32_t src,
                                         mem::GlobalMemory& global, mem::Addr dst,
                                         std::uint32_t bytes);
Result<CopyReport> bulk_shared_to_shared(const mem::SharedMemory& src_smem, std::uint32_t src,
                                         const SmemTarget& dst, std::uint32_t bytes);
Result<CopyReport> bulk_global_to_global(mem::GlobalMemory& global, mem::Addr src, mem::Addr dst,
                                         std::uint64_t bytes);
Result<CopyReport> bulk_prefetch(mem::Addr addr, std::uint64_t bytes);

// Bulk reductions (seed0 ¶159, ¶161; PTX cp.reduce.async.bulk): dst[i] = op(dst[i], src[i])
// over `bytes` (a multiple of 16) of elements of `t` with reduce_elements' semantics (an op the
// type does not define is an Error). Shared -> global reports the destination's line requests;
// shared -> another CTA's shared memory (shared::cluster) moves no global byte.
Result<CopyReport> bulk_reduce_shared_to_global(ReduceOp op, DataType t,
                                                const mem::SharedMemory& smem, std::uint32_t src,
                                                mem::GlobalMemory& global, mem::Addr dst,
                                                std::uint32_t bytes);
Result<CopyReport> bulk_reduce_shared_to_shared(ReduceOp op, DataType t,
                                                const mem::SharedMemory& src_smem,
                                                std::uint32_t src, const SmemTarget& dst,
                                                std::uint32_t bytes);

}  // namespace xpusim::tma
