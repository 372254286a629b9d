// Every rule of cuTensorMapEncodeTiled / cuTensorMapEncodeIm2col (cuda.h): one passing and one
// failing case each, asserting the exact one-line message; all violations at once; nearest
// value suggestions.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "tma/tensor_map_encode.h"

namespace xpusim::tma {
namespace {

// FLOAT16 [64 x 32 x 8], dense, 64 x 16 x 2 box, 128B swizzle: valid.
TiledParams tiled() {
  TiledParams p;
  p.data_type = DataType::kFloat16;
  p.rank = 3;
  p.global_address = 0x10000;
  p.global_dim = {64, 32, 8};
  p.global_strides = {128, 4096};
  p.box_dim = {64, 16, 2};
  p.element_strides = {1, 1, 1};
  p.swizzle = Swizzle::k128B;
  return p;
}

// The same with interleave 32B (which requires swizzle 32B).
TiledParams interleaved() {
  TiledParams p = tiled();
  p.interleave = Interleave::k32B;
  p.swizzle = Swizzle::k32B;
  return p;
}

// 16U4_ALIGN16B: globalDim[0] multiple of 128, boxDim[0] = 128, 32 B strides, 64 B rows.
TiledParams u4_align16() {
  TiledParams p = tiled();
  p.data_type = DataType::k16U4Align16B;
  p.global_dim = {128, 32, 8};
  p.global_strides = {64, 2048};
  p.box_dim = {128, 16, 2};
  return p;
}

// 16U6_ALIGN16B: 128 x 6 bits = 96 B rows.
TiledParams u6_align16() {
  TiledParams p = u4_align16();
  p.data_type = DataType::k16U6Align16B;
  p.global_strides = {96, 3072};
  return p;
}

// 16U4_ALIGN8B: 32 elements = 16 B.
TiledParams u4_align8() {
  TiledParams p = tiled();
  p.data_type = DataType::k16U4Align8B;
  p.global_strides = {32, 1024};
  p.box_dim = {32, 16, 2};
  return p;
}

// NHWC FLOAT16 [C=64, W=16, H=16, N=4], 3x3 filter with padding 1.
Im2colParams im2col() {
  Im2colParams p;
  p.data_type = DataType::kFloat16;
  p.rank = 4;
  p.global_address = 0x20000;
  p.global_dim = {64, 16, 16, 4};
  p.global_strides = {128, 2048, 32768};
  p.pixel_box_lower_corner = {-1, -1};
  p.pixel_box_upper_corner = {-1, -1};
  p.channels_per_pixel = 64;
  p.pixels_per_column = 128;
  p.element_strides = {1, 1, 1, 1};
  p.swizzle = Swizzle::k128B;
  return p;
}

Im2colParams im2col_rank3() {
  Im2colParams p = im2col();
  p.rank = 3;
  p.global_dim = {64, 16, 4};
  p.global_strides = {128, 2048};
  p.pixel_box_lower_corner = {-1};
  p.pixel_box_upper_corner = {-1};
  p.element_strides = {1, 1, 1};
  return p;
}

Im2colParams im2col_rank5() {
  Im2colParams p = im2col();
  p.rank = 5;
  p.global_dim = {64, 8, 8, 8, 2};
  p.global_strides = {128, 1024, 8192, 65536};
  p.pixel_box_lower_corner = {-1, -1, -1};
  p.pixel_box_upper_corner = {-1, -1, -1};
  p.element_strides = {1, 1, 1, 1, 1};
  return p;
}

std::vector<std::string> messages(const Result<TensorMap>& r) {
  std::vector<std::string> out;
  if (r.ok()) return out;
  for (const Error& e : r.errors())
    out.push_back(e.message);
  return out;
}

template <class F>
std::function<Result<TensorMap>()> T(F edit, TiledParams (*base)() = tiled) {
  return [=] {
    TiledParams p = base();
    edit(p);
    return encode_tiled(p);
  };
}

template <class F>
std::function<Result<TensorMap>()> I(F edit, Im2colParams (*base)() = im2col) {
  return [=] {
    Im2colParams p = base();
    edit(p);
    return encode_im2col(p);
  };
}

struct RuleCase {
  std::string name;
  std::function<Result<TensorMap>()> make;
  std::vector<std::string> expected;  // empty: the parameters are valid
};

std::ostream& operator<<(std::ostream& os, const RuleCase& c) {
  return os << c.name;
}

class EncoderRule : public ::testing::TestWithParam<RuleCase> {};

TEST_P(EncoderRule, ReportsExactlyTheExpectedLines) {
  const RuleCase& c = GetParam();
  EXPECT_EQ(messages(c.make()), c.expected);
}

const std::vector<RuleCase> kRuleCases = {
    // The bases themselves.
    {"BaseTiledOk", T([](TiledParams&) {}), {}},
    {"BaseInterleavedOk", T([](TiledParams&) {}, interleaved), {}},
    {"BaseU4Align16Ok", T([](TiledParams&) {}, u4_align16), {}},
    {"BaseU6Align16Ok", T([](TiledParams&) {}, u6_align16), {}},
    {"BaseU4Align8Ok", T([](TiledParams&) {}, u4_align8), {}},
    {"BaseIm2colOk", I([](Im2colParams&) {}), {}},
    {"BaseIm2colRank3Ok", I([](Im2colParams&) {}, im2col_rank3), {}},
    {"BaseIm2colRank5Ok", I([](Im2colParams&) {}, im2col_rank5), {}},

    // tensorDataType is a CUtensorMapDataType.
    {"DataTypeEnumOk", T([](TiledParams& p) { p.data_type = DataType::kBfloat16; }), {}},
    {"DataTypeEnumBad",
     T([](TiledParams& p) { p.data_type = static_cast<DataType>(16); }),
     {"tensorDataType = 16: not a CUtensorMapDataType value (0 to 15)"}},

    // tensorRank in [1, 5].
    {"RankOneOk",
     T([](TiledParams& p) {
       p.rank = 1;
       p.global_dim = {64};
       p.global_strides = {};
       p.box_dim = {64};
       p.element_strides = {1};
     }),
     {}},
    {"RankZero",
     T([](TiledParams& p) { p.rank = 0; }),
     {"tensorRank = 0: must be in [1, 5] (nearest: 1)"}},
    {"RankSix",
     T([](TiledParams& p) { p.rank = 6; }),
     {"tensorRank = 6: must be in [1, 5] (nearest: 5)"}},
    // tensorRank >= 3 when interleave != NONE.
    {"InterleaveRank3Ok", T([](TiledParams& p) { p.interleave = Interleave::k16B; }), {}},
    {"InterleaveRank2",
     T([](TiledParams& p) {
       p.interleave = Interleave::k16B;
       p.rank = 2;
       p.global_dim = {64, 32};
       p.global_strides = {128};
       p.box_dim = {64, 16};
       p.element_strides = {1, 1};
     }),
     {"tensorRank = 2: must be at least 3 when interleave = 16B (nearest: 3)"}},
    // im2col: tensorRank is 3, 4 or 5.
    {"Im2colRank2",
     I([](Im2colParams& p) { p.rank = 2; }),
     {"tensorRank = 2: must be in [3, 5] for an im2col map (nearest: 3)"}},

    // globalAddress: 16 B aligned; 32 B with INTERLEAVE_32B or the ALIGN16B packed types.
    {"Address16Ok", T([](TiledParams& p) { p.global_address = 0x10010; }), {}},
    {"Address16Bad",
     T([](TiledParams& p) { p.global_address = 0x10008; }),
     {"globalAddress = 0x10008: must be 16-byte aligned (nearest: 0x10000 or 0x10010)"}},
    {"Address32InterleaveOk",
     T([](TiledParams& p) { p.global_address = 0x10020; }, interleaved),
     {}},
    {"Address32InterleaveBad",
     T([](TiledParams& p) { p.global_address = 0x10010; }, interleaved),
     {"globalAddress = 0x10010: must be 32-byte aligned when interleave = 32B (nearest: 0x10000 "
      "or 0x10020)"}},
    {"Address32PackedOk", T([](TiledParams& p) { p.global_address = 0x10020; }, u4_align16), {}},
    {"Address32PackedBad",
     T([](TiledParams& p) { p.global_address = 0x10010; }, u4_align16),
     {"globalAddress = 0x10010: must be 32-byte aligned when tensorDataType = 16U4_ALIGN16B "
      "(nearest: 0x10000 or 0x10020)"}},
    {"Address32U6Bad",
     T([](TiledParams& p) { p.global_address = 0x10030; }, u6_align16),
     {"globalAddress = 0x10030: must be 32-byte aligned when tensorDataType = 16U6_ALIGN16B "
      "(nearest: 0x10020 or 0x10040)"}},

    // globalDim in [1, 2^32].
    {"GlobalDimMaxOk", T([](TiledParams& p) { p.global_dim[2] = 1ull << 32; }), {}},
    {"GlobalDimZero",
     T([](TiledParams& p) { p.global_dim[2] = 0; }),
     {"globalDim[2] = 0: must be in [1, 2^32 = 4294967296] (nearest: 1)"}},
    {"GlobalDimTooBig",
     T([](TiledParams& p) { p.global_dim[2] = (1ull << 32) + 1; }),
     {"globalDim[2] = 4294967297: must be in [1, 2^32 = 4294967296] (nearest: 4294967296)"}},
    // globalDim[0] a multiple of 128 for the ALIGN16B types, of 2 for 16U4_ALIGN8B.
    {"GlobalDimPacked128Ok",
     T(
         [](TiledParams& p) {
           p.global_dim[0] = 256;
           p.global_strides = {128, 4096};
         },
         u4_align16),
     {}},
    {"GlobalDimPacked128Bad",
     T([](TiledParams& p) { p.global_dim[0] = 200; }, u4_align16),
     {"globalDim[0] = 200: must be a multiple of 128 when tensorDataType = 16U4_ALIGN16B "
      "(nearest: 128 or 256)"}},
    {"GlobalDimPacked128U6Bad",
     T([](TiledParams& p) { p.global_dim[0] = 100; }, u6_align16),
     {"globalDim[0] = 100: must be a multiple of 128 when tensorDataType = 16U6_ALIGN16B "
      "(nearest: 128)"}},
    {"GlobalDimPacked2Ok", T([](TiledParams& p) { p.global_dim[0] = 62; }, u4_align8), {}},
    {"GlobalDimPacked2Bad",
     T([](TiledParams& p) { p.global_dim[0] = 63; }, u4_align8),
     {"globalDim[0] = 63: must be a multiple of 2 when tensorDataType = 16U4_ALIGN8B (nearest: 62 "
      "or 64)"}},

    // globalStrides: multiples of 16 (32 with INTERLEAVE_32B / ALIGN16B types), < 2^40.
    {"Stride16Ok", T([](TiledParams& p) { p.global_strides[1] = 4112; }), {}},
    {"Stride16Bad",
     T([](TiledParams& p) { p.global_strides[1] = 4100; }),
     {"globalStrides[1] = 4100: must be a multiple of 16 (nearest: 4096 or 4112)"}},
    {"Stride16BriefExample",
     T([](TiledParams& p) { p.global_strides[1] = 1000; }),
     {"globalStrides[1] = 1000: must be a multiple of 16 (nearest: 992 or 1008)"}},
    {"Stride16BelowFirstMultiple",
     T([](TiledParams& p) {
       p.rank = 2;
       p.global_dim = {8, 4};
       p.global_strides = {8};
       p.box_dim = {8, 4};
       p.element_strides = {1, 1};
     }),
     {"globalStrides[0] = 8: must be a multiple of 16 (nearest: 16)"}},
    {"StrideLimitOk", T([](TiledParams& p) { p.global_strides[1] = (1ull << 40) - 16; }), {}},
    {"StrideLimitBad",
     T([](TiledParams& p) { p.global_strides[1] = 1ull << 40; }),
     {"globalStrides[1] = 1099511627776: must be less than 2^40 = 1099511627776 (nearest: "
      "1099511627760)"}},
    {"Stride32InterleaveOk",
     T([](TiledParams& p) { p.global_strides[1] = 4128; }, interleaved),
     {}},
    {"Stride32InterleaveBad",
     T([](TiledParams& p) { p.global_strides[1] = 4112; }, interleaved),
     {"globalStrides[1] = 4112: must be a multiple of 32 when interleave = 32B (nearest: 4096 or "
      "4128)"}},
    {"Stride32PackedOk", T([](TiledParams& p) { p.global_strides[1] = 2080; }, u4_align16), {}},
    {"Stride32PackedBad",
     T([](TiledParams& p) { p.global_strides[1] = 2064; }, u4_align16),
     {"globalStrides[1] = 2064: must be a multiple of 32 when tensorDataType = 16U4_ALIGN16B "
      "(nearest: 2048 or 2080)"}},
    // Each stride covers the previous dimension (the header's pseudo-code).
    {"StrideExtent0Ok",
     T([](TiledParams& p) {
       p.global_strides = {144, 4608};
     }),
     {}},
    // Strides that do not cover the dimension below are accepted (the H200's driver does,
    // tools/silicon); overlapping_strides names them for lint (OverlappingStridesAreWarnings).
    {"StrideExtent1OverlapOk", T([](TiledParams& p) { p.global_strides[1] = 2048; }), {}},

    // boxDim in [1, 256].
    {"BoxDimMaxOk", T([](TiledParams& p) { p.box_dim[1] = 256; }), {}},
    {"BoxDimZero",
     T([](TiledParams& p) { p.box_dim[1] = 0; }),
     {"boxDim[1] = 0: must be in [1, 256] (nearest: 1)"}},
    {"BoxDimBriefExample",
     T([](TiledParams& p) { p.box_dim[0] = 300; }),
     {"boxDim[0] = 300: must be in [1, 256] (nearest: 256)"}},
    // boxDim[0] x element size a multiple of 16 B with INTERLEAVE_NONE.
    {"BoxInner16Ok", T([](TiledParams& p) { p.box_dim[0] = 8; }), {}},
    {"BoxInner16Bad",
     T([](TiledParams& p) { p.box_dim[0] = 12; }),
     {"boxDim[0] = 12: boxDim[0] x 2 B = 24 B must be a multiple of 16 B when interleave = NONE "
      "(nearest: 8 or 16)"}},
    {"BoxInner16PackedBad",
     T([](TiledParams& p) { p.box_dim[0] = 20; }, u4_align8),
     {"boxDim[0] = 20: boxDim[0] x 4 bits = 10 B must be a multiple of 16 B when interleave = "
      "NONE (nearest: 32)"}},
    {"BoxInner16InterleavedOk", T([](TiledParams& p) { p.box_dim[0] = 12; }, interleaved), {}},
    // boxDim[0] = 128 for the ALIGN16B types.
    {"BoxPacked128Bad",
     T([](TiledParams& p) { p.box_dim[0] = 64; }, u4_align16),
     {"boxDim[0] = 64: must be 128 when tensorDataType = 16U4_ALIGN16B (nearest: 128)"}},
    {"BoxPacked128U6Bad",
     T([](TiledParams& p) { p.box_dim[0] = 256; }, u6_align16),
     {"boxDim[0] = 256: must be 128 when tensorDataType = 16U6_ALIGN16B (nearest: 128)"}},

    // elementStrides in [1, 8].
    {"ElementStrideMaxOk",
     T([](TiledParams& p) {
       p.element_strides = {8, 8, 8};
     }),
     {}},
    {"ElementStrideNine",
     T([](TiledParams& p) { p.element_strides[2] = 9; }),
     {"elementStrides[2] = 9: must be in [1, 8] (nearest: 8)"}},
    {"ElementStrideZero",
     T([](TiledParams& p) { p.element_strides[0] = 0; }),
     {"elementStrides[0] = 0: must be in [1, 8] (nearest: 1)"}},

    // Array lengths follow tensorRank.
    {"GlobalDimCount",
     T([](TiledParams& p) {
       p.global_dim = {64, 32};
     }),
     {"globalDim = 2 entries: must have tensorRank = 3 entries"}},
    {"GlobalStridesCount",
     T([](TiledParams& p) { p.global_strides = {128}; }),
     {"globalStrides = 1 entry: must have tensorRank - 1 = 2 entries"}},
    {"BoxDimCount",
     T([](TiledParams& p) {
       p.box_dim = {64, 16, 2, 1};
     }),
     {"boxDim = 4 entries: must have tensorRank = 3 entries"}},
    {"ElementStridesCount",
     T([](TiledParams& p) { p.element_strides = {}; }),
     {"elementStrides = 0 entries: must have tensorRank = 3 entries"}},

    // interleave: a CUtensorMapInterleave; 16U6_ALIGN16B needs INTERLEAVE_NONE.
    {"InterleaveEnumBad",
     T([](TiledParams& p) { p.interleave = static_cast<Interleave>(3); }),
     {"interleave = 3: not a CUtensorMapInterleave value (0 to 2)"}},
    {"InterleaveU6Bad",
     T([](TiledParams& p) { p.interleave = Interleave::k16B; }, u6_align16),
     {"interleave = 16B: must be NONE when tensorDataType = 16U6_ALIGN16B (nearest: NONE)"}},
    {"InterleaveU4Align16Ok",
     T([](TiledParams& p) { p.interleave = Interleave::k16B; }, u4_align16),
     {}},

    // swizzle: a CUtensorMapSwizzle; INTERLEAVE_32B needs SWIZZLE_32B.
    {"SwizzleEnumBad",
     T([](TiledParams& p) { p.swizzle = static_cast<Swizzle>(7); }),
     {"swizzle = 7: not a CUtensorMapSwizzle value (0 to 6)"}},
    {"Interleave32SwizzleBad",
     T([](TiledParams& p) { p.swizzle = Swizzle::k64B; }, interleaved),
     {"swizzle = 64B: must be 32B when interleave = 32B (nearest: 32B)"}},
    {"Interleave16AnySwizzleOk",
     T(
         [](TiledParams& p) {
           p.interleave = Interleave::k16B;
           p.swizzle = Swizzle::k128BAtom64B;
         }),
     {}},
    // Inner box row <= the swizzle span when interleave is NONE.
    {"SwizzleSpan128Ok", T([](TiledParams& p) { p.box_dim[0] = 64; }), {}},
    {"SwizzleSpan128Bad",
     T([](TiledParams& p) { p.box_dim[0] = 128; }),
     {"boxDim[0] = 128: boxDim[0] x 2 B = 256 B must be at most the 128 B span of swizzle = 128B "
      "(nearest: 64)"}},
    {"SwizzleSpan32Ok",
     T(
         [](TiledParams& p) {
           p.swizzle = Swizzle::k32B;
           p.box_dim[0] = 16;
         }),
     {}},
    {"SwizzleSpan32Bad",
     T(
         [](TiledParams& p) {
           p.swizzle = Swizzle::k32B;
           p.box_dim[0] = 32;
         }),
     {"boxDim[0] = 32: boxDim[0] x 2 B = 64 B must be at most the 32 B span of swizzle = 32B "
      "(nearest: 16)"}},
    {"SwizzleSpan64Bad",
     T([](TiledParams& p) { p.swizzle = Swizzle::k64B; }),
     {"boxDim[0] = 64: boxDim[0] x 2 B = 128 B must be at most the 64 B span of swizzle = 64B "
      "(nearest: 32)"}},
    {"SwizzleSpanAtomBad",
     T(
         [](TiledParams& p) {
           p.swizzle = Swizzle::k128BAtom32BFlip8B;
           p.box_dim[0] = 72;
         }),
     {"boxDim[0] = 72: boxDim[0] x 2 B = 144 B must be at most the 128 B span of swizzle = "
      "128B_ATOM_32B_FLIP_8B (nearest: 64)"}},
    {"SwizzleSpanInterleavedOk",
     T(
         [](TiledParams& p) {
           p.interleave = Interleave::k16B;
           p.box_dim[0] = 128;
         }),
     {}},
    // Packed types' swizzle lists (checked as loads).
    {"SwizzleU6Ok", T([](TiledParams& p) { p.swizzle = Swizzle::k128BAtom32B; }, u6_align16), {}},
    {"SwizzleU6NoneOk", T([](TiledParams& p) { p.swizzle = Swizzle::kNone; }, u6_align16), {}},
    {"SwizzleU6StoreOnly",
     T([](TiledParams& p) { p.swizzle = Swizzle::k128BAtom64B; }, u6_align16),
     {"swizzle = 128B_ATOM_64B: must be NONE, 128B or 128B_ATOM_32B when tensorDataType = "
      "16U6_ALIGN16B (128B_ATOM_64B is store-only; tensor maps are checked for loads)"}},
    {"SwizzleU6Bad",
     T([](TiledParams& p) { p.swizzle = Swizzle::k128BAtom32BFlip8B; }, u6_align16),
     {"swizzle = 128B_ATOM_32B_FLIP_8B: must be NONE, 128B or 128B_ATOM_32B when tensorDataType "
      "= 16U6_ALIGN16B"}},
    {"SwizzleU4Align16Ok", T([](TiledParams& p) { p.swizzle = Swizzle::kNone; }, u4_align16), {}},
    {"SwizzleU4Align16Bad",
     T([](TiledParams& p) { p.swizzle = Swizzle::k128BAtom64B; }, u4_align16),
     {"swizzle = 128B_ATOM_64B: must be NONE, 128B or 128B_ATOM_32B when tensorDataType = "
      "16U4_ALIGN16B"}},
    {"SwizzleU4Align8AnyOk",
     T([](TiledParams& p) { p.swizzle = Swizzle::k128BAtom64B; }, u4_align8),
     {}},

    // l2Promotion: a CUtensorMapL2promotion.
    {"L2PromotionOk", T([](TiledParams& p) { p.l2_promotion = L2Promotion::k256B; }), {}},
    {"L2PromotionEnumBad",
     T([](TiledParams& p) { p.l2_promotion = static_cast<L2Promotion>(4); }),
     {"l2Promotion = 4: not a CUtensorMapL2promotion value (0 to 3)"}},

    // oobFill: NAN_REQUEST_ZERO_FMA only for float, non-packed types.
    {"OobNanFloatOk", T([](TiledParams& p) { p.oob_fill = OobFill::kNanRequestZeroFma; }), {}},
    {"OobNanIntBad",
     T(
         [](TiledParams& p) {
           p.data_type = DataType::kUint8;
           p.oob_fill = OobFill::kNanRequestZeroFma;
         }),
     {"oobFill = NAN_REQUEST_ZERO_FMA: needs a floating-point, non-packed tensorDataType, got "
      "UINT8 (nearest: NONE)"}},
    {"OobNanPackedBad",
     T([](TiledParams& p) { p.oob_fill = OobFill::kNanRequestZeroFma; }, u4_align8),
     {"oobFill = NAN_REQUEST_ZERO_FMA: needs a floating-point, non-packed tensorDataType, got "
      "16U4_ALIGN8B (nearest: NONE)"}},
    {"OobFillEnumBad",
     T([](TiledParams& p) { p.oob_fill = static_cast<OobFill>(3); }),
     {"oobFill = 3: not a CUtensorMapFloatOOBfill value (0 to 1) or xpusim's CONSTANT (2)"}},
    // xpusim's CONSTANT fill (seed0 ¶78-80): one element of the tensor's type.
    {"OobConstantOk",
     T(
         [](TiledParams& p) {
           p.oob_fill = OobFill::kConstant;
           p.oob_fill_value = 0xFBFF;  // f16 -65504, the lowest finite value
         }),
     {}},
    {"OobConstantTooWide",
     T(
         [](TiledParams& p) {
           p.oob_fill = OobFill::kConstant;
           p.oob_fill_value = 0x10000;
         }),
     {"oobFillValue = 0x10000: wider than the 16 bits of a FLOAT16 element"}},
    {"OobConstantPackedBad",
     T(
         [](TiledParams& p) {
           p.oob_fill = OobFill::kConstant;
           p.oob_fill_value = 1;
         },
         u4_align8),
     {"oobFill = CONSTANT: needs a non-packed tensorDataType, got 16U4_ALIGN8B (nearest: NONE)"}},
    {"OobConstantOtherNanBad",
     T(
         [](TiledParams& p) {
           p.oob_fill = OobFill::kConstant;
           p.oob_fill_value = 0xFC04;  // a negative NaN with a payload (tensor_map_blob fuzzing)
         }),
     {"oobFillValue = 0xfc04: a NaN other than FLOAT16's canonical 0x7fff (the only NaN a fill "
      "value may be; write .nan) (nearest: 0x7fff)"}},
    {"OobConstantTf32LowBitsBad",
     T(
         [](TiledParams& p) {
           p.data_type = DataType::kTfloat32;
           p.box_dim[0] = 32;
           p.oob_fill = OobFill::kConstant;
           p.oob_fill_value = 0x3F800001;
         }),
     {"oobFillValue = 0x3f800001: not a TFLOAT32 value: its 13 low bits must be 0 (nearest: "
      "0x3f800000)"}},
    {"OobValueWithoutConstant",
     T([](TiledParams& p) { p.oob_fill_value = 7; }),
     {"oobFillValue = 0x7: only an oobFill = CONSTANT map has a fill value, this one's is NONE "
      "(nearest: 0)"}},

    // im2col corners: range by rank.
    {"Corner3Ok",
     I([](Im2colParams& p) { p.pixel_box_lower_corner[0] = -32768; }, im2col_rank3),
     {}},
    {"Corner3Bad",
     I([](Im2colParams& p) { p.pixel_box_lower_corner[0] = 32768; }, im2col_rank3),
     {"pixelBoxLowerCorner[0] = 32768: must be in [-32768, 32767] when tensorRank = 3 (nearest: "
      "32767)"}},
    {"Corner4Ok", I([](Im2colParams& p) { p.pixel_box_lower_corner[1] = -128; }), {}},
    {"Corner4Bad",
     I([](Im2colParams& p) { p.pixel_box_lower_corner[1] = -129; }),
     {"pixelBoxLowerCorner[1] = -129: must be in [-128, 127] when tensorRank = 4 (nearest: -128)"}},
    {"Corner4UpperBad",
     I([](Im2colParams& p) { p.pixel_box_upper_corner[0] = 128; }),
     {"pixelBoxUpperCorner[0] = 128: must be in [-128, 127] when tensorRank = 4 (nearest: 127)"}},
    {"Corner5Ok", I([](Im2colParams& p) { p.pixel_box_upper_corner[2] = 15; }, im2col_rank5), {}},
    {"Corner5Bad",
     I([](Im2colParams& p) { p.pixel_box_upper_corner[2] = 16; }, im2col_rank5),
     {"pixelBoxUpperCorner[2] = 16: must be in [-16, 15] when tensorRank = 5 (nearest: 15)"}},
    {"CornerCount",
     I([](Im2colParams& p) { p.pixel_box_lower_corner = {-1}; }),
     {"pixelBoxLowerCorner = 1 entry: must have tensorRank - 2 = 2 entries"}},
    // The bounding box has non-zero area.
    {"BoundingBoxOnePixelOk", I([](Im2colParams& p) { p.pixel_box_upper_corner[0] = -16; }), {}},
    {"BoundingBoxEmpty",
     I([](Im2colParams& p) { p.pixel_box_upper_corner[0] = -17; }),
     {"pixelBoxUpperCorner[0] = -17: the bounding box along dimension 1 holds globalDim[1] - "
      "pixelBoxLowerCorner[0] + pixelBoxUpperCorner[0] = 16 - -1 + -17 = 0 pixels; it must have "
      "non-zero area (nearest: -16)"}},
    // channelsPerPixel <= 256 (128 for ALIGN16B types), <= the swizzle span.
    {"ChannelsMaxOk",
     I(
         [](Im2colParams& p) {
           p.swizzle = Swizzle::kNone;
           p.channels_per_pixel = 256;
         }),
     {}},
    {"ChannelsZero",
     I([](Im2colParams& p) { p.channels_per_pixel = 0; }),
     {"channelsPerPixel = 0: must be in [1, 256] (nearest: 1)"}},
    {"ChannelsTooMany",
     I([](Im2colParams& p) { p.channels_per_pixel = 257; }),
     {"channelsPerPixel = 257: must be in [1, 256] (nearest: 256)"}},
    {"ChannelsPacked128Ok",
     I(
         [](Im2colParams& p) {
           p.data_type = DataType::k16U4Align16B;
           p.global_dim[0] = 128;
           p.global_strides = {64, 1024, 16384};
           p.channels_per_pixel = 128;
         }),
     {}},
    {"ChannelsPacked128Bad",
     I(
         [](Im2colParams& p) {
           p.data_type = DataType::k16U4Align16B;
           p.global_dim[0] = 128;
           p.global_strides = {64, 1024, 16384};
         }),
     {"channelsPerPixel = 64: must be 128 when tensorDataType = 16U4_ALIGN16B (nearest: 128)"}},
    {"ChannelsSwizzleSpanBad",
     I([](Im2colParams& p) { p.channels_per_pixel = 128; }),
     {"channelsPerPixel = 128: channelsPerPixel x 2 B = 256 B must be at most the 128 B span of "
      "swizzle = 128B (nearest: 64)"}},
    // pixelsPerColumn <= 1024.
    {"PixelsMaxOk", I([](Im2colParams& p) { p.pixels_per_column = 1024; }), {}},
    {"PixelsZero",
     I([](Im2colParams& p) { p.pixels_per_column = 0; }),
     {"pixelsPerColumn = 0: must be in [1, 1024] (nearest: 1)"}},
    {"PixelsTooMany",
     I([](Im2colParams& p) { p.pixels_per_column = 1025; }),
     {"pixelsPerColumn = 1025: must be in [1, 1024] (nearest: 1024)"}},
    // im2col shares the common rules.
    {"Im2colStrideBad",
     I([](Im2colParams& p) { p.global_strides[2] = 32776; }),
     {"globalStrides[2] = 32776: must be a multiple of 16 (nearest: 32768 or 32784)"}},
    {"Im2colElementStrideBad",
     I([](Im2colParams& p) { p.element_strides[3] = 10; }),
     {"elementStrides[3] = 10: must be in [1, 8] (nearest: 8)"}},
    {"Im2colOobNanIntBad",
     I(
         [](Im2colParams& p) {
           p.data_type = DataType::kInt32;
           p.global_strides = {256, 4096, 65536};
           p.swizzle = Swizzle::kNone;
           p.oob_fill = OobFill::kNanRequestZeroFma;
         }),
     {"oobFill = NAN_REQUEST_ZERO_FMA: needs a floating-point, non-packed tensorDataType, got "
      "INT32 (nearest: NONE)"}},
};

INSTANTIATE_TEST_SUITE_P(CudaH, EncoderRule, ::testing::ValuesIn(kRuleCases),
                         [](const auto& info) { return info.param.name; });

TEST(Encoder, ReportsEveryViolationAtOnceInParameterOrder) {
  TiledParams p = tiled();
  p.global_address = 0x10004;
  p.global_dim[1] = 0;
  p.global_strides = {1000, 4096};
  p.box_dim = {300, 16, 0};
  p.element_strides = {1, 9, 1};
  p.oob_fill = OobFill::kNanRequestZeroFma;
  p.data_type = DataType::kInt32;
  const std::vector<std::string> want = {
      "globalAddress = 0x10004: must be 16-byte aligned (nearest: 0x10000 or 0x10010)",
      "globalDim[1] = 0: must be in [1, 2^32 = 4294967296] (nearest: 1)",
      "globalStrides[0] = 1000: must be a multiple of 16 (nearest: 992 or 1008)",
      "boxDim[0] = 300: must be in [1, 256] (nearest: 256)",
      "boxDim[2] = 0: must be in [1, 256] (nearest: 1)",
      "elementStrides[1] = 9: must be in [1, 8] (nearest: 8)",
      "oobFill = NAN_REQUEST_ZERO_FMA: needs a floating-point, non-packed tensorDataType, got "
      "INT32 (nearest: NONE)",
  };
  EXPECT_EQ(messages(encode_tiled(p)), want);
  // check_tiled names the parameter and entry of each line.
  const std::vector<Violation> v = check_tiled(p);
  ASSERT_EQ(v.size(), want.size());
  EXPECT_EQ(v[1].param, "globalDim");
  EXPECT_EQ(v[1].index, 1);
  EXPECT_EQ(v[0].param, "globalAddress");
  EXPECT_EQ(v[0].index, -1);
}

TEST(Encoder, OneMistakeGivesOneLine) {
  // A bad stride is not also reported as too short, and dependent rules skip a bad input.
  TiledParams p = tiled();
  p.global_strides = {100, 4096};
  EXPECT_EQ(messages(encode_tiled(p)).size(), 1u);
  p = tiled();
  p.data_type = static_cast<DataType>(99);
  EXPECT_EQ(
      messages(encode_tiled(p)),
      std::vector<std::string>{"tensorDataType = 99: not a CUtensorMapDataType value (0 to 15)"});
}

TEST(Encoder, NearestValuesAreThemselvesValid) {
  // Applying each single suggestion fixes the map.
  TiledParams p = tiled();
  p.global_strides[1] = 1000;
  ASSERT_FALSE(encode_tiled(p).ok());
  p.global_strides[1] = 4096;  // the rounded-up extent, also a multiple of 16
  EXPECT_TRUE(encode_tiled(p).ok());
  p = tiled();
  p.box_dim[0] = 128;
  ASSERT_FALSE(encode_tiled(p).ok());
  p.box_dim[0] = 64;
  EXPECT_TRUE(encode_tiled(p).ok());
}

TEST(Encoder, FillsTheMapAndInvertsExactly) {
  const TiledParams p = tiled();
  Result<TensorMap> m = encode_tiled(p);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->mode, Mode::kTiled);
  EXPECT_EQ(m->rank, 3u);
  EXPECT_EQ(m->global_dim, (std::array<std::uint64_t, 5>{64, 32, 8, 0, 0}));
  EXPECT_EQ(m->global_strides, (std::array<std::uint64_t, 4>{128, 4096, 0, 0}));
  EXPECT_EQ(m->box_dim, (std::array<std::uint32_t, 5>{64, 16, 2, 0, 0}));
  EXPECT_EQ(m->swizzle, Swizzle::k128B);
  const TiledParams back = tiled_params(*m);
  EXPECT_EQ(back.global_dim, p.global_dim);
  EXPECT_EQ(back.box_dim, p.box_dim);
  EXPECT_EQ(encode_tiled(back).value(), *m);

  const Im2colParams q = im2col();
  Result<TensorMap> c = encode_im2col(q);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->mode, Mode::kIm2col);
  EXPECT_EQ(c->pixel_box_lower_corner, (std::array<std::int32_t, 3>{-1, -1, 0}));
  EXPECT_EQ(c->channels_per_pixel, 64u);
  EXPECT_EQ(c->box_dim, (std::array<std::uint32_t, 5>{}));
  EXPECT_EQ(encode_im2col(im2col_params(*c)).value(), *c);
}

TEST(Encoder, PackedBytesRoundUp) {
  EXPECT_EQ(packed_bytes(DataType::kFloat16, 3), 6u);
  EXPECT_EQ(packed_bytes(DataType::k16U4Align8B, 3), 2u);
  EXPECT_EQ(packed_bytes(DataType::k16U6Align16B, 128), 96u);
  EXPECT_EQ(packed_bytes(DataType::kFloat64, 2), 16u);
}

// cuTensorMapEncode accepts strides that do not cover the dimension below (H200 driver,
// tools/silicon); overlapping_strides names each one for `xpusim tma lint`.
TEST(Encoder, OverlappingStridesAreWarningsNotErrors) {
  TiledParams p{.data_type = DataType::kFloat16,
                .rank = 3,
                .global_address = 0x10000,
                .global_dim = {64, 32, 8},
                .global_strides = {112, 2048},
                .box_dim = {64, 8, 1},
                .element_strides = {1, 1, 1}};
  auto m = encode_tiled(p);
  ASSERT_TRUE(m.ok()) << m.error().message;
  const auto w = overlapping_strides(*m);
  ASSERT_EQ(w.size(), 2u);
  EXPECT_EQ(w[0],
            "globalStrides[0] = 112 is less than globalDim[0] x 2 B = 128 B, the extent of "
            "dimension 0: dimensions 0 and 1 overlap (an aliasing view; the driver accepts it)");
  EXPECT_EQ(w[1],
            "globalStrides[1] = 2048 is less than globalStrides[0] x globalDim[1] = 112 x 32 = "
            "3584, the extent of dimension 1: dimensions 1 and 2 overlap (an aliasing view; the "
            "driver accepts it)");
  p.global_strides = {128, 4096};
  EXPECT_TRUE(overlapping_strides(*encode_tiled(p)).empty());
}

}  // namespace
}  // namespace xpusim::tma
