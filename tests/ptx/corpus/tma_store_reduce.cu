// tma_store_reduce: each CTA (grid 3 x 3, 128 threads) fills a 16x8 u32 tile in shared memory,
// tile[r][c] = ((blockIdx.y * 3 + blockIdx.x) * 0x01000193 + r * 16 + c) ^ 0x5a5a0000, makes
// it
// visible to the async proxy (fence.proxy.async.shared::cta), and one thread issues
//   - a TMA store (cp.async.bulk.tensor.2d.global.shared::cta.bulk_group) of the tile through
//     `dst_map` (40 x 20 u32, row pitch 160 B) at (blockIdx.x * 16, blockIdx.y * 8): the right
//     column and bottom row of boxes run past the tensor, those elements are not written;
//   - a TMA reduce-add (cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.bulk_group) of the
//     same tile through `acc_map` (same shape, another buffer) at (blockIdx.x * 12 - 2,
//     blockIdx.y * 6 - 1): the boxes overlap (several CTAs add into one element; u32 adds wrap,
//     so the order does not matter) and the first row / column start at -2 / -1;
// then cp.async.bulk.commit_group and cp.async.bulk.wait_group.read 0 before the CTA exits
// (the shared tile must stay valid until the bulk reads are done).
#include <cuda.h>
#include <cstdint>

constexpr int kW = 16, kH = 8;

extern "C" __global__ void __launch_bounds__(128)
    tma_store_reduce(const __grid_constant__ CUtensorMap dst_map,
                     const __grid_constant__ CUtensorMap acc_map) {
  __shared__ alignas(128) unsigned tile[kH][kW];
  const unsigned cta = blockIdx.y * gridDim.x + blockIdx.x;
  for (unsigned i = threadIdx.x; i < kW * kH; i += blockDim.x)
    tile[i / kW][i % kW] = (cta * 0x01000193u + i) ^ 0x5a5a0000u;
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();

  if (threadIdx.x == 0) {
    const unsigned src = static_cast<unsigned>(__cvta_generic_to_shared(&tile[0][0]));
    const int sx = static_cast<int>(blockIdx.x) * kW, sy = static_cast<int>(blockIdx.y) * kH;
    const int ax = static_cast<int>(blockIdx.x) * 12 - 2, ay = static_cast<int>(blockIdx.y) * 6 - 1;
    asm volatile(
        "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];" ::"l"(
            reinterpret_cast<std::uint64_t>(&dst_map)),
        "r"(sx), "r"(sy), "r"(src)
        : "memory");
    asm volatile(
        "cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.bulk_group"
        " [%0, {%1, %2}], [%3];" ::"l"(reinterpret_cast<std::uint64_t>(&acc_map)),
        "r"(ax), "r"(ay), "r"(src)
        : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
  }
  __syncthreads();
}
