// mma_gemm: C[M][N] = A[M][K] * B[K][N] on the tensor cores through warp-level PTX, written the
// way CUTLASS's SM80 path does (inline asm, no <mma.h>): ldmatrix.x4 for A, ldmatrix.x2.trans
// for row-major B, mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}, then D packed to 16 bits
// with cvt.rn.{f16x2,bf16x2}.f32 and written through stmatrix.x2. Row-major f32 C and 16-bit
// Ch. Block 64 threads (2 warps, each a 16x8 tile of a 16x16 CTA tile), grid (N/16, M/16); M, N,
// K multiples of 16. Two entries: mma_gemm_f16 and mma_gemm_bf16 (A, B, Ch in that format).
#include <cstdint>

constexpr int kTile = 16;

__device__ __forceinline__ uint32_t smem(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

template <bool kBf16>
__device__ __forceinline__ void mma_gemm(const uint16_t* A, const uint16_t* B, float* C,
                                         uint16_t* Ch, int M, int N, int K,
                                         uint16_t (*As)[kTile], uint16_t (*Bs)[kTile],
                                         uint16_t (*Cs)[kTile]) {
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int row0 = blockIdx.y * kTile, col0 = blockIdx.x * kTile;
  const int r = tid / 4, c = (tid % 4) * 4;  // this thread's 4 halves of a 16x16 tile
  float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  for (int k0 = 0; k0 < K; k0 += kTile) {
    *reinterpret_cast<uint2*>(&As[r][c]) =
        *reinterpret_cast<const uint2*>(&A[(row0 + r) * K + k0 + c]);
    *reinterpret_cast<uint2*>(&Bs[r][c]) =
        *reinterpret_cast<const uint2*>(&B[(k0 + r) * N + col0 + c]);
    __syncthreads();
    uint32_t a[4], b[2];
    // A: matrices (rows 0-7, k 0-7), (rows 8-15, k 0-7), (rows 0-7, k 8-15), (rows 8-15, k 8-15).
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(a[0]), "=r"(a[1]), "=r"(a[2]), "=r"(a[3])
                 : "r"(smem(&As[lane % 16][(lane / 16) * 8]))
                 : "memory");
    // B: k rows 0-7 and 8-15 of this warp's 8 columns, transposed into the .col fragment.
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];\n"
                 : "=r"(b[0]), "=r"(b[1])
                 : "r"(smem(&Bs[lane % 16][warp * 8]))
                 : "memory");
    if constexpr (kBf16) {
      asm volatile(
          "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, "
          "%7}, {%8, %9}, {%0, %1, %2, %3};\n"
          : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
          : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    } else {
      asm volatile(
          "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, "
          "%7}, {%8, %9}, {%0, %1, %2, %3};\n"
          : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
          : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    }
    __syncthreads();
  }
  // D: c0, c1 at (g, 2q), (g, 2q + 1); c2, c3 eight rows down.
  const int g = lane / 4, q = lane % 4;
  const int cr = row0 + g, cc = col0 + warp * 8 + 2 * q;
  *reinterpret_cast<float2*>(&C[cr * N + cc]) = make_float2(acc[0], acc[1]);
  *reinterpret_cast<float2*>(&C[(cr + 8) * N + cc]) = make_float2(acc[2], acc[3]);
  uint32_t h0, h1;  // cvt d, a, b puts a in the upper half: the higher column
  if constexpr (kBf16) {
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;\n" : "=r"(h0) : "f"(acc[1]), "f"(acc[0]));
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;\n" : "=r"(h1) : "f"(acc[3]), "f"(acc[2]));
  } else {
    asm("cvt.rn.f16x2.f32 %0, %1, %2;\n" : "=r"(h0) : "f"(acc[1]), "f"(acc[0]));
    asm("cvt.rn.f16x2.f32 %0, %1, %2;\n" : "=r"(h1) : "f"(acc[3]), "f"(acc[2]));
  }
  asm volatile("stmatrix.sync.aligned.m8n8.x2.shared.b16 [%0], {%1, %2};\n" ::"r"(
                   smem(&Cs[lane % 16][warp * 8])),
               "r"(h0), "r"(h1)
               : "memory");
  __syncthreads();
  *reinterpret_cast<uint2*>(&Ch[(row0 + r) * N + col0 + c]) =
      *reinterpret_cast<const uint2*>(&Cs[r][c]);
}

extern "C" __global__ void mma_gemm_f16(const uint16_t* A, const uint16_t* B, float* C,
                                        uint16_t* Ch, int M, int N, int K) {
  __shared__ alignas(16) uint16_t As[kTile][kTile], Bs[kTile][kTile], Cs[kTile][kTile];
  mma_gemm<false>(A, B, C, Ch, M, N, K, As, Bs, Cs);
}

extern "C" __global__ void mma_gemm_bf16(const uint16_t* A, const uint16_t* B, float* C,
                                         uint16_t* Ch, int M, int N, int K) {
  __shared__ alignas(16) uint16_t As[kTile][kTile], Bs[kTile][kTile], Cs[kTile][kTile];
  mma_gemm<true>(A, B, C, Ch, M, N, K, As, Bs, Cs);
}
