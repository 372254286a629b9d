// Test-only reference for water-filling (digest §3.1 [inference]): one CTA at a time to the SM
// with the most free slots, ties to the lowest index.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace xpusim::sched::testing {

// nullopt = FAIL (all_or_nothing and Σfree < n); else per-SM counts.
std::optional<std::vector<std::uint32_t>> greedy_oracle(std::span<const std::uint32_t> free,
                                                        std::uint32_t n, bool all_or_nothing);

}  // namespace xpusim::sched::testing
