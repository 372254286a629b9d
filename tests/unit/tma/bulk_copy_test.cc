// Descriptor-less bulk copies (cp.async.bulk family): all four directions, multicast, the
// ≤128 B line split, the zero-size no-op and the 16 B alignment rules.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <vector>

#include "tma/copy_engine.h"

namespace xpusim::tma {
namespace {

std::vector<std::byte> pattern(std::size_t n, unsigned seed) {
  std::vector<std::byte> v(n);
  for (std::size_t i = 0; i < n; ++i)
    v[i] = static_cast<std::byte>(i * 7 + seed);
  return v;
}

std::vector<std::byte> read(const mem::GlobalMemory& g, mem::Addr a, std::size_t n) {
  std::vector<std::byte> v(n);
  EXPECT_TRUE(g.read(a, v).ok());
  return v;
}

std::vector<std::byte> window(const mem::SharedMemory& s, std::uint32_t off, std::size_t n) {
  return {s.bytes().begin() + off, s.bytes().begin() + off + n};
}

bool all_zero(const mem::SharedMemory& s) {
  return std::all_of(s.bytes().begin(), s.bytes().end(),
                     [](std::byte b) { return b == std::byte{0}; });
}

// The naive split: one request per 128 B line the range touches.
std::vector<GlobalRequest> lines(mem::Addr a, std::uint64_t n) {
  std::vector<GlobalRequest> out;
  for (mem::Addr line = a / 128 * 128; line < a + n; line += 128) {
    const mem::Addr lo = std::max(a, line), hi = std::min(a + n, line + 128);
    out.push_back({lo, static_cast<std::uint32_t>(hi - lo)});
  }
  return out;
}

TEST(BulkCopy, GlobalToSharedMulticastReadsOnce) {
  mem::GlobalMemory g;
  const auto data = pattern(400, 3);
  ASSERT_TRUE(g.write(0x1030, data).ok());
  mem::SharedMemory a(1024), b(1024);
  const std::array<SmemTarget, 2> dst = {{{&a, 16}, {&b, 512}}};
  auto rep = bulk_global_to_shared(g, 0x1030, dst, 400);
  ASSERT_TRUE(rep.ok()) << rep.error().message;
  EXPECT_EQ(window(a, 16, 400), data);
  EXPECT_EQ(window(b, 512, 400), data);
  EXPECT_EQ(rep->destinations, 2u);
  EXPECT_EQ(rep->bytes_per_destination, 400u);
  EXPECT_EQ(rep->global_requests, lines(0x1030, 400));  // once, not per destination
  EXPECT_EQ(rep->global_requests.front(), (GlobalRequest{0x1030, 80}));
  EXPECT_EQ(rep->elements, 25u);  // 16 B blocks
}

TEST(BulkCopy, SharedToGlobalWritesAndSplitsTheDestination) {
  mem::SharedMemory s(1024);
  const auto data = pattern(256, 9);
  std::copy(data.begin(), data.end(), s.bytes().begin() + 128);
  mem::GlobalMemory g;
  auto rep = bulk_shared_to_global(s, 128, g, 0x2070, 256);
  ASSERT_TRUE(rep.ok()) << rep.error().message;
  EXPECT_EQ(read(g, 0x2070, 256), data);
  EXPECT_EQ(read(g, 0x2060, 16), std::vector<std::byte>(16, std::byte{0}));
  EXPECT_EQ(rep->global_requests, lines(0x2070, 256));
  EXPECT_EQ(rep->global_requests.size(), 3u);
  EXPECT_EQ(rep->destinations, 0u);
}

TEST(BulkCopy, SharedToSharedMovesNoGlobalData) {
  mem::SharedMemory src(512), dst(512);
  const auto data = pattern(96, 1);
  std::copy(data.begin(), data.end(), src.bytes().begin() + 32);
  auto rep = bulk_shared_to_shared(src, 32, {&dst, 224}, 96);
  ASSERT_TRUE(rep.ok()) << rep.error().message;
  EXPECT_EQ(window(dst, 224, 96), data);
  EXPECT_TRUE(rep->global_requests.empty());
  EXPECT_EQ(rep->destinations, 1u);
  EXPECT_EQ(rep->bytes_per_destination, 96u);
  // Within one window, overlapping ranges behave like memmove.
  auto same = bulk_shared_to_shared(src, 32, {&src, 48}, 96);
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(window(src, 48, 96), data);
}

TEST(BulkCopy, GlobalToGlobalHandlesOverlapLikeMemmove) {
  mem::GlobalMemory g;
  const auto data = pattern(200 * 1024, 5);  // spans several internal chunks and pages
  ASSERT_TRUE(g.write(0x100000, data).ok());
  auto fwd = bulk_global_to_global(g, 0x100000, 0x100000 + 4096, data.size());
  ASSERT_TRUE(fwd.ok()) << fwd.error().message;
  EXPECT_EQ(read(g, 0x100000 + 4096, data.size()), data);
  auto back = bulk_global_to_global(g, 0x100000 + 4096, 0x100000 - 48, data.size());
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(read(g, 0x100000 - 48, data.size()), data);
  std::vector<GlobalRequest> want = lines(0x100000 + 4096, data.size());
  const auto writes = lines(0x100000 - 48, data.size());
  want.insert(want.end(), writes.begin(), writes.end());
  EXPECT_EQ(back->global_requests, want);  // the source's reads, then the destination's writes
}

TEST(BulkCopy, PrefetchOnlyRequests) {
  auto rep = bulk_prefetch(0x7F0, 0x120);
  ASSERT_TRUE(rep.ok());
  EXPECT_EQ(rep->global_requests, lines(0x7F0, 0x120));
  EXPECT_EQ(rep->destinations, 0u);
}

TEST(BulkCopy, ZeroSizeIsANoOp) {
  mem::GlobalMemory g;
  mem::SharedMemory s(256);
  const std::array<SmemTarget, 1> dst = {{{&s, 0}}};
  for (auto rep :
       {bulk_global_to_shared(g, 0x1000, dst, 0), bulk_shared_to_global(s, 0, g, 0x1000, 0),
        bulk_shared_to_shared(s, 0, {&s, 16}, 0), bulk_global_to_global(g, 0, 16, 0),
        bulk_prefetch(0x1000, 0)}) {
    ASSERT_TRUE(rep.ok());
    EXPECT_TRUE(rep->global_requests.empty());
    EXPECT_EQ(rep->destinations, 0u);
    EXPECT_EQ(rep->bytes_per_destination, 0u);
  }
  EXPECT_EQ(g.pages_allocated(), 0u);
  EXPECT_TRUE(all_zero(s));
}

TEST(BulkCopy, MisalignmentIsANamedErrorAndNothingMoves) {
  mem::GlobalMemory g;
  ASSERT_TRUE(g.fill(0x1000, 512, std::byte{0x77}).ok());
  mem::SharedMemory s(512);
  const std::array<SmemTarget, 1> dst = {{{&s, 0}}};
  const auto message = [](const Result<CopyReport>& r) {
    EXPECT_FALSE(r.ok());
    return r.ok() ? std::string() : r.error().message;
  };
  EXPECT_NE(message(bulk_global_to_shared(g, 0x1008, dst, 64)).find("global source 0x1008"),
            std::string::npos);
  EXPECT_NE(message(bulk_global_to_shared(g, 0x1000, dst, 40)).find("size 0x28"),
            std::string::npos);
  const std::array<SmemTarget, 1> odd = {{{&s, 20}}};
  EXPECT_NE(message(bulk_global_to_shared(g, 0x1000, odd, 64)).find("destination 0 offset 0x14"),
            std::string::npos);
  EXPECT_NE(message(bulk_shared_to_global(s, 0, g, 0x1004, 64)).find("global destination 0x1004"),
            std::string::npos);
  EXPECT_NE(message(bulk_shared_to_shared(s, 8, {&s, 64}, 64)).find("source offset 0x8"),
            std::string::npos);
  EXPECT_NE(message(bulk_global_to_global(g, 0x1000, 0x2001, 64)).find("0x2001"),
            std::string::npos);
  EXPECT_NE(message(bulk_prefetch(0x1000, 17)).find("multiple of 16"), std::string::npos);
  EXPECT_TRUE(all_zero(s));
  EXPECT_EQ(read(g, 0x2000, 64), std::vector<std::byte>(64, std::byte{0}));
  // Several faults at once are all reported.
  auto both = bulk_shared_to_global(s, 4, g, 0x1004, 40);
  ASSERT_FALSE(both.ok());
  EXPECT_EQ(both.errors().size(), 3u);
}

TEST(BulkCopy, OutOfWindowSharedMemoryLeavesEverythingUntouched) {
  mem::GlobalMemory g;
  ASSERT_TRUE(g.fill(0x1000, 512, std::byte{0x77}).ok());
  mem::SharedMemory ok(1024), small(256);
  const std::array<SmemTarget, 2> dst = {{{&ok, 0}, {&small, 128}}};
  auto rep = bulk_global_to_shared(g, 0x1000, dst, 256);
  ASSERT_FALSE(rep.ok());
  EXPECT_NE(rep.error().message.find("destination 1"), std::string::npos) << rep.error().message;
  EXPECT_NE(rep.error().message.find("outside the CTA window"), std::string::npos);
  EXPECT_TRUE(all_zero(ok) && all_zero(small));
  auto out = bulk_shared_to_global(small, 128, g, 0x1000, 256);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(read(g, 0x1000, 512), std::vector<std::byte>(512, std::byte{0x77}));
  EXPECT_FALSE(bulk_global_to_global(g, ~std::uint64_t{0} - 63, 0x1000, 128).ok());
}

// Bulk reductions (cp.reduce.async.bulk, seed0 ¶159): element by element against plain C++.
template <class T>
std::vector<T> as(const std::vector<std::byte>& b) {
  std::vector<T> v(b.size() / sizeof(T));
  std::memcpy(v.data(), b.data(), b.size());
  return v;
}

TEST(BulkReduce, SharedToGlobalCombinesEveryU32Element) {
  constexpr std::uint32_t kBytes = 272;  // 68 elements, 3 lines from 0x2030
  const auto src = pattern(kBytes, 5), old = pattern(kBytes, 91);
  const auto s = as<std::uint32_t>(src), d = as<std::uint32_t>(old);
  const std::pair<ReduceOp, std::uint32_t (*)(std::uint32_t, std::uint32_t)> ops[] = {
      {ReduceOp::kAdd, [](std::uint32_t a, std::uint32_t b) { return a + b; }},
      {ReduceOp::kMin, [](std::uint32_t a, std::uint32_t b) { return std::min(a, b); }},
      {ReduceOp::kMax, [](std::uint32_t a, std::uint32_t b) { return std::max(a, b); }},
      {ReduceOp::kInc, [](std::uint32_t a, std::uint32_t b) { return a >= b ? 0u : a + 1; }},
      {ReduceOp::kDec,
       [](std::uint32_t a, std::uint32_t b) { return a == 0 || a > b ? b : a - 1; }},
      {ReduceOp::kAnd, [](std::uint32_t a, std::uint32_t b) { return a & b; }},
      {ReduceOp::kOr, [](std::uint32_t a, std::uint32_t b) { return a | b; }},
      {ReduceOp::kXor, [](std::uint32_t a, std::uint32_t b) { return a ^ b; }},
  };
  for (const auto& [op, f] : ops) {
    mem::GlobalMemory g;
    ASSERT_TRUE(g.write(0x2030, old).ok());
    mem::SharedMemory smem(1024);
    std::copy(src.begin(), src.end(), smem.bytes().begin() + 64);
    auto rep = bulk_reduce_shared_to_global(op, DataType::kUint32, smem, 64, g, 0x2030, kBytes);
    ASSERT_TRUE(rep.ok()) << rep.error().message;
    const auto got = as<std::uint32_t>(read(g, 0x2030, kBytes));
    for (std::size_t i = 0; i < got.size(); ++i)
      ASSERT_EQ(got[i], f(d[i], s[i])) << name(op) << " " << i;
    EXPECT_EQ(rep->global_requests, lines(0x2030, kBytes));
    EXPECT_EQ(rep->destinations, 0u);
  }
}

TEST(BulkReduce, FloatAddRoundsInTheElementsFormatAndSharedToSharedNeedsNoGlobal) {
  std::vector<float> a(8), b(8);
  for (int i = 0; i < 8; ++i)
    a[static_cast<std::size_t>(i)] = 0.1f * static_cast<float>(i + 1),
    b[static_cast<std::size_t>(i)] = 1e7f + static_cast<float>(i);
  mem::SharedMemory from(256), to(256);
  std::memcpy(from.bytes().data() + 32, a.data(), 32);
  std::memcpy(to.bytes().data() + 96, b.data(), 32);
  auto rep = bulk_reduce_shared_to_shared(ReduceOp::kAdd, DataType::kFloat32, from, 32,
                                          {.smem = &to, .offset = 96}, 32);
  ASSERT_TRUE(rep.ok()) << rep.error().message;
  std::vector<float> got(8);
  std::memcpy(got.data(), to.bytes().data() + 96, 32);
  for (std::size_t i = 0; i < 8; ++i)
    EXPECT_EQ(got[i], b[i] + a[i]) << i;  // float + float, rounded once
  EXPECT_TRUE(rep->global_requests.empty());
  EXPECT_EQ(rep->destinations, 1u);
  EXPECT_EQ(rep->bytes_per_destination, 32u);
}

TEST(BulkReduce, BadRequestsAreNamedErrorsAndNothingChanges) {
  mem::GlobalMemory g;
  const auto old = pattern(64, 1);
  ASSERT_TRUE(g.write(0x1000, old).ok());
  mem::SharedMemory smem(256);
  const auto message = [](const Result<CopyReport>& r) {
    return r.ok() ? std::string("ok") : r.error().message;
  };
  EXPECT_EQ(message(bulk_reduce_shared_to_global(ReduceOp::kMin, DataType::kFloat32, smem, 0, g,
                                                 0x1000, 64)),
            "bulk_reduce_shared_to_global: .min is not defined for FLOAT32 elements (supported: "
            "add)");
  EXPECT_EQ(message(bulk_reduce_shared_to_global(ReduceOp::kAdd, DataType::kUint32, smem, 0, g,
                                                 0x1000, 40)),
            "bulk_reduce_shared_to_global: size 0x28 is not a multiple of 16 (bulk copies move "
            "16 B blocks)");
  EXPECT_EQ(read(g, 0x1000, 64), old);
  // Size 0 is a no-op, but an undefined operation is still refused.
  EXPECT_TRUE(
      bulk_reduce_shared_to_global(ReduceOp::kAdd, DataType::kUint32, smem, 0, g, 0x1000, 0).ok());
  EXPECT_FALSE(
      bulk_reduce_shared_to_global(ReduceOp::kXor, DataType::kFloat64, smem, 0, g, 0x1000, 0).ok());
}

}  // namespace
}  // namespace xpusim::tma
