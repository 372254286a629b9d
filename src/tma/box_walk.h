// The request generator's walk over a tile-mode box (seed0 ¶93-¶97, Fig. 7b): the traversal
// plan the setup block computes once per request, and the row-by-row walk the generator runs.
//
// A "row" is one run of the box along dim 0 (fixed coordinates in dims 1..rank-1). Rows are
// visited in shared-memory order (dim 1 fastest), and each row occupies row_smem_bytes densely
// in the box image (placed in shared memory by `layout`). Along dim 0 the walk moves in
// transfer units:
//  - ordinary types: one element;
//  - interleaved maps: one 16 B / 32 B chunk, whatever the type (H200 silicon; dimension
//    rank-2 is then not walked);
//  - 16U4_ALIGN8B: one byte (two U4 values; globalDim[0] is even, cuda.h);
//  - 16U4_ALIGN16B / 16U6_ALIGN16B: one 16-value group, packed in global memory (8 or 12 B)
//    and padded to 16 B in shared memory (PTX ISA 5.5.1.1.1, .b4x16_p64 / .b6x16_p32).
// A unit is in bounds when every value in it is; since packed boxes start on a 16-value group
// and packed globalDim[0] is a multiple of the unit, units are never partly in bounds.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>

#include "mem/global_memory.h"
#include "sim/result.h"
#include "tma/box_image.h"
#include "tma/copy_engine.h"
#include "tma/tensor_map.h"

namespace xpusim::tma {

// How one dim-0 transfer unit of a data type is laid out in each memory.
struct TransferUnit {
  std::uint32_t values = 1;        // tensor elements (U4/U6 values) per unit
  std::uint32_t global_bytes = 1;  // bytes of one unit in global memory
  std::uint32_t smem_bytes = 1;    // bytes of one unit in the shared-memory box image
};

TransferUnit transfer_unit(DataType t);

// Bytes one row of `values` dim-0 elements occupies in shared memory.
std::uint64_t row_smem_bytes(DataType t, std::uint64_t values);

// Everything the walk needs, computed and checked once per request.
struct BoxPlan {
  std::uint32_t rank = 1;
  TransferUnit unit;
  mem::Addr base = 0;
  std::array<std::int64_t, kMaxRank> start{};    // request coordinates
  std::array<std::int64_t, kMaxRank> step{};     // coordinate step per traversed entry
  std::array<std::uint32_t, kMaxRank> count{};   // entries per dim (dim 0: units)
  std::array<std::uint64_t, kMaxRank> extent{};  // global_dim
  std::array<std::uint64_t, kMaxRank> pitch{};   // bytes per coordinate step, dims >= 1
  std::uint32_t lo = 0, hi = 0;    // in-bounds dim-0 units [lo, hi) of every in-bounds row
  std::uint32_t lo1 = 0, hi1 = 1;  // in-bounds dim-1 entries [lo1, hi1) (rank 1: the one row)
  bool contiguous = true;          // in-bounds units of a row are adjacent in global memory
  std::uint64_t rows = 1;
  std::uint64_t row_bytes = 0;  // shared-memory bytes of one row
  std::uint64_t box_bytes = 0;  // rows * row_bytes: the bytes a load delivers (complete_tx)
  RowLayout layout;             // where the rows lie in shared memory (box_image.h)
  std::uint64_t footprint = 0;  // rows * layout.pitch: the shared-memory bytes the box spans

  std::uint32_t value_shift = 0;  // log2(unit.values): units hold 1, 2 or 16 values

  // Global address of dim-0 unit i of a row whose dim-0 coordinate 0 is at `row_address`.
  mem::Addr unit_address(mem::Addr row_address, std::uint32_t i) const {
    const auto x = static_cast<std::uint64_t>(start[0] + step[0] * i);
    return row_address + (x >> value_shift) * unit.global_bytes;
  }
};

// The two halves of a plan. shape_tile_box checks the map and computes what does not depend on
// the coordinates (counts, steps, pitches, box size); place_tile_box adds a request's
// coordinates (in-bounds ranges, the address-wrap check) to `plan`, which must hold a shape of
// the same map. Split so a map checked once can serve many requests (PreparedTileMap,
// copy_engine.h).
Status shape_tile_box(std::string_view op, const TensorMap& map, BoxPlan& shape);
Status place_tile_box(std::string_view op, const TensorMap& map,
                      std::span<const std::int32_t> coords, BoxPlan& plan);

// Hopper raises an illegal-instruction fault for a load whose box starts mid-way through a
// 16 B unit of dimension 0: coords[0] x element size must be a multiple of 16 B (H200
// silicon, tools/silicon; interleaved maps and the packed sm_100 types, unmeasured, excepted).
// `what` names the coordinate ("coordinate 0", "channel coordinate").
Status check_inner_alignment(std::string_view op, std::string_view what, const TensorMap& map,
                             std::int64_t c0);

// Both halves: the plan of a tile-mode request, or the errors of a descriptor/coordinates the
// walk cannot honour (`op` names the operation in messages).
Result<BoxPlan> plan_tile_box(std::string_view op, const TensorMap& map,
                              std::span<const std::int32_t> coords);

// One row of the walk: its index in shared-memory order, whether dims >= 1 are in bounds and,
// if so, the global address of dim-0 coordinate 0 of the row.
struct BoxRow {
  std::uint64_t index = 0;
  bool in_bounds = false;
  mem::Addr address = 0;
};

// Adds the requests a load of the planned box makes (and its element counts) to `rep`: the
// same list the copy builds (tile_load.cc), for prefetches and timing-only loads.
void append_box_requests(const BoxPlan& p, CopyReport& rep);

// Calls f(const BoxRow&) for every row, in shared-memory order (an odometer over dims 1..4).
template <class F>
void for_each_row(const BoxPlan& p, F&& f) {
  std::array<std::uint32_t, kMaxRank> i{};
  std::array<std::int64_t, kMaxRank> c = p.start;
  BoxRow row;
  for (row.index = 0; row.index < p.rows; ++row.index) {
    row.in_bounds = true;
    row.address = p.base;
    for (std::uint32_t d = 1; d < p.rank; ++d) {
      if (c[d] < 0 || static_cast<std::uint64_t>(c[d]) >= p.extent[d]) {
        row.in_bounds = false;
        break;
      }
      row.address += static_cast<std::uint64_t>(c[d]) * p.pitch[d];
    }
    f(static_cast<const BoxRow&>(row));
    for (std::uint32_t d = 1; d < p.rank; ++d) {  // advance the odometer
      c[d] += p.step[d];
      if (++i[d] < p.count[d]) break;
      i[d] = 0;
      c[d] = p.start[d];
    }
  }
}

// A run of consecutive rows along dim 1 that are all in bounds or all out of bounds; the
// rows of an in-bounds run start `address_step` bytes apart from `address`.
struct RowRun {
  std::uint64_t index = 0;  // first row, in shared-memory order
  std::uint64_t rows = 0;
  bool in_bounds = false;
  mem::Addr address = 0;  // dim-0 coordinate 0 of the first row
  std::uint64_t address_step = 0;
};

// Calls f(const RowRun&) over the whole box in shared-memory order: per line of dim 1, the
// out-of-bounds rows before it, the in-bounds rows, the out-of-bounds rows after. O(1) work per
// line, so long lines of whole rows can be moved in one piece.
template <class F>
void for_each_row_run(const BoxPlan& p, F&& f) {
  const std::uint64_t n1 = p.rank > 1 ? p.count[1] : 1;
  const std::uint64_t step1 = p.rank > 1 ? static_cast<std::uint64_t>(p.step[1]) * p.pitch[1] : 0;
  const mem::Addr first1 =
      p.rank > 1 ? static_cast<std::uint64_t>(p.start[1] + p.step[1] * p.lo1) * p.pitch[1] : 0;
  std::array<std::uint32_t, kMaxRank> i{};
  std::array<std::int64_t, kMaxRank> c = p.start;
  for (std::uint64_t index = 0; index < p.rows; index += n1) {
    bool in = p.lo1 < p.hi1;
    mem::Addr a = p.base + first1;
    for (std::uint32_t d = 2; d < p.rank && in; ++d) {
      in = c[d] >= 0 && static_cast<std::uint64_t>(c[d]) < p.extent[d];
      a += static_cast<std::uint64_t>(c[d]) * p.pitch[d];
    }
    if (!in) {
      f(RowRun{.index = index, .rows = n1, .in_bounds = false, .address = 0, .address_step = 0});
    } else {
      if (p.lo1 > 0) {
        f(RowRun{
            .index = index, .rows = p.lo1, .in_bounds = false, .address = 0, .address_step = 0});
      }
      f(RowRun{.index = index + p.lo1,
               .rows = p.hi1 - p.lo1,
               .in_bounds = true,
               .address = a,
               .address_step = step1});
      if (p.hi1 < n1) {
        f(RowRun{.index = index + p.hi1,
                 .rows = n1 - p.hi1,
                 .in_bounds = false,
                 .address = 0,
                 .address_step = 0});
      }
    }
    for (std::uint32_t d = 2; d < p.rank; ++d) {  // advance the odometer over dims >= 2
      c[d] += p.step[d];
      if (++i[d] < p.count[d]) break;
      i[d] = 0;
      c[d] = p.start[d];
    }
  }
}

}  // namespace xpusim::tma
