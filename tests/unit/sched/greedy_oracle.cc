#include "greedy_oracle.h"

#include <numeric>

namespace xpusim::sched::testing {

std::optional<std::vector<std::uint32_t>> greedy_oracle(std::span<const std::uint32_t> free,
                                                        std::uint32_t n, bool all_or_nothing) {
  if (all_or_nothing && std::accumulate(free.begin(), free.end(), std::uint64_t{0}) < n) {
    return std::nullopt;
  }
  std::vector<std::uint32_t> left(free.begin(), free.end()), a(free.size(), 0);
  for (std::uint32_t k = 0; k < n; ++k) {
    std::size_t best = 0;
    for (std::size_t i = 1; i < left.size(); ++i)
      if (left[i] > left[best]) best = i;
    if (left.empty() || left[best] == 0) break;  // plain grid: the lake is full
    --left[best];
    ++a[best];
  }
  return a;
}

}  // namespace xpusim::sched::testing
