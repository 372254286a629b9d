// The host's device-memory allocator: 1 MiB-aligned placement from 0x10000000, reservations
// at fixed addresses, and one-line errors at hbm.capacity (sizes near 2^64 included).
#include "system/device_allocator.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace xpusim::system {
namespace {

constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;

TEST(DeviceAllocator, PlacesBuffersOnePastAnotherAtMiBBoundaries) {
  DeviceAllocator a(64 * kMiB);
  EXPECT_EQ(a.allocate("x", 10).value(), 0x1000'0000u);
  EXPECT_EQ(a.allocate("y", kMiB + 1).value(), 0x1000'0000u + kMiB);
  EXPECT_EQ(a.allocate("z", 1).value(), 0x1000'0000u + 3 * kMiB);
  EXPECT_EQ(a.used(), 3 * kMiB + 1);
  EXPECT_EQ(a.buffers(), 3u);
}

TEST(DeviceAllocator, ReservedBuffersComeFirstAndAllocationsFollowThem) {
  DeviceAllocator a(64 * kMiB);
  ASSERT_TRUE(a.reserve("", 0x1000'0000, 5 * kMiB).ok());
  ASSERT_TRUE(a.reserve("", 0x1000'0000 + 8 * kMiB, 1).ok());
  EXPECT_EQ(a.allocate("w", 4).value(), 0x1000'0000u + 9 * kMiB);
  EXPECT_EQ(a.reserve("v", 0x1000'0000, 1).error().message,
            "v: 0x10000000 is below the buffers already placed (they end at 0x10900004) or not "
            "on a 1 MiB boundary");
}

TEST(DeviceAllocator, ABufferBeyondTheCapacityIsANamedError) {
  DeviceAllocator a(16 * kMiB);
  ASSERT_TRUE(a.allocate("a", 10 * kMiB).ok());
  EXPECT_EQ(a.allocate("gemm.mm: C", 8 * kMiB).error().message,
            "gemm.mm: C: 8 MiB at 0x10a00000: the buffers would span 18 MiB from 0x10000000, "
            "more than the chip's 16 MiB of memory (hbm.capacity)");
  EXPECT_FALSE(a.allocate("huge", ~std::uint64_t{0}).ok());
  EXPECT_FALSE(a.allocate("huge", ~std::uint64_t{0} - 3 * kMiB).ok());
  EXPECT_EQ(a.allocate("zero", 0).error().message, "zero: a buffer of 0 bytes");
  EXPECT_EQ(a.buffers(), 1u) << "a refused buffer takes nothing";
  EXPECT_EQ(a.allocate("rest", 6 * kMiB).value(), 0x1000'0000u + 10 * kMiB);
}

}  // namespace
}  // namespace xpusim::system
