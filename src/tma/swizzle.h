// Shared-memory swizzle of the TMA unit (seed0 ¶139-¶150; CUDA's CUtensorMapSwizzle).
// The swizzle is a function of the CTA-relative shared-memory byte offset (seed0 ¶142: the
// *logical* address, not the physical one): within each 128 B row, the index of a chunk is
// XORed with low bits of the row number. See docs/tma.md for the table of every mode.
#pragma once

#include <cstdint>

#include "tma/tensor_map.h"

namespace xpusim::tma {

// Span in bytes inside which chunks are permuted (0 for kNone): 32, 64 or 128.
std::uint32_t swizzle_span_bytes(Swizzle mode);
// The pattern's repeat (256, 512 or 1024 B; 16 for kNone). A box at a multiple of it starts at
// the pattern's first row, as CUTLASS aligns its tiles; H200 silicon also takes boxes at any
// other 128 B offset and continues the pattern from the offset's bits (tools/silicon).
std::uint32_t swizzle_alignment(Swizzle mode);

// Every mode XORs low bits of the 128 B row number into the offset:
//   offset ^ (((offset >> 7) & row_mask) << shift)  [^ (((offset >> 7) & 1) << 3) for FLIP_8B]
struct SwizzleXor {
  std::uint32_t row_mask;
  std::uint32_t shift;
  bool flip_8b;  // also swap the 8 B halves of every 16 B on odd rows
};

constexpr SwizzleXor swizzle_xor(Swizzle mode) {
  switch (mode) {
    case Swizzle::kNone:
      return {0, 0, false};
    case Swizzle::k32B:  // CUTLASS Swizzle<1,4,3>: bit 4 ^= bit 7
      return {1, 4, false};
    case Swizzle::k64B:  // Swizzle<2,4,3>: bits 4-5 ^= bits 7-8
      return {3, 4, false};
    case Swizzle::k128B:  // Swizzle<3,4,3>: bits 4-6 ^= bits 7-9
      return {7, 4, false};
    case Swizzle::k128BAtom32B:  // 32 B chunks, Swizzle<2,5,2>: bits 5-6 ^= bits 7-8
      return {3, 5, false};
    case Swizzle::k128BAtom32BFlip8B:  // as above, and bit 3 ^= bit 7
      return {3, 5, true};
    case Swizzle::k128BAtom64B:  // 64 B chunks: bit 6 ^= bit 7
      return {1, 6, false};
  }
  return {0, 0, false};
}

// The swizzled offset of `offset` (a bijection on every aligned block of
// swizzle_alignment(mode) bytes; identity for kNone). It never leaves the 128 B row.
inline std::uint32_t swizzle_offset(const SwizzleXor& x, std::uint32_t offset) {
  const std::uint32_t row = offset >> 7;
  return offset ^ ((row & x.row_mask) << x.shift) ^ (x.flip_8b ? (row & 1u) << 3 : 0u);
}
inline std::uint32_t swizzle_offset(Swizzle mode, std::uint32_t offset) {
  return swizzle_offset(swizzle_xor(mode), offset);
}

}  // namespace xpusim::tma
