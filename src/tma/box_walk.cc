#include "tma/box_walk.h"

#include <fmt/format.h>

#include <bit>
#include <numeric>
#include <vector>

namespace xpusim::tma {

TransferUnit transfer_unit(DataType t) {
  switch (t) {
    case DataType::k16U4Align8B:  // .b4x16: copied as is, two values per byte
      return {.values = 2, .global_bytes = 1, .smem_bytes = 1};
    case DataType::k16U4Align16B:  // .b4x16_p64: 8 B packed + 8 B padding in shared memory
      return {.values = 16, .global_bytes = 8, .smem_bytes = 16};
    case DataType::k16U6Align16B:  // .b6x16_p32: 12 B packed + 4 B padding in shared memory
      return {.values = 16, .global_bytes = 12, .smem_bytes = 16};
    default: {
      const std::uint32_t bytes = element_bits(t) / 8;
      return {.values = 1, .global_bytes = bytes, .smem_bytes = bytes};
    }
  }
}

std::uint64_t row_smem_bytes(DataType t, std::uint64_t values) {
  const TransferUnit u = transfer_unit(t);
  return (values + u.values - 1) / u.values * u.smem_bytes;
}

namespace {

// Divisors here are element strides (1..8, nearly always 1) and unit sizes; a 64-bit divide
// costs tens of cycles and plan_tile_box runs per request, so skip it for 1.
template <class T>
T div(T a, T b) {
  return b == 1 ? a : a / b;
}

std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  return div(a + b - 1, b);
}

// Largest in-bounds coordinate start + step*k (k < count) of one dimension, or -1 if none.
std::int64_t max_in_bounds(std::int64_t start, std::int64_t step, std::uint32_t count,
                           std::uint64_t extent) {
  const std::int64_t last = start + step * (count - 1);
  if (last < 0 || start >= static_cast<std::int64_t>(extent)) return -1;
  if (last < static_cast<std::int64_t>(extent)) return last;
  return start + div(static_cast<std::int64_t>(extent) - 1 - start, step) * step;
}

void check_map(std::string_view op, const TensorMap& map, std::vector<Error>& errors) {
  if (map.mode != Mode::kTiled) {
    errors.push_back(
        {fmt::format("{}: tensor map mode is im2col; tile operations need a tiled map", op)});
  }
  if (map.rank < 1 || map.rank > kMaxRank) {
    errors.push_back(
        {fmt::format("{}: tensor map rank {} is outside 1..{}", op, map.rank, kMaxRank)});
    return;
  }
  for (std::uint32_t d = 0; d < map.rank; ++d) {
    if (map.global_dim[d] == 0 || map.global_dim[d] > (std::uint64_t{1} << 32)) {
      errors.push_back({fmt::format("{}: global_dim[{}] = {} is outside 1..2^32 (cuda.h)", op, d,
                                    map.global_dim[d])});
    }
    if (map.box_dim[d] == 0 || map.box_dim[d] > 256) {
      errors.push_back(
          {fmt::format("{}: box_dim[{}] = {} is outside 1..256 (cuda.h)", op, d, map.box_dim[d])});
    }
    if (map.element_strides[d] == 0 || map.element_strides[d] > 8) {
      errors.push_back({fmt::format("{}: element_strides[{}] = {} is outside 1..8 (cuda.h)", op, d,
                                    map.element_strides[d])});
    }
  }
}

void check_packed(std::string_view op, const TensorMap& map, std::span<const std::int32_t> coords,
                  const TransferUnit& u, std::vector<Error>& errors) {
  const auto type = name(map.data_type);
  if (coords[0] % 16 != 0) {
    errors.push_back({fmt::format(
        "{}: dim-0 coordinate {} of a {} box is not a multiple of 16 (16-value groups are the "
        "unit of transfer)",
        op, coords[0], type)});
  }
  if (map.box_dim[0] % u.values != 0) {
    errors.push_back({fmt::format("{}: box_dim[0] = {} of a {} map is not a multiple of {}", op,
                                  map.box_dim[0], type, u.values)});
  }
  if (map.global_dim[0] % u.values != 0) {
    errors.push_back({fmt::format("{}: global_dim[0] = {} of a {} map is not a multiple of {}", op,
                                  map.global_dim[0], type, u.values)});
  }
  if (map.interleave != Interleave::kNone && map.element_strides[0] != 1) {
    errors.push_back({fmt::format(
        "{}: element_strides[0] = {} on a {} map: packed types have no dim-0 traversal stride", op,
        map.element_strides[0], type)});
  }
}

}  // namespace

Status shape_tile_box(std::string_view op, const TensorMap& map, BoxPlan& p) {
  std::vector<Error> errors;
  check_map(op, map, errors);
  if (!errors.empty()) return errors;
  p = BoxPlan{};
  p.rank = map.rank;
  p.unit = transfer_unit(map.data_type);
  p.base = map.global_address;

  const bool interleaved = map.interleave != Interleave::kNone;
  if (interleaved) {
    // Interleaved (H200 silicon, tools/silicon): dimension 0 counts whole 16 B / 32 B chunks
    // (its globalDim, boxDim, coordinate and elementStrides entries), and dimension rank-2
    // is not walked: the box takes its coordinate only (interleaved_rows in copy_engine.cc).
    const std::uint32_t chunk = map.interleave == Interleave::k16B ? 16 : 32;
    p.unit = {.values = chunk / p.unit.global_bytes, .global_bytes = chunk, .smem_bytes = chunk};
  }
  p.value_shift = static_cast<std::uint32_t>(std::countr_zero(p.unit.values));

  // Dim 0: cuda.h ignores elementStrides[0] unless the layout is interleaved.
  const std::uint32_t s0 = interleaved ? map.element_strides[0] : 1;
  if (interleaved) {
    p.count[0] = div(map.box_dim[0] + s0 - 1, s0);
  } else {
    const std::uint32_t values0 = div(map.box_dim[0] + s0 - 1, s0);
    p.count[0] = (values0 + p.unit.values - 1) >> p.value_shift;
  }
  p.step[0] = static_cast<std::int64_t>(s0) * p.unit.values;
  p.contiguous = p.step[0] == p.unit.values;
  for (std::uint32_t d = 0; d < p.rank; ++d) {
    p.extent[d] = map.global_dim[d];
    if (d == 0) {
      if (interleaved) p.extent[0] *= p.unit.values;  // in values, as the walk counts
      continue;
    }
    p.step[d] = map.element_strides[d];
    p.count[d] = interleaved && d + 2 == p.rank
                     ? 1
                     : div(map.box_dim[d] + map.element_strides[d] - 1, map.element_strides[d]);
    p.pitch[d] = map.global_strides[d - 1];
    p.rows *= p.count[d];
  }
  p.row_bytes = std::uint64_t{p.count[0]} * p.unit.smem_bytes;
  p.box_bytes = p.rows * p.row_bytes;
  // Silicon packs interleaved rows even under a swizzle (no span per row).
  p.layout =
      interleaved ? RowLayout{p.row_bytes, p.row_bytes} : row_layout(map.swizzle, p.row_bytes);
  p.footprint = p.rows * p.layout.pitch;
  return Ok{};
}

Status check_inner_alignment(std::string_view op, std::string_view what, const TensorMap& map,
                             std::int64_t c0) {
  // Interleaved and packed (sm_100) layouts: not measured, so not restricted.
  if (map.interleave != Interleave::kNone || is_packed(map.data_type)) return Ok{};
  const std::int64_t bits = element_bits(map.data_type);
  if (c0 * bits % 128 == 0) return Ok{};
  const std::int64_t per16 = 128 / std::gcd<std::int64_t>(128, bits);
  const std::int64_t below = c0 >= 0 ? c0 / per16 * per16 : -((-c0 + per16 - 1) / per16) * per16;
  return Error{
      fmt::format("{}: {} = {} puts the box's first byte at {} x {} B = {} B of dimension 0, not a "
                  "multiple of 16 B: Hopper faults (illegal instruction) (nearest: {} or {})",
                  op, what, c0, c0, bits / 8.0, c0 * bits / 8.0, below, below + per16)};
}

Status place_tile_box(std::string_view op, const TensorMap& map,
                      std::span<const std::int32_t> coords, BoxPlan& p) {
  if (coords.size() != map.rank) {
    return Error{fmt::format("{}: {} coordinates given for a rank-{} tensor map (one per dim)", op,
                             coords.size(), map.rank)};
  }
  if (is_packed(map.data_type)) {
    std::vector<Error> errors;
    check_packed(op, map, coords, p.unit, errors);
    if (!errors.empty()) return errors;
  }
  for (std::uint32_t d = 0; d < p.rank; ++d)
    p.start[d] = coords[d];
  // Interleaved maps give dimension 0 in chunks; the walk counts values.
  if (map.interleave != Interleave::kNone) p.start[0] *= p.unit.values;

  // In-bounds dim-0 units: x_i = start + step*i with 0 <= x_i and x_i + values <= extent.
  const std::int64_t c0 = p.start[0];
  const std::int64_t last_ok = static_cast<std::int64_t>(p.extent[0]) - p.unit.values - c0;
  const std::int64_t lo = c0 >= 0 ? 0 : ceil_div(-c0, p.step[0]);
  const std::int64_t hi =
      last_ok < 0 ? 0 : std::min<std::int64_t>(p.count[0], div(last_ok, p.step[0]) + 1);
  if (lo < hi) {
    p.lo = static_cast<std::uint32_t>(lo);
    p.hi = static_cast<std::uint32_t>(hi);
  }

  // In-bounds dim-1 entries: 0 <= start + step*k < extent.
  if (p.rank > 1) {
    const std::int64_t c1 = p.start[1], e1 = static_cast<std::int64_t>(p.extent[1]);
    const std::int64_t lo1 = c1 >= 0 ? 0 : ceil_div(-c1, p.step[1]);
    const std::int64_t hi1 =
        e1 - 1 - c1 < 0 ? 0 : std::min<std::int64_t>(p.count[1], div(e1 - 1 - c1, p.step[1]) + 1);
    p.lo1 = lo1 < hi1 ? static_cast<std::uint32_t>(lo1) : 0;
    p.hi1 = lo1 < hi1 ? static_cast<std::uint32_t>(hi1) : 0;
  }

  // The highest byte the box touches must not wrap the 64-bit address space.
  if (p.lo < p.hi) {
    const auto last0 = static_cast<std::uint64_t>(c0 + p.step[0] * (p.hi - 1)) >> p.value_shift;
    std::uint64_t top = 0;  // address of the last byte touched
    bool wraps = __builtin_mul_overflow(last0, p.unit.global_bytes, &top) ||
                 __builtin_add_overflow(top, p.base + (p.unit.global_bytes - 1), &top) ||
                 p.base > ~std::uint64_t{0} - (p.unit.global_bytes - 1);
    bool touched = true;
    for (std::uint32_t d = 1; d < p.rank && touched; ++d) {
      const std::int64_t m = max_in_bounds(p.start[d], p.step[d], p.count[d], p.extent[d]);
      touched = m >= 0;
      std::uint64_t add = 0;
      if (touched) {
        wraps = wraps || __builtin_mul_overflow(static_cast<std::uint64_t>(m), p.pitch[d], &add) ||
                __builtin_add_overflow(top, add, &top);
      }
    }
    if (touched && wraps) {
      return Error{fmt::format(
          "{}: the box's in-bounds elements reach past the 64-bit address space (global_address "
          "{:#x}; the tensor extent wraps)",
          op, map.global_address)};
    }
  }
  return Ok{};
}

Result<BoxPlan> plan_tile_box(std::string_view op, const TensorMap& map,
                              std::span<const std::int32_t> coords) {
  BoxPlan p;
  if (auto st = shape_tile_box(op, map, p); !st) return st.errors();
  if (auto st = place_tile_box(op, map, coords, p); !st) return st.errors();
  return p;
}

}  // namespace xpusim::tma
