// dsmem_exchange: clusters of 4 CTAs (__cluster_dims__(4, 1, 1)), 64 threads each. Every CTA
// fills its shared array s[i] = in[blockIdx.x * 64 + i] ^ (rank << 24) and rank 0 zeroes its
// counter; a cluster barrier (barrier.cluster.arrive + wait); then thread i of rank r
//   - reads s[i] of rank (r + 1) % 4 through mapa.shared::cluster.u32 + ld.shared::cluster.u32,
//   - reads s[63 - i] of rank (r + 2) % 4 through cooperative_groups' map_shared_rank (generic
//     mapa.u64 + a generic ld),
//   - adds (r + 1) * (i + 1) to rank 0's counter with atom.shared::cluster.add.u32,
// and writes out[blockIdx.x * 128 + i] = neighbour value + r, out[... + 64 + i] = the second.
// After a second cluster barrier, rank 0's thread 0 writes the counter to
// counts[blockIdx.x / 4] (= 64 * 65 / 2 * (1 + 2 + 3 + 4) = 20800).
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

constexpr unsigned kN = 64;

extern "C" __global__ void __cluster_dims__(4, 1, 1) __launch_bounds__(kN)
    dsmem_exchange(const unsigned* in, unsigned* out, unsigned* counts) {
  __shared__ unsigned s[kN];
  __shared__ unsigned counter;
  cg::cluster_group cluster = cg::this_cluster();
  unsigned rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  unsigned nranks;
  asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(nranks));
  const unsigned i = threadIdx.x;

  s[i] = in[blockIdx.x * kN + i] ^ (rank << 24);
  if (rank == 0 && i == 0) counter = 0;
  asm volatile("barrier.cluster.arrive;\n"
               "barrier.cluster.wait;" ::: "memory");

  const unsigned my_s = static_cast<unsigned>(__cvta_generic_to_shared(&s[i]));
  const unsigned next = (rank + 1) % nranks;
  unsigned remote_s, v;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote_s) : "r"(my_s), "r"(next));
  asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(v) : "r"(remote_s) : "memory");

  const unsigned* far = cluster.map_shared_rank(&s[kN - 1 - i], (rank + 2) % nranks);
  const unsigned w = *far;

  const unsigned my_counter = static_cast<unsigned>(__cvta_generic_to_shared(&counter));
  unsigned rank0_counter;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;"
               : "=r"(rank0_counter)
               : "r"(my_counter), "r"(0u));
  asm volatile("atom.shared::cluster.add.u32 _, [%0], %1;" ::"r"(rank0_counter),
               "r"((rank + 1) * (i + 1))
               : "memory");

  out[blockIdx.x * 2 * kN + i] = v + rank;
  out[blockIdx.x * 2 * kN + kN + i] = w;

  cluster.sync();
  if (rank == 0 && i == 0) counts[blockIdx.x / 4] = counter;
}
