// Bit-exact conversions between fp32 and the narrow float formats the simulator's data paths
// consume (TMA reductions, the `mm` tensor multiply). Header-only; no FTZ anywhere.
//   half_to_float / bf16_to_float: exact (every f16/bf16 value, subnormals included, is a float).
//   float_to_half / float_to_bf16: round to nearest, ties to even; overflow goes to infinity;
//     any NaN becomes the canonical NaN 0x7FFF (PTX/CUDA canonical f16/bf16 NaN).
//   tf32_truncate: how a tensor core consumes raw fp32 bits as tf32 — the low 13 mantissa bits
//     are dropped (truncation, not rounding). A NaN stays a NaN (quiet bit set), so a NaN whose
//     payload sits only in the dropped bits does not turn into an infinity.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>

namespace xpusim {

inline constexpr std::uint16_t kCanonicalNan16 = 0x7FFF;

inline float half_to_float(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000) << 16;
  const std::uint32_t exp = h >> 10 & 0x1F, mant = h & 0x3FF;
  if (exp == 0) {  // zero or subnormal: mant * 2^-24, exact in float
    const float v = std::ldexp(static_cast<float>(mant), -24);
    return sign ? -v : v;
  }
  if (exp == 31) return std::bit_cast<float>(sign | 0x7F800000 | mant << 13);
  return std::bit_cast<float>(sign | (exp + 112) << 23 | mant << 13);
}

inline std::uint16_t float_to_half(float f) {  // round to nearest even
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(f);
  const auto sign = static_cast<std::uint16_t>(bits >> 16 & 0x8000);
  const std::uint32_t mag = bits & 0x7FFFFFFF;
  if (mag > 0x7F800000) return kCanonicalNan16;
  if (mag >= 0x477FF000) return sign | 0x7C00;  // >= 65520 rounds to infinity
  if (mag < 0x38800000) {                       // below 2^-14: subnormal half (or zero)
    // |f| * 2^24 < 1024 is exact; rint rounds half to even in the default mode.
    const auto q = static_cast<std::uint16_t>(std::rint(std::ldexp(std::fabs(f), 24)));
    return sign | q;  // q == 1024 is the smallest normal, which is its own encoding
  }
  std::uint32_t u = mag - (112u << 23);  // rebias the exponent from 127 to 15
  u += 0xFFF + (u >> 13 & 1);
  return sign | static_cast<std::uint16_t>(u >> 13);
}

inline float bf16_to_float(std::uint16_t b) {
  return std::bit_cast<float>(std::uint32_t{b} << 16);
}

inline std::uint16_t float_to_bf16(float f) {  // round to nearest even
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(f);
  if ((bits & 0x7FFFFFFF) > 0x7F800000) return kCanonicalNan16;
  return static_cast<std::uint16_t>((bits + 0x7FFF + (bits >> 16 & 1)) >> 16);
}

inline float tf32_truncate(float f) {
  std::uint32_t bits = std::bit_cast<std::uint32_t>(f);
  const bool nan = (bits & 0x7FFFFFFF) > 0x7F800000;
  bits &= ~std::uint32_t{0x1FFF};
  if (nan) bits |= 0x00400000;
  return std::bit_cast<float>(bits);
}

}  // namespace xpusim
