// Blob, YAML and JSON forms of a TensorMap: round trips of random valid maps, the documented
// blob byte map, corrupted blobs, and file errors with positions.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/float_formats.h"
#include "tma/tensor_map_encode.h"
#include "tma/tensor_map_io.h"

namespace xpusim::tma {
namespace {

// Random parameters that are usually valid: the caller keeps those that encode.
class MapGenerator {
 public:
  explicit MapGenerator(std::uint32_t seed) : rng_(seed) {}

  std::uint64_t pick(std::uint64_t lo, std::uint64_t hi) {
    return std::uniform_int_distribution<std::uint64_t>(lo, hi)(rng_);
  }

  template <class P>
  void common(P& p, std::uint32_t min_rank) {
    p.data_type = static_cast<DataType>(pick(0, 15));
    p.rank = static_cast<std::uint32_t>(pick(min_rank, kMaxRank));
    p.global_address = pick(0, 1ull << 40) * 32;
    const std::uint64_t dim0_step =
        p.data_type == DataType::k16U4Align8B                                                ? 2
        : (p.data_type == DataType::k16U4Align16B || p.data_type == DataType::k16U6Align16B) ? 128
                                                                                             : 1;
    std::uint64_t stride = 0;
    for (std::uint32_t i = 0; i < p.rank; ++i) {
      const std::uint64_t d = i == 0 ? pick(1, 64) * dim0_step : pick(1, 300);
      p.global_dim.push_back(d);
      // Extent rounded up to 32 B, plus padding.
      const std::uint64_t extent = i == 0 ? packed_bytes(p.data_type, d) : stride * d;
      stride = (extent + 31) / 32 * 32 + 32 * pick(0, 3);
      if (i + 1 < p.rank) p.global_strides.push_back(stride);
      p.element_strides.push_back(static_cast<std::uint32_t>(pick(1, 8)));
    }
    p.interleave = static_cast<Interleave>(pick(0, 2));
    p.swizzle = p.interleave == Interleave::k32B ? Swizzle::k32B : static_cast<Swizzle>(pick(0, 6));
    p.l2_promotion = static_cast<L2Promotion>(pick(0, 3));
    p.oob_fill = is_float(p.data_type) && pick(0, 1) ? OobFill::kNanRequestZeroFma : OobFill::kNone;
    if (!is_packed(p.data_type) && pick(0, 3) == 0) {  // xpusim's CONSTANT fill
      p.oob_fill = OobFill::kConstant;
      const float v = static_cast<float>(static_cast<std::int64_t>(pick(0, 2000)) - 1000) / 4;
      const std::uint32_t bits = element_bits(p.data_type);
      p.oob_fill_value = p.data_type == DataType::kFloat64 ? std::bit_cast<std::uint64_t>(double{v})
                         : p.data_type == DataType::kFloat16  ? float_to_half(v)
                         : p.data_type == DataType::kBfloat16 ? float_to_bf16(v)
                         : is_float(p.data_type)              ? std::bit_cast<std::uint32_t>(v)
                         : bits == 64                         ? pick(0, UINT64_MAX)
                                                              : pick(0, (1ull << bits) - 1);
    }
  }

  // Inner row count that fits 16 B multiples and the swizzle span most of the time.
  std::uint32_t inner(const DataType t) {
    if (t == DataType::k16U4Align16B || t == DataType::k16U6Align16B) return 128;
    const std::uint32_t per16 = 128 / element_bits(t);
    return static_cast<std::uint32_t>(per16 * pick(1, 4));
  }

  TiledParams tiled() {
    TiledParams p;
    common(p, 1);
    for (std::uint32_t i = 0; i < p.rank; ++i)
      p.box_dim.push_back(i == 0 ? inner(p.data_type) : static_cast<std::uint32_t>(pick(1, 256)));
    return p;
  }

  Im2colParams im2col() {
    Im2colParams p;
    common(p, 3);
    const std::int32_t hi = p.rank == 3 ? 32767 : p.rank == 4 ? 127 : 15;
    for (std::uint32_t i = 0; i + 2 < p.rank; ++i) {
      p.pixel_box_lower_corner.push_back(static_cast<std::int32_t>(pick(0, 2 * hi)) - hi);
      p.pixel_box_upper_corner.push_back(static_cast<std::int32_t>(pick(0, 2 * hi)) - hi);
    }
    p.channels_per_pixel = inner(p.data_type);
    p.pixels_per_column = static_cast<std::uint32_t>(pick(1, 1024));
    return p;
  }

 private:
  std::mt19937_64 rng_;
};

// At least `want` random valid maps of each mode.
std::vector<TensorMap> random_maps(std::size_t want) {
  MapGenerator gen(20240611);
  std::vector<TensorMap> out;
  std::size_t tiled = 0, im2col = 0;
  for (int attempt = 0; attempt < 200000 && (tiled < want || im2col < want); ++attempt) {
    if (tiled < want) {
      if (auto m = encode_tiled(gen.tiled()); m.ok()) {
        out.push_back(*m);
        ++tiled;
      }
    }
    if (im2col < want) {
      if (auto m = encode_im2col(gen.im2col()); m.ok()) {
        out.push_back(*m);
        ++im2col;
      }
    }
  }
  EXPECT_EQ(tiled, want);
  EXPECT_EQ(im2col, want);
  return out;
}

// The standard reflected CRC-32 (IEEE 802.3), written independently of the code under test.
std::uint32_t reference_crc32(const std::byte* p, std::size_t n) {
  std::uint32_t table[256];
  for (std::uint32_t i = 0; i < 256; ++i) {
    std::uint32_t c = i;
    for (int k = 0; k < 8; ++k)
      c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    table[i] = c;
  }
  std::uint32_t crc = 0xFFFFFFFFu;
  for (std::size_t i = 0; i < n; ++i)
    crc = table[(crc ^ std::to_integer<std::uint32_t>(p[i])) & 0xFF] ^ (crc >> 8);
  return crc ^ 0xFFFFFFFFu;
}

void reseal(TensorMapBlob& b) {
  const std::uint32_t crc = reference_crc32(b.data(), 124);
  for (int i = 0; i < 4; ++i)
    b[124 + i] = static_cast<std::byte>((crc >> (8 * i)) & 0xFF);
}

std::uint64_t le(const TensorMapBlob& b, std::size_t at, std::size_t n) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < n; ++i)
    v |= std::to_integer<std::uint64_t>(b[at + i]) << (8 * i);
  return v;
}

std::vector<std::string> messages(const Result<TensorMap>& r) {
  std::vector<std::string> out;
  if (!r.ok()) {
    for (const Error& e : r.errors())
      out.push_back(e.message);
  }
  return out;
}

TensorMap sample_tiled() {
  TiledParams p;
  p.data_type = DataType::kBfloat16;
  p.rank = 3;
  p.global_address = 0x7f0000001000;
  p.global_dim = {64, 32, 8};
  p.global_strides = {128, 4096};
  p.box_dim = {64, 16, 2};
  p.element_strides = {1, 2, 1};
  p.swizzle = Swizzle::k128B;
  p.l2_promotion = L2Promotion::k128B;
  p.oob_fill = OobFill::kNanRequestZeroFma;
  return encode_tiled(p).value();
}

TensorMap sample_im2col() {
  Im2colParams p;
  p.data_type = DataType::kFloat16;
  p.rank = 4;
  p.global_address = 0x20000;
  p.global_dim = {64, 16, 16, 4};
  p.global_strides = {128, 2048, 32768};
  p.pixel_box_lower_corner = {-1, -2};
  p.pixel_box_upper_corner = {-1, 3};
  p.channels_per_pixel = 64;
  p.pixels_per_column = 128;
  p.element_strides = {1, 1, 1, 1};
  p.swizzle = Swizzle::k128B;
  return encode_im2col(p).value();
}

// ---- blob -----------------------------------------------------------------------------------

TEST(TensorMapBlob, RoundTripsRandomValidMapsOfBothModes) {
  for (const TensorMap& m : random_maps(300)) {
    const TensorMapBlob b = to_blob(m);
    Result<TensorMap> back = from_blob(b);
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_EQ(*back, m);
  }
}

TEST(TensorMapBlob, FollowsTheDocumentedByteMap) {
  const TensorMapBlob b = to_blob(sample_tiled());
  EXPECT_EQ(le(b, 0, 3), 0x4D5458u);  // "XTM"
  EXPECT_EQ(le(b, 3, 1), kBlobVersion);
  EXPECT_EQ(le(b, 4, 1), 0u);   // tiled
  EXPECT_EQ(le(b, 5, 1), 9u);   // BFLOAT16
  EXPECT_EQ(le(b, 6, 1), 3u);   // rank
  EXPECT_EQ(le(b, 7, 1), 0u);   // interleave NONE
  EXPECT_EQ(le(b, 8, 1), 3u);   // swizzle 128B
  EXPECT_EQ(le(b, 9, 1), 2u);   // L2_128B
  EXPECT_EQ(le(b, 10, 1), 1u);  // NaN fill
  EXPECT_EQ(le(b, 16, 8), 0x7f0000001000u);
  EXPECT_EQ(le(b, 24, 4), 63u);  // globalDim - 1
  EXPECT_EQ(le(b, 28, 4), 31u);
  EXPECT_EQ(le(b, 32, 4), 7u);
  EXPECT_EQ(le(b, 36, 8), 0u);
  EXPECT_EQ(le(b, 44, 8), 0u);  // oobFillValue
  EXPECT_EQ(le(b, 52, 8), 0u);  // reserved
  EXPECT_EQ(le(b, 60, 4), 0u);
  EXPECT_EQ(le(b, 64, 8), 128u);
  EXPECT_EQ(le(b, 72, 8), 4096u);
  EXPECT_EQ(le(b, 96, 2), 64u);
  EXPECT_EQ(le(b, 98, 2), 16u);
  EXPECT_EQ(le(b, 100, 2), 2u);
  EXPECT_EQ(le(b, 107, 1), 2u);  // elementStrides[1]
  EXPECT_EQ(le(b, 124, 4), reference_crc32(b.data(), 124));

  const TensorMapBlob c = to_blob(sample_im2col());
  EXPECT_EQ(le(c, 4, 1), 1u);
  EXPECT_EQ(le(c, 12, 2), 64u);
  EXPECT_EQ(le(c, 14, 2), 128u);
  EXPECT_EQ(le(c, 112, 2), 0xFFFFu);  // -1
  EXPECT_EQ(le(c, 114, 2), 0xFFFEu);  // -2
  EXPECT_EQ(le(c, 118, 2), 0xFFFFu);
  EXPECT_EQ(le(c, 120, 2), 3u);
  EXPECT_EQ(le(c, 96, 2), 0u);  // no boxDim in im2col

  TensorMap k = sample_tiled();
  k.oob_fill = OobFill::kConstant;
  k.oob_fill_value = 0xBFC0;  // bf16 -1.5
  const TensorMapBlob d = to_blob(k);
  EXPECT_EQ(le(d, 10, 1), 2u);
  EXPECT_EQ(le(d, 44, 8), 0xBFC0u);
  EXPECT_EQ(from_blob(d).value(), k);
}

// A version-1 blob (u64 globalDim, no fill value) still decodes to the same map.
TEST(TensorMapBlob, ReadsVersionOne) {
  for (const TensorMap& m : {sample_tiled(), sample_im2col()}) {
    TensorMapBlob b = to_blob(m);
    b[3] = std::byte{1};
    for (std::size_t i = 24; i < 64; ++i)
      b[i] = std::byte{0};
    for (std::size_t i = 0; i < m.rank; ++i)
      for (std::size_t k = 0; k < 8; ++k)
        b[24 + 8 * i + k] = static_cast<std::byte>(m.global_dim[i] >> (8 * k) & 0xFF);
    reseal(b);
    Result<TensorMap> back = from_blob(b);
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_EQ(*back, m);
  }
}

TEST(TensorMapBlob, AnyFlippedBitIsACorruptionError) {
  const TensorMapBlob good = to_blob(sample_im2col());
  for (std::size_t byte = 4; byte < kBlobBytes; ++byte) {
    TensorMapBlob b = good;
    b[byte] ^= std::byte{0x10};
    Result<TensorMap> r = from_blob(b);
    ASSERT_FALSE(r.ok()) << byte;
    ASSERT_EQ(r.errors().size(), 1u);
    EXPECT_NE(r.error().message.find("the blob is corrupted"), std::string::npos)
        << r.error().message;
  }
}

TEST(TensorMapBlob, HeaderErrors) {
  TensorMapBlob b = to_blob(sample_tiled());
  EXPECT_EQ(messages(from_blob(std::span(b).first(100))),
            std::vector<std::string>{"tensor map blob: 100 bytes: must be exactly 128"});
  TensorMapBlob z{};
  EXPECT_EQ(messages(from_blob(z)),
            std::vector<std::string>{"tensor map blob: bytes 0-2 = 0x00 0x00 0x00: not the magic "
                                     "\"XTM\" (not a tensor map blob)"});
  TensorMapBlob v = b;
  v[3] = std::byte{3};
  EXPECT_EQ(messages(from_blob(v)),
            std::vector<std::string>{
                "tensor map blob: byte 3 (version) = 3: only versions 1 and 2 are known"});
  TensorMapBlob c = b;
  c[124] ^= std::byte{1};
  const auto crc = messages(from_blob(c));
  ASSERT_EQ(crc.size(), 1u);
  EXPECT_EQ(crc[0].rfind("tensor map blob: bytes 124-127 (CRC-32) = 0x", 0), 0u) << crc[0];
}

TEST(TensorMapBlob, ResealedBadFieldsGoThroughTheEncoder) {
  TensorMapBlob b = to_blob(sample_tiled());
  b[96] = std::byte{0x2C};  // boxDim[0] = 300
  b[97] = std::byte{0x01};
  b[106] = std::byte{9};  // elementStrides[0] = 9
  b[8] = std::byte{42};   // swizzle
  reseal(b);
  EXPECT_EQ(messages(from_blob(b)),
            (std::vector<std::string>{
                "tensor map blob: boxDim[0] = 300: must be in [1, 256] (nearest: 256)",
                "tensor map blob: elementStrides[0] = 9: must be in [1, 8] (nearest: 8)",
                "tensor map blob: swizzle = 42: not a CUtensorMapSwizzle value (0 to 6)"}));
}

TEST(TensorMapBlob, ResealedUnusedEntriesAndReservedBytesMustBeZero) {
  TensorMapBlob b = to_blob(sample_tiled());
  b[36] = std::byte{5};  // globalDim[3] with rank 3
  b[11] = std::byte{1};  // reserved
  b[60] = std::byte{2};  // reserved
  b[4] = std::byte{7};   // mode
  b[12] = std::byte{3};  // channelsPerPixel in a tiled map
  reseal(b);
  EXPECT_EQ(messages(from_blob(b)),
            (std::vector<std::string>{
                "tensor map blob: byte 11 (reserved) = 1: must be 0",
                "tensor map blob: byte 60 (reserved) = 2: must be 0",
                "tensor map blob: byte 4 (mode) = 7: must be 0 (tiled) or 1 (im2col)",
                "tensor map blob: globalDim[3] = 5: unused by this map (mode tiled, tensorRank = "
                "3), must be 0",
                "tensor map blob: channelsPerPixel = 3: unused by a tiled map, must be 0"}));
  TensorMapBlob r = to_blob(sample_tiled());
  r[6] = std::byte{9};  // rank 9
  reseal(r);
  EXPECT_EQ(
      messages(from_blob(r)),
      std::vector<std::string>{"tensor map blob: tensorRank = 9: must be in [1, 5] (nearest: 5)"});
}

// ---- YAML and JSON --------------------------------------------------------------------------

TEST(TensorMapText, YamlAndJsonRoundTripRandomMaps) {
  for (const TensorMap& m : random_maps(100)) {
    const std::string yaml = to_yaml(m);
    Result<TensorMap> y = parse_tensor_map_yaml(yaml, "map.yaml");
    ASSERT_TRUE(y.ok()) << y.error().message << "\n" << yaml;
    EXPECT_EQ(*y, m) << yaml;

    const nlohmann::json j = to_json(m);
    Result<TensorMap> fj = from_json(j);
    ASSERT_TRUE(fj.ok()) << fj.error().message << "\n" << j.dump();
    EXPECT_EQ(*fj, m);
    Result<TensorMap> tj = parse_tensor_map_json(j.dump(2), "map.json");
    ASSERT_TRUE(tj.ok()) << tj.error().message;
    EXPECT_EQ(*tj, m);
  }
}

TEST(TensorMapText, WritesHumanFieldNames) {
  EXPECT_EQ(to_yaml(sample_tiled()),
            "mode: tiled\n"
            "dataType: BFLOAT16\n"
            "rank: 3\n"
            "globalAddress: 0x7f0000001000\n"
            "globalDim: [64, 32, 8]\n"
            "globalStrides: [128, 4096]\n"
            "boxDim: [64, 16, 2]\n"
            "elementStrides: [1, 2, 1]\n"
            "interleave: NONE\n"
            "swizzle: 128B\n"
            "l2Promotion: L2_128B\n"
            "oobFill: NAN_REQUEST_ZERO_FMA\n");
  const nlohmann::json j = to_json(sample_im2col());
  EXPECT_EQ(j["mode"], "im2col");
  EXPECT_EQ(j["pixelBoxLowerCorner"], nlohmann::json({-1, -2}));
  EXPECT_EQ(j["channelsPerPixel"], 64);
  EXPECT_FALSE(j.contains("boxDim"));
}

TEST(TensorMapText, DefaultsAndCudaEnumeratorNames) {
  const std::string yaml =
      "dataType: CU_TENSOR_MAP_DATA_TYPE_FLOAT32\n"
      "rank: 2\n"
      "globalAddress: 4096\n"
      "globalDim: [32, 8]\n"
      "globalStrides: [128]\n"
      "boxDim: [32, 8]\n"
      "swizzle: CU_TENSOR_MAP_SWIZZLE_128B\n";
  Result<TensorMap> m = parse_tensor_map_yaml(yaml, "d.yaml");
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->mode, Mode::kTiled);
  EXPECT_EQ(m->data_type, DataType::kFloat32);
  EXPECT_EQ(m->element_strides, (std::array<std::uint32_t, 5>{1, 1, 0, 0, 0}));
  EXPECT_EQ(m->interleave, Interleave::kNone);
  EXPECT_EQ(m->swizzle, Swizzle::k128B);
  EXPECT_EQ(m->oob_fill, OobFill::kNone);
}

TEST(TensorMapText, ReadErrorsCarryFileLineColumnAndKey) {
  const std::string yaml =
      "dataType: FLAOT16\n"      // 1
      "rank: two\n"              // 2
      "globalAddress: 0x1000\n"  // 3
      "globalDim: [64, -3]\n"    // 4
      "globalStrides: 128\n"     // 5
      "swizle: 128B\n"           // 6
      "pixelsPerColumn: 4\n"     // 7
      "interleave: NONE\n"       // 8
      "interleave: 16B\n";       // 9
  EXPECT_EQ(messages(parse_tensor_map_yaml(yaml, "bad.yaml")),
            (std::vector<std::string>{
                "bad.yaml:1:1: boxDim: missing required key 'boxDim'",
                "bad.yaml:1:11: dataType: \"FLAOT16\" is not one of UINT8, UINT16, UINT32, INT32, "
                "UINT64, INT64, FLOAT16, FLOAT32, FLOAT64, BFLOAT16, FLOAT32_FTZ, TFLOAT32, "
                "TFLOAT32_FTZ, 16U4_ALIGN8B, 16U4_ALIGN16B, 16U6_ALIGN16B (did you mean "
                "'FLOAT16'?)",
                "bad.yaml:2:7: rank: expected an integer, got \"two\"",
                "bad.yaml:4:17: globalDim[1]: -3 is out of range [0, 18446744073709551615]",
                "bad.yaml:5:16: globalStrides: expected a sequence of integers, got \"128\"",
                "bad.yaml:6:1: swizle: unknown key 'swizle' (did you mean 'swizzle'?); valid keys "
                "here: mode, dataType, rank, globalAddress, globalDim, globalStrides, boxDim, "
                "elementStrides, interleave, swizzle, l2Promotion, oobFill, oobFillValue",
                "bad.yaml:7:1: pixelsPerColumn: only an im2col map has this key (add 'mode: "
                "im2col')",
                "bad.yaml:9:1: interleave: duplicate key; first given at line 8",
            }));
}

TEST(TensorMapText, RuleViolationsPointAtTheValue) {
  const std::string yaml =
      "mode: tiled\n"
      "dataType: FLOAT16\n"
      "rank: 2\n"
      "globalAddress: 0x1008\n"
      "globalDim: [64, 32]\n"
      "globalStrides: [1000]\n"
      "boxDim: [64, 300]\n";
  EXPECT_EQ(messages(parse_tensor_map_yaml(yaml, "r.yaml")),
            (std::vector<std::string>{
                "r.yaml:4:16: globalAddress = 0x1008: must be 16-byte aligned (nearest: 0x1000 or "
                "0x1010)",
                "r.yaml:6:17: globalStrides[0] = 1000: must be a multiple of 16 (nearest: 992 or "
                "1008)",
                "r.yaml:7:14: boxDim[1] = 300: must be in [1, 256] (nearest: 256)"}));
  // A rule on a defaulted key points at the document.
  const std::string strides =
      "dataType: FLOAT16\nrank: 2\nglobalAddress: 0\nglobalDim: [64, 32]\nglobalStrides: [128]\n"
      "boxDim: [64, 32]\nelementStrides: [1]\n";
  EXPECT_EQ(messages(parse_tensor_map_yaml(strides, "e.yaml")),
            std::vector<std::string>{
                "e.yaml:7:17: elementStrides = 1 entry: must have tensorRank = 2 entries"});
}

TEST(TensorMapText, GlobalStridesMayBeLeftOutOnlyForRankOne) {
  const std::string one =
      "dataType: UINT8\nrank: 1\nglobalAddress: 0\nglobalDim: [100]\nboxDim: [16]\n";
  EXPECT_TRUE(parse_tensor_map_yaml(one, "o.yaml").ok());
  const std::string two =
      "dataType: UINT8\nrank: 2\nglobalAddress: 0\nglobalDim: [100, 2]\nboxDim: [16, 2]\n";
  EXPECT_EQ(messages(parse_tensor_map_yaml(two, "t.yaml")),
            std::vector<std::string>{"t.yaml:1:1: globalStrides: missing key 'globalStrides' "
                                     "(rank = 2 needs rank - 1 = 1 stride, in bytes)"});
}

TEST(TensorMapText, Im2colKeysAndWrongModeKeys) {
  const std::string yaml =
      "mode: im2col\n"
      "dataType: FLOAT16\n"
      "rank: 4\n"
      "globalAddress: 0x20000\n"
      "globalDim: [64, 16, 16, 4]\n"
      "globalStrides: [128, 2048, 32768]\n"
      "pixelBoxLowerCorner: [-1, -2]\n"
      "pixelBoxUpperCorner: [-1, 3]\n"
      "channelsPerPixel: 64\n"
      "pixelsPerColumn: 128\n"
      "swizzle: 128B\n";
  Result<TensorMap> m = parse_tensor_map_yaml(yaml, "c.yaml");
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(*m, sample_im2col());
  EXPECT_EQ(messages(parse_tensor_map_yaml(yaml + "boxDim: [1, 1, 1, 1]\n", "c.yaml")),
            std::vector<std::string>{
                "c.yaml:12:1: boxDim: not used by an im2col map, whose box is "
                "pixelBoxLowerCorner, pixelBoxUpperCorner, channelsPerPixel and pixelsPerColumn"});
  std::string bad = yaml;
  bad.replace(bad.find("[-1, 3]"), 7, "[-1, -20]");
  EXPECT_EQ(messages(parse_tensor_map_yaml(bad, "c.yaml")),
            std::vector<std::string>{
                "c.yaml:8:27: pixelBoxUpperCorner[1] = -20: the bounding box along dimension 2 "
                "holds globalDim[2] - pixelBoxLowerCorner[1] + pixelBoxUpperCorner[1] = 16 - -2 + "
                "-20 = -2 pixels; it must have non-zero area (nearest: -17)"});
  EXPECT_EQ(messages(parse_tensor_map_yaml("mode: im2cols\n", "m.yaml")),
            std::vector<std::string>{"m.yaml:1:7: mode: \"im2cols\" is not one of tiled, im2col"});
}

TEST(TensorMapText, SyntaxErrorsHavePositions) {
  const auto y = messages(parse_tensor_map_yaml("rank: [1, 2\n", "s.yaml"));
  ASSERT_EQ(y.size(), 1u);
  EXPECT_EQ(y[0].rfind("s.yaml:2:1: YAML syntax error: ", 0), 0u) << y[0];
  const auto j = messages(parse_tensor_map_json("{\n  \"rank\": 2,\n  \"x\" 3\n}", "s.json"));
  ASSERT_EQ(j.size(), 1u);
  EXPECT_EQ(j[0].rfind("s.json:3:7: JSON syntax error: ", 0), 0u) << j[0];
  EXPECT_EQ(messages(parse_tensor_map_yaml("[1, 2]\n", "l.yaml")),
            std::vector<std::string>{
                "l.yaml:1:1: expected a mapping with keys mode, dataType, rank, globalAddress, "
                "globalDim, globalStrides, boxDim, elementStrides, interleave, swizzle, "
                "l2Promotion, oobFill, oobFillValue, got a sequence"});
}

TEST(TensorMapText, JsonErrorsHavePositionsToo) {
  const std::string json =
      "{\n"
      "\t\"dataType\": \"FLOAT16\",\n"
      "\t\"rank\": 2,\n"
      "\t\"globalAddress\": 4096,\n"
      "\t\"globalDim\": [64, 32],\n"
      "\t\"globalStrides\": [1000],\n"
      "\t\"boxDim\": [64, 32],\n"
      "\t\"swizzel\": \"NONE\"\n"
      "}\n";
  EXPECT_EQ(messages(parse_tensor_map_json(json, "t.json")),
            std::vector<std::string>{"t.json:8:2: swizzel: unknown key 'swizzel' (did you mean "
                                     "'swizzle'?); valid keys here: mode, dataType, rank, "
                                     "globalAddress, globalDim, globalStrides, boxDim, "
                                     "elementStrides, interleave, swizzle, l2Promotion, oobFill, "
                                     "oobFillValue"});
  std::string fixed = json;
  fixed.replace(fixed.find("\"swizzel\""), 9, "\"swizzle\"");
  EXPECT_EQ(messages(parse_tensor_map_json(fixed, "t.json")),
            std::vector<std::string>{
                "t.json:6:20: globalStrides[0] = 1000: must be a multiple of 16 (nearest: 992 or "
                "1008)"});
  // from_json has no text to point into: the key only.
  nlohmann::json j = to_json(sample_tiled());
  j["boxDim"] = {64, 16, 0};
  EXPECT_EQ(messages(from_json(j)),
            std::vector<std::string>{"<json>: boxDim[2] = 0: must be in [1, 256] (nearest: 1)"});
}

// Found by fuzz/tma_json_fuzz: a number beyond a double is valid JSON syntax that nlohmann
// refuses with out_of_range, not parse_error; it escaped the reader and terminated the program.
TEST(TensorMapText, JsonNumberBeyondADoubleIsAnError) {
  EXPECT_EQ(messages(parse_tensor_map_json("{\"rank\": 1e400}", "n.json")),
            std::vector<std::string>{"n.json: JSON error: number overflow parsing '1e400'"});
}

// Found by fuzz/tma_yaml_fuzz and tma_json_fuzz: messages quoted the user's text, line breaks
// included (a JSON "\n" escape, a YAML parser's "unknown escape character"); one line each.
TEST(TensorMapText, QuotedLineBreaksAreEscaped) {
  const auto j = messages(parse_tensor_map_json("{\"rank\": \"1\\n2\"}", "q.json"));
  const std::string rank = "q.json:1:10: rank: expected an integer, got \"1\\n2\"";
  EXPECT_NE(std::find(j.begin(), j.end(), rank), j.end());
  EXPECT_EQ(messages(parse_tensor_map_yaml("rank: \"\\\r\"\n", "q.yaml")),
            std::vector<std::string>{"q.yaml:1:10: YAML syntax error: unknown escape character: "
                                     "\\r"});
}

// oobFill: CONSTANT (seed0 ¶78-80, an xpusim extension): oobFillValue is a number of the map's
// type, stored as that type's bits (expected bits worked out by hand).
std::string constant_map(std::string_view type, std::string_view value) {
  return fmt::format(
      "dataType: {}\nrank: 1\nglobalAddress: 0x1000\nglobalDim: [64]\nboxDim: [16]\n"
      "oobFill: CONSTANT\noobFillValue: {}\n",
      type, value);
}

TEST(TensorMapText, ConstantFillValuesAreElementsOfTheMapsType) {
  const struct {
    const char* type;
    const char* value;
    std::uint64_t bits;
  } good[] = {
      {"FLOAT16", "1.5", 0x3E00},
      {"FLOAT16", "-2", 0xC000},
      {"FLOAT16", "0.1", 0x2E66},  // rounded to nearest
      {"FLOAT16", ".nan", 0x7FFF},
      {"FLOAT16", "-.inf", 0xFC00},
      {"BFLOAT16", "-1.5", 0xBFC0},
      {"BFLOAT16", "3", 0x4040},
      {"FLOAT32", "0.1", 0x3DCCCCCD},
      {"FLOAT32", "inf", 0x7F800000},
      {"FLOAT32", "1e-45", 0x00000001},
      {"TFLOAT32", "0.1", 0x3DCCC000},  // rounded to tf32's 10 fraction bits
      {"FLOAT64", "0.1", 0x3FB999999999999A},
      {"FLOAT64", "nan", 0x7FFFFFFFFFFFFFFF},
      {"INT32", "-1", 0xFFFFFFFF},
      {"INT64", "-2", 0xFFFFFFFFFFFFFFFE},
      {"UINT8", "255", 0xFF},
      {"UINT16", "0x1234", 0x1234},
      {"UINT64", "18446744073709551615", UINT64_MAX},
  };
  for (const auto& g : good) {
    Result<TensorMap> m = parse_tensor_map_yaml(constant_map(g.type, g.value), "t.yaml");
    ASSERT_TRUE(m.ok()) << g.type << " " << g.value << ": " << m.error().message;
    EXPECT_EQ(m->oob_fill, OobFill::kConstant);
    EXPECT_EQ(m->oob_fill_value, g.bits) << g.type << " " << g.value;
    // Written back as a number that reads to the same bits, in YAML and JSON.
    EXPECT_EQ(parse_tensor_map_yaml(to_yaml(*m), "w.yaml").value(), *m) << to_yaml(*m);
    EXPECT_EQ(from_json(to_json(*m)).value(), *m) << to_json(*m).dump();
  }
  // A subnormal double (found by tma_blob_fuzz) goes through both text forms.
  TensorMap sub = parse_tensor_map_yaml(constant_map("FLOAT64", "0"), "t.yaml").value();
  sub.oob_fill_value = 0xE300;
  EXPECT_EQ(parse_tensor_map_yaml(to_yaml(sub), "w.yaml").value(), sub) << to_yaml(sub);
  EXPECT_EQ(from_json(to_json(sub)).value(), sub) << to_json(sub).dump();
  EXPECT_EQ(messages(parse_tensor_map_yaml(constant_map("UINT8", "256"), "t.yaml")),
            std::vector<std::string>{"t.yaml:7:15: oobFillValue: 256 is out of range [0, 255]"});
  EXPECT_EQ(messages(parse_tensor_map_yaml(constant_map("FLOAT16", "1e6"), "t.yaml")),
            std::vector<std::string>{
                "t.yaml:7:15: oobFillValue: 1e6 is outside the finite range of FLOAT16 "
                "(magnitude at most 65504); write .inf for infinity"});
  EXPECT_EQ(messages(parse_tensor_map_yaml(constant_map("FLOAT32", "abc"), "t.yaml")),
            std::vector<std::string>{"t.yaml:7:15: oobFillValue: expected a number (or .nan, "
                                     ".inf, -.inf) for a FLOAT32 map, got \"abc\""});
  const std::string none =
      "dataType: UINT8\nrank: 1\nglobalAddress: 0x1000\nglobalDim: [64]\n"
      "boxDim: [16]\noobFillValue: 3\n";
  EXPECT_EQ(messages(parse_tensor_map_yaml(none, "t.yaml")),
            std::vector<std::string>{"t.yaml:6:15: oobFillValue: only an 'oobFill: CONSTANT' map "
                                     "has a fill value (oobFill is NONE)"});
  const std::string missing =
      "dataType: UINT8\nrank: 1\nglobalAddress: 0x1000\nglobalDim: [64]\n"
      "boxDim: [16]\noobFill: CONSTANT\n";
  EXPECT_EQ(messages(parse_tensor_map_yaml(missing, "t.yaml")),
            std::vector<std::string>{"t.yaml:6:10: oobFill: CONSTANT needs 'oobFillValue', the "
                                     "value out-of-bounds elements read"});
  // Only xpusim takes it: cuda_extensions names it for `lint --cuda`.
  const TensorMap m = parse_tensor_map_yaml(constant_map("UINT8", "7"), "t.yaml").value();
  EXPECT_EQ(cuda_extensions(m),
            std::vector<std::string>{"oobFill = CONSTANT (oobFillValue = 0x7): an xpusim extension "
                                     "(seed0 ¶78-80); CUtensorMapFloatOOBfill has only NONE and "
                                     "NAN_REQUEST_ZERO_FMA"});
  EXPECT_TRUE(cuda_extensions(sample_tiled()).empty());
}

TEST(TensorMapText, LoadsFilesByExtension) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("xpusim_tmio_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const TensorMap m = sample_im2col();
  {
    std::ofstream(dir / "a.yaml") << to_yaml(m);
    std::ofstream(dir / "a.yml") << to_yaml(m);
    std::ofstream(dir / "a.json") << to_json(m).dump(2);
    std::ofstream(dir / "a.txt") << to_yaml(m);
  }
  EXPECT_EQ(load_tensor_map_file(dir / "a.yaml").value(), m);
  EXPECT_EQ(load_tensor_map_file(dir / "a.yml").value(), m);
  EXPECT_EQ(load_tensor_map_file(dir / "a.json").value(), m);
  const std::string txt = (dir / "a.txt").string();
  EXPECT_EQ(messages(load_tensor_map_file(txt)),
            std::vector<std::string>{
                txt + ": unknown tensor map file extension '.txt' (use .yaml, .yml or .json)"});
  const std::string missing = (dir / "missing.yaml").string();
  EXPECT_EQ(messages(load_tensor_map_file(missing)),
            std::vector<std::string>{
                missing + ": cannot open the tensor map file: No such file or directory"});
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace xpusim::tma
