// warp_intrinsics: sm_80+/sm_90 warp-level instructions in divergent code. Two CTAs of 64
// threads; thread g = blockIdx.x * 64 + threadIdx.x reads v = in[g] and writes 12 words
// out[g * 12 + 0..11]. Lanes split on v & 1 (the inputs give every warp both kinds):
//   odd lanes:  m = __activemask() (the odd lanes of the warp), redux.sync add / min.u32 /
//               max.u32 / and / or / xor over m, ballot(v & 2), all(v > 0x10000000),
//               any(v & 4), elect.sync over m (o[9], see elect_check);
//   even lanes: m = __activemask(), redux.sync min.s32 / max.s32 / add of v >> 8 over m, and
//               the same ballot / all / any / elect with different predicates.
// o[9] = elect_check(m) below: 7 (| 0x10000 on the even side). Then
// everyone writes __activemask() after the if/else (the full warp: the branches reconverge at
// their join) and __ballot_sync(0xffffffff, v & 1).
#include <cstdint>

__device__ __forceinline__ unsigned elect_leader(unsigned mask, unsigned* is_leader) {
  unsigned lane, pred;
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "elect.sync %0|p, %2;\n"
      "selp.u32 %1, 1, 0, p;\n"
      "}"
      : "=r"(lane), "=r"(pred)
      : "r"(mask));
  *is_leader = pred;
  return lane;
}

// PTX only promises that elect.sync picks the same leader for the same mask every time (the
// hardware takes the lowest lane), so the output checks what is defined: bit 0, exactly one lane
// of m is elected and it is the returned lane; bit 1, the returned lane is in m; bit 2, this
// lane's predicate says whether it is the returned lane. Every lane writes 7.
__device__ __forceinline__ unsigned elect_check(unsigned m) {
  unsigned is_leader;
  const unsigned lane = elect_leader(m, &is_leader);
  const unsigned me = threadIdx.x & 31;
  return (__ballot_sync(m, is_leader) == 1u << lane ? 1u : 0u) | ((m >> lane) & 1u) << 1 |
         ((is_leader != 0) == (me == lane) ? 4u : 0u);
}

extern "C" __global__ void __launch_bounds__(64)
    warp_intrinsics(const unsigned* __restrict__ in, unsigned* __restrict__ out) {
  const unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned v = in[g];
  unsigned* o = out + g * 12;
  if (v & 1) {
    const unsigned m = __activemask();
    o[0] = m;
    o[1] = __reduce_add_sync(m, v);
    o[2] = __reduce_min_sync(m, v);
    o[3] = __reduce_max_sync(m, v);
    o[4] = __reduce_and_sync(m, v);
    o[5] = __reduce_or_sync(m, v);
    o[6] = __reduce_xor_sync(m, v);
    o[7] = __ballot_sync(m, v & 2);
    o[8] = (__all_sync(m, v > 0x10000000u) ? 1u : 0u) | (__any_sync(m, v & 4) ? 2u : 0u);
    o[9] = elect_check(m);
  } else {
    const unsigned m = __activemask();
    const int sv = static_cast<int>(v);
    o[0] = m;
    o[1] = static_cast<unsigned>(__reduce_min_sync(m, sv));
    o[2] = static_cast<unsigned>(__reduce_max_sync(m, sv));
    o[3] = __reduce_add_sync(m, v >> 8);
    o[4] = __reduce_and_sync(m, v | 0x80000000u);
    o[5] = __reduce_or_sync(m, v & 0xff);
    o[6] = __reduce_xor_sync(m, threadIdx.x);
    o[7] = __ballot_sync(m, sv < 0);
    o[8] = (__all_sync(m, sv < 0x40000000) ? 1u : 0u) | (__any_sync(m, v > 0xf0000000u) ? 2u : 0u);
    o[9] = elect_check(m) | 0x10000u;
  }
  o[10] = __activemask();
  o[11] = __ballot_sync(0xffffffffu, v & 1);
}
