#include "sim/host_lines.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace xpusim::sim {
namespace {

bool starts_a_line(const void* p) {
  return reinterpret_cast<std::uintptr_t>(p) % kHostLineBytes == 0;
}

TEST(HostLineVector, EveryAllocationStartsAHostLine) {
  // The caches' per-set arrays rely on it: a 16-way set's 128 B of tags is then two host lines.
  for (std::size_t n : {1u, 3u, 16u, 1000u, 4097u}) {
    HostLineVector<std::uint64_t> tags(n, 7);
    EXPECT_TRUE(starts_a_line(tags.data())) << n;
    HostLineVector<std::uint8_t> bytes(n);
    EXPECT_TRUE(starts_a_line(bytes.data())) << n;
    tags.resize(3 * n + 5);  // a reallocation keeps it
    EXPECT_TRUE(starts_a_line(tags.data())) << n;
    EXPECT_EQ(tags[n - 1], 7u);
  }
}

}  // namespace
}  // namespace xpusim::sim
