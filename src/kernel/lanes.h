// Per-lane values of one warp: what a warp-wide register holds. A kernel computes lane values
// in plain C++ and hands them to timed operations (addresses to a load, values to a store).
#pragma once

#include <array>
#include <bit>
#include <cstdint>

namespace xpusim::kernel {

inline constexpr std::uint32_t kWarpSize = 32;

template <class T>
using Lanes = std::array<T, kWarpSize>;

// Bit i set: lane i takes part (PTX predicates / the active mask).
using LaneMask = std::uint32_t;
inline constexpr LaneMask kAllLanes = 0xFFFF'FFFFu;

inline std::uint32_t active_lanes(LaneMask m) {
  return static_cast<std::uint32_t>(std::popcount(m));
}

// Lane values from a function of the lane index, e.g. lanes<Addr>([&](auto l) { return a + 4*l; }).
template <class T, class F>
Lanes<T> lanes(F&& f) {
  Lanes<T> out;  // every lane written below: no clearing first
  for (std::uint32_t l = 0; l < kWarpSize; ++l)
    out[l] = static_cast<T>(f(l));
  return out;
}

}  // namespace xpusim::kernel
