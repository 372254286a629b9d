// L1 pinning (mm t1 retention, seed2 ¶122-125; src/mem/l1_cache.h): a pinned line is never a
// fill's victim, a set full of pinned lines refuses pins and does not cache fills. Checked
// against a naive set-associative LRU written here, on random traffic.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <vector>

#include "mem/l1_cache.h"
#include "sim/simulation.h"
#include "sim/stats.h"

namespace xpusim::mem {
namespace {

constexpr std::uint32_t kLine = 128, kWays = 4, kSets = 2;

// Per set its lines, most recently used first, and the pins held per line.
struct NaiveL1 {
  std::vector<std::vector<std::uint64_t>> sets = std::vector<std::vector<std::uint64_t>>(kSets);
  std::map<std::uint64_t, std::uint32_t> pins;
  std::uint64_t skips = 0, bypasses = 0, refusals = 0;

  std::vector<std::uint64_t>& set_of(std::uint64_t line) { return sets[line % kSets]; }
  bool has(std::uint64_t line) {
    auto& s = set_of(line);
    return std::find(s.begin(), s.end(), line) != s.end();
  }
  void touch(std::uint64_t line) {
    auto& s = set_of(line);
    s.erase(std::find(s.begin(), s.end(), line));
    s.insert(s.begin(), line);
  }
  // Allocates (most recent first); false when every way is pinned.
  bool allocate(std::uint64_t line) {
    auto& s = set_of(line);
    if (has(line)) {
      touch(line);
      return true;
    }
    if (s.size() < kWays) {
      s.insert(s.begin(), line);
      return true;
    }
    bool skipped = false;
    for (std::size_t k = s.size(); k-- > 0;) {
      if (pins.contains(s[k])) {
        skipped = true;
        continue;
      }
      if (skipped) ++skips;
      s.erase(s.begin() + static_cast<std::ptrdiff_t>(k));
      s.insert(s.begin(), line);
      return true;
    }
    return false;
  }
  void fill(std::uint64_t line) {
    if (!allocate(line)) ++bypasses;
  }
  bool pin(std::uint64_t line) {
    if (pins.contains(line)) {
      ++pins[line];
      return true;
    }
    if (!allocate(line)) {
      ++refusals;
      return false;
    }
    pins[line] = 1;
    return true;
  }
  void unpin(std::uint64_t line) {
    if (--pins[line] == 0) pins.erase(line);
  }
};

TEST(L1Pinning, MatchesANaivePinnedLruOnRandomTraffic) {
  sim::Simulation sim;
  sim::Component root(sim, "chip0");
  L1Cache l1(root, "l1", {.bytes = kSets * kWays * kLine, .ways = kWays}, kLine);
  NaiveL1 ref;
  std::vector<std::uint64_t> held;  // pins the test holds, to release some
  std::mt19937_64 gen(5);
  for (int i = 0; i < 20000; ++i) {
    const std::uint64_t line = gen() % 24;
    const std::uint64_t op = gen() % 10;
    if (op < 5) {
      l1.fill(line, 0xF);
      ref.fill(line);
    } else if (op < 7) {
      ASSERT_EQ(l1.pin(line), ref.pin(line)) << "op " << i;
      if (ref.pins.contains(line)) held.push_back(line);
    } else if (op < 9 && !held.empty()) {
      const std::size_t k = gen() % held.size();
      l1.unpin(held[k]);
      ref.unpin(held[k]);
      held.erase(held.begin() + static_cast<std::ptrdiff_t>(k));
    } else {
      const bool present = l1.load(line, 0xF) == 0;
      if (ref.has(line)) ref.touch(line);
      // A pinned line allocated by pin() has no sectors until its fill: present only if
      // some fill gave it sectors. The reference tracks tags, so compare tags.
      ASSERT_EQ(l1.contains(line, 0), ref.has(line)) << "op " << i;
      (void)present;
    }
    for (std::uint64_t l = 0; l < 24; ++l)
      ASSERT_EQ(l1.contains(l, 0), ref.has(l)) << "op " << i << " line " << l;
    ASSERT_EQ(l1.pinned_lines(), ref.pins.size());
  }
  const auto stat = [&](const char* name) {
    return (*sim.stats().find(std::string("chip0.l1.") + name))->to_json()["value"].get<double>();
  };
  EXPECT_EQ(stat("pin_skips"), static_cast<double>(ref.skips));
  EXPECT_EQ(stat("pin_bypasses"), static_cast<double>(ref.bypasses));
  EXPECT_EQ(stat("pin_refusals"), static_cast<double>(ref.refusals));
  EXPECT_GT(ref.skips, 0u);
  EXPECT_GT(ref.bypasses, 0u);
  EXPECT_GT(ref.refusals, 0u);
}

TEST(L1Pinning, APinnedLineOutlivesItsLruTurn) {
  sim::Simulation sim;
  sim::Component root(sim, "chip0");
  L1Cache l1(root, "l1", {.bytes = kSets * kWays * kLine, .ways = kWays}, kLine);
  ASSERT_TRUE(l1.pin(0));
  l1.fill(0, 0xF);
  for (std::uint64_t line : {2, 4, 6, 8, 10})  // five more lines of set 0 (4 ways)
    l1.fill(line, 0xF);
  EXPECT_TRUE(l1.contains(0, 0xF));  // the LRU line, yet still here
  EXPECT_FALSE(l1.contains(2, 0xF));
  l1.unpin(0);
  l1.fill(12, 0xF);  // now line 0 is the victim
  EXPECT_FALSE(l1.contains(0, 0xF));
  for (std::uint64_t line : {0, 2, 4, 6})
    ASSERT_TRUE(l1.pin(line));
  EXPECT_FALSE(l1.pin(8));  // every way of set 0 pinned
  l1.fill(8, 0xF);
  EXPECT_FALSE(l1.contains(8, 0xF));  // not cached
  EXPECT_EQ(l1.pinned_lines(), 4u);
}

}  // namespace
}  // namespace xpusim::mem
