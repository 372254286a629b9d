// prefetch(p): a software prefetch of the host cache line holding `p` (a hint: no effect on
// any state, whatever p is). GCC 12 treats __builtin_prefetch's address as a hint too and
// silently drops the prefetch when computing the address takes a variable shift (as FastDiv
// does); the empty volatile asm makes it compute the address first.
#pragma once

#include <cstddef>
#include <cstdint>

namespace xpusim::sim {

inline void prefetch(const void* p) {
  asm volatile("" : "+r"(p));
  __builtin_prefetch(p);
}

// Prefetches every host cache line that [p, p + bytes) overlaps: a range that does not start
// on a line boundary spans one line more than bytes / 64 (a 16-way set's 128 B of tags from a
// 16-byte aligned array is three lines, and its last tags were the ones that missed).
inline void prefetch_range(const void* p, std::size_t bytes) {
  constexpr std::uintptr_t kLine = 64;
  const std::uintptr_t first = reinterpret_cast<std::uintptr_t>(p) & ~(kLine - 1);
  const std::uintptr_t end = reinterpret_cast<std::uintptr_t>(p) + bytes;
  for (std::uintptr_t a = first; a < end; a += kLine)
    prefetch(reinterpret_cast<const void*>(a));
}

}  // namespace xpusim::sim
