// BufferMap against a naive reference: an access is allowed when some buffer holds every byte.
#include "mem/buffer_map.h"

#include <gtest/gtest.h>

#include <vector>

namespace xpusim::mem {
namespace {

TEST(BufferMap, AnAccessIsAllowedExactlyWhenOneBufferHoldsEveryByte) {
  BufferMap m;
  m.add("b", 0x3000, 0x100);  // out of order on purpose
  m.add("a", 0x1000, 0x1000);
  m.add("c", 0x3100, 0x10);  // adjacent to b: a span across both is still outside
  struct Ref {
    Addr base, bytes;
  };
  const std::vector<Ref> ref = {{0x1000, 0x1000}, {0x3000, 0x100}, {0x3100, 0x10}};
  for (Addr a = 0xF00; a < 0x3200; a += 4) {
    for (std::uint64_t n : {1u, 4u, 16u, 0x100u}) {
      bool inside = false;
      for (const Ref& r : ref)
        inside |= a >= r.base && a + n <= r.base + r.bytes;
      ASSERT_EQ(m.contains(a, n), inside) << std::hex << a << " " << n;
      ASSERT_EQ(m.check("load", a, n).ok(), inside);
    }
  }
  EXPECT_FALSE(m.contains(~Addr{0} - 1, 8));  // no wrap past 2^64
}

TEST(BufferMap, TheErrorNamesTheAccessAndTheNearestBuffer) {
  BufferMap m;
  m.add("src", 0x1000, 0x100);
  EXPECT_EQ(m.check("store", 0x1100, 4).error().message,
            "store of 4 bytes at 0x1100 is outside every buffer (0 bytes past the end of 'src' "
            "[0x1000, 0x1100))");
  EXPECT_EQ(m.check("load", 0x10FE, 4).error().message,
            "load of 4 bytes at 0x10fe is outside every buffer (running 2 bytes past the end of "
            "'src' [0x1000, 0x1100))");
  EXPECT_EQ(m.check("load", 0xF00, 4).error().message,
            "load of 4 bytes at 0xf00 is outside every buffer (256 bytes before 'src' [0x1000, "
            "0x1100))");
  EXPECT_EQ(BufferMap().check("load", 0, 4).error().message,
            "load of 4 bytes at 0x0 is outside every buffer (no buffer is allocated)");
}

}  // namespace
}  // namespace xpusim::mem
