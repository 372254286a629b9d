#include "reference_gather.h"

#include <array>

#include "tma/swizzle.h"

namespace xpusim::tma::ref {

namespace {

// Bits of one dim-0 step: an element, or with interleave a whole 16 B / 32 B chunk (H200
// silicon: an interleaved map's dimension 0 counts chunks).
std::uint32_t unit_bits(const TensorMap& map) {
  if (map.interleave == Interleave::k16B) return 128;
  if (map.interleave == Interleave::k32B) return 256;
  return element_bits(map.data_type);
}

struct Element {
  std::uint64_t index = 0;  // position in the box, dim 0 fastest
  std::uint64_t row = 0;    // index / (elements per dim-0 row)
  std::array<std::int64_t, kMaxRank> c{};
  bool in_bounds = true;
};

// Calls f(element) for every element of the box in shared-memory order.
template <class F>
void each_element(const TensorMap& map, std::span<const std::int32_t> coords, F f) {
  std::array<std::uint64_t, kMaxRank> n{}, step{};
  std::uint64_t total = 1;
  for (std::uint32_t d = 0; d < map.rank; ++d) {
    const bool strided = d > 0 || map.interleave != Interleave::kNone;
    step[d] = strided ? map.element_strides[d] : 1;
    n[d] = (map.box_dim[d] + step[d] - 1) / step[d];
    // Interleaved boxes take dimension rank-2 at its coordinate only (H200 silicon).
    if (map.interleave != Interleave::kNone && d + 2 == map.rank) n[d] = 1;
    total *= n[d];
  }
  for (std::uint64_t i = 0; i < total; ++i) {
    Element e;
    e.index = i;
    e.row = i / n[0];
    std::uint64_t rest = i;
    for (std::uint32_t d = 0; d < map.rank; ++d) {
      const std::uint64_t k = rest % n[d];
      rest /= n[d];
      e.c[d] = coords[d] + static_cast<std::int64_t>(k * step[d]);
      if (e.c[d] < 0 || e.c[d] >= static_cast<std::int64_t>(map.global_dim[d])) {
        e.in_bounds = false;
      }
    }
    f(e);
  }
}

// Bit address (in global memory) of an in-bounds element's first bit.
std::uint64_t global_bit(const TensorMap& map, const Element& e) {
  std::uint64_t byte = map.global_address;
  for (std::uint32_t d = 1; d < map.rank; ++d) {
    byte += static_cast<std::uint64_t>(e.c[d]) * map.global_strides[d - 1];
  }
  return byte * 8 + static_cast<std::uint64_t>(e.c[0]) * unit_bits(map);
}

// Bit position of a packed value inside the shared box image (from the box start).
std::uint64_t packed_smem_bit(DataType t, std::uint64_t index, bool store) {
  const std::uint64_t group = index / 16, j = index % 16;
  switch (t) {
    case DataType::k16U4Align8B:
      return index * 4;
    case DataType::k16U4Align16B:
      return group * 128 + j * 4;
    default:  // 16U6_ALIGN16B: 12 packed bytes + 4 padding, or one value per byte for stores
      return store ? index * 8 : group * 128 + j * 6;
  }
}

std::byte global_byte(const mem::GlobalMemory& g, std::uint64_t addr) {
  std::byte b{0};
  (void)g.read(addr, {&b, 1});
  return b;
}

void set_bit(std::span<std::byte> bytes, std::uint64_t bit, std::uint32_t v) {
  const auto mask = static_cast<std::byte>(1u << (bit % 8));
  bytes[bit / 8] = v ? (bytes[bit / 8] | mask) : (bytes[bit / 8] & ~mask);
}

// Shared-memory bytes of one box row (its dim-0 run) without gaps.
std::uint64_t dense_row_bytes(const TensorMap& map) {
  const bool strided = map.interleave != Interleave::kNone;
  const std::uint64_t s0 = strided ? map.element_strides[0] : 1;
  const std::uint64_t n0 = (map.box_dim[0] + s0 - 1) / s0;
  if (!is_packed(map.data_type)) return n0 * unit_bits(map) / 8;
  if (map.data_type == DataType::k16U4Align8B) return (n0 * 4 + 7) / 8;
  return (n0 + 15) / 16 * 16;
}

// Shared byte of box byte `pos`: with a swizzle, every row starts a new swizzle span (H200
// silicon leaves the rest of a short row's span alone).
std::uint32_t smem_at(const TensorMap& map, std::uint32_t offset, std::uint64_t pos) {
  const std::uint64_t span = swizzle_span_bytes(map.swizzle);
  if (span != 0 && map.interleave == Interleave::kNone) {  // interleaved rows stay packed
    const std::uint64_t row = dense_row_bytes(map);
    const std::uint64_t pitch = (row + span - 1) / span * span;
    pos = pos / row * pitch + pos % row;
  }
  return swizzle_offset(map.swizzle, static_cast<std::uint32_t>(offset + pos));
}

// A TF32 load rounds to 10 mantissa bits, ties to even; NaNs become 0x7FFFE000 (silicon).
std::uint32_t tf32(std::uint32_t v) {
  const bool nan = (v >> 23 & 0xFF) == 0xFF && (v & 0x7FFFFF) != 0;
  if (nan) return 0x7FFFE000;
  const std::uint32_t down = v & ~0x1FFFu, rest = v & 0x1FFFu;
  const bool up = rest > 0x1000 || (rest == 0x1000 && (down & 0x2000) != 0);
  return up ? down + 0x2000 : down;
}

}  // namespace

Counts load_tile(const TensorMap& map, std::span<const std::int32_t> coords,
                 const mem::GlobalMemory& global, std::span<std::byte> window,
                 std::uint32_t offset) {
  Counts counts;
  const std::uint32_t bits = unit_bits(map);
  const std::uint64_t per_unit = bits / element_bits(map.data_type);  // elements per step
  const bool nan = map.oob_fill == OobFill::kNanRequestZeroFma && is_float(map.data_type);
  each_element(map, coords, [&](const Element& e) {
    counts.elements += per_unit;
    if (!e.in_bounds) counts.oob += per_unit;
    if (!is_packed(map.data_type)) {
      const std::uint32_t size = bits / 8;
      std::array<std::byte, 32> v{};
      for (std::uint32_t b = 0; b < size; ++b) {
        v[b] = map.oob_fill == OobFill::kConstant
                   ? std::byte{static_cast<unsigned char>(
                         map.oob_fill_value >> (8 * (b % (element_bits(map.data_type) / 8))))}
               : nan ? std::byte{static_cast<unsigned char>(b % 2 == 0 ? 0xF7 : 0x7F)}
                     : std::byte{0};
        if (e.in_bounds) v[b] = global_byte(global, global_bit(map, e) / 8 + b);
      }
      const bool rounds =
          map.data_type == DataType::kTfloat32 || map.data_type == DataType::kTfloat32Ftz;
      for (std::uint32_t at = 0; rounds && e.in_bounds && at < size; at += 4) {
        std::uint32_t w = 0;
        for (std::uint32_t b = 0; b < 4; ++b)
          w |= std::to_integer<std::uint32_t>(v[at + b]) << (8 * b);
        w = tf32(w);
        for (std::uint32_t b = 0; b < 4; ++b)
          v[at + b] = std::byte{static_cast<unsigned char>(w >> (8 * b))};
      }
      for (std::uint32_t b = 0; b < size; ++b)
        window[smem_at(map, offset, e.index * size + b)] = v[b];
      return;
    }
    const std::uint64_t sbit = packed_smem_bit(map.data_type, e.index, false);
    if (map.data_type != DataType::k16U4Align8B && e.index % 16 == 0) {  // zero the padding
      const std::uint64_t first = map.data_type == DataType::k16U6Align16B ? 12 : 8;
      for (std::uint64_t b = first; b < 16; ++b) {
        window[smem_at(map, offset, sbit / 8 + b)] = std::byte{0};
      }
    }
    for (std::uint32_t i = 0; i < bits; ++i) {
      std::uint32_t v = 0;
      if (e.in_bounds) {
        const std::uint64_t gbit = global_bit(map, e) + i;
        v = std::to_integer<std::uint32_t>(global_byte(global, gbit / 8)) >> (gbit % 8) & 1u;
      }
      const std::uint64_t pos = sbit + i;
      const std::uint32_t at = smem_at(map, offset, pos / 8);
      const auto mask = static_cast<std::byte>(1u << (pos % 8));
      window[at] = v ? (window[at] | mask) : (window[at] & ~mask);
    }
  });
  return counts;
}

Counts store_tile(const TensorMap& map, std::span<const std::int32_t> coords,
                  std::span<const std::byte> window, std::uint32_t offset,
                  mem::GlobalMemory& global) {
  Counts counts;
  const std::uint32_t bits = unit_bits(map);
  const std::uint64_t per_unit = bits / element_bits(map.data_type);  // elements per step
  each_element(map, coords, [&](const Element& e) {
    counts.elements += per_unit;
    if (!e.in_bounds) {
      counts.oob += per_unit;
      return;
    }
    if (!is_packed(map.data_type)) {
      const std::uint32_t size = bits / 8;
      for (std::uint32_t b = 0; b < size; ++b) {
        const std::byte v = window[smem_at(map, offset, e.index * size + b)];
        (void)global.write(global_bit(map, e) / 8 + b, {&v, 1});
      }
      return;
    }
    const std::uint64_t sbit = packed_smem_bit(map.data_type, e.index, true);
    for (std::uint32_t i = 0; i < bits; ++i) {
      const std::uint64_t pos = sbit + i;
      const std::byte s = window[smem_at(map, offset, pos / 8)];
      const std::uint32_t v = std::to_integer<std::uint32_t>(s) >> (pos % 8) & 1u;
      const std::uint64_t gbit = global_bit(map, e) + i;
      std::byte g = global_byte(global, gbit / 8);
      set_bit({&g, 1}, gbit % 8, v);
      (void)global.write(gbit / 8, {&g, 1});
    }
  });
  return counts;
}

std::vector<GlobalRequest> tile_requests(const TensorMap& map,
                                         std::span<const std::int32_t> coords) {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> runs;  // [begin, end)
  std::uint64_t run_row = ~std::uint64_t{0};
  const std::uint32_t bits = unit_bits(map);
  each_element(map, coords, [&](const Element& e) {
    if (!e.in_bounds) return;
    const std::uint64_t b = global_bit(map, e);
    const std::uint64_t begin = b / 8, end = (b + bits - 1) / 8 + 1;
    if (!runs.empty() && run_row == e.row && begin <= runs.back().second) {
      runs.back().second = std::max(runs.back().second, end);
    } else {
      runs.push_back({begin, end});
      run_row = e.row;
    }
  });
  std::vector<GlobalRequest> out;
  for (const auto& [begin, end] : runs) {
    for (std::uint64_t line = begin / 128; line <= (end - 1) / 128; ++line) {
      const std::uint64_t a = std::max(begin, line * 128), z = std::min(end, line * 128 + 128);
      out.push_back({a, static_cast<std::uint32_t>(z - a)});
    }
  }
  return out;
}

}  // namespace xpusim::tma::ref
