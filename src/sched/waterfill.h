// "Fill the dry lake" (seed1 ¶145–157, Fig. 16a): spread n CTAs over SMs so the fullest lakes
// (most free slots) take water first, resolving the last partial level by SM priority.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace xpusim::sched {

enum class LevelSearch : std::uint8_t { kBinary, kScan };  // ¶155 binary search, ¶156 scan

struct Fill {
  bool ok = false;
  std::vector<std::uint32_t> per_sm;  // CTAs per candidate, same indexing as the input
  std::uint32_t speed = 0;            // min over receiving SMs of free − placed (¶167)
  std::uint32_t probes = 0;           // water-level probes made
  std::uint32_t level = 0;            // final water height h (CTAs the deepest SM took)

  std::uint64_t placed() const;
};

// free[i] = free slots of candidate i in priority order (index 0 highest priority).
// all_or_nothing: FAIL if sum < n (a CGA, ¶154, ¶161); else place min(n, sum) (plain grid).
// Binary search on the water level, then an exclusive prefix popcount over the SMs at the surface
// (¶157) picks the R leftovers. Equal to greedy one-CTA-at-a-time to the most free SM.
Fill waterfill(std::span<const std::uint32_t> free, std::uint32_t n, bool all_or_nothing,
               LevelSearch search = LevelSearch::kBinary);

// The SM of each placed CTA, SM order (CTA k goes to the k-th entry): candidate i is SM first + i.
std::vector<std::uint32_t> cta_sms(const Fill& fill, std::uint32_t first_sm);

}  // namespace xpusim::sched
