// prefetch(p): a software prefetch of the host cache line holding `p` (a hint: no effect on
// any state, whatever p is). GCC 12 treats __builtin_prefetch's address as a hint too and
// silently drops the prefetch when computing the address takes a variable shift (as FastDiv
// does); the empty volatile asm makes it compute the address first.
#pragma once

namespace xpusim::sim {

inline void prefetch(const void* p) {
  asm volatile("" : "+r"(p));
  __builtin_prefetch(p);
}

}  // namespace xpusim::sim
