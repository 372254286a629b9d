// tma_multicast: clusters of 2 CTAs (__cluster_dims__(2, 1, 1)) share one 32x8 tile of a 2D
// u32 tensor (tensor map: 64 x 16 elements, row pitch 256 bytes, box 32 x 4 = half a tile).
// Cluster c's tile starts at (x, y) = ((c % 2) * 32, (c / 2) * 8). Each CTA initializes its own
// mbarrier and expects the whole tile's bytes (1024); after a cluster barrier (so the peer's
// mbarrier is initialized), each CTA's thread 0 loads ITS half (rank r: rows 4r..4r+3) with
// .multicast::cluster and ctaMask 0b11, so the half lands at the same offset in both CTAs' shared
// memory and signals both CTAs' mbarriers. Every CTA waits (try_wait.parity in a C++ loop),
// copies the full tile to out[blockIdx.x * 256 + row * 32 + col], and a last cluster barrier
// keeps both CTAs alive until neither is touched by the other.
#include <cuda.h>
#include <cstdint>

constexpr int kTileW = 32, kTileH = 8, kHalfH = 4;

__device__ __forceinline__ unsigned cluster_ctarank() {
  unsigned r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}

__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\n"
               "barrier.cluster.wait.acquire.aligned;" ::: "memory");
}

__device__ __forceinline__ bool try_wait_parity(unsigned bar, unsigned parity) {
  unsigned ok;
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
      "selp.u32 %0, 1, 0, p;\n"
      "}"
      : "=r"(ok)
      : "r"(bar), "r"(parity)
      : "memory");
  return ok != 0;
}

extern "C" __global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(128)
    tma_multicast(const __grid_constant__ CUtensorMap tmap, unsigned* out) {
  __shared__ alignas(128) unsigned tile[kTileH][kTileW];
  __shared__ alignas(8) std::uint64_t bar;
  const unsigned bar_addr = static_cast<unsigned>(__cvta_generic_to_shared(&bar));
  const unsigned rank = cluster_ctarank();
  const unsigned cluster = blockIdx.x / 2;
  const int x0 = static_cast<int>(cluster % 2) * kTileW;
  const int y0 = static_cast<int>(cluster / 2) * kTileH + static_cast<int>(rank) * kHalfH;

  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar_addr), "r"(1) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  cluster_sync();

  if (threadIdx.x == 0) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar_addr),
                 "r"(static_cast<unsigned>(sizeof(tile)))
                 : "memory");
    const unsigned dst =
        static_cast<unsigned>(__cvta_generic_to_shared(&tile[rank * kHalfH][0]));
    const unsigned short mask = 0b11;
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
        ".multicast::cluster [%0], [%1, {%2, %3}], [%4], %5;" ::"r"(dst),
        "l"(reinterpret_cast<std::uint64_t>(&tmap)), "r"(x0), "r"(y0), "r"(bar_addr), "h"(mask)
        : "memory");
  }

  while (!try_wait_parity(bar_addr, 0)) {
  }

  for (unsigned i = threadIdx.x; i < kTileW * kTileH; i += blockDim.x)
    out[blockIdx.x * kTileW * kTileH + i] = tile[i / kTileW][i % kTileW];

  cluster_sync();
}
