// The 128-byte blob form of a TensorMap (our own layout, the size of CUDA's CUtensorMap).
// Decoding re-validates through the encoder, so a corrupted blob is an error, never UB.
#include <zlib.h>

#include <fmt/format.h>

#include "tma/tensor_map_encode.h"
#include "tma/tensor_map_io.h"

namespace xpusim::tma {
namespace {

// ---- blob -----------------------------------------------------------------------------------
// Byte map (little-endian; docs/tma.md has the same table):
//   0  magic "XTM"        3  version        4  mode           5  dataType       6  rank
//   7  interleave         8  swizzle        9  l2Promotion   10  oobFill       11  reserved 0
//  12  u16 channelsPerPixel                14  u16 pixelsPerColumn
//  16  u64 globalAddress  24  u32[5] globalDim - 1  44  u64 oobFillValue  52  reserved 0 (12)
//  64  u64[4] globalStrides
// (version 1, still read: 24 u64[5] globalDim, no oobFillValue)
//  96  u16[5] boxDim     106  u8[5] elementStrides  111  reserved 0
// 112  i16[3] pixelBoxLowerCorner  118  i16[3] pixelBoxUpperCorner  124  u32 CRC-32 of 0..123
constexpr std::array<std::uint8_t, 3> kMagic = {'X', 'T', 'M'};
constexpr std::size_t kCrcOffset = 124;

// The standard CRC-32 (zlib's), over the header and fields.
std::uint32_t crc32(std::span<const std::byte> bytes) {
  return static_cast<std::uint32_t>(
      ::crc32(0L, reinterpret_cast<const Bytef*>(bytes.data()), static_cast<uInt>(bytes.size())));
}

class BlobWriter {
 public:
  explicit BlobWriter(TensorMapBlob& b) : b_(b) {}
  void put(std::size_t at, std::uint64_t v, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i)
      b_[at + i] = static_cast<std::byte>((v >> (8 * i)) & 0xFF);
  }

 private:
  TensorMapBlob& b_;
};

std::uint64_t get(std::span<const std::byte> b, std::size_t at, std::size_t n) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < n; ++i)
    v |= std::to_integer<std::uint64_t>(b[at + i]) << (8 * i);
  return v;
}

std::int32_t get_i16(std::span<const std::byte> b, std::size_t at) {
  return static_cast<std::int16_t>(static_cast<std::uint16_t>(get(b, at, 2)));
}

}  // namespace

TensorMapBlob to_blob(const TensorMap& m) {
  TensorMapBlob b{};
  BlobWriter w(b);
  for (std::size_t i = 0; i < kMagic.size(); ++i)
    w.put(i, kMagic[i], 1);
  w.put(3, kBlobVersion, 1);
  w.put(4, static_cast<std::uint8_t>(m.mode), 1);
  w.put(5, static_cast<std::uint8_t>(m.data_type), 1);
  w.put(6, m.rank, 1);
  w.put(7, static_cast<std::uint8_t>(m.interleave), 1);
  w.put(8, static_cast<std::uint8_t>(m.swizzle), 1);
  w.put(9, static_cast<std::uint8_t>(m.l2_promotion), 1);
  w.put(10, static_cast<std::uint8_t>(m.oob_fill), 1);
  // A TensorMap is valid by construction, so every field fits its slot.
  XPUSIM_CHECK(m.channels_per_pixel <= 0xFFFF && m.pixels_per_column <= 0xFFFF,
               "to_blob: the map was not built by the encoder");
  w.put(12, m.channels_per_pixel, 2);
  w.put(14, m.pixels_per_column, 2);
  w.put(16, m.global_address, 8);
  for (std::size_t i = 0; i < m.rank && i < kMaxRank; ++i) {
    XPUSIM_CHECK(m.global_dim[i] >= 1 && m.global_dim[i] <= (std::uint64_t{1} << 32),
                 "to_blob: the map was not built by the encoder");
    w.put(24 + 4 * i, m.global_dim[i] - 1, 4);
  }
  w.put(44, m.oob_fill_value, 8);
  for (std::size_t i = 0; i + 1 < kMaxRank; ++i)
    w.put(64 + 8 * i, m.global_strides[i], 8);
  for (std::size_t i = 0; i < kMaxRank; ++i) {
    XPUSIM_CHECK(m.box_dim[i] <= 0xFFFF && m.element_strides[i] <= 0xFF,
                 "to_blob: the map was not built by the encoder");
    w.put(96 + 2 * i, m.box_dim[i], 2);
    w.put(106 + i, m.element_strides[i], 1);
  }
  for (std::size_t i = 0; i + 2 < kMaxRank; ++i) {
    XPUSIM_CHECK(
        m.pixel_box_lower_corner[i] >= INT16_MIN && m.pixel_box_lower_corner[i] <= INT16_MAX &&
            m.pixel_box_upper_corner[i] >= INT16_MIN && m.pixel_box_upper_corner[i] <= INT16_MAX,
        "to_blob: the map was not built by the encoder");
    w.put(112 + 2 * i, static_cast<std::uint16_t>(m.pixel_box_lower_corner[i]), 2);
    w.put(118 + 2 * i, static_cast<std::uint16_t>(m.pixel_box_upper_corner[i]), 2);
  }
  w.put(kCrcOffset, crc32(std::span(b).first(kCrcOffset)), 4);
  return b;
}

Result<TensorMap> from_blob(std::span<const std::byte> b) {
  const auto fail = [](std::string msg) { return Error{"tensor map blob: " + msg}; };
  if (b.size() != kBlobBytes) {
    return fail(fmt::format("{} bytes: must be exactly {}", b.size(), kBlobBytes));
  }
  for (std::size_t i = 0; i < kMagic.size(); ++i) {
    if (get(b, i, 1) != kMagic[i]) {
      return fail(
          fmt::format("bytes 0-2 = {:#04x} {:#04x} {:#04x}: not the magic \"XTM\" (not a "
                      "tensor map blob)",
                      get(b, 0, 1), get(b, 1, 1), get(b, 2, 1)));
    }
  }
  const std::uint64_t version = get(b, 3, 1);
  if (version != 1 && version != kBlobVersion) {
    return fail(fmt::format("byte 3 (version) = {}: only versions 1 and {} are known", version,
                            kBlobVersion));
  }
  const bool v1 = version == 1;  // u64 globalDim, no oobFillValue
  const std::uint32_t stored = static_cast<std::uint32_t>(get(b, kCrcOffset, 4));
  const std::uint32_t actual = crc32(b.first(kCrcOffset));
  if (stored != actual) {
    return fail(
        fmt::format("bytes 124-127 (CRC-32) = {:#010x}: the contents give {:#010x}; the "
                    "blob is corrupted",
                    stored, actual));
  }
  std::vector<Error> errors;
  const auto bad = [&](std::string msg) { errors.push_back(fail(std::move(msg))); };
  std::vector<std::size_t> reserved = {11, 111};
  for (std::size_t at = 52; !v1 && at < 64; ++at)
    reserved.push_back(at);
  for (std::size_t at : reserved) {
    if (get(b, at, 1) != 0)
      bad(fmt::format("byte {} (reserved) = {}: must be 0", at, get(b, at, 1)));
  }
  const std::uint64_t mode = get(b, 4, 1);
  if (mode > 1) bad(fmt::format("byte 4 (mode) = {}: must be 0 (tiled) or 1 (im2col)", mode));
  const std::uint32_t rank = static_cast<std::uint32_t>(get(b, 6, 1));
  // With a rank out of range the arrays cannot be read: the encoder reports the rank alone.
  const bool rank_ok = rank >= 1 && rank <= kMaxRank;
  const std::size_t used = rank_ok ? rank : 0;
  const bool im2col = mode == 1;
  // Entries the map does not use must be zero: anything else is corruption, not a value.
  const auto unused = [&](std::string_view field, std::size_t count, std::size_t in_use,
                          std::size_t at, std::size_t width) {
    for (std::size_t i = in_use; rank_ok && i < count; ++i) {
      if (const std::uint64_t v = get(b, at + width * i, width); v != 0) {
        bad(fmt::format("{}[{}] = {}: unused by this map (mode {}, tensorRank = {}), must be 0",
                        field, i, v, im2col ? "im2col" : "tiled", rank));
      }
    }
  };
  unused("globalDim", kMaxRank, used, 24, v1 ? 8 : 4);
  unused("globalStrides", kMaxRank - 1, used == 0 ? 0 : used - 1, 64, 8);
  unused("boxDim", kMaxRank, im2col ? 0 : used, 96, 2);
  unused("elementStrides", kMaxRank, used, 106, 1);
  unused("pixelBoxLowerCorner", kMaxRank - 2, im2col && used >= 2 ? used - 2 : 0, 112, 2);
  unused("pixelBoxUpperCorner", kMaxRank - 2, im2col && used >= 2 ? used - 2 : 0, 118, 2);
  for (const auto& [field, at] : {std::pair{"channelsPerPixel", 12}, {"pixelsPerColumn", 14}}) {
    if (const std::uint64_t v = get(b, at, 2); !im2col && v != 0) {
      bad(fmt::format("{} = {}: unused by a tiled map, must be 0", field, v));
    }
  }
  if (!errors.empty()) return errors;

  std::vector<std::uint64_t> dims, strides;
  std::vector<std::uint32_t> box, estrides;
  for (std::size_t i = 0; i < used; ++i) {
    dims.push_back(v1 ? get(b, 24 + 8 * i, 8) : get(b, 24 + 4 * i, 4) + 1);
    box.push_back(static_cast<std::uint32_t>(get(b, 96 + 2 * i, 2)));
    estrides.push_back(static_cast<std::uint32_t>(get(b, 106 + i, 1)));
    if (i + 1 < used) strides.push_back(get(b, 64 + 8 * i, 8));
  }
  const auto set_common = [&](auto& p) {
    p.data_type = static_cast<DataType>(get(b, 5, 1));
    p.rank = rank;
    p.global_address = get(b, 16, 8);
    p.global_dim = dims;
    p.global_strides = strides;
    p.element_strides = estrides;
    p.interleave = static_cast<Interleave>(get(b, 7, 1));
    p.swizzle = static_cast<Swizzle>(get(b, 8, 1));
    p.l2_promotion = static_cast<L2Promotion>(get(b, 9, 1));
    p.oob_fill = static_cast<OobFill>(get(b, 10, 1));
    p.oob_fill_value = v1 ? 0 : get(b, 44, 8);
  };
  std::vector<Violation> violations;
  if (!im2col) {
    TiledParams p;
    set_common(p);
    p.box_dim = box;
    violations = check_tiled(p);
    if (violations.empty()) return encode_tiled(p);
  } else {
    Im2colParams p;
    set_common(p);
    for (std::size_t i = 0; i + 2 < used; ++i) {
      p.pixel_box_lower_corner.push_back(get_i16(b, 112 + 2 * i));
      p.pixel_box_upper_corner.push_back(get_i16(b, 118 + 2 * i));
    }
    p.channels_per_pixel = static_cast<std::uint32_t>(get(b, 12, 2));
    p.pixels_per_column = static_cast<std::uint32_t>(get(b, 14, 2));
    violations = check_im2col(p);
    if (violations.empty()) return encode_im2col(p);
  }
  for (const Violation& v : violations)
    bad(v.message);
  return errors;
}

}  // namespace xpusim::tma
