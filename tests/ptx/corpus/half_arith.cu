// half_arith: the packed f16 / bf16 arithmetic of cuda_fp16.h and cuda_bf16.h as nvcc 13 emits
// it for sm_90a (add/sub/mul/fma.rn/max/min.NaN/fma.rn.relu/neg/abs on .f16x2 and .bf16x2).
// out[8i + k] is operation k of a[i], b[i] (and c[i]); two entries, half_arith and bf16_arith.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

template <class T>
__device__ __forceinline__ void ops(const T* a, const T* b, const T* c, T* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const T x = a[i], y = b[i], z = c[i];
  out[8 * i + 0] = __hadd2(x, y);
  out[8 * i + 1] = __hsub2(x, y);
  out[8 * i + 2] = __hmul2(x, y);
  out[8 * i + 3] = __hfma2(x, y, z);
  out[8 * i + 4] = __hmax2(x, y);
  out[8 * i + 5] = __hmin2_nan(x, y);
  out[8 * i + 6] = __hfma2_relu(x, y, z);
  out[8 * i + 7] = __hneg2(__habs2(x));
}

extern "C" __global__ void half_arith(const __half2* a, const __half2* b, const __half2* c,
                                      __half2* out, int n) {
  ops(a, b, c, out, n);
}

extern "C" __global__ void bf16_arith(const __nv_bfloat162* a, const __nv_bfloat162* b,
                                      const __nv_bfloat162* c, __nv_bfloat162* out, int n) {
  ops(a, b, c, out, n);
}
