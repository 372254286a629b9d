// LayoutMap: where each byte of a TMA box lands in shared memory, recovered by running the
// real copy engine (so it is exact for every swizzle, interleave and im2col mode): the load
// is repeated with the source filled with one byte-plane of each byte's address offset at a
// time, which identifies the source of every shared byte; two more runs with different fills
// tell out-of-bounds fill bytes apart. Used by `xpusim tma layout`.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "sim/result.h"
#include "tma/tensor_map.h"

namespace xpusim::tma {

struct LayoutMap {
  static constexpr std::int64_t kOobFill = -1;     // written with the out-of-bounds fill
  static constexpr std::int64_t kNotWritten = -2;  // inside the window, untouched by the load
  // Per shared-memory byte (CTA-relative offset = index, whole 128 B rows): the offset of its
  // source byte from the tensor's global address, or kOobFill / kNotWritten.
  std::vector<std::int64_t> source;
  std::uint32_t element_bytes = 1;  // 1 for sub-byte packed types
};

// `coords`/`offsets` as for load_tile / load_im2col (offsets ignored in tiled mode).
Result<LayoutMap> map_layout(const TensorMap& map, std::span<const std::int32_t> coords,
                             std::span<const std::uint16_t> offsets = {});

// Global coordinates (dim 0 first) of the element holding source byte `offset`, by peeling
// the strides from the outermost dimension; nullopt when strides are not nested.
std::optional<std::array<std::uint64_t, kMaxRank>> element_coords(const TensorMap& map,
                                                                  std::uint64_t offset);

// Text grid: one line per 128 B shared-memory row, one cell per 16 B chunk (4 banks), each
// showing the global coordinates (dims 1.. then dim 0) of the chunk's first element, or "oob".
std::string layout_text(const TensorMap& map, const LayoutMap& layout);
// One line per element: shared offset, bank, global coordinates.
std::string layout_elements_text(const TensorMap& map, const LayoutMap& layout);
// SVG picture: rows x 16 B chunks, each chunk coloured by the 16 B column it came from in
// the box row (so swizzles show as diagonals), banks labelled along the top.
std::string layout_svg(const TensorMap& map, const LayoutMap& layout, const std::string& title);

}  // namespace xpusim::tma
