#include "mem/global_memory.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <set>
#include <vector>

#include <gtest/gtest.h>

#include "sim/rng.h"

namespace xpusim::mem {
namespace {

constexpr std::uint64_t kPage = GlobalMemory::kPageBytes;
constexpr Addr kTop = std::numeric_limits<Addr>::max();

std::vector<std::byte> pattern(std::size_t n, std::uint8_t seed) {
  std::vector<std::byte> v(n);
  for (std::size_t i = 0; i < n; ++i)
    v[i] = static_cast<std::byte>(seed + i * 7);
  return v;
}

std::vector<std::byte> read(const GlobalMemory& m, Addr addr, std::size_t n) {
  std::vector<std::byte> out(n, std::byte{0xEE});
  const Status st = m.read(addr, out);
  EXPECT_TRUE(st.ok()) << (st.ok() ? "" : st.error().message);
  return out;
}

bool all_zero(const std::vector<std::byte>& v) {
  for (const std::byte b : v) {
    if (b != std::byte{0}) return false;
  }
  return true;
}

TEST(GlobalMemory, UntouchedMemoryReadsZeroAndReadsNeverAllocate) {
  GlobalMemory m;
  EXPECT_TRUE(all_zero(read(m, 0, 64)));
  EXPECT_TRUE(all_zero(read(m, 0x7fff'ffff'0000, 3 * kPage + 5)));
  EXPECT_TRUE(all_zero(read(m, kTop - 15, 16)));  // the last 16 bytes of the address space
  EXPECT_EQ(m.pages_allocated(), 0u);
}

TEST(GlobalMemory, WriteAndReadAcrossAPageBoundary) {
  GlobalMemory m;
  const Addr addr = 5 * kPage - 50;
  const auto data = pattern(100, 3);
  ASSERT_TRUE(m.write(addr, data).ok());
  EXPECT_EQ(m.pages_allocated(), 2u);
  EXPECT_EQ(read(m, addr, 100), data);
  // Bytes around the write, in both pages and beyond them, are still zero.
  const auto wide = read(m, 4 * kPage - 10, 2 * kPage + 20);
  for (std::size_t i = 0; i < wide.size(); ++i) {
    const Addr a = 4 * kPage - 10 + i;
    const std::byte want = (a >= addr && a < addr + 100) ? data[a - addr] : std::byte{0};
    ASSERT_EQ(wide[i], want) << "at " << a;
  }
  EXPECT_EQ(m.pages_allocated(), 2u);  // the wide read allocated nothing
}

TEST(GlobalMemory, LargeWriteSpansManyPages) {
  GlobalMemory m;
  const Addr addr = 1'000'000'007;  // unaligned start
  const auto data = pattern(5 * kPage + 123, 9);
  ASSERT_TRUE(m.write(addr, data).ok());
  const std::uint64_t pages = (addr + data.size() - 1) / kPage - addr / kPage + 1;
  EXPECT_EQ(m.pages_allocated(), pages);
  EXPECT_EQ(read(m, addr, data.size()), data);
}

TEST(GlobalMemory, PartialOverwriteKeepsTheRestOfThePage) {
  GlobalMemory m;
  const auto first = pattern(64, 1);
  ASSERT_TRUE(m.write(1000, first).ok());
  const auto second = pattern(8, 200);
  ASSERT_TRUE(m.write(1020, second).ok());
  auto want = first;
  std::copy(second.begin(), second.end(), want.begin() + 20);
  EXPECT_EQ(read(m, 1000, 64), want);
  EXPECT_EQ(m.pages_allocated(), 1u);
}

TEST(GlobalMemory, FillAcrossPages) {
  GlobalMemory m;
  const Addr addr = 3 * kPage - 1;
  ASSERT_TRUE(m.fill(addr, 2 * kPage + 2, std::byte{0xAB}).ok());
  EXPECT_EQ(m.pages_allocated(), 4u);  // pages 2, 3, 4 and 5
  const auto got = read(m, addr - 1, 2 * kPage + 4);
  EXPECT_EQ(got.front(), std::byte{0});
  EXPECT_EQ(got.back(), std::byte{0});
  for (std::size_t i = 1; i + 1 < got.size(); ++i)
    ASSERT_EQ(got[i], std::byte{0xAB}) << i;
  // Fill overwrites earlier data and can write zeros.
  ASSERT_TRUE(m.fill(addr + 10, 5, std::byte{0}).ok());
  EXPECT_TRUE(all_zero(read(m, addr + 10, 5)));
  EXPECT_EQ(read(m, addr + 15, 1).front(), std::byte{0xAB});
}

TEST(GlobalMemory, ZeroLengthAccessesAreNoOpsAnywhere) {
  GlobalMemory m;
  std::vector<std::byte> none;
  EXPECT_TRUE(m.write(kTop, none).ok());
  EXPECT_TRUE(m.read(kTop, none).ok());
  EXPECT_TRUE(m.fill(kTop, 0, std::byte{1}).ok());
  EXPECT_TRUE(m.fill(12345, 0, std::byte{1}).ok());
  EXPECT_EQ(m.pages_allocated(), 0u);
}

TEST(GlobalMemory, AccessEndingAtTheTopOfTheAddressSpaceIsValid) {
  GlobalMemory m;
  const auto data = pattern(16, 42);
  ASSERT_TRUE(m.write(kTop - 15, data).ok());
  EXPECT_EQ(read(m, kTop - 15, 16), data);
  ASSERT_TRUE(m.fill(kTop, 1, std::byte{0x5A}).ok());
  EXPECT_EQ(read(m, kTop, 1).front(), std::byte{0x5A});
  EXPECT_EQ(m.pages_allocated(), 1u);
}

TEST(GlobalMemory, AccessWrappingPastTwoToTheSixtyFourIsAnError) {
  GlobalMemory m;
  const auto data = pattern(32, 1);
  const Status w = m.write(0xffff'ffff'ffff'fff0, data);
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.error().message,
            "global memory access [0xfffffffffffffff0, +32) wraps past the 64-bit address space");
  EXPECT_EQ(m.pages_allocated(), 0u);  // nothing written, not even the in-range part

  std::vector<std::byte> out(2, std::byte{0xEE});
  const Status r = m.read(kTop, out);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message,
            "global memory access [0xffffffffffffffff, +2) wraps past the 64-bit address space");
  EXPECT_EQ(out[0], std::byte{0xEE});  // the output buffer is untouched

  const Status f = m.fill(kTop - 1, 3, std::byte{1});
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.error().message,
            "global memory access [0xfffffffffffffffe, +3) wraps past the 64-bit address space");
  const Status huge = m.fill(2, kTop, std::byte{1});  // last byte would be 2^64
  ASSERT_FALSE(huge.ok());
  EXPECT_EQ(m.pages_allocated(), 0u);
}

TEST(GlobalMemory, MovedFromMemoryReadsZerosAndTheTargetKeepsThePages) {
  GlobalMemory a;
  ASSERT_TRUE(a.write(0x5000, pattern(64, 3)).ok());
  const std::byte* view = nullptr;
  ASSERT_EQ(a.view(0x5000, 64, &view), 64u);  // the page is now in a's lookup cache
  ASSERT_NE(view, nullptr);
  GlobalMemory b(std::move(a));
  EXPECT_EQ(read(b, 0x5000, 64), pattern(64, 3));
  EXPECT_TRUE(all_zero(read(a, 0x5000, 64)));  // NOLINT(bugprone-use-after-move): defined empty
  a.view(0x5000, 64, &view);
  EXPECT_EQ(view, nullptr);
  GlobalMemory c;
  ASSERT_TRUE(c.write(0x5000, pattern(64, 9)).ok());
  c.view(0x5000, 64, &view);
  c = std::move(b);  // c's cached page of its own is gone; b's page is c's now
  EXPECT_EQ(read(c, 0x5000, 64), pattern(64, 3));
  EXPECT_EQ(b.pages_allocated(), 0u);  // NOLINT(bugprone-use-after-move)
}

TEST(GlobalMemory, RandomWritesFillsAndReadsMatchAByteMapReference) {
  // Clusters near page boundaries, at a high address and at the top of the address space.
  constexpr std::array<Addr, 4> kRegions{0, 7 * kPage, 0x0000'7f00'0000'0000, kTop - 4 * kPage + 1};
  sim::Rng rng = sim::Rng::for_stream(1, "global_memory_test");
  GlobalMemory m;
  std::map<Addr, std::byte> ref;  // bytes ever written; absent = 0
  std::set<std::uint64_t> pages;
  for (int op = 0; op < 3000; ++op) {
    const Addr region = kRegions[rng.uniform(kRegions.size())];
    const Addr addr = region + rng.uniform(3 * kPage);
    const std::uint64_t room = kTop - addr + 1;  // bytes up to the top of the address space
    const std::uint64_t len = std::min<std::uint64_t>(rng.uniform(2 * kPage + 1), room);
    const std::uint64_t kind = rng.uniform(3);
    if (kind == 0) {
      std::vector<std::byte> data(len);
      for (auto& b : data)
        b = static_cast<std::byte>(rng.uniform(256));
      ASSERT_TRUE(m.write(addr, data).ok());
      for (std::uint64_t i = 0; i < len; ++i)
        ref[addr + i] = data[i];
    } else if (kind == 1) {
      const auto v = static_cast<std::byte>(rng.uniform(256));
      ASSERT_TRUE(m.fill(addr, len, v).ok());
      for (std::uint64_t i = 0; i < len; ++i)
        ref[addr + i] = v;
    } else {
      std::vector<std::byte> got(len);
      ASSERT_TRUE(m.read(addr, got).ok());
      for (std::uint64_t i = 0; i < len; ++i) {
        const auto it = ref.find(addr + i);
        ASSERT_EQ(got[i], it == ref.end() ? std::byte{0} : it->second)
            << "op " << op << " at " << addr + i;
      }
      continue;
    }
    if (len > 0) {
      for (std::uint64_t p = addr / kPage; p <= (addr + len - 1) / kPage; ++p)
        pages.insert(p);
    }
    ASSERT_EQ(m.pages_allocated(), pages.size()) << "op " << op;
  }
}

}  // namespace
}  // namespace xpusim::mem

namespace xpusim::mem {
namespace {

TEST(GlobalMemoryLimit, HugeFillIsRefusedBeforeTouchingAnything) {
  GlobalMemory g;  // default limit: 8 GiB of backing store
  const auto st = g.fill(1, ~std::uint64_t{0} - 1, std::byte{1});
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("model's limit of 8589934592 bytes"), std::string::npos)
      << st.error().message;
  EXPECT_EQ(g.pages_allocated(), 0u);
}

TEST(GlobalMemoryLimit, CountsOnlyNewPages) {
  GlobalMemory g(4 * GlobalMemory::kPageBytes);
  ASSERT_TRUE(g.fill(0, 3 * GlobalMemory::kPageBytes, std::byte{7}).ok());
  // Rewriting touched pages is always fine; one new page fits, two do not.
  EXPECT_TRUE(g.fill(0, 3 * GlobalMemory::kPageBytes, std::byte{8}).ok());
  const std::vector<std::byte> two_pages(2 * GlobalMemory::kPageBytes, std::byte{9});
  EXPECT_FALSE(g.write(3 * GlobalMemory::kPageBytes, two_pages).ok());
  EXPECT_EQ(g.pages_allocated(), 3u);  // the refused write changed nothing
  EXPECT_TRUE(g.write(3 * GlobalMemory::kPageBytes, std::span(two_pages).first(100)).ok());
  EXPECT_EQ(g.pages_allocated(), 4u);
}

}  // namespace
}  // namespace xpusim::mem
