// "did you mean ...?" for misspelled keys, units and names.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

namespace xpusim::sim {

// Levenshtein distance (insert, delete, substitute each cost 1).
std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidate closest to `word`, or "" when none is close enough to be a likely typo
// (distance at most max(2, half the longer word)).
std::string closest_match(std::string_view word, std::span<const std::string> candidates);

// " (did you mean 'X'?)" or "" when nothing is close.
std::string did_you_mean(std::string_view word, std::span<const std::string> candidates);

}  // namespace xpusim::sim
