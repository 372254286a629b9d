// Tile-mode stores, shared -> global (seed0 ¶93-¶97 traversal, ¶158-¶159 store): the shared
// box is read linearly through the swizzle and each in-bounds run of a box row is one
// contiguous global range, written in one piece and split into ≤128 B line requests (¶89);
// out-of-bounds elements are neither written nor requested.
#include <fmt/format.h>

#include <cstring>

#include "tma/box_image.h"
#include "tma/box_walk.h"
#include "tma/copy_engine.h"

namespace xpusim::tma {

namespace {

void checked(const Status& st) {
  XPUSIM_CHECK(st.ok(), "global access was validated before the walk");
}

}  // namespace

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

Result<CopyReport> store_tile(const TensorMap& map, std::span<const std::int32_t> coords,
                              const mem::SharedMemory& smem, std::uint32_t smem_offset,
                              mem::GlobalMemory& global) {
  constexpr std::string_view op = "store_tile";
  auto planned = plan_tile_box(op, map, coords);
  if (!planned) return planned.errors();
  const BoxPlan& p = *planned;
  std::vector<Error> errors;
  check_box_window(op, "shared-memory source", kNoIndex, &smem, smem_offset, p.footprint,
                   map.swizzle, errors);
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
    read_box_bytes(smem.bytes(), smem_offset, row.index * p.row_bytes, row_image, map.swizzle,
                   p.layout);
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

}  // namespace xpusim::tma
