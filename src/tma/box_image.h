// The box image in shared memory: a box is laid out densely (dim 0 innermost) from a base
// offset, and each byte lands at swizzle_offset(base + i) (seed0 ¶139-¶142: the swizzle is
// keyed on the CTA-relative offset). Swizzles permute 16 B chunks (8 B halves for the FLIP_8B
// mode), so a run is moved in pieces that never straddle such a granule.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "mem/shared_memory.h"
#include "sim/result.h"
#include "tma/tensor_map.h"

namespace xpusim::tma {

// Alignment a tensor box needs in shared memory: 128 B (PTX: cp.async.bulk.tensor shared
// addresses are 128 B aligned), whatever the swizzle: the pattern is keyed on the offset
// bits, so a box off the pattern's repeat starts mid-pattern (as on H200 silicon).
std::uint32_t box_alignment(Swizzle mode);

// Appends the errors of a box at `offset` of `smem` (`what`, and `index` unless kNoIndex, name
// it in messages): no window, misaligned for the swizzle, or outside the window.
inline constexpr std::size_t kNoIndex = ~std::size_t{0};
void check_box_window(std::string_view op, std::string_view what, std::size_t index,
                      const mem::SharedMemory* smem, std::uint64_t offset, std::uint64_t bytes,
                      Swizzle mode, std::vector<Error>& errors);
inline void check_box_window(std::string_view op, std::string_view what,
                             const mem::SharedMemory* smem, std::uint64_t offset,
                             std::uint64_t bytes, Swizzle mode, std::vector<Error>& errors) {
  check_box_window(op, what, kNoIndex, smem, offset, bytes, mode, errors);
}

// Where a box's rows (its dim-0 runs; im2col: its pixels) lie in shared memory. Unswizzled,
// back to back. Swizzled, each row starts its own swizzle span: a row shorter than the span
// is followed by a gap the load leaves untouched (H200 silicon, tools/silicon: the 16 B rows
// of a SWIZZLE_128B box land 128 B apart). `pitch` is the row bytes rounded up to the span.
struct RowLayout {
  std::uint64_t bytes = 0;  // data bytes of one row
  std::uint64_t pitch = 0;  // shared-memory bytes from one row's start to the next
  bool packed() const { return pitch == bytes; }
};
RowLayout row_layout(Swizzle mode, std::uint64_t row_bytes);

// Writes src to box bytes [pos, pos + src.size()) of the image based at `base` in `window`;
// `pos` counts data bytes (row r starts at r * bytes), placed by `rows` when given.
void write_box_bytes(std::span<std::byte> window, std::uint32_t base, std::uint64_t pos,
                     std::span<const std::byte> src, Swizzle mode);
void write_box_bytes(std::span<std::byte> window, std::uint32_t base, std::uint64_t pos,
                     std::span<const std::byte> src, Swizzle mode, const RowLayout& rows);

// 16U6_ALIGN16B stores use .b6p2x16: one value per shared byte (low 6 bits), packed
// contiguously in global memory; value j of a group occupies bits [6j, 6j+6) of its 12 bytes.
void pack_u6_groups(const std::byte* smem, std::byte* packed, std::uint64_t groups);

// Reads box bytes [pos, pos + dst.size()) of the image based at `base` in `window`.
void read_box_bytes(std::span<const std::byte> window, std::uint32_t base, std::uint64_t pos,
                    std::span<std::byte> dst, Swizzle mode);
void read_box_bytes(std::span<const std::byte> window, std::uint32_t base, std::uint64_t pos,
                    std::span<std::byte> dst, Swizzle mode, const RowLayout& rows);

// Swizzles whole 128 B rows [begin, end) of `window` (CTA-relative offsets, multiples of 128)
// that already hold box bytes unswizzled. Every swizzle XORs the offset with a function of its
// 128 B row number, so each row is permuted within itself and the XOR is its own inverse:
// swapping each granule with its partner is the whole job.
void swizzle_rows_in_place(std::span<std::byte> window, std::uint32_t begin, std::uint32_t end,
                           Swizzle mode);

}  // namespace xpusim::tma
