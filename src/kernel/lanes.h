// Per-lane values of one warp: what a warp-wide register holds. A kernel computes lane values
// in plain C++ and hands them to timed operations (addresses to a load, values to a store).
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <type_traits>

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

// `to` = `from`, one lane at a time. What an awaiter does with lanes a kernel computed a moment
// ago (lanes() writes them one by one): a plain copy read them back with 16-byte loads, each
// over two stores still in flight, and waited for both to reach the cache (a store-forwarding
// stall, docs/performance.md, twenty-sixth session). Each lane read alone (volatile: the
// compiler may not merge them) forwards from the store that wrote it.
template <class T>
void copy_lanes(Lanes<T>& to, const Lanes<T>& from) {
  static_assert(std::is_arithmetic_v<T>, "lanes of a scalar type");
  const volatile T* f = from.data();
  for (std::uint32_t l = 0; l < kWarpSize; ++l)
    to[l] = f[l];
}

}  // namespace xpusim::kernel
