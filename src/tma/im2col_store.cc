// store_im2col / reduce_im2col (copy_engine.h): the im2col walk run backwards (seed0 ¶158: a
// store "supports tile and im2col modes"; PTX .im2col_no_offs). The shared column is read
// pixel by pixel, as a load writes it, and each in-bounds pixel's channel run is written (or
// combined, for a reduction) at its place in the tensor; out-of-bounds pixels and channels are
// skipped. Every address is checked before any byte is written.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <optional>

#include "tma/box_image.h"
#include "tma/box_walk.h"
#include "tma/copy_engine.h"
#include "tma/im2col_walk.h"
#include "tma/reduce_ops.h"
#include "tma/swizzle.h"

namespace xpusim::tma {
namespace {

// One pixel's in-bounds channel run: its row in the column, its units and global address.
struct PixelRun {
  std::uint64_t row = 0;
  std::int64_t from = 0, to = 0;  // transfer units [from, to) of the row
  mem::Addr address = 0;
};

Result<CopyReport> im2col_write(std::string_view op, const TensorMap& map,
                                std::optional<ReduceOp> reduce,
                                std::span<const std::int32_t> coords, const mem::SharedMemory& smem,
                                std::uint32_t smem_offset, mem::GlobalMemory& global) {
  std::vector<Error> errors;
  // No offsets: the store walks the filter bases themselves (.im2col_no_offs).
  const std::array<std::uint16_t, kMaxSpatialDims> zeros{};
  const std::size_t spatial = map.rank >= 3 && map.rank <= kMaxRank ? map.rank - 2 : 0;
  Result<Im2colWalk> walk = walk_im2col(map, coords, std::span(zeros).first(spatial));
  if (!walk) {
    // The walk names the load; this is the same walk for `op`.
    for (Error e : walk.errors()) {
      if (e.message.starts_with("load_im2col")) e.message.replace(0, 11, op);
      errors.push_back(std::move(e));
    }
  }
  if (map.interleave != Interleave::kNone) {
    errors.push_back(
        Error{fmt::format("{}: interleave {} is not modelled in im2col mode (use interleave NONE)",
                          op, name(map.interleave))});
  }
  if (map.data_type == DataType::k16U4Align16B) {
    errors.push_back(Error{fmt::format("{}: 16U4_ALIGN16B is a load-only type", op)});
  }
  if (map.swizzle == Swizzle::k128BAtom32BFlip8B) {
    errors.push_back(Error{fmt::format(
        "{}: SWIZZLE_128B_ATOM_32B_FLIP_8B is legal only for loads (PTX ISA: global -> shared "
        "copies)",
        op)});
  }
  if (reduce && !reduce_supported(*reduce, map.data_type)) {
    errors.push_back(Error{fmt::format("{}: .{} is not defined for {} elements (supported: {})", op,
                                       name(*reduce), name(map.data_type),
                                       supported_reduce_ops(map.data_type))});
  }
  if (!coords.empty()) {
    if (auto st = check_inner_alignment(op, "channel coordinate", map, coords[0]); !st)
      errors.push_back(st.error());
  }
  const TransferUnit u = transfer_unit(map.data_type);
  if (is_packed(map.data_type) && map.channels_per_pixel % u.values != 0) {
    errors.push_back(
        Error{fmt::format("{}: channels_per_pixel {} of a {} map is not a multiple of {}", op,
                          map.channels_per_pixel, name(map.data_type), u.values)});
  }
  if (!errors.empty()) return errors;

  const std::int64_t units = map.channels_per_pixel / u.values;
  const std::uint64_t row_bytes = static_cast<std::uint64_t>(units) * u.smem_bytes;
  const std::uint32_t span = swizzle_span_bytes(map.swizzle);
  if (span != 0 && row_bytes > span) {
    return Error{fmt::format(
        "{}: channels_per_pixel {} = {} B per pixel exceeds the {} swizzle span of {} B", op,
        map.channels_per_pixel, row_bytes, name(map.swizzle), span)};
  }
  const RowLayout layout = row_layout(map.swizzle, row_bytes);
  check_box_window(op, "shared-memory source", &smem, smem_offset,
                   layout.pitch * map.pixels_per_column, map.swizzle, errors);
  if (!errors.empty()) return errors;

  // The in-bounds units of the channel run c0 .. c0 + channels_per_pixel (as the load's).
  const std::int64_t c0 = coords[0];
  const auto values = static_cast<std::int64_t>(u.values);
  const auto [lo, hi] = channel_units_in_bounds(map, c0, units, u.values);

  CopyReport report;
  report.elements = std::uint64_t{map.channels_per_pixel} * map.pixels_per_column;
  std::vector<PixelRun> runs;
  for (std::size_t p = 0; p < walk->pixels.size(); ++p) {
    const Im2colPixel& px = walk->pixels[p];
    const bool any = lo < hi && pixel_in_bounds(map, *walk, px);
    report.oob_elements += static_cast<std::uint64_t>(units - (any ? hi - lo : 0)) * u.values;
    if (!any) continue;  // out-of-bounds elements are not written (as tile stores)
    PixelRun r{.row = p, .from = lo, .to = hi};
    const std::uint64_t bytes = static_cast<std::uint64_t>(hi - lo) * u.global_bytes;
    Status st =
        unit_address(map, *walk, px, static_cast<std::uint64_t>((c0 + lo * values) / values),
                     u.global_bytes, r.address)
            ? global.check_write(r.address, bytes)
            : Status(Error{"the address passes 2^64"});
    if (!st) {
      return Error{fmt::format(
          "{}: pixel {} (n {}, w {}, h {}, d {}) of the tensor at global_address {:#x}: {}", op, p,
          px.n, px.whd[0], px.whd[1], px.whd[2], map.global_address, st.error().message)};
    }
    runs.push_back(r);
  }

  std::vector<std::byte> row(row_bytes), packed, current;
  for (const PixelRun& r : runs) {
    read_box_bytes(smem.bytes(), smem_offset, r.row * row_bytes, row, map.swizzle, layout);
    const auto n = static_cast<std::uint64_t>(r.to - r.from);
    std::span<const std::byte> out(row.data() + r.from * u.smem_bytes, n * u.smem_bytes);
    if (u.global_bytes != u.smem_bytes) {  // 16U6_ALIGN16B: 16 one-byte values -> 12 bytes
      packed.resize(n * u.global_bytes);
      pack_u6_groups(out.data(), packed.data(), n);
      out = packed;
    }
    if (reduce) {
      current.resize(out.size());
      XPUSIM_CHECK(global.read(r.address, current).ok(), "checked above");
      reduce_elements(*reduce, map.data_type, current, out);
      out = current;
    }
    XPUSIM_CHECK(global.write(r.address, out).ok(), "checked above");
    append_line_requests(report.global_requests, r.address, out.size());
  }
  return report;
}

}  // namespace

Result<CopyReport> store_im2col(const TensorMap& map, std::span<const std::int32_t> coords,
                                const mem::SharedMemory& smem, std::uint32_t smem_offset,
                                mem::GlobalMemory& global) {
  return im2col_write("store_im2col", map, std::nullopt, coords, smem, smem_offset, global);
}

Result<CopyReport> reduce_im2col(const TensorMap& map, ReduceOp op,
                                 std::span<const std::int32_t> coords,
                                 const mem::SharedMemory& smem, std::uint32_t smem_offset,
                                 mem::GlobalMemory& global) {
  return im2col_write("reduce_im2col", map, op, coords, smem, smem_offset, global);
}

}  // namespace xpusim::tma
