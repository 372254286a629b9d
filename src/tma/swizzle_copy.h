// The hot loop of swizzled box loads: copy whole 128 B rows from global bytes into shared
// memory, each 16 B chunk to swizzle_offset() of its position. Two implementations with the
// same result: portable 16 B moves, and (x86-64 with AVX2, picked at run time) 32 B moves —
// every mode but FLIP_8B is "swap the 16 B halves of each 32 B granule, then XOR the granule
// index", so a row is 4 loads, at most 4 lane swaps and 4 stores.
#pragma once

#include <cstdint>

#include "tma/swizzle.h"

namespace xpusim::tma {

// `rows` rows of 128 B: src[k*128 .. +128) goes to window[off + k*128 ..] through the swizzle.
// `off` (the CTA-relative offset of the first row) must be a multiple of 128; x.flip_8b false.
using SwizzledRowCopy = void (*)(std::byte* window, std::uint64_t off, const std::byte* src,
                                 std::uint64_t rows, SwizzleXor x);

void copy_rows_swizzled_portable(std::byte* window, std::uint64_t off, const std::byte* src,
                                 std::uint64_t rows, SwizzleXor x);
// nullptr when the host has no AVX2 (or is not x86-64).
SwizzledRowCopy copy_rows_swizzled_avx2();
// The fastest implementation this host runs.
SwizzledRowCopy copy_rows_swizzled();

}  // namespace xpusim::tma
