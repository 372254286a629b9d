// Tile-mode loads, stores and L2 prefetches (seed0 ¶93-¶97 traversal, ¶76-¶80 out-of-bounds
// fill, ¶139-¶150 swizzle, ¶152-¶154 multicast, ¶156-¶159 prefetch/store). Each in-bounds run
// of a box row is one contiguous global range, read or written in one piece and split into
// ≤128 B line requests (¶89); out-of-bounds units move no global data.
#include <fmt/format.h>

#include <cstring>

#include "tma/box_image.h"
#include "tma/box_walk.h"
#include "tma/copy_engine.h"

namespace xpusim::tma {

namespace {

// A shared-memory row of fill units: the OOB pattern per element, zeros for packed types.
std::vector<std::byte> fill_row(const TensorMap& map, const BoxPlan& p) {
  std::vector<std::byte> row(p.row_bytes, std::byte{0});
  if (is_packed(map.data_type)) return row;
  const std::vector<std::byte> pattern = oob_fill_pattern(map);
  for (std::uint64_t i = 0; i < p.row_bytes; i += pattern.size()) {
    std::memcpy(row.data() + i, pattern.data(), pattern.size());
  }
  return row;
}

// Packed .b4x16_p64 / .b6x16_p32 loads: each group's packed bytes, then zero padding (PTX
// leaves the padding undefined; zeros keep the image deterministic).
void expand_groups(const TransferUnit& u, const std::byte* packed, std::byte* out,
                   std::uint64_t groups) {
  for (std::uint64_t g = 0; g < groups; ++g) {
    std::memcpy(out + g * u.smem_bytes, packed + g * u.global_bytes, u.global_bytes);
    std::memset(out + g * u.smem_bytes + u.global_bytes, 0, u.smem_bytes - u.global_bytes);
  }
}

// 16U6_ALIGN16B stores use .b6p2x16: one value per shared byte (low 6 bits), packed
// contiguously in global memory; value j of a group occupies bits [6j, 6j+6) of its 12 bytes.
void pack_u6_groups(const std::byte* smem, std::byte* packed, std::uint64_t groups) {
  for (std::uint64_t g = 0; g < groups; ++g) {
    std::uint64_t lo = 0, hi = 0;  // 96 bits
    for (std::uint32_t j = 0; j < 16; ++j) {
      const std::uint64_t v = std::to_integer<std::uint64_t>(smem[g * 16 + j]) & 0x3F;
      const std::uint32_t bit = 6 * j;
      if (bit < 64) lo |= v << bit;
      if (bit >= 64) hi |= v << (bit - 64);
      if (bit < 64 && bit + 6 > 64) hi |= v >> (64 - bit);  // straddles the two words
    }
    for (std::uint32_t b = 0; b < 12; ++b) {
      packed[g * 12 + b] = static_cast<std::byte>(b < 8 ? lo >> (8 * b) : hi >> (8 * (b - 8)));
    }
  }
}

void checked(const Status& st) {
  XPUSIM_CHECK(st.ok(), "global access was validated before the walk");
}

}  // namespace

Result<CopyReport> load_tile(const TensorMap& map, std::span<const std::int32_t> coords,
                             const mem::GlobalMemory& global, std::span<const SmemTarget> dst) {
  constexpr std::string_view op = "load_tile";
  auto planned = plan_tile_box(op, map, coords);
  if (!planned) return planned.errors();
  const BoxPlan& p = *planned;
  std::vector<Error> errors;
  if (dst.empty()) errors.push_back({"load_tile: no shared-memory destination given"});
  for (std::size_t t = 0; t < dst.size(); ++t) {
    check_box_window(op, fmt::format("destination {}", t), dst[t].smem, dst[t].offset, p.box_bytes,
                     map.swizzle, errors);
  }
  if (map.data_type == DataType::k16U6Align16B && map.swizzle == Swizzle::k128BAtom64B) {
    errors.push_back(
        {"load_tile: 16U6_ALIGN16B supports SWIZZLE_128B_ATOM_64B for stores only "
         "(cuda.h)"});
  }
  if (!errors.empty()) return errors;

  CopyReport rep;
  rep.bytes_per_destination = p.box_bytes;
  rep.destinations = static_cast<std::uint32_t>(dst.size());
  const std::uint64_t n0 = p.count[0];
  const std::uint32_t s = p.unit.smem_bytes, g = p.unit.global_bytes;
  const std::vector<std::byte> fill = fill_row(map, p);
  const bool swizzled = map.swizzle != Swizzle::kNone;
  std::vector<std::byte> staging(swizzled ? p.row_bytes : 0);
  std::vector<std::byte> packed(g != s ? (p.hi - p.lo) * g : 0);
  std::span<std::byte> first = dst[0].smem->bytes();

  for_each_row(p, [&](const BoxRow& row) {
    const std::uint64_t pos = row.index * p.row_bytes;
    std::byte* out = swizzled ? staging.data() : first.data() + dst[0].offset + pos;
    const bool any = row.in_bounds && p.lo < p.hi;
    const std::uint64_t lo = any ? p.lo : n0, hi = any ? p.hi : n0;
    std::memcpy(out, fill.data(), lo * s);
    std::memcpy(out + hi * s, fill.data() + hi * s, (n0 - hi) * s);
    if (any && p.contiguous) {
      const mem::Addr a = p.unit_address(row.address, p.lo);
      const std::uint64_t bytes = (hi - lo) * g;
      if (g == s) {
        checked(global.read(a, {out + lo * s, bytes}));
      } else {
        checked(global.read(a, packed));
        expand_groups(p.unit, packed.data(), out + lo * s, hi - lo);
      }
      append_line_requests(rep.global_requests, a, bytes);
    } else if (any) {  // dim-0 traversal stride (interleaved layouts): one element at a time
      for (std::uint64_t i = lo; i < hi; ++i) {
        const mem::Addr a = p.unit_address(row.address, static_cast<std::uint32_t>(i));
        checked(global.read(a, {out + i * s, g}));
        append_line_requests(rep.global_requests, a, g);
      }
    }
    rep.oob_elements += (n0 - (hi - lo)) * p.unit.values;
    // Multicast: the row read once from global lands in every destination (seed0 ¶152).
    for (std::size_t t = swizzled ? 0 : 1; t < dst.size(); ++t) {
      write_box_bytes(dst[t].smem->bytes(), dst[t].offset, pos, {out, p.row_bytes}, map.swizzle);
    }
  });
  rep.elements = p.rows * n0 * p.unit.values;
  return rep;
}

Result<CopyReport> store_tile(const TensorMap& map, std::span<const std::int32_t> coords,
                              const mem::SharedMemory& smem, std::uint32_t smem_offset,
                              mem::GlobalMemory& global) {
  constexpr std::string_view op = "store_tile";
  auto planned = plan_tile_box(op, map, coords);
  if (!planned) return planned.errors();
  const BoxPlan& p = *planned;
  std::vector<Error> errors;
  check_box_window(op, "shared-memory source", &smem, smem_offset, p.box_bytes, map.swizzle,
                   errors);
  if (map.data_type == DataType::k16U4Align16B) {
    errors.push_back(
        {"store_tile: 16U4_ALIGN16B is a load-only type (cuda.h lists its swizzle "
         "modes for loads only)"});
  }
  if (map.swizzle == Swizzle::k128BAtom32BFlip8B) {
    errors.push_back(
        {"store_tile: SWIZZLE_128B_ATOM_32B_FLIP_8B is legal only for loads "
         "(PTX ISA: global -> shared copies)"});
  }
  if (!errors.empty()) return errors;

  CopyReport rep;
  const std::uint64_t n0 = p.count[0];
  const std::uint32_t s = p.unit.smem_bytes, g = p.unit.global_bytes;
  std::vector<std::byte> row_image(p.row_bytes);
  std::vector<std::byte> packed((p.hi - p.lo) * g);
  for_each_row(p, [&](const BoxRow& row) {
    const bool any = row.in_bounds && p.lo < p.hi;
    rep.oob_elements += (any ? n0 - (p.hi - p.lo) : n0) * p.unit.values;
    if (!any) return;  // out-of-bounds elements are not written (seed0 §5.7 model choice)
    read_box_bytes(smem.bytes(), smem_offset, row.index * p.row_bytes, row_image, map.swizzle);
    const std::byte* in = row_image.data() + p.lo * s;
    if (p.contiguous) {
      const mem::Addr a = p.unit_address(row.address, p.lo);
      if (g != s) {  // only 16U6_ALIGN16B reaches here (16U4_ALIGN16B was refused)
        pack_u6_groups(in, packed.data(), p.hi - p.lo);
        in = packed.data();
      }
      checked(global.write(a, {in, (p.hi - p.lo) * std::uint64_t{g}}));
      append_line_requests(rep.global_requests, a, (p.hi - p.lo) * std::uint64_t{g});
    } else {
      for (std::uint32_t i = p.lo; i < p.hi; ++i) {
        const mem::Addr a = p.unit_address(row.address, i);
        checked(global.write(a, {row_image.data() + i * std::uint64_t{s}, g}));
        append_line_requests(rep.global_requests, a, g);
      }
    }
  });
  rep.elements = p.rows * n0 * p.unit.values;
  return rep;
}

Result<CopyReport> prefetch_tile(const TensorMap& map, std::span<const std::int32_t> coords) {
  auto planned = plan_tile_box("prefetch_tile", map, coords);
  if (!planned) return planned.errors();
  const BoxPlan& p = *planned;
  CopyReport rep;
  const std::uint64_t n0 = p.count[0];
  for_each_row(p, [&](const BoxRow& row) {
    const bool any = row.in_bounds && p.lo < p.hi;
    rep.oob_elements += (any ? n0 - (p.hi - p.lo) : n0) * p.unit.values;
    if (!any) return;
    if (p.contiguous) {
      append_line_requests(rep.global_requests, p.unit_address(row.address, p.lo),
                           (p.hi - p.lo) * std::uint64_t{p.unit.global_bytes});
      return;
    }
    for (std::uint32_t i = p.lo; i < p.hi; ++i) {
      append_line_requests(rep.global_requests, p.unit_address(row.address, i),
                           p.unit.global_bytes);
    }
  });
  rep.elements = p.rows * n0 * p.unit.values;
  return rep;
}

}  // namespace xpusim::tma
