// Tile-mode loads, global -> shared (seed0 ¶93-¶97 traversal, ¶76-¶80 out-of-bounds fill,
// ¶139-¶150 swizzle, ¶152-¶154 multicast). Each in-bounds run of a box row is one contiguous
// global range, read in one piece and split into ≤128 B line requests (¶89); out-of-bounds
// units are filled and generate no request.
//
// Speed: consecutive rows that are wholly in bounds and adjacent in global memory (a batch)
// are copied in one pass straight from the global pages into the first destination, each
// 16 B chunk to its swizzled place. Other rows are assembled in a row buffer and scattered.
// Multicast destinations copy the finished image of the first one when their offsets sit at
// the same phase of the swizzle's repeat (the image is then the same), else row by row.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstring>

#include "tma/box_image.h"
#include "tma/box_walk.h"
#include "tma/copy_engine.h"
#include "tma/load_convert.h"
#include "tma/swizzle.h"
#include "tma/swizzle_copy.h"

namespace xpusim::tma {

namespace {

// A shared-memory row of fill units: the OOB pattern per element, zeros for packed types.
std::vector<std::byte> fill_row(const TensorMap& map, const BoxPlan& p) {
  std::vector<std::byte> row(p.row_bytes, std::byte{0});
  if (is_packed(map.data_type)) return row;
  const std::vector<std::byte> pattern = oob_fill_pattern(map);
  for (std::uint64_t i = 0; i < p.row_bytes; i += pattern.size()) {
    std::memcpy(row.data() + i, pattern.data(), pattern.size());
  }
  return row;
}

// Packed .b4x16_p64 / .b6x16_p32 loads: each group's packed bytes, then zero padding (PTX
// leaves the padding undefined; zeros keep the image deterministic).
void expand_groups(const TransferUnit& u, const std::byte* packed, std::byte* out,
                   std::uint64_t groups) {
  for (std::uint64_t g = 0; g < groups; ++g) {
    std::memcpy(out + g * u.smem_bytes, packed + g * u.global_bytes, u.global_bytes);
    std::memset(out + g * u.smem_bytes + u.global_bytes, 0, u.smem_bytes - u.global_bytes);
  }
}

void read_global(const mem::GlobalMemory& global, mem::Addr a, std::span<std::byte> out) {
  XPUSIM_CHECK(global.read(a, out).ok(), "the box's global range was validated by the plan");
}

// Writes the box image into one destination window, row by row or in batches.
class ImageWriter {
 public:
  ImageWriter(const TensorMap& map, const BoxPlan& p, const mem::GlobalMemory& global,
              const SmemTarget& dst, CopyReport& rep)
      : map_(map),
        p_(p),
        global_(global),
        window_(dst.smem->bytes()),
        base_(dst.offset),
        rep_(rep),
        row_global_(std::uint64_t{p.count[0]} * p.unit.global_bytes),
        batchable_(p.contiguous && p.unit.global_bytes == p.unit.smem_bytes && p.lo == 0 &&
                   p.hi == p.count[0] && p.layout.packed() && !load_converts(map.data_type)) {}

  void run(const RowRun& run) {
    if (!run.in_bounds || !batchable_) {
      flush();
      for (std::uint64_t k = 0; k < run.rows; ++k) {
        partial_row({.index = run.index + k,
                     .in_bounds = run.in_bounds,
                     .address = run.address + k * run.address_step});
      }
      return;
    }
    const mem::Addr a = p_.unit_address(run.address, 0);
    if (run.address_step == row_global_) {  // the rows are adjacent in global memory
      add(run.index, run.rows, a);
      return;
    }
    for (std::uint64_t k = 0; k < run.rows; ++k)
      add(run.index + k, 1, a + k * run.address_step);
  }

  void flush() {
    if (count_ == 0) return;
    const std::uint64_t begin = first_ * p_.row_bytes, end = begin + count_ * p_.row_bytes;
    const SwizzleXor x = swizzle_xor(map_.swizzle);
    if (map_.swizzle == Swizzle::kNone) {
      read_global(global_, address_, window_.subspan(base_ + begin, end - begin));
    } else if (!x.flip_8b && (base_ + begin) % 16 == 0 && address_ % 16 == 0 &&
               (end - begin) % 16 == 0) {
      copy_swizzled(address_, begin, end - begin, x);
    } else {
      // Whole 128 B rows: read in place, then swizzle in place; the ragged ends are scattered.
      const std::uint64_t mid_begin = std::min(end, (begin + 127) / 128 * 128);
      const std::uint64_t mid_end = std::max(mid_begin, end / 128 * 128);
      scatter(address_, begin, mid_begin - begin);
      read_global(global_, address_ + (mid_begin - begin),
                  window_.subspan(base_ + mid_begin, mid_end - mid_begin));
      swizzle_rows_in_place(window_, static_cast<std::uint32_t>(base_ + mid_begin),
                            static_cast<std::uint32_t>(base_ + mid_end), map_.swizzle);
      scatter(address_ + (mid_end - begin), mid_end, end - mid_end);
    }
    if (address_ % kLineBytes == 0 && row_global_ % kLineBytes == 0) {
      // Rows that start on line boundaries split exactly like the whole batch range.
      rep_.global_requests.append(address_, count_ * row_global_);
    } else {
      for (std::uint64_t i = 0; i < count_; ++i) {
        rep_.global_requests.append(address_ + i * row_global_, row_global_);
      }
    }
    count_ = 0;
  }

 private:
  // Appends whole rows [first, first + n), starting at global `a`, to the pending batch.
  void add(std::uint64_t first, std::uint64_t n, mem::Addr a) {
    if (count_ > 0 && first == first_ + count_ && a == address_ + count_ * row_global_) {
      count_ += n;
      return;
    }
    flush();
    first_ = first, count_ = n, address_ = a;
  }

  // One pass for whole 16 B chunks: page bytes (or zeros for an untouched page) go straight
  // to their swizzled place. Within a 128 B row the XOR is constant, so whole rows are eight
  // unrolled 16 B moves; ragged starts and ends go chunk by chunk.
  void copy_swizzled(mem::Addr a, std::uint64_t pos, std::uint64_t bytes, SwizzleXor x) {
    std::byte* const win = window_.data();
    const auto chunk = [&](const std::byte* src, std::uint64_t off) {
      std::byte* dst = win + (off ^ (((off >> 7) & x.row_mask) << x.shift));
      if (src != nullptr) {
        std::memcpy(dst, src, 16);
      } else {
        std::memset(dst, 0, 16);
      }
    };
    while (bytes > 0) {
      const std::byte* src;
      const std::uint64_t n = global_.view(a, bytes, &src);
      const std::uint64_t off0 = base_ + pos;
      std::uint64_t i = 0;
      for (; i < n && (off0 + i) % 128 != 0; i += 16)
        chunk(src ? src + i : nullptr, off0 + i);
      if (const std::uint64_t rows = (n - i) / 128; rows > 0) {
        if (src == nullptr) {
          std::memset(win + off0 + i, 0, rows * 128);  // a permutation of zeros is zeros
        } else {
          copy_rows_(win, off0 + i, src + i, rows, x);
        }
        i += rows * 128;
      }
      for (; i < n; i += 16)
        chunk(src ? src + i : nullptr, off0 + i);
      a += n, pos += n, bytes -= n;
    }
  }

  // Reads `bytes` from global `a` and writes them to box bytes [pos, pos + bytes) through the
  // swizzle, 128 B at a time.
  void scatter(mem::Addr a, std::uint64_t pos, std::uint64_t bytes) {
    std::array<std::byte, 128> chunk;
    for (std::uint64_t done = 0; done < bytes; done += chunk.size()) {
      const std::span<std::byte> part(chunk.data(), std::min<std::uint64_t>(128, bytes - done));
      read_global(global_, a + done, part);
      write_box_bytes(window_, base_, pos + done, part, map_.swizzle);
    }
  }

  // A row with out-of-bounds units, a dim-0 stride or packed groups: assembled, then written.
  void partial_row(const BoxRow& r) {
    const std::uint64_t n0 = p_.count[0];
    const std::uint32_t s = p_.unit.smem_bytes, g = p_.unit.global_bytes;
    if (fill_.empty()) fill_ = fill_row(map_, p_), staging_.resize(p_.row_bytes);
    std::byte* out = staging_.data();
    const bool any = r.in_bounds && p_.lo < p_.hi;
    const std::uint64_t lo = any ? p_.lo : n0, hi = any ? p_.hi : n0;
    std::memcpy(out, fill_.data(), lo * s);
    std::memcpy(out + hi * s, fill_.data() + hi * s, (n0 - hi) * s);
    if (any && p_.contiguous) {
      const mem::Addr a = p_.unit_address(r.address, p_.lo);
      const std::uint64_t bytes = (hi - lo) * g;
      if (g == s) {
        read_global(global_, a, {out + lo * s, bytes});
        if (load_converts(map_.data_type)) round_to_tf32({out + lo * s, bytes});
      } else {
        packed_.resize(bytes);
        read_global(global_, a, packed_);
        expand_groups(p_.unit, packed_.data(), out + lo * s, hi - lo);
      }
      rep_.global_requests.append(a, bytes);
    } else if (any) {  // dim-0 traversal stride (interleaved layouts): one element at a time
      for (std::uint64_t i = lo; i < hi; ++i) {
        const mem::Addr a = p_.unit_address(r.address, static_cast<std::uint32_t>(i));
        read_global(global_, a, {out + i * s, g});
        if (load_converts(map_.data_type)) round_to_tf32({out + i * s, g});
        rep_.global_requests.append(a, g);
      }
    }
    rep_.oob_elements += (n0 - (hi - lo)) * p_.unit.values;
    write_box_bytes(window_, base_, r.index * p_.row_bytes, {out, p_.row_bytes}, map_.swizzle,
                    p_.layout);
  }

  const TensorMap& map_;
  const BoxPlan& p_;
  const mem::GlobalMemory& global_;
  std::span<std::byte> window_;
  std::uint32_t base_;
  CopyReport& rep_;
  std::uint64_t row_global_;
  bool batchable_;
  std::uint64_t first_ = 0, count_ = 0;  // the pending batch of whole rows
  mem::Addr address_ = 0;
  std::vector<std::byte> fill_, staging_, packed_;
  SwizzledRowCopy copy_rows_ = copy_rows_swizzled();
};

// The destinations of a load of the planned box, checked.
Status check_load_destinations(const TensorMap& map, const BoxPlan& p,
                               std::span<const SmemTarget> dst) {
  constexpr std::string_view op = "load_tile";
  std::vector<Error> errors;
  if (auto st = check_inner_alignment(op, "coordinate 0", map, p.start[0]); !st)
    errors.push_back(st.error());
  if (dst.empty()) errors.push_back({"load_tile: no shared-memory destination given"});
  for (std::size_t t = 0; t < dst.size(); ++t) {
    check_box_window(op, "destination", t, dst[t].smem, dst[t].offset, p.footprint, map.swizzle,
                     errors);
  }
  if (map.data_type == DataType::k16U6Align16B && map.swizzle == Swizzle::k128BAtom64B) {
    errors.push_back(
        {"load_tile: 16U6_ALIGN16B supports SWIZZLE_128B_ATOM_64B for stores only (cuda.h)"});
  }
  if (!errors.empty()) return errors;
  return Ok{};
}

// A load whose plan is built: the destination checks, the copy, multicast.
Result<CopyReport> load_planned(const TensorMap& map, const BoxPlan& p,
                                const mem::GlobalMemory& global, std::span<const SmemTarget> dst) {
  if (auto st = check_load_destinations(map, p, dst); !st) return st.errors();

  CopyReport rep;
  rep.bytes_per_destination = p.box_bytes;
  rep.destinations = static_cast<std::uint32_t>(dst.size());
  rep.elements = p.rows * p.count[0] * p.unit.values;
  ImageWriter writer(map, p, global, dst[0], rep);
  for_each_row_run(p, [&](const RowRun& run) { writer.run(run); });
  writer.flush();

  // Multicast: the box read once from global lands in every destination (seed0 ¶152). Whole
  // 128 B rows hold exactly the box's bytes; a ragged swizzled tail goes through the swizzle.
  const std::span<const std::byte> first = dst[0].smem->bytes();
  const std::uint32_t repeat = swizzle_alignment(map.swizzle);
  const bool same_phase = std::all_of(dst.begin(), dst.end(), [&](const SmemTarget& t) {
    return (t.offset + repeat - dst[0].offset % repeat) % repeat == 0;
  });
  // Rows with gaps, or a target at another phase of the swizzle pattern: row by row.
  if (!p.layout.packed() || !same_phase) {
    std::vector<std::byte> row(p.row_bytes);
    for (std::uint64_t r = 0; dst.size() > 1 && r < p.rows; ++r) {
      read_box_bytes(first, dst[0].offset, r * p.row_bytes, row, map.swizzle, p.layout);
      for (std::size_t t = 1; t < dst.size(); ++t)
        write_box_bytes(dst[t].smem->bytes(), dst[t].offset, r * p.row_bytes, row, map.swizzle,
                        p.layout);
    }
    return rep;
  }
  const std::uint64_t whole = map.swizzle == Swizzle::kNone ? p.box_bytes : p.box_bytes / 128 * 128;
  std::array<std::byte, 128> tail_bytes;  // whole rows end within 128 B of the box's end
  const std::span<std::byte> tail(tail_bytes.data(), p.box_bytes - whole);
  if (!tail.empty()) read_box_bytes(first, dst[0].offset, whole, tail, map.swizzle);
  for (std::size_t t = 1; t < dst.size(); ++t) {
    std::memmove(dst[t].smem->bytes().data() + dst[t].offset, first.data() + dst[0].offset, whole);
    write_box_bytes(dst[t].smem->bytes(), dst[t].offset, whole, tail, map.swizzle);
  }
  return rep;
}

}  // namespace

Result<CopyReport> load_tile(const TensorMap& map, std::span<const std::int32_t> coords,
                             const mem::GlobalMemory& global, std::span<const SmemTarget> dst) {
  auto planned = plan_tile_box("load_tile", map, coords);
  if (!planned) return planned.errors();
  return load_planned(map, *planned, global, dst);
}

Result<PreparedTileMap> PreparedTileMap::prepare(const TensorMap& map) {
  auto shape = std::make_shared<BoxPlan>();
  if (auto st = shape_tile_box("prepare_tile_map", map, *shape); !st) return st.errors();
  PreparedTileMap out;
  out.map_ = map;
  out.shape_ = std::move(shape);
  return out;
}

Result<CopyReport> load_tile(const PreparedTileMap& map, std::span<const std::int32_t> coords,
                             const mem::GlobalMemory& global, std::span<const SmemTarget> dst) {
  BoxPlan p = map.shape();
  if (auto st = place_tile_box("load_tile", map.map(), coords, p); !st) {
    return st.errors();
  }
  return load_planned(map.map(), p, global, dst);
}

Result<CopyReport> load_tile_requests(const PreparedTileMap& map,
                                      std::span<const std::int32_t> coords,
                                      std::span<const SmemTarget> dst) {
  BoxPlan p = map.shape();
  if (auto st = place_tile_box("load_tile", map.map(), coords, p); !st) {
    return st.errors();
  }
  if (auto st = check_load_destinations(map.map(), p, dst); !st) return st.errors();
  CopyReport rep;
  rep.bytes_per_destination = p.box_bytes;
  rep.destinations = static_cast<std::uint32_t>(dst.size());
  append_box_requests(p, rep);
  return rep;
}

}  // namespace xpusim::tma
