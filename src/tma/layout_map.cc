#include "tma/layout_map.h"

#include <fmt/format.h>

#include <algorithm>

#include "mem/global_memory.h"
#include "mem/shared_memory.h"
#include "tma/copy_engine.h"
#include "tma/swizzle.h"

namespace xpusim::tma {

namespace {

constexpr std::uint32_t kRowBytes = 128;  // one row of the 32 banks x 4 B
constexpr std::uint32_t kChunkBytes = 16;

Result<CopyReport> run_load(const TensorMap& map, std::span<const std::int32_t> coords,
                            std::span<const std::uint16_t> offsets, const mem::GlobalMemory& g,
                            mem::SharedMemory& smem) {
  const SmemTarget target{&smem, 0};
  if (map.mode == Mode::kIm2col) return load_im2col(map, coords, offsets, g, {&target, 1});
  return load_tile(map, coords, g, {&target, 1});
}

// Fills every byte the requests read with fill(offset from the tensor base).
template <class Fill>
mem::GlobalMemory source_memory(const TensorMap& map, const RequestList& requests, Fill fill) {
  mem::GlobalMemory g;
  std::vector<std::byte> buf;
  for (const GlobalRequest& r : requests) {
    buf.resize(r.bytes);
    for (std::uint32_t i = 0; i < r.bytes; ++i)
      buf[i] = fill(r.address + i - map.global_address);
    XPUSIM_CHECK(g.write(r.address, buf).ok(), "request range wraps the address space");
  }
  return g;
}

}  // namespace

Result<LayoutMap> map_layout(const TensorMap& map, std::span<const std::int32_t> coords,
                             std::span<const std::uint16_t> offsets) {
  const std::uint64_t box = box_footprint(map);
  const auto window = static_cast<std::uint32_t>((box + kRowBytes - 1) / kRowBytes * kRowBytes);
  mem::SharedMemory smem(std::max(window, swizzle_alignment(map.swizzle)));

  // Discover which global bytes the load reads (and validate the request).
  mem::GlobalMemory empty;
  auto first = run_load(map, coords, offsets, empty, smem);
  if (!first) return first.errors();
  const RequestList requests = first->global_requests;

  // Runs A and B tell data (0xAA vs 0x55), OOB fill (same in both) and unwritten bytes (the
  // shared pre-fill 0x00 vs 0xFF) apart.
  auto snapshot = [&](std::byte global_fill, std::byte smem_fill) {
    auto g = source_memory(map, requests, [&](std::uint64_t) { return global_fill; });
    std::fill(smem.bytes().begin(), smem.bytes().end(), smem_fill);
    XPUSIM_CHECK(run_load(map, coords, offsets, g, smem).ok(), "a valid load failed on rerun");
    return std::vector<std::byte>(smem.bytes().begin(), smem.bytes().begin() + window);
  };
  const auto a = snapshot(std::byte{0xAA}, std::byte{0x00});
  const auto b = snapshot(std::byte{0x55}, std::byte{0xFF});

  LayoutMap out;
  out.element_bytes = std::max<std::uint32_t>(1, element_bits(map.data_type) / 8);
  out.source.assign(window, LayoutMap::kNotWritten);
  std::uint64_t span = 1;
  for (const GlobalRequest& r : requests) {
    span = std::max(span, r.address + r.bytes - map.global_address);
  }
  for (std::uint32_t i = 0; i < window; ++i) {
    if (a[i] == b[i]) {
      out.source[i] = LayoutMap::kOobFill;
    } else if (a[i] == std::byte{0xAA}) {
      out.source[i] = 0;  // data: its offset is assembled plane by plane below
    }
  }
  // One run per byte-plane of the source offset.
  for (unsigned plane = 0; plane < 8 && (span - 1) >> (8 * plane) != 0; ++plane) {
    auto g = source_memory(map, requests, [&](std::uint64_t off) {
      return static_cast<std::byte>((off >> (8 * plane)) & 0xff);
    });
    XPUSIM_CHECK(run_load(map, coords, offsets, g, smem).ok(), "a valid load failed on rerun");
    const auto bytes = smem.bytes();
    for (std::uint32_t i = 0; i < window; ++i) {
      if (out.source[i] >= 0) {
        out.source[i] |= static_cast<std::int64_t>(std::to_integer<std::uint64_t>(bytes[i]))
                         << (8 * plane);
      }
    }
  }
  return out;
}

std::optional<std::array<std::uint64_t, kMaxRank>> element_coords(const TensorMap& map,
                                                                  std::uint64_t offset) {
  if (is_packed(map.data_type)) return std::nullopt;
  const std::uint64_t elem = element_bits(map.data_type) / 8;
  std::array<std::uint64_t, kMaxRank> c{};
  std::uint64_t inner = map.global_dim[0] * elem;  // extent of the dims below i
  for (std::uint32_t i = 1; i < map.rank; ++i) {
    if (map.global_strides[i - 1] < inner) return std::nullopt;  // not nested
    inner = map.global_strides[i - 1] * map.global_dim[i];
  }
  for (std::uint32_t i = map.rank; i-- > 1;) {
    c[i] = offset / map.global_strides[i - 1];
    offset %= map.global_strides[i - 1];
  }
  c[0] = offset / elem;
  return c;
}

namespace {

std::string coords_text(const TensorMap& map, std::int64_t source) {
  if (source == LayoutMap::kOobFill) return "oob";
  if (source == LayoutMap::kNotWritten) return ".";
  const auto c = element_coords(map, static_cast<std::uint64_t>(source));
  if (!c) return fmt::format("+{}", source);
  std::string s;
  for (std::uint32_t i = map.rank; i-- > 0;)
    s += fmt::format("{}{}", (*c)[i], i > 0 ? "," : "");
  return s;
}

// The first written byte of a chunk decides what the chunk shows.
std::int64_t chunk_source(const LayoutMap& layout, std::size_t chunk) {
  std::int64_t first = LayoutMap::kNotWritten;
  for (std::size_t i = chunk * kChunkBytes; i < (chunk + 1) * kChunkBytes; ++i) {
    if (layout.source[i] >= 0) return layout.source[i];
    if (layout.source[i] == LayoutMap::kOobFill) first = LayoutMap::kOobFill;
  }
  return first;
}

}  // namespace

std::string layout_text(const TensorMap& map, const LayoutMap& layout) {
  const std::size_t chunks = layout.source.size() / kChunkBytes;
  std::vector<std::string> cells(chunks);
  std::size_t width = 5;
  for (std::size_t k = 0; k < chunks; ++k) {
    cells[k] = coords_text(map, chunk_source(layout, k));
    width = std::max(width, cells[k].size());
  }
  std::string out = fmt::format("{:>8}", "offset");
  for (std::uint32_t k = 0; k < kRowBytes / kChunkBytes; ++k) {
    out += fmt::format(" {:>{}}", fmt::format("b{}-{}", 4 * k, 4 * k + 3), width);
  }
  out += "\n";
  for (std::size_t k = 0; k < chunks; ++k) {
    if (k % (kRowBytes / kChunkBytes) == 0) out += fmt::format("{:>#8x}", k * kChunkBytes);
    out += fmt::format(" {:>{}}", cells[k], width);
    if (k % (kRowBytes / kChunkBytes) == kRowBytes / kChunkBytes - 1 || k + 1 == chunks) {
      out += "\n";
    }
  }
  return out;
}

std::string layout_elements_text(const TensorMap& map, const LayoutMap& layout) {
  std::string out = "smem_offset bank coords\n";
  for (std::size_t i = 0; i < layout.source.size(); i += layout.element_bytes) {
    if (layout.source[i] == LayoutMap::kNotWritten) continue;
    out += fmt::format("{:#11x} {:>4} {}\n", i, (i / 4) % 32, coords_text(map, layout.source[i]));
  }
  return out;
}

std::string layout_svg(const TensorMap& map, const LayoutMap& layout, const std::string& title) {
  constexpr int kCellW = 96, kCellH = 22, kLeft = 64, kTop = 48;
  const std::size_t chunks = layout.source.size() / kChunkBytes;
  const std::size_t per_row = kRowBytes / kChunkBytes;
  const std::size_t rows = (chunks + per_row - 1) / per_row;
  const int width = kLeft + static_cast<int>(per_row) * kCellW + 8;
  const int height = kTop + static_cast<int>(rows) * kCellH + 8;
  std::string out = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" "
      "font-family=\"monospace\" font-size=\"11\">\n<rect width=\"100%\" height=\"100%\" "
      "fill=\"white\"/>\n<text x=\"4\" y=\"16\" font-size=\"13\">{}</text>\n",
      width, height, title);
  for (std::size_t k = 0; k < per_row; ++k) {
    out +=
        fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">banks {}-{}</text>\n",
                    kLeft + static_cast<int>(k) * kCellW + kCellW / 2, kTop - 8, 4 * k, 4 * k + 3);
  }
  const std::uint64_t elem = layout.element_bytes;
  for (std::size_t k = 0; k < chunks; ++k) {
    const int x = kLeft + static_cast<int>(k % per_row) * kCellW;
    const int y = kTop + static_cast<int>(k / per_row) * kCellH;
    if (k % per_row == 0) {
      out += fmt::format("<text x=\"4\" y=\"{}\">{:#x}</text>\n", y + 15, k * kChunkBytes);
    }
    const std::int64_t src = chunk_source(layout, k);
    std::string fill = "#ffffff";
    if (src == LayoutMap::kOobFill) {
      fill = "#bbbbbb";
    } else if (src >= 0) {
      // Colour by the 16 B column the chunk came from within its global row.
      const auto c = element_coords(map, static_cast<std::uint64_t>(src));
      const std::uint64_t col = c ? ((*c)[0] * elem / kChunkBytes) % 8
                                  : (static_cast<std::uint64_t>(src) / kChunkBytes) % 8;
      fill = fmt::format("hsl({},70%,{}%)", col * 45, 72 + (k / per_row) % 2 * 8);
    }
    out += fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\" stroke=\"#555\"/>\n"
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
        x, y, kCellW, kCellH, fill, x + kCellW / 2, y + 15, coords_text(map, src));
  }
  out += "</svg>\n";
  return out;
}

}  // namespace xpusim::tma
