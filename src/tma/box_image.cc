#include "tma/box_image.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <string>

#include "tma/swizzle.h"

namespace xpusim::tma {

// H200 silicon (tools/silicon) loads a swizzled box to any 128 B-aligned offset and keys the
// pattern on the offset's own bits, so the swizzle's repeat is no alignment rule.
std::uint32_t box_alignment(Swizzle) {
  return 128;
}

void check_box_window(std::string_view op, std::string_view what_name, std::size_t index,
                      const mem::SharedMemory* smem, std::uint64_t offset, std::uint64_t bytes,
                      Swizzle mode, std::vector<Error>& errors) {
  // Formatted only when something is wrong: the check runs on every request.
  const auto what = [&] {
    return index == kNoIndex ? std::string(what_name) : fmt::format("{} {}", what_name, index);
  };
  if (smem == nullptr) {
    errors.push_back({fmt::format("{}: {} has no shared-memory window", op, what())});
    return;
  }
  const std::uint32_t align = box_alignment(mode);
  if (offset % align != 0) {
    errors.push_back({fmt::format(
        "{}: {} offset {:#x} is not {}-byte aligned (tensor boxes need 128 B alignment, and "
        "SWIZZLE_{} needs {} B so its pattern lines up with the offset bits it is keyed on)",
        op, what(), offset, align, name(mode), swizzle_alignment(mode))});
  }
  // A swizzle permutes 16 B chunks inside its span, so a box ending mid-span owns the span.
  const std::uint64_t span = swizzle_span_bytes(mode);
  const std::uint64_t footprint = span == 0 ? bytes : (bytes + span - 1) / span * span;
  if (auto st = smem->check_range(offset, footprint); !st) {
    errors.push_back({fmt::format("{}: {} ({} box bytes{}): {}", op, what(), bytes,
                                  footprint == bytes ? "" : ", rounded up to the swizzle span",
                                  st.error().message)});
  }
}

namespace {
// Bytes a swizzle keeps together: the whole run when unswizzled.
std::uint64_t granule(Swizzle mode) {
  if (mode == Swizzle::kNone) return ~std::uint64_t{0};
  return mode == Swizzle::k128BAtom32BFlip8B ? 8 : 16;
}
}  // namespace

void write_box_bytes(std::span<std::byte> window, std::uint32_t base, std::uint64_t pos,
                     std::span<const std::byte> src, Swizzle mode) {
  const std::uint64_t g = granule(mode);
  std::size_t done = 0;
  while (done < src.size()) {
    const auto off = static_cast<std::uint32_t>(base + pos + done);
    const std::size_t n = std::min<std::uint64_t>(src.size() - done, g - off % g);
    // memmove: a multicast row may be copied onto itself when two targets coincide
    std::memmove(window.data() + swizzle_offset(mode, off), src.data() + done, n);
    done += n;
  }
}

void read_box_bytes(std::span<const std::byte> window, std::uint32_t base, std::uint64_t pos,
                    std::span<std::byte> dst, Swizzle mode) {
  const std::uint64_t g = granule(mode);
  std::size_t done = 0;
  while (done < dst.size()) {
    const auto off = static_cast<std::uint32_t>(base + pos + done);
    const std::size_t n = std::min<std::uint64_t>(dst.size() - done, g - off % g);
    std::memcpy(dst.data() + done, window.data() + swizzle_offset(mode, off), n);
    done += n;
  }
}

RowLayout row_layout(Swizzle mode, std::uint64_t row_bytes) {
  const std::uint64_t span = swizzle_span_bytes(mode);
  if (span == 0 || row_bytes == 0) return {row_bytes, row_bytes};
  return {row_bytes, (row_bytes + span - 1) / span * span};
}

namespace {
// Calls f(data_pos, smem_pos, n) for each piece of data bytes [pos, pos + n) within one row.
template <class F>
void for_each_row_piece(std::uint64_t pos, std::uint64_t n, const RowLayout& rows, F&& f) {
  std::uint64_t done = 0;
  while (done < n) {
    const std::uint64_t row = (pos + done) / rows.bytes, col = (pos + done) % rows.bytes;
    const std::uint64_t m = std::min(n - done, rows.bytes - col);
    f(done, row * rows.pitch + col, m);
    done += m;
  }
}
}  // namespace

void write_box_bytes(std::span<std::byte> window, std::uint32_t base, std::uint64_t pos,
                     std::span<const std::byte> src, Swizzle mode, const RowLayout& rows) {
  if (rows.packed()) return write_box_bytes(window, base, pos, src, mode);
  for_each_row_piece(pos, src.size(), rows,
                     [&](std::uint64_t i, std::uint64_t at, std::uint64_t n) {
                       write_box_bytes(window, base, at, src.subspan(i, n), mode);
                     });
}

void read_box_bytes(std::span<const std::byte> window, std::uint32_t base, std::uint64_t pos,
                    std::span<std::byte> dst, Swizzle mode, const RowLayout& rows) {
  if (rows.packed()) return read_box_bytes(window, base, pos, dst, mode);
  for_each_row_piece(pos, dst.size(), rows,
                     [&](std::uint64_t i, std::uint64_t at, std::uint64_t n) {
                       read_box_bytes(window, base, at, dst.subspan(i, n), mode);
                     });
}

namespace {
// One 128 B row whose G-byte granules are permuted by XOR with `mask`: copied aside, then
// each granule put back at its partner.
template <std::uint32_t G>
void permute_row(std::byte* row, std::uint32_t mask) {
  std::array<std::byte, 128> tmp;
  std::memcpy(tmp.data(), row, 128);
  for (std::uint32_t i = 0; i < 128; i += G)
    std::memcpy(row + i, tmp.data() + (i ^ mask), G);
}

// The common case, 16 B chunks XOR a constant K: with K known at compile time the eight chunks
// stay in registers (eight loads, eight stores).
template <std::uint32_t K>
void permute_chunks(std::byte* row) {
  std::array<std::array<std::byte, 16>, 8> c;
  for (std::uint32_t i = 0; i < 8; ++i)
    std::memcpy(c[i].data(), row + 16 * i, 16);
  for (std::uint32_t i = 0; i < 8; ++i)
    std::memcpy(row + 16 * i, c[i ^ K].data(), 16);
}

void permute_chunks(std::byte* row, std::uint32_t k) {
  switch (k) {
    case 1:
      return permute_chunks<1>(row);
    case 2:
      return permute_chunks<2>(row);
    case 3:
      return permute_chunks<3>(row);
    case 4:
      return permute_chunks<4>(row);
    case 5:
      return permute_chunks<5>(row);
    case 6:
      return permute_chunks<6>(row);
    case 7:
      return permute_chunks<7>(row);
    default:
      return;
  }
}
}  // namespace

void swizzle_rows_in_place(std::span<std::byte> window, std::uint32_t begin, std::uint32_t end,
                           Swizzle mode) {
  if (mode == Swizzle::kNone) return;
  // Every pattern repeats after 8 rows: the XOR mask of each row phase, looked up per row.
  std::array<std::uint32_t, 8> masks;
  for (std::uint32_t r = 0; r < 8; ++r)
    masks[r] = swizzle_offset(mode, r * 128) ^ (r * 128);
  const bool halves = mode == Swizzle::k128BAtom32BFlip8B;  // FLIP_8B also swaps 8 B halves
  for (std::uint32_t row = begin; row < end; row += 128) {
    const std::uint32_t mask = masks[row / 128 % 8];
    if (halves) {
      permute_row<8>(window.data() + row, mask);
    } else {
      permute_chunks(window.data() + row, mask / 16);
    }
  }
}

}  // namespace xpusim::tma
