#include "mem/line_table.h"

#include <cstdint>
#include <map>
#include <vector>

#include <gtest/gtest.h>

#include "sim/rng.h"

namespace xpusim::mem {
namespace {

// Random inserts, updates and erases against std::map. The lines are drawn from a pool of 300
// random ones (not a strided range, which Fibonacci hashing spreads without a collision), so
// probe runs form, wrap around the end of the slots and are cut by backward-shift deletion;
// the table starts small so it also grows.
TEST(LineTable, MatchesAMapUnderRandomInsertsAndErases) {
  LineTable<std::uint64_t> table(2);
  std::map<std::uint64_t, std::uint64_t> naive;
  sim::Rng rng = sim::Rng::for_stream(7, "line_table");
  std::vector<std::uint64_t> pool(300);
  for (std::uint64_t& line : pool)
    line = rng.uniform(std::uint64_t{1} << 40);
  for (int step = 0; step < 200'000; ++step) {
    const std::uint64_t line = pool[rng.uniform(pool.size())];
    const bool present = naive.contains(line);
    ASSERT_EQ(table.find(line) != nullptr, present) << "step " << step << " line " << line;
    if (present) {
      ASSERT_EQ(*table.find(line), naive[line]);
      if (rng.uniform(2) == 0) {
        table.erase(line);
        naive.erase(line);
      } else {
        *table.find(line) = naive[line] = static_cast<std::uint64_t>(step);
      }
    } else if (naive.size() < 200) {
      table.insert(line) = naive[line] = static_cast<std::uint64_t>(step);
    }
    ASSERT_EQ(table.size(), naive.size());
  }
  for (const auto& [line, value] : naive) {
    ASSERT_NE(table.find(line), nullptr);
    EXPECT_EQ(*table.find(line), value);
  }
}

}  // namespace
}  // namespace xpusim::mem
