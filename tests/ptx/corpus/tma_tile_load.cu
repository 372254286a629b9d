// tma_tile_load: each CTA of a 4 x 3 grid loads two 32x8 boxes, one after the other, of a 2D u32
// tensor (tensor map: 100 x 20 elements, row pitch 400 bytes) with cp.async.bulk.tensor into
// one 128-byte-aligned shared tile, completing on one mbarrier (count 1): thread 0 initializes
// it (fence.mbarrier_init, fence.proxy.async), then for each box arrives with expect_tx(1024)
// and issues the load; every thread waits for the phase (parity 0, then 1) with a try_wait.parity
// loop written as CUTLASS's ClusterBarrier::wait does (labels inside an inline-asm scope, so the
// two inlined waits repeat the same label names in sibling scopes), then copies the tile to
// out[(cta * 2 + load) * 256 + row * 32 + col]. The first box starts at
// (blockIdx.x * 32 - 8, blockIdx.y * 8 - 3), the second 4 columns right (16 B: a TMA box must start on a 16-byte boundary of its innermost dimension) and 4 rows down, so edge
// boxes start at negative coordinates or run past the tensor: those elements are zero-filled.
#include <cuda.h>
#include <cstdint>

constexpr int kBoxW = 32, kBoxH = 8;

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

__device__ __forceinline__ void load_box(const CUtensorMap& tmap, unsigned tile, unsigned bar,
                                         int x, int y) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar),
               "r"(static_cast<unsigned>(kBoxW * kBoxH * 4))
               : "memory");
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3}], [%4];" ::"r"(tile),
      "l"(reinterpret_cast<std::uint64_t>(&tmap)), "r"(x), "r"(y), "r"(bar)
      : "memory");
}

extern "C" __global__ void __launch_bounds__(128)
    tma_tile_load(const __grid_constant__ CUtensorMap tmap, unsigned* out) {
  __shared__ alignas(128) unsigned tile[kBoxH][kBoxW];
  __shared__ alignas(8) std::uint64_t bar;
  const unsigned bar_addr = static_cast<unsigned>(__cvta_generic_to_shared(&bar));
  const unsigned tile_addr = static_cast<unsigned>(__cvta_generic_to_shared(&tile[0][0]));
  const int x0 = static_cast<int>(blockIdx.x) * kBoxW - 8;
  const int y0 = static_cast<int>(blockIdx.y) * kBoxH - 3;
  const unsigned cta = blockIdx.y * gridDim.x + blockIdx.x;

  if (threadIdx.x == 0) {
    asm volatile("prefetch.tensormap [%0];" ::"l"(reinterpret_cast<std::uint64_t>(&tmap))
                 : "memory");
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar_addr), "r"(1) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  }
  __syncthreads();

  for (unsigned load = 0; load < 2; ++load) {
    if (threadIdx.x == 0)
      load_box(tmap, tile_addr, bar_addr, x0 + 4 * static_cast<int>(load),
               y0 + 4 * static_cast<int>(load));
    // Phase `load` of the barrier completes when the one arrival and the box's bytes are in.
    if (load == 0)
      wait_parity(bar_addr, 0);
    else
      wait_parity(bar_addr, 1);
    for (unsigned i = threadIdx.x; i < kBoxW * kBoxH; i += blockDim.x)
      out[(cta * 2 + load) * kBoxW * kBoxH + i] = tile[i / kBoxW][i % kBoxW];
    __syncthreads();  // the tile is read before the next load overwrites it
    if (threadIdx.x == 0) asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  }
}
