// One TMA operation as a warp issues it (the PTX cp.async.bulk family, seed0 §2): what the SM
// hands its TMA unit. Tensor operations name their tensor map by its global address (the
// 128 B descriptor the host wrote, tma/tensor_map_io.h), as PTX passes a tensormap pointer;
// the TMA unit fetches and caches descriptors by that address (seed0 ¶74).
//
//   load_tile / load_im2col: cp.async.bulk.tensor.Nd.shared::cluster.global.tile|im2col
//     .mbarrier::complete_tx::bytes[.multicast::cluster] [smem], [map, coords], [mbar], mask
//   store_tile / reduce_tile: cp.async.bulk.tensor / cp.reduce.async.bulk.tensor
//     .global.shared::cta.bulk_group [map, coords], [smem]
//   store_im2col / reduce_im2col: the same with .im2col_no_offs (an im2col map)
//   prefetch_tile: cp.async.bulk.prefetch.tensor.Nd.L2.global [map, coords]
//   bulk_load: cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes[.multicast]
//   bulk_store: cp.async.bulk.global.shared::cta.bulk_group
//   bulk_shared_to_cluster: cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx
//   bulk_prefetch: cp.async.bulk.prefetch.L2.global
//   prefetch_descriptor: prefetch.tensormap
//   commit_group / wait_group: cp.async.bulk.commit_group / wait_group[.read] N
//   bulk_reduce: cp.reduce.async.bulk.global.shared::cta.bulk_group.OP.TYPE [global], [smem], n
//   bulk_reduce_to_cluster: cp.reduce.async.bulk.shared::cluster.shared::cta
//     .mbarrier::complete_tx::bytes.OP.TYPE [dst], [smem], n, [mbar]
//   bulk_copy_global: global -> global (seed0 ¶48; no PTX form), bulk group
//   invalidate_descriptor: fence.proxy.tensormap::generic.acquire [map], 128 — the map was
//     rewritten in memory: the unit drops its cached copy, so the next use fetches it again
#pragma once

#include <array>
#include <cstdint>

namespace xpusim::kernel {

enum class TmaKind : std::uint8_t {
  kLoadTile,
  kLoadIm2col,
  kStoreTile,
  kReduceTile,
  kPrefetchTile,
  kBulkLoad,
  kBulkStore,
  kBulkSharedToCluster,
  kBulkPrefetch,
  kPrefetchDescriptor,
  kCommitGroup,
  kWaitGroup,
  kInvalidateDescriptor,
  kBulkReduce,
  kBulkReduceToCluster,
  kBulkGlobalToGlobal,
  kStoreIm2col,
  kReduceIm2col,
};

// Same order as tma::ReduceOp (the SM converts).
enum class TmaReduce : std::uint8_t { kAdd, kMin, kMax, kInc, kDec, kAnd, kOr, kXor };

// The element type of a bulk (descriptor-less) reduction: PTX .u32/.b32, .s32, .u64/.b64, .s64,
// .f16, .bf16, .f32, .f64 (the SM maps it onto tma::DataType).
enum class TmaElement : std::uint8_t { kU32, kS32, kU64, kS64, kF16, kBf16, kF32, kF64 };

struct TmaOp {
  TmaKind kind = TmaKind::kLoadTile;
  std::uint64_t descriptor = 0;            // tensor ops: global address of the 128 B tensor map
  std::array<std::int32_t, 5> coords{};    // tensor ops: dim 0 first
  std::uint32_t rank = 0;                  // coordinates given
  std::array<std::uint16_t, 3> offsets{};  // im2col: W, H, D filter offsets
  std::uint32_t offset_count = 0;
  std::uint32_t smem = 0;      // shared-window offset: destination (loads) or source (stores)
  std::uint32_t mbar = 0;      // loads: the completion mbarrier, same offset in every destination
  std::uint16_t cta_mask = 0;  // loads: multicast ranks (bit i = rank i); 0: this CTA only
  std::uint64_t global = 0;    // bulk: the global address (global -> global: the destination)
  std::uint64_t source = 0;    // bulk global -> global: the source
  std::uint32_t bytes = 0;     // bulk: size (multiple of 16)
  std::uint32_t dst_rank = 0;  // bulk_shared_to_cluster: the destination CTA's rank
  TmaReduce reduce = TmaReduce::kAdd;
  TmaElement element = TmaElement::kU32;  // bulk reductions
  std::uint32_t pending = 0;  // wait_group: at most this many groups may still be pending
  bool read = false;          // wait_group.read: only the source reads must have finished

  bool is_tensor() const {
    return kind == TmaKind::kLoadTile || kind == TmaKind::kLoadIm2col ||
           kind == TmaKind::kStoreTile || kind == TmaKind::kReduceTile ||
           kind == TmaKind::kPrefetchTile || kind == TmaKind::kPrefetchDescriptor ||
           kind == TmaKind::kStoreIm2col || kind == TmaKind::kReduceIm2col;
  }
  // Completes through the bulk-group mechanism (commit/wait) rather than an mbarrier.
  bool is_bulk_group() const {
    return kind == TmaKind::kStoreTile || kind == TmaKind::kReduceTile ||
           kind == TmaKind::kBulkStore || kind == TmaKind::kBulkReduce ||
           kind == TmaKind::kBulkGlobalToGlobal || kind == TmaKind::kStoreIm2col ||
           kind == TmaKind::kReduceIm2col;
  }
};

}  // namespace xpusim::kernel
