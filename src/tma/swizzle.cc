#include "tma/swizzle.h"

namespace xpusim::tma {

std::uint32_t swizzle_span_bytes(Swizzle mode) {
  switch (mode) {
    case Swizzle::kNone:
      return 0;
    case Swizzle::k32B:
      return 32;
    case Swizzle::k64B:
      return 64;
    default:
      return 128;
  }
}

std::uint32_t swizzle_alignment(Swizzle mode) {
  // The pattern repeats after 2, 4 or 8 rows of 128 B.
  switch (mode) {
    case Swizzle::kNone:
      return 16;
    case Swizzle::k32B:
      return 256;
    case Swizzle::k64B:
    case Swizzle::k128BAtom32B:
    case Swizzle::k128BAtom32BFlip8B:
      return 512;
    case Swizzle::k128B:
      return 1024;
    case Swizzle::k128BAtom64B:
      return 256;
  }
  return 16;
}

}  // namespace xpusim::tma
