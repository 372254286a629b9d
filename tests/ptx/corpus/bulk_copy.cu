// bulk_copy: non-tensor bulk copies, written with the CCCL cuda::ptx wrappers (which are inline
// asm underneath). CTA b (128 threads) copies the 4 KiB chunk src[b * 1024 .. +1024) of u32
// into shared memory with three cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes
// (2048, 1536 and 512 bytes) that complete on one mbarrier (expect_tx 4096); the issuing thread
// is the elect.sync leader of warp 0 (CUTLASS's elect_one_sync), which also prefetches the chunk
// to L2 first. All threads wait (try_wait.parity), transform in place
// s[i] = s[i] * 3 + (b << 16) + i, fence.proxy.async.shared::cta, and the leader writes the
// chunk to dst[b * 1024 ..] with cp.async.bulk.global.shared::cta.bulk_group, then
// commit_group / wait_group 0; finally thread 0 invalidates the mbarrier.
#include <cuda/ptx>
#include <cstdint>

namespace ptx = cuda::ptx;

constexpr unsigned kWords = 1024;

__device__ __forceinline__ bool elect_one_sync() {
  unsigned pred = 0, laneid = 0;
  asm volatile(
      "{\n"
      ".reg .b32 %%rx;\n"
      ".reg .pred %%px;\n"
      "     elect.sync %%rx|%%px, %2;\n"
      "@%%px mov.s32 %1, 1;\n"
      "     mov.s32 %0, %%rx;\n"
      "}\n"
      : "+r"(laneid), "+r"(pred)
      : "r"(0xffffffffu));
  return pred != 0;
}

extern "C" __global__ void __launch_bounds__(128)
    bulk_copy(const unsigned* __restrict__ src, unsigned* __restrict__ dst) {
  __shared__ alignas(128) unsigned s[kWords];
  __shared__ alignas(8) std::uint64_t bar;
  const unsigned* gsrc = src + blockIdx.x * kWords;
  unsigned* gdst = dst + blockIdx.x * kWords;
  const bool leader = threadIdx.x / 32 == 0 && elect_one_sync();

  if (threadIdx.x == 0) {
    ptx::mbarrier_init(&bar, 1);
    ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
  }
  __syncthreads();

  if (leader) {
    asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(gsrc), "r"(kWords * 4u)
                 : "memory");
    ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bar,
                                   kWords * 4u);
    ptx::cp_async_bulk(ptx::space_cluster, ptx::space_global, &s[0], gsrc, 2048u, &bar);
    ptx::cp_async_bulk(ptx::space_cluster, ptx::space_global, &s[512], gsrc + 512, 1536u, &bar);
    ptx::cp_async_bulk(ptx::space_cluster, ptx::space_global, &s[896], gsrc + 896, 512u, &bar);
  }
  while (!ptx::mbarrier_try_wait_parity(&bar, 0)) {
  }

  for (unsigned i = threadIdx.x; i < kWords; i += blockDim.x)
    s[i] = s[i] * 3u + (blockIdx.x << 16) + i;
  ptx::fence_proxy_async(ptx::space_shared);
  __syncthreads();

  if (leader) {
    ptx::cp_async_bulk(ptx::space_global, ptx::space_shared, gdst, &s[0], kWords * 4u);
    ptx::cp_async_bulk_commit_group();
    ptx::cp_async_bulk_wait_group(ptx::n32_t<0>{});
  }
  __syncthreads();
  if (threadIdx.x == 0)
    asm volatile("mbarrier.inval.shared::cta.b64 [%0];" ::"r"(
                     static_cast<unsigned>(__cvta_generic_to_shared(&bar)))
                 : "memory");
}
