// The pixel walk of an im2col-mode load (seed0 ¶111-¶137; PTX ISA "im2col mode"): which pixels
// one request loads and in which order. Pure arithmetic on the descriptor and the request, no
// memory access; load_im2col (copy_engine.h) turns the walk into bytes and requests.
//
// Rule (docs/tma.md "im2col mode"):
//  - Along spatial dim s (W, H, D) the bounding box of filter-base positions is
//    [lower_corner[s], global_dim[s] - 1 + upper_corner[s]] (seed0 ¶115), walked with
//    element_strides[s] on a grid anchored at the lower corner (CUTLASS q = lower + k*stride).
//  - The request's W/H/D coordinates are the first filter base and must lie inside the box
//    (seed0 ¶118); each loaded pixel is filter base + im2col offset, so the offsets shift the
//    start point and the box alike.
//  - pixels_per_column bases are walked W fastest, then H, then D; past the box's last position
//    a dimension restarts at the lower corner and carries into the next one; past D (or H, or
//    W, by rank) the walk carries into the next image, N + 1 (seed0 ¶117).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "sim/result.h"
#include "tma/tensor_map.h"

namespace xpusim::tma {

inline constexpr std::uint32_t kMaxSpatialDims = kMaxRank - 2;

// Inclusive range of filter-base positions along one spatial dimension.
struct Im2colExtent {
  std::int64_t lower = 0;
  std::int64_t upper = 0;
  std::uint32_t stride = 1;
  // seed0 ¶115: boundingBox = tensorSize - boxBaseCorner + boxFarCorner.
  std::int64_t size() const { return upper - lower + 1; }
  // seed0 ¶131: positions traversed = ceil(boundingBox / traversalStride).
  std::int64_t positions() const { return (size() + stride - 1) / stride; }
  friend bool operator==(const Im2colExtent&, const Im2colExtent&) = default;
};

// One loaded pixel: tensor coordinates after the offset (spatial dims beyond rank-2 are 0).
struct Im2colPixel {
  std::int64_t n = 0;
  std::array<std::int64_t, kMaxSpatialDims> whd{};  // W, H, D
  friend bool operator==(const Im2colPixel&, const Im2colPixel&) = default;
};

struct Im2colWalk {
  std::uint32_t spatial_dims = 0;                      // rank - 2
  std::array<Im2colExtent, kMaxSpatialDims> box{};     // filter-base box, W, H, D
  std::array<std::int64_t, kMaxSpatialDims> offset{};  // the request's offsets
  std::vector<Im2colPixel> pixels;                     // pixels_per_column, in shared-memory order
};

// Name of spatial dim s (0 = W, 1 = H, 2 = D).
const char* spatial_dim_name(std::uint32_t s);

// The filter-base bounding box of each spatial dimension of `map` (rank-2 entries used), without
// validating the map.
std::array<Im2colExtent, kMaxSpatialDims> im2col_bounding_box(const TensorMap& map);

// Validates the descriptor's im2col fields and the request (coordinate and offset counts, offset
// precision by rank, filter base inside the box) and walks the pixels. All errors are reported
// together; each names the item, the value and the rule.
Result<Im2colWalk> walk_im2col(const TensorMap& map, std::span<const std::int32_t> coords,
                               std::span<const std::uint16_t> offsets);

// The transfer units [first, second) of the channel run c0 .. c0 + `units` x `values` that lie
// inside the tensor's C extent, the same for every pixel ({0, 0} when none does).
std::pair<std::int64_t, std::int64_t> channel_units_in_bounds(const TensorMap& map, std::int64_t c0,
                                                              std::int64_t units,
                                                              std::uint32_t values);

// Whether a walked pixel lies inside the tensor.
bool pixel_in_bounds(const TensorMap& map, const Im2colWalk& walk, const Im2colPixel& px);

// Global address of transfer unit `unit` (along C) of an in-bounds pixel into `out`, or false
// when the sum leaves the 64-bit address space (a tensor that wraps: an error, never a wrap).
bool unit_address(const TensorMap& map, const Im2colWalk& walk, const Im2colPixel& px,
                  std::uint64_t unit, std::uint32_t unit_bytes, std::uint64_t& out);

}  // namespace xpusim::tma
