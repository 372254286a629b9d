#include "mem/pattern.h"

#include <gtest/gtest.h>

#include <vector>

namespace xpusim::mem {
namespace {

// SplitMix64 written out from its published definition (Steele, Lea, Flood 2014; Vigna's
// constants), independently of sim/rng.h: the pattern's documented meaning.
std::uint64_t reference_splitmix(std::uint64_t x) {
  std::uint64_t z = x + 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

TEST(Pattern, ParsesTheDocumentedNames) {
  EXPECT_EQ(parse_pattern("zero"), Pattern::kZero);
  EXPECT_EQ(parse_pattern("address"), Pattern::kAddress);
  EXPECT_EQ(parse_pattern("splitmix"), Pattern::kSplitmix);
  EXPECT_FALSE(parse_pattern("random").has_value());
  EXPECT_EQ(pattern_names(), "zero, address, splitmix");
}

TEST(Pattern, BytesFollowTheirDefinitions) {
  for (std::uint64_t a : {0ULL, 1ULL, 255ULL, 4096ULL, 0x7f0012345678ULL}) {
    EXPECT_EQ(pattern_byte(Pattern::kZero, a), std::byte{0});
    EXPECT_EQ(pattern_byte(Pattern::kAddress, a), static_cast<std::byte>(a & 0xff));
    EXPECT_EQ(pattern_byte(Pattern::kSplitmix, a),
              static_cast<std::byte>(reference_splitmix(a) & 0xff));
  }
}

TEST(Pattern, FillsGlobalMemoryAcrossPagesAndChunks) {
  GlobalMemory g;
  const Addr base = 0x1000 - 7;
  const std::uint64_t n = 70'000;  // more than one internal chunk, several pages
  ASSERT_TRUE(fill_pattern(g, base, n, Pattern::kSplitmix).ok());
  std::vector<std::byte> back(n);
  ASSERT_TRUE(g.read(base, back).ok());
  for (std::uint64_t i = 0; i < n; i += 997) {
    EXPECT_EQ(back[i], static_cast<std::byte>(reference_splitmix(base + i) & 0xff)) << i;
  }
  EXPECT_EQ(back[n - 1], static_cast<std::byte>(reference_splitmix(base + n - 1) & 0xff));
}

TEST(Pattern, FillsSharedMemoryByOffset) {
  SharedMemory s(300);
  fill_pattern(s, Pattern::kAddress);
  EXPECT_EQ(s.bytes()[0], std::byte{0});
  EXPECT_EQ(s.bytes()[299], std::byte{299 & 0xff});
}

}  // namespace
}  // namespace xpusim::mem
