// im2col_roundtrip: one CTA loads an im2col column (8 pixels x 16 u32 channels) of an NWC tensor
// through map `in` (offsets 0), then writes it back through map `out` (same shape, another
// buffer) with an im2col store (.im2col_no_offs): the pixels the column covers are copied.
// Regenerate: nvcc -ptx -arch=sm_90a -O3 im2col_roundtrip.cu
#include <cuda.h>
#include <cstdint>

extern "C" __global__ void __launch_bounds__(32)
    im2col_roundtrip(const __grid_constant__ CUtensorMap in, const __grid_constant__ CUtensorMap out,
                     int w0, int n0) {
  __shared__ alignas(128) unsigned column[8 * 16];
  __shared__ alignas(8) std::uint64_t bar;
  const unsigned b = static_cast<unsigned>(__cvta_generic_to_shared(&bar));
  const unsigned c = static_cast<unsigned>(__cvta_generic_to_shared(column));
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(b) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 512;" ::"r"(b) : "memory");
    const unsigned short offset = 0;
    asm volatile(
        "cp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes"
        " [%0], [%1, {%2, %3, %4}], [%5], {%6};" ::"r"(c),
        "l"(reinterpret_cast<std::uint64_t>(&in)), "r"(0), "r"(w0), "r"(n0), "r"(b), "h"(offset)
        : "memory");
    asm volatile(
        "{\n.reg .pred P1;\nWAIT:\n"
        "mbarrier.try_wait.parity.shared::cta.b64 P1, [%0], 0;\n"
        "@!P1 bra WAIT;\n}" ::"r"(b)
        : "memory");
    asm volatile(
        "cp.async.bulk.tensor.3d.global.shared::cta.im2col_no_offs.bulk_group"
        " [%0, {%1, %2, %3}], [%4];" ::"l"(reinterpret_cast<std::uint64_t>(&out)),
        "r"(0), "r"(w0), "r"(n0), "r"(c)
        : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
  }
}
