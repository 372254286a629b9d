// Tile-mode reduction, shared -> global (seed0 ¶159; PTX cp.reduce.async.bulk.tensor): the
// shared box is read linearly (through the swizzle) and each in-bounds global element becomes
// op(global, shared). Out-of-bounds elements are skipped, as for stores.
#include <fmt/format.h>

#include "tma/box_image.h"
#include "tma/box_walk.h"
#include "tma/copy_engine.h"
#include "tma/reduce_ops.h"

namespace xpusim::tma {

Result<CopyReport> reduce_tile(const TensorMap& map, ReduceOp op,
                               std::span<const std::int32_t> coords, const mem::SharedMemory& smem,
                               std::uint32_t smem_offset, mem::GlobalMemory& global) {
  constexpr std::string_view what = "reduce_tile";
  std::vector<Error> errors;
  if (!reduce_supported(op, map.data_type)) {
    errors.push_back({fmt::format(
        "reduce_tile: .{} is not defined for {} elements (cp.reduce.async.bulk.tensor supports "
        "{} on {})",
        name(op), name(map.data_type), supported_reduce_ops(map.data_type), name(map.data_type))});
  }
  auto planned = plan_tile_box(what, map, coords);
  if (!planned) errors.insert(errors.end(), planned.errors().begin(), planned.errors().end());
  if (!errors.empty()) return errors;
  const BoxPlan& p = *planned;
  check_box_window(what, "shared-memory source", kNoIndex, &smem, smem_offset, p.footprint,
                   map.swizzle, errors);
  if (map.swizzle == Swizzle::k128BAtom32BFlip8B) {
    errors.push_back(
        {"reduce_tile: SWIZZLE_128B_ATOM_32B_FLIP_8B is legal only for loads "
         "(PTX ISA: global -> shared copies)"});
  }
  if (!errors.empty()) return errors;

  CopyReport rep;
  const std::uint64_t n0 = p.count[0];
  const std::uint32_t e = p.unit.global_bytes;  // reducible types are never packed
  std::vector<std::byte> row_image(p.row_bytes);
  std::vector<std::byte> old((p.hi - p.lo) * std::uint64_t{e});
  for_each_row(p, [&](const BoxRow& row) {
    const bool any = row.in_bounds && p.lo < p.hi;
    rep.oob_elements += any ? n0 - (p.hi - p.lo) : n0;
    if (!any) return;
    read_box_bytes(smem.bytes(), smem_offset, row.index * p.row_bytes, row_image, map.swizzle,
                   p.layout);
    // One read-modify-write per contiguous run (per element with a dim-0 traversal stride).
    const std::uint32_t run = p.contiguous ? p.hi - p.lo : 1;
    for (std::uint32_t i = p.lo; i < p.hi; i += run) {
      const mem::Addr a = p.unit_address(row.address, i);
      const std::span<std::byte> cur(old.data(), std::uint64_t{run} * e);
      XPUSIM_CHECK(global.read(a, cur).ok(), "validated before the walk");
      reduce_elements(op, map.data_type, cur,
                      {row_image.data() + std::uint64_t{i} * e, cur.size()});
      XPUSIM_CHECK(global.write(a, cur).ok(), "validated before the walk");
      append_line_requests(rep.global_requests, a, cur.size());
    }
  });
  rep.elements = p.rows * n0;
  return rep;
}

}  // namespace xpusim::tma
