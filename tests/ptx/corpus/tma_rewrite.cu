// tma_rewrite: a tensor map rebuilt on the GPU at run time (seed0 ¶73). Thread 0 copies map `a`
// (a kernel parameter) into the global slot `slot`, publishes it (fence.proxy.tensormap
// release, then acquire on the slot), and loads the 32 x 8 u32 box at (0, 0) through the slot;
// then it copies map `b` over the slot, publishes it again and loads the same box through the
// slot. out[0..255] is the first box, out[256..511] the second.
#include <cuda.h>
#include <cstdint>

__device__ __forceinline__ void wait_parity(unsigned bar, unsigned parity) {
  asm volatile(
      "{\n"
      ".reg .pred P1;\n"
      "LAB_WAIT:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 P1, [%0], %1;\n"
      "@P1 bra DONE;\n"
      "bra LAB_WAIT;\n"
      "DONE:\n"
      "}" ::"r"(bar),
      "r"(parity)
      : "memory");
}

__device__ __forceinline__ void publish(CUtensorMap* slot, const CUtensorMap& map) {
  const auto* src = reinterpret_cast<const std::uint64_t*>(&map);
  auto* dst = reinterpret_cast<std::uint64_t*>(slot);
  for (int i = 0; i < 16; ++i) dst[i] = src[i];
  asm volatile("fence.proxy.tensormap::generic.release.gpu;" ::: "memory");
  asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" ::"l"(slot) : "memory");
}

extern "C" __global__ void __launch_bounds__(128)
    tma_rewrite(const __grid_constant__ CUtensorMap a, const __grid_constant__ CUtensorMap b,
                CUtensorMap* slot, unsigned* out) {
  __shared__ alignas(128) unsigned tile[8][32];
  __shared__ alignas(8) std::uint64_t bar;
  const unsigned bar_addr = static_cast<unsigned>(__cvta_generic_to_shared(&bar));
  const unsigned tile_addr = static_cast<unsigned>(__cvta_generic_to_shared(&tile[0][0]));
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar_addr), "r"(1) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  for (unsigned round = 0; round < 2; ++round) {
    if (threadIdx.x == 0) {
      publish(slot, round == 0 ? a : b);
      asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar_addr),
                   "r"(1024u)
                   : "memory");
      asm volatile(
          "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
          " [%0], [%1, {%2, %3}], [%4];" ::"r"(tile_addr),
          "l"(reinterpret_cast<std::uint64_t>(slot)), "r"(0), "r"(0), "r"(bar_addr)
          : "memory");
    }
    wait_parity(bar_addr, round);
    for (unsigned i = threadIdx.x; i < 256; i += blockDim.x) out[round * 256 + i] = tile[i / 32][i % 32];
    __syncthreads();
  }
}
