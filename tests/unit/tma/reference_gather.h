// A deliberately naive reference for tile-mode TMA copies, written apart from the engine: it
// visits every element (every U4/U6 value for packed types) of the box one at a time, computes
// its coordinates, bounds and byte/bit address from the descriptor's formulas, and places each
// shared byte at swizzle_offset(offset + byte index). No runs, no plans, no shortcuts.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "mem/global_memory.h"
#include "tma/copy_engine.h"
#include "tma/tensor_map.h"

namespace xpusim::tma::ref {

struct Counts {
  std::uint64_t elements = 0;
  std::uint64_t oob = 0;
};

// Tile load into `window` (a whole CTA shared-memory image) at CTA-relative `offset`.
Counts load_tile(const TensorMap& map, std::span<const std::int32_t> coords,
                 const mem::GlobalMemory& global, std::span<std::byte> window,
                 std::uint32_t offset);

// Tile store from `window` at `offset`; out-of-bounds elements are not written.
Counts store_tile(const TensorMap& map, std::span<const std::int32_t> coords,
                  std::span<const std::byte> window, std::uint32_t offset,
                  mem::GlobalMemory& global);

// The global requests of a tile operation: each element's in-bounds byte range in traversal
// order, merged with the previous one when they touch within the same box row, then cut at
// every 128 B line.
std::vector<GlobalRequest> tile_requests(const TensorMap& map,
                                         std::span<const std::int32_t> coords);

}  // namespace xpusim::tma::ref
