#include "tma/swizzle_copy.h"

#include <cstring>
#include <utility>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace xpusim::tma {

void copy_rows_swizzled_portable(std::byte* window, std::uint64_t off, const std::byte* src,
                                 std::uint64_t rows, SwizzleXor x) {
  for (std::uint64_t k = 0; k < rows; ++k, off += 128, src += 128) {
    std::byte* __restrict row = window + off;
    const std::byte* __restrict s = src;
    const std::uint64_t r = ((off >> 7) & x.row_mask) << x.shift;
    // Written out: each move is a load, an XOR with a constant and a store.
    std::memcpy(row + (0x00 ^ r), s + 0x00, 16);
    std::memcpy(row + (0x10 ^ r), s + 0x10, 16);
    std::memcpy(row + (0x20 ^ r), s + 0x20, 16);
    std::memcpy(row + (0x30 ^ r), s + 0x30, 16);
    std::memcpy(row + (0x40 ^ r), s + 0x40, 16);
    std::memcpy(row + (0x50 ^ r), s + 0x50, 16);
    std::memcpy(row + (0x60 ^ r), s + 0x60, 16);
    std::memcpy(row + (0x70 ^ r), s + 0x70, 16);
  }
}

#if defined(__x86_64__)
namespace {

// One row with a compile-time XOR R (bits 4-6 of the offset): a 16 B chunk XOR swaps the
// halves of every 32 B granule, the granule XOR picks where each granule is stored.
template <std::uint64_t R>
__attribute__((target("avx2"), always_inline)) inline void row_avx2(std::byte* dst,
                                                                    const std::byte* src) {
  constexpr std::uint64_t g = (R >> 5) & 3;
  auto* d = reinterpret_cast<__m256i*>(dst);
  const auto* s = reinterpret_cast<const __m256i*>(src);
  __m256i v0 = _mm256_loadu_si256(s + 0), v1 = _mm256_loadu_si256(s + 1);
  __m256i v2 = _mm256_loadu_si256(s + 2), v3 = _mm256_loadu_si256(s + 3);
  if constexpr ((R & 0x10) != 0) {
    v0 = _mm256_permute4x64_epi64(v0, 0x4E), v1 = _mm256_permute4x64_epi64(v1, 0x4E);
    v2 = _mm256_permute4x64_epi64(v2, 0x4E), v3 = _mm256_permute4x64_epi64(v3, 0x4E);
  }
  _mm256_storeu_si256(d + (0 ^ g), v0);
  _mm256_storeu_si256(d + (1 ^ g), v1);
  _mm256_storeu_si256(d + (2 ^ g), v2);
  _mm256_storeu_si256(d + (3 ^ g), v3);
}

// The XOR repeats every Mask+1 rows: unroll one period so every row's XOR is a constant.
template <std::uint32_t Mask, std::uint32_t Shift, std::size_t... K>
__attribute__((target("avx2"), always_inline)) inline void period_avx2(std::byte* dst,
                                                                       const std::byte* src,
                                                                       std::index_sequence<K...>) {
  (row_avx2<(std::uint64_t{K} << Shift)>(dst + 128 * K, src + 128 * K), ...);
}

template <std::uint32_t Mask, std::uint32_t Shift>
__attribute__((target("avx2"))) void copy_rows_avx2(std::byte* window, std::uint64_t off,
                                                    const std::byte* src, std::uint64_t rows,
                                                    SwizzleXor x) {
  constexpr std::uint64_t kPeriod = Mask + 1;
  std::uint64_t k = 0;
  // Rows before the first period boundary, then whole periods, then the rest.
  for (; k < rows && ((off >> 7) + k) % kPeriod != 0; ++k) {
    copy_rows_swizzled_portable(window, off + 128 * k, src + 128 * k, 1, x);
  }
  for (; k + kPeriod <= rows; k += kPeriod) {
    period_avx2<Mask, Shift>(window + off + 128 * k, src + 128 * k,
                             std::make_index_sequence<kPeriod>{});
  }
  if (k < rows) copy_rows_swizzled_portable(window, off + 128 * k, src + 128 * k, rows - k, x);
}

void copy_rows_avx2_any(std::byte* window, std::uint64_t off, const std::byte* src,
                        std::uint64_t rows, SwizzleXor x) {
  switch (x.row_mask << 4 | x.shift) {
    case 0 << 4 | 0:
      return copy_rows_avx2<0, 0>(window, off, src, rows, x);
    case 1 << 4 | 4:
      return copy_rows_avx2<1, 4>(window, off, src, rows, x);
    case 3 << 4 | 4:
      return copy_rows_avx2<3, 4>(window, off, src, rows, x);
    case 7 << 4 | 4:
      return copy_rows_avx2<7, 4>(window, off, src, rows, x);
    case 3 << 4 | 5:
      return copy_rows_avx2<3, 5>(window, off, src, rows, x);
    case 1 << 4 | 6:
      return copy_rows_avx2<1, 6>(window, off, src, rows, x);
    default:  // no other XOR form exists (swizzle.h); stay correct if one is added
      return copy_rows_swizzled_portable(window, off, src, rows, x);
  }
}

}  // namespace
#endif

SwizzledRowCopy copy_rows_swizzled_avx2() {
#if defined(__x86_64__)
  if (__builtin_cpu_supports("avx2")) return &copy_rows_avx2_any;
#endif
  return nullptr;
}

SwizzledRowCopy copy_rows_swizzled() {
  static const SwizzledRowCopy best = [] {
    const SwizzledRowCopy avx2 = copy_rows_swizzled_avx2();
    return avx2 != nullptr ? avx2 : &copy_rows_swizzled_portable;
  }();
  return best;
}

}  // namespace xpusim::tma
