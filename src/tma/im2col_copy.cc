// load_im2col (copy_engine.h): the bytes and memory requests of one im2col-mode load
// (seed0 ¶111-¶137). The pixel walk is in im2col_walk.cc; this file gathers each pixel's
// channels, fills out-of-bounds ones, and writes the column into every destination CTA.
// Channels move in the data type's transfer units (box_walk.h): one element, or one 16-value
// group of a packed type, packed in global memory and padded in shared memory.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "tma/box_image.h"
#include "tma/box_walk.h"
#include "tma/copy_engine.h"
#include "tma/im2col_walk.h"
#include "tma/load_convert.h"
#include "tma/swizzle.h"

namespace xpusim::tma {
namespace {

constexpr std::string_view kOp = "load_im2col";

// Checks the parts of the request that concern the copy rather than the walk.
void check_layout(const TensorMap& map, std::span<const std::int32_t> coords,
                  std::vector<Error>& errors) {
  if (map.interleave != Interleave::kNone) {
    errors.push_back(Error{fmt::format(
        "{}: interleave {} is not modelled in im2col mode (seed0 ¶120 counts the C coordinate "
        "in slices, but PTX defines no im2col slice walk); use interleave NONE",
        kOp, name(map.interleave))});
  }
  const TransferUnit u = transfer_unit(map.data_type);
  if (is_packed(map.data_type)) {
    // Same rules as packed tile loads: whole 16-value groups only.
    if (coords.size() == map.rank && coords[0] % 16 != 0)
      errors.push_back(Error{fmt::format(
          "{}: C coordinate {} of a {} map is not a multiple of 16 (16-value groups are the "
          "unit of transfer)",
          kOp, coords[0], name(map.data_type))});
    if (map.channels_per_pixel % u.values != 0)
      errors.push_back(
          Error{fmt::format("{}: channels_per_pixel {} of a {} map is not a "
                            "multiple of {}",
                            kOp, map.channels_per_pixel, name(map.data_type), u.values)});
    if (map.global_dim[0] % u.values != 0)
      errors.push_back(
          Error{fmt::format("{}: global_dim[0] = {} of a {} map is not a multiple "
                            "of {}",
                            kOp, map.global_dim[0], name(map.data_type), u.values)});
    if (map.data_type == DataType::k16U6Align16B && map.swizzle == Swizzle::k128BAtom64B)
      errors.push_back(Error{fmt::format(
          "{}: 16U6_ALIGN16B supports SWIZZLE_128B_ATOM_64B for stores only (cuda.h)", kOp)});
  }
  const std::uint64_t row = row_smem_bytes(map.data_type, map.channels_per_pixel);
  const std::uint32_t span = swizzle_span_bytes(map.swizzle);
  // cuTensorMapEncodeIm2col: with a swizzle, one pixel's channels fit in the swizzle span.
  if (span != 0 && row > span)
    errors.push_back(Error{fmt::format(
        "{}: channels_per_pixel {} = {} B per pixel exceeds the {} swizzle span of {} B "
        "(cuTensorMapEncodeIm2col)",
        kOp, map.channels_per_pixel, row, name(map.swizzle), span)});
}

// One pixel row of fill: the OOB pattern per element, zeros for packed types (as tile loads).
std::vector<std::byte> fill_row(const TensorMap& map, std::uint64_t row_bytes) {
  std::vector<std::byte> row(row_bytes, std::byte{0});
  if (is_packed(map.data_type)) return row;
  const std::vector<std::byte> pattern = oob_fill_pattern(map);
  for (std::uint64_t i = 0; i + pattern.size() <= row_bytes; i += pattern.size())
    std::memcpy(row.data() + i, pattern.data(), pattern.size());
  return row;
}

// The load, or with no `global` its timing-only form: the same checks, errors, requests and
// counts, no byte read or written.
Result<CopyReport> im2col_load(const TensorMap& map, std::span<const std::int32_t> coords,
                               std::span<const std::uint16_t> offsets,
                               const mem::GlobalMemory* global, std::span<const SmemTarget> dst) {
  std::vector<Error> errors;
  Result<Im2colWalk> walk = walk_im2col(map, coords, offsets);
  if (!walk) errors = walk.errors();
  if (map.rank >= 3 && map.rank <= kMaxRank) check_layout(map, coords, errors);
  if (!coords.empty()) {
    if (auto st = check_inner_alignment(kOp, "channel coordinate", map, coords[0]); !st)
      errors.push_back(st.error());
  }
  if (!errors.empty()) return errors;

  // seed0 ¶117: each pixel is one row of channels_per_pixel elements, pixels one after another.
  const TransferUnit u = transfer_unit(map.data_type);
  const std::int64_t units = map.channels_per_pixel / u.values;
  const std::uint64_t row_bytes = static_cast<std::uint64_t>(units) * u.smem_bytes;
  const std::uint64_t bytes = row_bytes * map.pixels_per_column;
  XPUSIM_CHECK(bytes == box_bytes(map), "an im2col box is pixels x one row of channels");
  const RowLayout layout = row_layout(map.swizzle, row_bytes);
  if (dst.empty())
    errors.push_back(Error{fmt::format("{}: no shared-memory destination given", kOp)});
  for (std::size_t t = 0; t < dst.size(); ++t)
    check_box_window(kOp, fmt::format("destination {}", t), dst[t].smem, dst[t].offset,
                     layout.pitch * map.pixels_per_column, map.swizzle, errors);
  if (!errors.empty()) return errors;

  // In-bounds units of the channel run c0 .. c0 + channels_per_pixel, the same for every pixel.
  const std::int64_t c0 = coords[0];
  const auto values = static_cast<std::int64_t>(u.values);
  const auto [lo, hi] = channel_units_in_bounds(map, c0, units, u.values);

  // Gather the whole image first so that a failing global read leaves shared memory untouched.
  const bool copy = global != nullptr;
  const std::vector<std::byte> fill = copy ? fill_row(map, row_bytes) : std::vector<std::byte>{};
  std::vector<std::byte> image(copy ? bytes : 0);
  std::vector<std::byte> packed(copy && u.global_bytes != u.smem_bytes ? (hi - lo) * u.global_bytes
                                                                       : 0);
  CopyReport report;
  report.bytes_per_destination = bytes;
  report.destinations = static_cast<std::uint32_t>(dst.size());
  report.elements = std::uint64_t{map.channels_per_pixel} * map.pixels_per_column;
  for (std::size_t p = 0; p < walk->pixels.size(); ++p) {
    const Im2colPixel& px = walk->pixels[p];
    std::byte* row = copy ? image.data() + p * row_bytes : nullptr;
    const bool any = lo < hi && pixel_in_bounds(map, *walk, px);
    const std::int64_t a = any ? lo : units, b = any ? hi : units;
    if (copy) {
      std::memcpy(row, fill.data(), a * u.smem_bytes);
      std::memcpy(row + b * u.smem_bytes, fill.data() + b * u.smem_bytes,
                  (units - b) * u.smem_bytes);
    }
    report.oob_elements += static_cast<std::uint64_t>(units - (b - a)) * u.values;
    if (!any) continue;
    // seed0 §5.2 model choice: only in-bounds units generate global requests, one run per pixel.
    mem::Addr addr = 0;
    const std::uint64_t run = static_cast<std::uint64_t>(b - a) * u.global_bytes;
    const bool same = u.global_bytes == u.smem_bytes;
    std::span<std::byte> out = !copy  ? std::span<std::byte>()
                               : same ? std::span<std::byte>(row + a * u.smem_bytes, run)
                                      : std::span<std::byte>(packed);
    Status st = unit_address(map, *walk, px, static_cast<std::uint64_t>((c0 + a * values) / values),
                             u.global_bytes, addr)
                    ? (copy ? global->read(addr, out) : mem::GlobalMemory::check_read(addr, run))
                    : Status(Error{"the address passes 2^64"});
    if (!st) {
      return Error{fmt::format(
          "{}: pixel {} (n {}, w {}, h {}, d {}) of the tensor at global_address {:#x}: {}", kOp, p,
          px.n, px.whd[0], px.whd[1], px.whd[2], map.global_address, st.error().message)};
    }
    if (copy && same && load_converts(map.data_type)) round_to_tf32(out);
    for (std::int64_t i = 0; copy && !same && i < b - a;
         ++i) {  // packed groups, zero padding after each
      std::byte* group = row + (a + i) * u.smem_bytes;
      std::memcpy(group, packed.data() + i * u.global_bytes, u.global_bytes);
      std::memset(group + u.global_bytes, 0, u.smem_bytes - u.global_bytes);
    }
    append_line_requests(report.global_requests, addr, run);
  }

  // Multicast: the column read once lands in every destination (seed0 ¶152).
  for (const SmemTarget& t : dst) {
    if (copy) write_box_bytes(t.smem->bytes(), t.offset, 0, image, map.swizzle, layout);
  }
  return report;
}

}  // namespace

Result<CopyReport> load_im2col(const TensorMap& map, std::span<const std::int32_t> coords,
                               std::span<const std::uint16_t> offsets,
                               const mem::GlobalMemory& global, std::span<const SmemTarget> dst) {
  return im2col_load(map, coords, offsets, &global, dst);
}

Result<CopyReport> load_im2col_requests(const TensorMap& map, std::span<const std::int32_t> coords,
                                        std::span<const std::uint16_t> offsets,
                                        std::span<const SmemTarget> dst) {
  return im2col_load(map, coords, offsets, nullptr, dst);
}

}  // namespace xpusim::tma
