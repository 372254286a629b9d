#include "tma/swizzle_copy.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace xpusim::tma {
namespace {

// Each row copier must put source byte b of row k exactly at swizzle_offset(off + k*128 + b).
void expect_matches_swizzle_offset(SwizzledRowCopy copy, Swizzle mode) {
  std::mt19937_64 gen(static_cast<std::uint64_t>(mode) + 1);
  constexpr std::uint64_t kRows = 37;  // more than the 8-row repeat, not a multiple of it
  std::vector<std::byte> src(kRows * 128);
  for (auto& b : src)
    b = static_cast<std::byte>(gen());
  for (const std::uint64_t off : {std::uint64_t{0}, std::uint64_t{128}, std::uint64_t{5 * 128}}) {
    std::vector<std::byte> window(off + kRows * 128 + 1024, std::byte{0xEE});
    copy(window.data(), off, src.data(), kRows, swizzle_xor(mode));
    for (std::uint64_t i = 0; i < src.size(); ++i) {
      const auto at = swizzle_offset(mode, static_cast<std::uint32_t>(off + i));
      ASSERT_EQ(window[at], src[i]) << name(mode) << " off " << off << " byte " << i;
    }
  }
}

constexpr Swizzle kRowModes[] = {Swizzle::kNone, Swizzle::k32B,         Swizzle::k64B,
                                 Swizzle::k128B, Swizzle::k128BAtom32B, Swizzle::k128BAtom64B};

TEST(SwizzleCopy, PortableRowsMatchSwizzleOffset) {
  for (Swizzle m : kRowModes)
    expect_matches_swizzle_offset(&copy_rows_swizzled_portable, m);
}

TEST(SwizzleCopy, Avx2RowsMatchSwizzleOffset) {
  const SwizzledRowCopy avx2 = copy_rows_swizzled_avx2();
  if (avx2 == nullptr) GTEST_SKIP() << "host has no AVX2";
  for (Swizzle m : kRowModes)
    expect_matches_swizzle_offset(avx2, m);
}

TEST(SwizzleCopy, DispatchPicksAnImplementation) {
  const SwizzledRowCopy best = copy_rows_swizzled();
  ASSERT_NE(best, nullptr);
  if (copy_rows_swizzled_avx2() != nullptr) {
    EXPECT_EQ(best, copy_rows_swizzled_avx2());
  }
}

}  // namespace
}  // namespace xpusim::tma
