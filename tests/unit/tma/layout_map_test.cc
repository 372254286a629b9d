#include "tma/layout_map.h"

#include <gtest/gtest.h>

namespace xpusim::tma {
namespace {

// 2-byte elements, rows of 64 (128 B), `rows` rows, box = the whole tensor.
TensorMap rows_map(Swizzle swizzle, std::uint32_t rows) {
  TensorMap m;
  m.mode = Mode::kTiled;
  m.data_type = DataType::kFloat16;
  m.rank = 2;
  m.global_address = 0x10000;
  m.global_dim = {64, rows, 0, 0, 0};
  m.global_strides = {128, 0, 0, 0};
  m.box_dim = {64, rows, 0, 0, 0};
  m.element_strides = {1, 1, 0, 0, 0};
  m.swizzle = swizzle;
  return m;
}

TEST(LayoutMap, Swizzle128BMovesChunksByRowXor) {
  const TensorMap m = rows_map(Swizzle::k128B, 8);
  const std::int32_t coords[] = {0, 0};
  auto layout = map_layout(m, coords);
  ASSERT_TRUE(layout.ok()) << layout.error().message;
  ASSERT_EQ(layout->source.size(), 8u * 128);
  for (std::int64_t r = 0; r < 8; ++r) {
    for (std::int64_t c = 0; c < 8; ++c) {
      for (std::int64_t b = 0; b < 16; ++b) {
        // Shared chunk c of row r holds global chunk c ^ r of the same row.
        EXPECT_EQ(layout->source[static_cast<std::size_t>(r * 128 + 16 * c + b)],
                  r * 128 + 16 * (c ^ r) + b)
            << r << "," << c << "," << b;
      }
    }
  }
}

TEST(LayoutMap, WithoutSwizzleTheBoxIsDense) {
  const TensorMap m = rows_map(Swizzle::kNone, 4);
  const std::int32_t coords[] = {0, 0};
  auto layout = map_layout(m, coords);
  ASSERT_TRUE(layout.ok());
  for (std::size_t i = 0; i < layout->source.size(); ++i) {
    EXPECT_EQ(layout->source[i], static_cast<std::int64_t>(i));
  }
}

TEST(LayoutMap, OutOfBoundsBytesAreMarked) {
  TensorMap m = rows_map(Swizzle::kNone, 2);
  const std::int32_t coords[] = {-8, 0};  // the first 8 elements (16 B) of each row are outside
  auto layout = map_layout(m, coords);
  ASSERT_TRUE(layout.ok());
  for (std::size_t row = 0; row < 2; ++row) {
    for (std::size_t b = 0; b < 128; ++b) {
      const auto v = layout->source[row * 128 + b];
      if (b < 16) {
        EXPECT_EQ(v, LayoutMap::kOobFill) << row << "," << b;
      } else {
        EXPECT_EQ(v, static_cast<std::int64_t>(row * 128 + b - 16)) << row << "," << b;
      }
    }
  }
}

TEST(LayoutMap, BadRequestsAreErrors) {
  const TensorMap m = rows_map(Swizzle::kNone, 2);
  const std::int32_t one[] = {0};
  EXPECT_FALSE(map_layout(m, one).ok());
}

TEST(LayoutMap, ElementCoordsPeelPaddedStrides) {
  TensorMap m;
  m.rank = 3;
  m.data_type = DataType::kFloat32;
  m.global_dim = {10, 5, 3, 0, 0};
  m.global_strides = {48, 48 * 6, 0, 0};  // 40 B rows padded to 48, 5 rows padded to 6
  const std::uint64_t off = 2 * 288 + 4 * 48 + 7 * 4;
  auto c = element_coords(m, off);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ((*c)[0], 7u);
  EXPECT_EQ((*c)[1], 4u);
  EXPECT_EQ((*c)[2], 2u);
  m.global_strides = {32, 288, 0, 0};  // a 40 B row does not fit a 32 B stride
  EXPECT_FALSE(element_coords(m, off).has_value());
}

TEST(LayoutMap, TextAndSvgShowEveryChunk) {
  const TensorMap m = rows_map(Swizzle::k128B, 8);
  const std::int32_t coords[] = {0, 0};
  auto layout = map_layout(m, coords);
  ASSERT_TRUE(layout.ok());
  const std::string text = layout_text(m, *layout);
  // Header + 8 rows; row 1's first chunk came from global chunk 1 (elements 8..15) of row 1.
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 9);
  EXPECT_NE(text.find("b28-31"), std::string::npos);
  EXPECT_NE(text.find("    0x80   1,8   1,0  1,24"), std::string::npos) << text;
  const std::string svg = layout_svg(m, *layout, "t");
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  std::size_t rects = 0;
  for (std::size_t p = svg.find("<rect"); p != std::string::npos; p = svg.find("<rect", p + 1)) {
    ++rects;
  }
  EXPECT_EQ(rects, 1u + 64u);  // background + 8 rows x 8 chunks
}

}  // namespace
}  // namespace xpusim::tma
