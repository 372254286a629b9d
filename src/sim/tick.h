// Simulated time: an unsigned 64-bit count of picoseconds (STYLE.md item 9).
#pragma once

#include <cstdint>

namespace xpusim::sim {

using Tick = std::uint64_t;  // picoseconds
inline constexpr Tick kMaxTick = ~Tick{0};

inline constexpr Tick kPicosecond = 1;
inline constexpr Tick kNanosecond = 1000 * kPicosecond;
inline constexpr Tick kMicrosecond = 1000 * kNanosecond;
inline constexpr Tick kMillisecond = 1000 * kMicrosecond;
inline constexpr Tick kSecond = 1000 * kMillisecond;

// A count of cycles in some Clock domain; convert to Tick through the Clock.
using Cycles = std::uint64_t;

}  // namespace xpusim::sim
