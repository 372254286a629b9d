// RequestList: the run-length coded request list must iterate exactly the naive line split.
#include "tma/request_list.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace xpusim::tma {
namespace {

// Naive reference: walk the range byte by byte, starting a request at each line boundary.
void naive_split(std::vector<GlobalRequest>& out, mem::Addr a, std::uint64_t bytes) {
  for (std::uint64_t i = 0; i < bytes; ++i) {
    if (i == 0 || (a + i) % 128 == 0) out.push_back({a + i, 0});
    ++out.back().bytes;
  }
}

TEST(RequestList, AdjacentWholeLinesMergeIntoOneRun) {
  RequestList r;
  for (int row = 0; row < 128; ++row)
    r.append(0x4000 + row * 128, 128);
  ASSERT_EQ(r.runs().size(), 1u);
  EXPECT_EQ(r.runs()[0],
            (RequestList::Run{.address = 0x4000, .bytes = 128, .count = 128, .step = 128}));
  EXPECT_EQ(r.size(), 128u);
  EXPECT_EQ(r[127], (GlobalRequest{0x4000 + 127 * 128, 128}));
  r.append(0x4000 + 129 * 128, 128);  // a gap: a new run
  r.append(0x4000 + 130 * 128, 64);   // another size: a new run
  r.append(0x4000 + 130 * 128 + 64, 64);
  r.append(0x4000 + 132 * 128, 64);  // not the run's next (131 * 128): a new run
  ASSERT_EQ(r.runs().size(), 4u);
  EXPECT_EQ(r.runs()[2],
            (RequestList::Run{.address = 0x4000 + 130 * 128, .bytes = 64, .count = 2, .step = 64}));
  EXPECT_EQ(r.size(), 132u);
}

// A box's rows a tensor's row pitch apart (a K-major tile of a wide matrix) are one run.
TEST(RequestList, RowsAPitchApartAreOneRun) {
  RequestList r;
  for (int row = 0; row < 128; ++row)
    r.append(0x10000 + row * 16384, 128);
  ASSERT_EQ(r.runs().size(), 1u);
  EXPECT_EQ(r.runs()[0],
            (RequestList::Run{.address = 0x10000, .bytes = 128, .count = 128, .step = 16384}));
  EXPECT_EQ(r[5], (GlobalRequest{0x10000 + 5 * 16384, 128}));
  r.append(0x10000 - 128, 128);  // steps only go forward
  EXPECT_EQ(r.runs().size(), 2u);
}

TEST(RequestList, MatchesTheNaiveSplitOnRandomRanges) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 300; ++trial) {
    RequestList got;
    std::vector<GlobalRequest> want;
    mem::Addr a = rng() % 4096;
    for (int k = 0, n = static_cast<int>(rng() % 6); k < n; ++k) {
      const std::uint64_t bytes = rng() % 3 == 0 ? 128 * (rng() % 5) : rng() % 700;
      got.append(a, bytes);
      naive_split(want, a, bytes);
      // Often adjacent, sometimes a pitch apart (as a box's rows), sometimes going back.
      const int gap = static_cast<int>(rng() % 4);
      a += gap == 0 ? bytes : gap == 1 ? 16 * (rng() % 9) + bytes : gap == 2 ? 4096 : 0;
      if (gap == 3) a = rng() % 4096;
    }
    ASSERT_EQ(got, want) << "trial " << trial;
    ASSERT_EQ(got.to_vector(), want);
    for (std::size_t i = 0; i < want.size(); ++i)
      ASSERT_EQ(got[i], want[i]);
    RequestList again;  // equal sequences have equal runs (canonical coding)
    for (const GlobalRequest& q : want)
      again.append(q.address, q.bytes);
    EXPECT_EQ(again, got);
  }
}

// append_rows is its rows appended one by one: the same requests and the same runs.
TEST(RequestList, AppendRowsIsItsRowsOneByOne) {
  std::mt19937_64 rng(11);
  const std::uint64_t steps[] = {0, 64, 128, 256, 16384, 16384 + 64};
  for (int trial = 0; trial < 400; ++trial) {
    RequestList rows, one_by_one;
    for (int k = 0, n = 1 + static_cast<int>(rng() % 4); k < n; ++k) {
      const mem::Addr a = rng() % 3 == 0 ? 128 * (rng() % 64) : rng() % 8192;
      const std::uint64_t bytes = rng() % 2 == 0 ? 128 : 1 + rng() % 300;
      const std::uint64_t count = rng() % 40, step = steps[rng() % 6];
      rows.append_rows(a, bytes, count, step);
      for (std::uint64_t r = 0; r < count; ++r)
        one_by_one.append(a + r * step, bytes);
    }
    ASSERT_EQ(rows.size(), one_by_one.size()) << "trial " << trial;
    ASSERT_TRUE(std::ranges::equal(rows.runs(), one_by_one.runs())) << "trial " << trial;
  }
}

}  // namespace
}  // namespace xpusim::tma
