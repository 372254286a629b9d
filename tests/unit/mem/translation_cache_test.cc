#include "mem/translation_cache.h"

#include <algorithm>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

namespace xpusim::mem {
namespace {

// The naive reference: a list of (segment, page), most recently used last, emptied whenever
// the generation grows; fills under an older generation are dropped.
struct NaiveLru {
  std::uint32_t entries;
  std::uint64_t generation = 0;
  std::vector<std::pair<std::uint32_t, std::uint64_t>> list;
  std::uint64_t hits = 0, misses = 0, evictions = 0, flushes = 0;

  bool current(std::uint64_t g) {
    if (g < generation) return false;
    if (g > generation) {
      flushes += list.empty() ? 0 : 1;
      list.clear();
      generation = g;
    }
    return true;
  }
  bool lookup(std::uint32_t s, std::uint64_t p, std::uint64_t g) {
    const bool ok = current(g);
    const auto it = std::find(list.begin(), list.end(), std::pair{s, p});
    if (!ok || it == list.end()) {
      ++misses;
      return false;
    }
    list.erase(it);
    list.emplace_back(s, p);
    ++hits;
    return true;
  }
  void fill(std::uint32_t s, std::uint64_t p, std::uint64_t g) {
    if (entries == 0 || !current(g)) return;
    const auto it = std::find(list.begin(), list.end(), std::pair{s, p});
    if (it != list.end()) {
      list.erase(it);
    } else if (list.size() == entries) {
      list.erase(list.begin());
      ++evictions;
    }
    list.emplace_back(s, p);
  }
};

TEST(TranslationCache, MatchesANaiveLruOnRandomTraffic) {
  std::mt19937_64 gen(11);
  for (const std::uint32_t entries : {0u, 1u, 2u, 7u, 16u, 64u}) {
    TranslationCache cache(entries);
    NaiveLru ref{.entries = entries, .generation = 0, .list = {}};
    std::uint64_t generation = 0;
    for (int i = 0; i < 20000; ++i) {
      const auto seg = static_cast<std::uint32_t>(gen() % 3);
      const std::uint64_t page = gen() % 40;
      const std::uint64_t op = gen() % 100;
      if (op < 2) ++generation;
      // Now and then a fill from a PTE load issued before the last generation change.
      const std::uint64_t g = (op == 2 && generation > 0) ? generation - 1 : generation;
      if (op % 2 == 0) {
        ASSERT_EQ(cache.lookup(seg, page, g), ref.lookup(seg, page, g)) << "op " << i;
      } else {
        cache.fill(seg, page, g);
        ref.fill(seg, page, g);
      }
      ASSERT_EQ(cache.size(), ref.list.size()) << "op " << i;
    }
    EXPECT_EQ(cache.counts().hits, ref.hits);
    EXPECT_EQ(cache.counts().misses, ref.misses);
    EXPECT_EQ(cache.counts().evictions, ref.evictions);
    EXPECT_EQ(cache.counts().flushes, ref.flushes);
    if (entries > 0) {
      EXPECT_GT(ref.hits, 0u);
    }
  }
}

TEST(TranslationCache, EvictsTheLeastRecentlyUsed) {
  TranslationCache c(2);
  c.fill(0, 1, 0);
  c.fill(0, 2, 0);
  EXPECT_TRUE(c.lookup(0, 1, 0));  // 2 is now the least recently used
  c.fill(0, 3, 0);
  EXPECT_FALSE(c.lookup(0, 2, 0));
  EXPECT_TRUE(c.lookup(0, 1, 0));
  EXPECT_TRUE(c.lookup(0, 3, 0));
  EXPECT_FALSE(c.lookup(1, 3, 0));  // another segment's page 3
  EXPECT_FALSE(c.lookup(0, 1, 1));  // a newer generation flushed everything
  EXPECT_EQ(c.size(), 0u);
  EXPECT_EQ(c.counts().flushes, 1u);
  c.fill(0, 1, 0);  // a PTE loaded before the change: dropped
  EXPECT_EQ(c.size(), 0u);
}

}  // namespace
}  // namespace xpusim::mem
