#include "mem/shared_memory.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "sim/rng.h"

namespace xpusim::mem {
namespace {

std::vector<std::byte> pattern(std::size_t n, std::uint8_t seed) {
  std::vector<std::byte> v(n);
  for (std::size_t i = 0; i < n; ++i)
    v[i] = static_cast<std::byte>(seed + i * 13);
  return v;
}

std::string window_error(std::uint64_t begin, std::uint64_t end, std::uint64_t size) {
  return fmt::format(
      "shared memory access of {} bytes at offset {} is outside the CTA window [0, {}) (shared "
      "memory is per CTA; size it with the launch's shared-memory bytes)",
      end - begin, begin, size);
}

TEST(SharedMemory, HugeRangesAreNamedWithoutWrapping) {
  SharedMemory s(64);
  const auto st = s.check_range(~std::uint64_t{0}, 2);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message,
            "shared memory access of 2 bytes at offset 18446744073709551615 is outside the CTA "
            "window [0, 64) (shared memory is per CTA; size it with the launch's shared-memory "
            "bytes)");
}

TEST(SharedMemory, StartsZeroedWithItsSize) {
  SharedMemory s(1024);
  EXPECT_EQ(s.size(), 1024u);
  std::vector<std::byte> out(1024, std::byte{0xEE});
  ASSERT_TRUE(s.read(0, out).ok());
  for (const std::byte b : out)
    ASSERT_EQ(b, std::byte{0});
}

TEST(SharedMemory, WriteThenReadInsideTheWindow) {
  SharedMemory s(4096);
  const auto data = pattern(300, 5);
  ASSERT_TRUE(s.write(4096 - 300, data).ok());  // ends exactly at the window's end
  std::vector<std::byte> out(300);
  ASSERT_TRUE(s.read(4096 - 300, out).ok());
  EXPECT_EQ(out, data);
  // bytes() is the same storage.
  EXPECT_EQ(s.bytes()[4096 - 300], data[0]);
  EXPECT_EQ(s.bytes().size(), 4096u);
}

TEST(SharedMemory, ReadPastTheWindowIsAnErrorAndLeavesTheOutputAlone) {
  SharedMemory s(1024);
  std::vector<std::byte> out(8, std::byte{0xEE});
  const Status st = s.read(1020, out);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message, window_error(1020, 1028, 1024));
  for (const std::byte b : out)
    EXPECT_EQ(b, std::byte{0xEE});

  std::vector<std::byte> one(1);
  const Status far = s.read(2000, one);
  ASSERT_FALSE(far.ok());
  EXPECT_EQ(far.error().message, window_error(2000, 2001, 1024));
}

TEST(SharedMemory, WritePastTheWindowIsAnErrorAndModifiesNothing) {
  SharedMemory s(512);
  ASSERT_TRUE(s.write(0, pattern(512, 1)).ok());
  const std::vector<std::byte> before(s.bytes().begin(), s.bytes().end());
  const Status st = s.write(500, pattern(16, 99));  // 12 bytes in, 4 out
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message, window_error(500, 516, 512));
  const std::vector<std::byte> after(s.bytes().begin(), s.bytes().end());
  EXPECT_EQ(after, before);
}

TEST(SharedMemory, ZeroLengthAccessesAtTheEndOfTheWindow) {
  SharedMemory s(256);
  std::vector<std::byte> none;
  EXPECT_TRUE(s.read(256, none).ok());
  EXPECT_TRUE(s.write(256, none).ok());
  EXPECT_TRUE(s.check_range(256, 0).ok());
  // One past the end is outside even for zero bytes.
  const Status st = s.read(257, none);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message, window_error(257, 257, 256));
  EXPECT_FALSE(s.write(257, none).ok());
}

TEST(SharedMemory, EmptyWindow) {
  SharedMemory s(0);
  std::vector<std::byte> none;
  EXPECT_TRUE(s.read(0, none).ok());
  std::vector<std::byte> one(1);
  const Status st = s.read(0, one);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message, window_error(0, 1, 0));
}

TEST(SharedMemory, CheckRangeDoesNotOverflow) {
  SharedMemory s(1024);
  EXPECT_TRUE(s.check_range(0, 1024).ok());
  EXPECT_FALSE(s.check_range(0, 1025).ok());
  EXPECT_FALSE(s.check_range(1, 1024).ok());
  // offset + bytes would wrap a 64-bit sum: still rejected, never accepted by wrap-around.
  EXPECT_FALSE(s.check_range(UINT64_MAX, 2).ok());
  EXPECT_FALSE(s.check_range(512, UINT64_MAX).ok());
  EXPECT_FALSE(s.check_range(UINT64_MAX, 0).ok());
}

TEST(SharedMemory, RandomAccessesMatchAReferenceArray) {
  constexpr std::uint32_t kSize = 3000;
  SharedMemory s(kSize);
  std::vector<std::byte> ref(kSize);
  sim::Rng rng = sim::Rng::for_stream(2, "shared_memory_test");
  for (int op = 0; op < 5000; ++op) {
    const auto offset = static_cast<std::uint32_t>(rng.uniform(kSize + 40));
    const auto len = static_cast<std::size_t>(rng.uniform(200));
    const bool inside = std::uint64_t{offset} + len <= kSize;
    if (rng.bernoulli(0.5)) {
      std::vector<std::byte> data(len);
      for (auto& b : data)
        b = static_cast<std::byte>(rng.uniform(256));
      ASSERT_EQ(s.write(offset, data).ok(), inside) << offset << "+" << len;
      if (inside) std::copy(data.begin(), data.end(), ref.begin() + offset);
    } else {
      std::vector<std::byte> got(len, std::byte{0xEE});
      ASSERT_EQ(s.read(offset, got).ok(), inside) << offset << "+" << len;
      for (std::size_t i = 0; i < len; ++i) {
        ASSERT_EQ(got[i], inside ? ref[offset + i] : std::byte{0xEE}) << op;
      }
    }
  }
  const std::vector<std::byte> all(s.bytes().begin(), s.bytes().end());
  EXPECT_EQ(all, ref);
}

}  // namespace
}  // namespace xpusim::mem
