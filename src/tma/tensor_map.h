// TensorMap: the tensor descriptor of the TMA unit (seed0 ¶73-¶82), with exactly the
// parameters of CUDA 13's cuTensorMapEncodeTiled / cuTensorMapEncodeIm2col (cuda.h). Enum
// values equal CUDA's, so a CUtensorMap built on a real GPU and ours take the same inputs.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace xpusim::tma {

inline constexpr std::uint32_t kMaxRank = 5;

enum class DataType : std::uint8_t {
  kUint8 = 0,
  kUint16,
  kUint32,
  kInt32,
  kUint64,
  kInt64,
  kFloat16,
  kFloat32,
  kFloat64,
  kBfloat16,
  kFloat32Ftz,
  kTfloat32,
  kTfloat32Ftz,
  k16U4Align8B,   // 16 x U4 packed in 8 bytes
  k16U4Align16B,  // 16 x U4 packed in 8 bytes + 8 bytes gap
  k16U6Align16B,  // 16 x U6 packed in 12 bytes + 4 bytes gap
};

enum class Interleave : std::uint8_t { kNone = 0, k16B, k32B };

enum class Swizzle : std::uint8_t {
  kNone = 0,
  k32B,                // 16 B chunks within a 32 B span
  k64B,                // 16 B chunks within a 64 B span
  k128B,               // 16 B chunks within a 128 B span
  k128BAtom32B,        // 32 B chunks within a 128 B span
  k128BAtom32BFlip8B,  // ... and swap 8 B halves of each 16 B on alternate rows
  k128BAtom64B,        // 64 B chunks within a 128 B span
};

enum class L2Promotion : std::uint8_t { kNone = 0, k64B, k128B, k256B };

// kConstant is an xpusim extension (seed0 ¶78-80: "0 or a programmed constant"): out-of-bounds
// elements read TensorMap::oob_fill_value. CUDA's CUtensorMapFloatOOBfill has only the first two,
// so `xpusim tma lint --cuda` refuses it.
enum class OobFill : std::uint8_t { kNone = 0, kNanRequestZeroFma, kConstant };

enum class Mode : std::uint8_t { kTiled = 0, kIm2col };

// A validated descriptor (built only by encode_tiled / encode_im2col, or decoded from a blob
// and re-validated). Unused trailing entries are zero.
struct TensorMap {
  Mode mode = Mode::kTiled;
  DataType data_type = DataType::kUint8;
  std::uint32_t rank = 1;
  std::uint64_t global_address = 0;
  std::array<std::uint64_t, kMaxRank> global_dim{};
  // Byte stride of dimension i+1 (cuda.h's globalStrides[i]); rank-1 entries used.
  std::array<std::uint64_t, kMaxRank - 1> global_strides{};
  std::array<std::uint32_t, kMaxRank> box_dim{};          // tiled mode
  std::array<std::uint32_t, kMaxRank> element_strides{};  // both modes, 1..8
  Interleave interleave = Interleave::kNone;
  Swizzle swizzle = Swizzle::kNone;
  L2Promotion l2_promotion = L2Promotion::kNone;
  OobFill oob_fill = OobFill::kNone;
  // oob_fill == kConstant: the fill element's bits (element_bits wide, little-endian in
  // memory); otherwise 0.
  std::uint64_t oob_fill_value = 0;
  // im2col mode: corner offsets of spatial dimension i+1 (W, H, D for i = 0, 1, 2), rank-2
  // entries used
  std::array<std::int32_t, kMaxRank - 2> pixel_box_lower_corner{};
  std::array<std::int32_t, kMaxRank - 2> pixel_box_upper_corner{};
  std::uint32_t channels_per_pixel = 0;
  std::uint32_t pixels_per_column = 0;

  friend bool operator==(const TensorMap&, const TensorMap&) = default;
};

// Size of one element in bits (4, 6, 8, 16, 32, 64) and, for the packed types, the bytes one
// 16-element group occupies in memory (8 or 16).
std::uint32_t element_bits(DataType t);
bool is_float(DataType t);
bool is_packed(DataType t);
std::string_view name(DataType t);
std::string_view name(Interleave i);
std::string_view name(Swizzle s);
std::string_view name(L2Promotion p);
std::string_view name(OobFill f);

}  // namespace xpusim::tma
