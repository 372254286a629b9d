// bulk_reduce: cp.reduce.async.bulk in both directions, in a cluster of 2 CTAs x 64 threads.
// Each CTA r fills s[i] = in[r * 256 + i] and t[i] = in[512 + r * 256 + i] (256 u32 each) with
// ordinary stores (then fence.proxy.async). Rank 0 adds its s into rank 1's t over DSMEM
// (cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.add.u32),
// completing on rank 1's mbarrier; rank 1 then adds its t into out (global, add.u32), and rank
// 0 folds its s into out2 with max.s32. Both global reductions complete through bulk groups.
#include <cstdint>

__device__ __forceinline__ unsigned smem_addr(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ unsigned cluster_addr(unsigned a, unsigned rank) {
  unsigned r;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(rank));
  return r;
}

__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;" ::
                   : "memory");
}

extern "C" __global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(64)
    bulk_reduce(const unsigned* in, unsigned* out, int* out2) {
  __shared__ alignas(128) unsigned s[256];
  __shared__ alignas(128) unsigned t[256];
  __shared__ alignas(8) std::uint64_t bar;
  unsigned rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  for (unsigned i = threadIdx.x; i < 256; i += blockDim.x) {
    s[i] = in[rank * 256 + i];
    t[i] = in[512 + rank * 256 + i];
  }
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_addr(&bar)) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    if (rank == 1)
      asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 1024;" ::"r"(smem_addr(&bar))
                   : "memory");
  }
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  cluster_sync();
  if (threadIdx.x == 0) {
    if (rank == 0) {
      asm volatile(
          "cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.add.u32"
          " [%0], [%1], 1024, [%2];" ::"r"(cluster_addr(smem_addr(t), 1)),
          "r"(smem_addr(s)), "r"(cluster_addr(smem_addr(&bar), 1))
          : "memory");
      asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.max.s32 [%0], [%1], 1024;" ::"l"(
                       out2),
                   "r"(smem_addr(s))
                   : "memory");
    } else {
      asm volatile(
          "{\n.reg .pred P1;\nWAIT:\n"
          "mbarrier.try_wait.parity.shared::cta.b64 P1, [%0], 0;\n"
          "@!P1 bra WAIT;\n}" ::"r"(smem_addr(&bar))
          : "memory");
      asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%0], [%1], 1024;" ::"l"(
                       out),
                   "r"(smem_addr(t))
                   : "memory");
    }
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
  }
  cluster_sync();
}
