// Tile-mode loads, stores and prefetches against a naive reference, and the shared helpers.
#include <gtest/gtest.h>

#include <array>
#include <vector>

#include "tma/copy_engine.h"

namespace xpusim::tma {
namespace {

TEST(CopyHelpers, LineRequestsSplitAt128ByteBoundaries) {
  std::vector<GlobalRequest> r;
  append_line_requests(r, 0x1070, 0x120);  // 0x1070..0x1190
  const std::vector<GlobalRequest> want = {
      {0x1070, 0x10}, {0x1080, 0x80}, {0x1100, 0x80}, {0x1180, 0x10}};
  EXPECT_EQ(r, want);
  append_line_requests(r, 0x2000, 0);
  EXPECT_EQ(r.size(), 4u);
  r.clear();
  append_line_requests(r, 0x2000, 128);
  EXPECT_EQ(r, (std::vector<GlobalRequest>{{0x2000, 128}}));
}

TEST(CopyHelpers, OobFillPatternIsZeroOrCanonicalNan) {
  TensorMap m;
  m.data_type = DataType::kFloat16;
  EXPECT_EQ(oob_fill_pattern(m), std::vector<std::byte>(2, std::byte{0}));
  m.oob_fill = OobFill::kNanRequestZeroFma;
  EXPECT_EQ(oob_fill_pattern(m), (std::vector<std::byte>{std::byte{0xFF}, std::byte{0x7F}}));
  m.data_type = DataType::kBfloat16;
  EXPECT_EQ(oob_fill_pattern(m), (std::vector<std::byte>{std::byte{0xFF}, std::byte{0x7F}}));
  for (DataType t :
       {DataType::kFloat32, DataType::kFloat32Ftz, DataType::kTfloat32, DataType::kTfloat32Ftz}) {
    m.data_type = t;
    EXPECT_EQ(oob_fill_pattern(m), (std::vector<std::byte>{std::byte{0xFF}, std::byte{0xFF},
                                                           std::byte{0xFF}, std::byte{0x7F}}));
  }
  m.data_type = DataType::kFloat64;
  std::vector<std::byte> f64(8, std::byte{0xFF});
  f64[7] = std::byte{0x7F};
  EXPECT_EQ(oob_fill_pattern(m), f64);
  m.data_type = DataType::kInt32;  // not a float: zeros whatever the fill mode
  EXPECT_EQ(oob_fill_pattern(m), std::vector<std::byte>(4, std::byte{0}));
  m.data_type = DataType::kUint64;
  m.oob_fill = OobFill::kNone;
  EXPECT_EQ(oob_fill_pattern(m), std::vector<std::byte>(8, std::byte{0}));
}

TEST(CopyHelpers, MulticastTargetsFollowTheMask) {
  mem::SharedMemory a(1024), b(1024), c(1024);
  std::array<mem::SharedMemory*, 3> cluster = {&a, &b, &c};
  auto t = multicast_targets(cluster, 0b101, 256);
  ASSERT_TRUE(t.ok());
  ASSERT_EQ(t->size(), 2u);
  EXPECT_EQ((*t)[0].smem, &a);
  EXPECT_EQ((*t)[1].smem, &c);
  EXPECT_EQ((*t)[1].offset, 256u);
  auto bad = multicast_targets(cluster, 0b1001, 0);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("rank 3"), std::string::npos) << bad.error().message;
  EXPECT_FALSE(multicast_targets(cluster, 0, 0).ok());
}

TEST(CopyHelpers, BoxBytesPerModeAndType) {
  TensorMap m;
  m.rank = 3;
  m.data_type = DataType::kFloat16;
  m.box_dim = {64, 10, 7, 0, 0};
  m.element_strides = {4, 2, 3, 1, 1};  // dim-0 stride ignored without interleave
  EXPECT_EQ(box_bytes(m), 64u * 2 * 5 * 3);
  m.interleave = Interleave::k16B;  // now honoured: ceil(64/4) = 16
  EXPECT_EQ(box_bytes(m), 16u * 2 * 5 * 3);
  m.interleave = Interleave::kNone;
  m.data_type = DataType::k16U4Align8B;  // 4 bits per value
  EXPECT_EQ(box_bytes(m), 32u * 5 * 3);
  m.data_type = DataType::k16U4Align16B;  // 16 values per 16 B in shared memory
  m.box_dim[0] = 128;
  EXPECT_EQ(box_bytes(m), 128u * 5 * 3);
  m.data_type = DataType::k16U6Align16B;
  EXPECT_EQ(box_bytes(m), 128u * 5 * 3);
  TensorMap im;
  im.mode = Mode::kIm2col;
  im.rank = 4;
  im.data_type = DataType::kBfloat16;
  im.channels_per_pixel = 16;
  im.pixels_per_column = 64;
  im.element_strides = {1, 2, 2, 1, 1};
  EXPECT_EQ(box_bytes(im), 16u * 64 * 2);
}

}  // namespace
}  // namespace xpusim::tma
