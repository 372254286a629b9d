// wmma_gemm: C = A * B (+ C) with nvcuda::wmma m16n16k16 fragments, one warp per 16x16 tile of
// C, grid (N/16, M/16), block 32; M, N, K multiples of 16. Three entries:
//   wmma_gemm_f16:  A row-major (M x K), B col-major (K x N, stored as N rows of K), f16, from
//                   global; C loaded from global (row-major, accumulate), stored row-major.
//   wmma_gemm_bf16: A col-major (stored as K rows of M), B row-major, bf16, staged in shared
//                   memory; the accumulator starts at zero, is doubled element by element after
//                   the loop, and is stored column-major (C stored as N rows of M).
//   wmma_gemm_f16acc: f16 accumulators (below).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>

using namespace nvcuda;

extern "C" __global__ void wmma_gemm_f16(const half* A, const half* B, float* C, int M, int N,
                                         int K) {
  const int tm = blockIdx.y * 16, tn = blockIdx.x * 16;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> b;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
  wmma::load_matrix_sync(c, C + tm * N + tn, N, wmma::mem_row_major);
  for (int k = 0; k < K; k += 16) {
    wmma::load_matrix_sync(a, A + tm * K + k, K);
    wmma::load_matrix_sync(b, B + tn * K + k, K);
    wmma::mma_sync(c, a, b, c);
  }
  wmma::store_matrix_sync(C + tm * N + tn, c, N, wmma::mem_row_major);
}

extern "C" __global__ void wmma_gemm_bf16(const __nv_bfloat16* A, const __nv_bfloat16* B,
                                          float* C, int M, int N, int K) {
  __shared__ alignas(32) __nv_bfloat16 As[16 * 16], Bs[16 * 16];
  const int tm = blockIdx.y * 16, tn = blockIdx.x * 16, lane = threadIdx.x;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::col_major> a;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> b;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
  wmma::fill_fragment(c, 0.0f);
  for (int k = 0; k < K; k += 16) {
    // 16 k-rows of 16 elements each for A (col-major: k-major) and B (row-major).
    for (int i = lane; i < 256; i += 32) {
      As[i] = A[(k + i / 16) * M + tm + i % 16];
      Bs[i] = B[(k + i / 16) * N + tn + i % 16];
    }
    __syncwarp();
    wmma::load_matrix_sync(a, As, 16);
    wmma::load_matrix_sync(b, Bs, 16);
    wmma::mma_sync(c, a, b, c);
    __syncwarp();
  }
  for (int i = 0; i < c.num_elements; ++i) c.x[i] *= 2.0f;
  wmma::store_matrix_sync(C + tn * M + tm, c, M, wmma::mem_col_major);
}

// wmma_gemm_f16acc: f16 accumulators. A and B row-major f16 from global; C (f16, M x N) loaded
// row-major, accumulated into and stored back column-major to Ct (N x M).
extern "C" __global__ void wmma_gemm_f16acc(const half* A, const half* B, const half* C, half* Ct,
                                            int M, int N, int K) {
  const int tm = blockIdx.y * 16, tn = blockIdx.x * 16;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> b;
  wmma::fragment<wmma::accumulator, 16, 16, 16, half> c;
  wmma::load_matrix_sync(c, C + tm * N + tn, N, wmma::mem_row_major);
  for (int k = 0; k < K; k += 16) {
    wmma::load_matrix_sync(a, A + tm * K + k, K);
    wmma::load_matrix_sync(b, B + k * N + tn, N);
    wmma::mma_sync(c, a, b, c);
  }
  wmma::store_matrix_sync(Ct + tn * M + tm, c, M, wmma::mem_col_major);
}
