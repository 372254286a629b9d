// cp_async_pipeline: Ampere-style asynchronous global->shared copies (LDGSTS) with a
// double-buffered pipeline. CTA b (64 threads) handles kSeg = 998 u32 starting at
// in + b * 1024 (16-byte aligned) in chunks of 256 elements (4 chunks, the last 230 long). A
// chunk is loaded as
//   elements   0..63:  cp.async.ca.shared.global, 4 bytes per thread (64 threads),
//   elements  64..127: cp.async.ca.shared.global, 8 bytes per thread (threads 32..63),
//   elements 128..255: cp.async.cg.shared.global, 16 bytes per thread (threads 0..31),
// every copy with a src-size operand: what lies past the segment's end is zero-filled (src-size
// 0 for a copy wholly outside, 8 of 16 for the one straddling element 998). Chunk k+1 is issued
// (commit_group) before waiting for chunk k (wait_group 1; wait_group 0 for the last), then
// out[b * 998 + k*256 + j] = s[j-1] + 2*s[j] + 3*s[j+1] (indices wrapping within the chunk,
// zero-filled elements included) for every j of the chunk inside the segment.
#include <cstdint>

constexpr unsigned kChunk = 256, kSeg = 998, kInStride = 1024, kThreads = 64;
constexpr unsigned kChunks = (kSeg + kChunk - 1) / kChunk;

__device__ __forceinline__ void load_chunk(unsigned* buf, const unsigned* seg, unsigned k) {
  const unsigned t = threadIdx.x;
  const unsigned base = k * kChunk;
  auto src_bytes = [&](unsigned j, unsigned n) -> unsigned {
    const unsigned idx = base + j;
    return idx >= kSeg ? 0u : (kSeg - idx >= n ? 4 * n : 4 * (kSeg - idx));
  };
  auto gptr = [&](unsigned j) -> const unsigned* {
    return base + j < kSeg ? seg + base + j : seg;  // a valid address even when src-size is 0
  };
  {
    const unsigned j = t;
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;" ::"r"(
                     static_cast<unsigned>(__cvta_generic_to_shared(buf + j))),
                 "l"(gptr(j)), "r"(src_bytes(j, 1))
                 : "memory");
  }
  if (t >= 32) {
    const unsigned j = 64 + 2 * (t - 32);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;" ::"r"(
                     static_cast<unsigned>(__cvta_generic_to_shared(buf + j))),
                 "l"(gptr(j)), "r"(src_bytes(j, 2))
                 : "memory");
  } else {
    const unsigned j = 128 + 4 * t;
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(
                     static_cast<unsigned>(__cvta_generic_to_shared(buf + j))),
                 "l"(gptr(j)), "r"(src_bytes(j, 4))
                 : "memory");
  }
  asm volatile("cp.async.commit_group;" ::: "memory");
}

extern "C" __global__ void __launch_bounds__(kThreads)
    cp_async_pipeline(const unsigned* __restrict__ in, unsigned* __restrict__ out) {
  __shared__ alignas(16) unsigned buf[2][kChunk];
  const unsigned* seg = in + blockIdx.x * kInStride;
  unsigned* oseg = out + blockIdx.x * kSeg;

  load_chunk(buf[0], seg, 0);
  for (unsigned k = 0; k < kChunks; ++k) {
    if (k + 1 < kChunks) {
      load_chunk(buf[(k + 1) & 1], seg, k + 1);
      asm volatile("cp.async.wait_group 1;" ::: "memory");
    } else {
      asm volatile("cp.async.wait_group 0;" ::: "memory");
    }
    __syncthreads();
    const unsigned* s = buf[k & 1];
    for (unsigned j = threadIdx.x; j < kChunk; j += kThreads) {
      if (k * kChunk + j < kSeg)
        oseg[k * kChunk + j] =
            s[(j + kChunk - 1) % kChunk] + 2 * s[j] + 3 * s[(j + 1) % kChunk];
    }
    __syncthreads();  // buf[k & 1] is refilled by the next iteration's load
  }
}
