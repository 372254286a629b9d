#include "tma/im2col_walk.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <utility>

namespace xpusim::tma {
namespace {

// cuTensorMapEncodeIm2col corner ranges and PTX im2col offset ranges, by rank (seed0 ¶114,
// ¶119: the precision shrinks as the number of spatial dims grows).
struct RankLimits {
  std::int32_t corner_min;
  std::int32_t corner_max;
  std::uint32_t offset_max;
  std::uint32_t offset_bits;
};

RankLimits limits_for_rank(std::uint32_t rank) {
  switch (rank) {
    case 3:
      return {-32768, 32767, 0xFFFF, 16};
    case 4:
      return {-128, 127, 0xFF, 8};
    default:
      return {-16, 15, 0x1F, 5};
  }
}

const char* mode_name(Mode m) {
  return m == Mode::kIm2col ? "IM2COL" : "TILED";
}

// "C, W, H, N" for rank 4.
std::string coordinate_names(std::uint32_t rank) {
  std::string s = "C";
  for (std::uint32_t i = 0; i + 2 < rank; ++i)
    s += fmt::format(", {}", spatial_dim_name(i));
  return s + ", N";
}

std::string offset_names(std::uint32_t rank) {
  std::string s;
  for (std::uint32_t i = 0; i + 2 < rank; ++i)
    s += fmt::format("{}{}", i == 0 ? "" : ", ", spatial_dim_name(i));
  return s;
}

void check_descriptor(const TensorMap& map, std::vector<Error>& errors) {
  const std::uint32_t spatial = map.rank - 2;
  const RankLimits lim = limits_for_rank(map.rank);
  for (std::uint32_t i = 0; i < map.rank; ++i) {
    if (map.global_dim[i] == 0 || map.global_dim[i] > (std::uint64_t{1} << 32))
      errors.push_back(Error{fmt::format(
          "load_im2col: global_dim[{}] = {} is outside [1, 2^32] (cuda.h)", i, map.global_dim[i])});
  }
  if (map.channels_per_pixel < 1 || map.channels_per_pixel > 256)
    errors.push_back(Error{fmt::format(
        "load_im2col: channels_per_pixel {} is outside [1, 256] (cuTensorMapEncodeIm2col)",
        map.channels_per_pixel)});
  if (map.pixels_per_column < 1 || map.pixels_per_column > 1024)
    errors.push_back(Error{fmt::format(
        "load_im2col: pixels_per_column {} is outside [1, 1024] (cuTensorMapEncodeIm2col)",
        map.pixels_per_column)});
  for (std::uint32_t s = 0; s < spatial; ++s) {
    const char* dim = spatial_dim_name(s);
    const std::uint32_t stride = map.element_strides[s + 1];
    if (stride < 1 || stride > 8)
      errors.push_back(Error{fmt::format(
          "load_im2col: element_strides[{}] ({}) = {} is outside [1, 8] (traversal stride)", s + 1,
          dim, stride)});
    const std::int32_t lo = map.pixel_box_lower_corner[s];
    const std::int32_t up = map.pixel_box_upper_corner[s];
    for (auto [name, v] : {std::pair{"pixel_box_lower_corner", lo}, {"pixel_box_upper_corner", up}})
      if (v < lim.corner_min || v > lim.corner_max)
        errors.push_back(Error{fmt::format(
            "load_im2col: {}[{}] ({}) = {} is outside [{}, {}] for a rank-{} tensor map "
            "(cuTensorMapEncodeIm2col corner precision)",
            name, s, dim, v, lim.corner_min, lim.corner_max, map.rank)});
    const Im2colExtent e = im2col_bounding_box(map)[s];
    if (map.global_dim[s + 1] != 0 && map.global_dim[s + 1] <= (std::uint64_t{1} << 32) &&
        e.size() < 1)
      errors.push_back(Error{fmt::format(
          "load_im2col: bounding box along {} is empty: lower corner {} > global_dim {} - 1 + "
          "upper corner {} (the box needs non-zero area)",
          dim, lo, map.global_dim[s + 1], up)});
  }
}

}  // namespace

const char* spatial_dim_name(std::uint32_t s) {
  static constexpr const char* kNames[kMaxSpatialDims] = {"W", "H", "D"};
  return s < kMaxSpatialDims ? kNames[s] : "?";
}

std::array<Im2colExtent, kMaxSpatialDims> im2col_bounding_box(const TensorMap& map) {
  std::array<Im2colExtent, kMaxSpatialDims> box{};
  for (std::uint32_t s = 0; s < kMaxSpatialDims && s + 2 < map.rank; ++s) {
    // seed0 ¶113: corners are signed offsets from the tensor's matching corners.
    box[s].lower = map.pixel_box_lower_corner[s];
    box[s].upper =
        static_cast<std::int64_t>(map.global_dim[s + 1]) - 1 + map.pixel_box_upper_corner[s];
    box[s].stride = map.element_strides[s + 1];
  }
  return box;
}

Result<Im2colWalk> walk_im2col(const TensorMap& map, std::span<const std::int32_t> coords,
                               std::span<const std::uint16_t> offsets) {
  std::vector<Error> errors;
  if (map.mode != Mode::kIm2col)
    errors.push_back(
        Error{fmt::format("load_im2col: tensor map mode is {}; an im2col load needs a map from "
                          "cuTensorMapEncodeIm2col",
                          mode_name(map.mode))});
  if (map.rank < 3 || map.rank > 5) {
    errors.push_back(Error{fmt::format(
        "load_im2col: rank {} is outside [3, 5] (im2col tensors are NWC, NHWC or NDHWC)",
        map.rank)});
    return errors;  // nothing below is meaningful without a rank
  }
  const std::uint32_t spatial = map.rank - 2;
  const RankLimits lim = limits_for_rank(map.rank);
  check_descriptor(map, errors);
  if (coords.size() != map.rank)
    errors.push_back(Error{
        fmt::format("load_im2col: {} coordinates given for a rank-{} tensor map (need {}: {})",
                    coords.size(), map.rank, map.rank, coordinate_names(map.rank))});
  if (offsets.size() != spatial)
    errors.push_back(Error{
        fmt::format("load_im2col: {} im2col offsets given for a rank-{} tensor map (need {}: {})",
                    offsets.size(), map.rank, spatial, offset_names(map.rank))});
  for (std::size_t s = 0; s < offsets.size() && s < spatial; ++s)
    if (offsets[s] > lim.offset_max)
      errors.push_back(Error{fmt::format(
          "load_im2col: im2col offset {} ({}) = {} is outside [0, {}] for a rank-{} tensor map "
          "(PTX: {}-bit offsets at this rank)",
          s, spatial_dim_name(static_cast<std::uint32_t>(s)), offsets[s], lim.offset_max, map.rank,
          lim.offset_bits)});
  if (!errors.empty()) return errors;

  Im2colWalk walk;
  walk.spatial_dims = spatial;
  walk.box = im2col_bounding_box(map);
  std::array<std::int64_t, kMaxSpatialDims> base{};
  for (std::uint32_t s = 0; s < spatial; ++s) {
    walk.offset[s] = offsets[s];
    base[s] = coords[s + 1];
    const Im2colExtent& e = walk.box[s];
    // seed0 ¶118 / PTX: "The filter corner location must be within the bounding box."
    if (base[s] < e.lower || base[s] > e.upper)
      errors.push_back(Error{fmt::format(
          "load_im2col: filter base {} = {} is outside the bounding box [{}, {}] (lower corner "
          "{} .. global_dim {} - 1 + upper corner {}); the filter base must lie inside the box "
          "(seed0 ¶118)",
          spatial_dim_name(s), base[s], e.lower, e.upper, map.pixel_box_lower_corner[s],
          map.global_dim[s + 1], map.pixel_box_upper_corner[s])});
  }
  if (!errors.empty()) return errors;

  // seed0 ¶117: W fastest, then H, then D, then the next image.
  std::int64_t n = coords[map.rank - 1];
  walk.pixels.reserve(map.pixels_per_column);
  for (std::uint32_t k = 0; k < map.pixels_per_column; ++k) {
    Im2colPixel px{.n = n, .whd = {}};
    for (std::uint32_t s = 0; s < spatial; ++s)
      px.whd[s] = base[s] + walk.offset[s];
    walk.pixels.push_back(px);
    std::uint32_t s = 0;
    for (; s < spatial; ++s) {
      base[s] += walk.box[s].stride;
      if (base[s] <= walk.box[s].upper) break;
      base[s] = walk.box[s].lower;  // the grid restarts at the lower corner
    }
    if (s == spatial) ++n;  // next image: N steps by one, its element stride is not used
  }
  return walk;
}

std::pair<std::int64_t, std::int64_t> channel_units_in_bounds(const TensorMap& map, std::int64_t c0,
                                                              std::int64_t units,
                                                              std::uint32_t values) {
  const auto v = static_cast<std::int64_t>(values);
  const auto c_dim = static_cast<std::int64_t>(map.global_dim[0]);
  const std::int64_t lo = c0 >= 0 ? 0 : (-c0 + v - 1) / v;
  const std::int64_t hi = std::clamp<std::int64_t>((c_dim - c0) / v, 0, units);
  return lo < hi ? std::pair{lo, hi} : std::pair<std::int64_t, std::int64_t>{0, 0};
}

bool pixel_in_bounds(const TensorMap& map, const Im2colWalk& walk, const Im2colPixel& px) {
  if (px.n < 0 || static_cast<std::uint64_t>(px.n) >= map.global_dim[map.rank - 1]) return false;
  for (std::uint32_t s = 0; s < walk.spatial_dims; ++s)
    if (px.whd[s] < 0 || static_cast<std::uint64_t>(px.whd[s]) >= map.global_dim[s + 1])
      return false;
  return true;
}

bool unit_address(const TensorMap& map, const Im2colWalk& walk, const Im2colPixel& px,
                  std::uint64_t unit, std::uint32_t unit_bytes, std::uint64_t& out) {
  const auto mul_add = [&out](std::uint64_t coord, std::uint64_t pitch) {
    std::uint64_t term = 0;
    return !__builtin_mul_overflow(coord, pitch, &term) && !__builtin_add_overflow(out, term, &out);
  };
  out = map.global_address;
  bool ok = mul_add(unit, unit_bytes);
  for (std::uint32_t s = 0; s < walk.spatial_dims; ++s)
    ok = ok && mul_add(static_cast<std::uint64_t>(px.whd[s]), map.global_strides[s]);
  return ok && mul_add(static_cast<std::uint64_t>(px.n), map.global_strides[map.rank - 2]);
}

}  // namespace xpusim::tma
