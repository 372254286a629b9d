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
// Required alignment of the shared-memory destination of a swizzled box, so that the
// pattern's rows line up with the address bits it is keyed on (PTX: 128B swizzle needs a
// 1024 B aligned destination). 16 for kNone.
std::uint32_t swizzle_alignment(Swizzle mode);

// The swizzled offset of `offset` (a bijection on every aligned block of
// swizzle_alignment(mode) bytes; identity for kNone).
inline std::uint32_t swizzle_offset(Swizzle mode, std::uint32_t offset) {
  const std::uint32_t row = offset >> 7;  // 128 B rows
  switch (mode) {
    case Swizzle::kNone:
      return offset;
    case Swizzle::k32B:  // CUTLASS Swizzle<1,4,3>: bit 4 ^= bit 7
      return offset ^ ((row & 1u) << 4);
    case Swizzle::k64B:  // Swizzle<2,4,3>: bits 4-5 ^= bits 7-8
      return offset ^ ((row & 3u) << 4);
    case Swizzle::k128B:  // Swizzle<3,4,3>: bits 4-6 ^= bits 7-9
      return offset ^ ((row & 7u) << 4);
    case Swizzle::k128BAtom32B:  // 32 B chunks: bits 5-6 ^= bits 7-8
      return offset ^ ((row & 3u) << 5);
    case Swizzle::k128BAtom32BFlip8B:  // as above, and 8 B halves swap on odd rows: bit 3 ^= bit 7
      return offset ^ ((row & 3u) << 5) ^ ((row & 1u) << 3);
    case Swizzle::k128BAtom64B:  // 64 B chunks: bit 6 ^= bit 7
      return offset ^ ((row & 1u) << 6);
  }
  return offset;
}

}  // namespace xpusim::tma
