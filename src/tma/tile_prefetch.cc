// Tile-mode L2 prefetch (seed0 ¶156, ¶162; PTX cp.async.bulk.prefetch.tensor): the requests a
// load of the box would make, and nothing else (no shared-memory writes, no completion).
#include "tma/box_walk.h"
#include "tma/copy_engine.h"

namespace xpusim::tma {

void append_box_requests(const BoxPlan& p, CopyReport& rep) {
  const std::uint64_t n0 = p.count[0];
  const bool any = p.lo < p.hi;
  for_each_row_run(p, [&](const RowRun& run) {
    const bool in = run.in_bounds && any;
    rep.oob_elements += run.rows * (in ? n0 - (p.hi - p.lo) : n0) * p.unit.values;
    if (!in) return;
    if (p.contiguous) {  // one range per row, the rows address_step apart
      rep.global_requests.append_rows(p.unit_address(run.address, p.lo),
                                      (p.hi - p.lo) * std::uint64_t{p.unit.global_bytes}, run.rows,
                                      run.address_step);
      return;
    }
    for (std::uint64_t r = 0; r < run.rows; ++r) {
      const mem::Addr row = run.address + r * run.address_step;
      for (std::uint32_t i = p.lo; i < p.hi; ++i)
        rep.global_requests.append(p.unit_address(row, i), p.unit.global_bytes);
    }
  });
  rep.elements = p.rows * n0 * p.unit.values;
}

Result<CopyReport> prefetch_tile(const TensorMap& map, std::span<const std::int32_t> coords) {
  auto planned = plan_tile_box("prefetch_tile", map, coords);
  if (!planned) return planned.errors();
  CopyReport rep;
  append_box_requests(*planned, rep);
  return rep;
}

}  // namespace xpusim::tma
