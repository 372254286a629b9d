// What a load does to element values on their way to shared memory. Measured on H200 silicon
// (tools/silicon, docs/tma.md "Silicon conformance"): TFLOAT32 and TFLOAT32_FTZ elements are
// rounded to tf32 (10 mantissa bits, round to nearest even, denormals rounded like the rest,
// not flushed; the largest floats round up to infinity), and every NaN becomes 0x7FFFE000.
// FLOAT32_FTZ and every other type arrive unchanged.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>

#include "tma/tensor_map.h"

namespace xpusim::tma {

inline bool load_converts(DataType t) {
  return t == DataType::kTfloat32 || t == DataType::kTfloat32Ftz;
}

inline std::uint32_t round_to_tf32(std::uint32_t v) {
  if ((v & 0x7F800000u) == 0x7F800000u && (v & 0x7FFFFFu) != 0) return 0x7FFFE000u;
  const std::uint32_t keep = (v >> 13) & 1u;  // ties go to the even tf32 value
  return (v + 0xFFFu + keep) & ~0x1FFFu;
}

// Rounds the 4-byte elements of `bytes` (a whole number of them) in place.
inline void round_to_tf32(std::span<std::byte> bytes) {
  for (std::size_t i = 0; i + 4 <= bytes.size(); i += 4) {
    std::uint32_t v;
    std::memcpy(&v, bytes.data() + i, 4);
    v = round_to_tf32(v);
    std::memcpy(bytes.data() + i, &v, 4);
  }
}

}  // namespace xpusim::tma
