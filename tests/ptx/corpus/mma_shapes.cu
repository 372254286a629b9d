// mma_shapes: one warp, one mma.sync of each further shape and type, its fragments loaded
// straight from global memory by the PTX ISA's "Matrix fragments for mma.m16n8k*" formulas
// (groupID g = lane / 4, threadID_in_group q = lane % 4), D = A * B + C written back by the
// C/D layout. A is 16 x K and B K x 8, both row-major; C and D 16 x 8 row-major.
//   mma_tf32_k8:  m16n8k8  .f32.tf32.tf32.f32
//   mma_f16_k8:   m16n8k8  .f32.f16.f16.f32
//   mma_s8_k32:   m16n8k32 .satfinite.s32.s8.s8.s32
//   mma_u8s8_k16: m16n8k16 .s32.u8.s8.s32 (wrapping)
//   mma_f16acc_k16: m16n8k16 .f16.f16.f16.f16
#include <cstdint>

__device__ __forceinline__ int c_index(int lane, int i) {  // row g + 8 (i / 2), col 2q + i % 2
  return ((lane >> 2) + 8 * (i >> 1)) * 8 + 2 * (lane & 3) + (i & 1);
}

extern "C" __global__ void mma_tf32_k8(const float* A, const float* B, const float* C, float* D) {
  const int lane = threadIdx.x, g = lane >> 2, q = lane & 3;
  uint32_t a[4], b[2];
  float c[4];
#pragma unroll
  for (int i = 0; i < 4; ++i) a[i] = __float_as_uint(A[(g + 8 * (i & 1)) * 8 + q + 4 * (i >> 1)]);
#pragma unroll
  for (int i = 0; i < 2; ++i) b[i] = __float_as_uint(B[(q + 4 * i) * 8 + g]);
#pragma unroll
  for (int i = 0; i < 4; ++i) c[i] = C[c_index(lane, i)];
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
      "{%8, %9}, {%0, %1, %2, %3};\n"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#pragma unroll
  for (int i = 0; i < 4; ++i) D[c_index(lane, i)] = c[i];
}

extern "C" __global__ void mma_f16_k8(const uint16_t* A, const uint16_t* B, const float* C,
                                      float* D) {
  const int lane = threadIdx.x, g = lane >> 2, q = lane & 3;
  uint32_t a[2], b;
#pragma unroll
  for (int r = 0; r < 2; ++r) {  // row g + 8r, columns 2q and 2q + 1
    const int at = (g + 8 * r) * 8 + 2 * q;
    a[r] = A[at] | (uint32_t{A[at + 1]} << 16);
  }
  b = B[(2 * q) * 8 + g] | (uint32_t{B[(2 * q + 1) * 8 + g]} << 16);
  float c[4];
#pragma unroll
  for (int i = 0; i < 4; ++i) c[i] = C[c_index(lane, i)];
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5}, {%6}, "
      "{%0, %1, %2, %3};\n"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a[0]), "r"(a[1]), "r"(b));
#pragma unroll
  for (int i = 0; i < 4; ++i) D[c_index(lane, i)] = c[i];
}

extern "C" __global__ void mma_s8_k32(const int8_t* A, const int8_t* B, const int* C, int* D) {
  const int lane = threadIdx.x, g = lane >> 2, q = lane & 3;
  uint32_t a[4] = {0, 0, 0, 0}, b[2] = {0, 0};
#pragma unroll
  for (int r = 0; r < 4; ++r)  // row g + 8 (r % 2), columns 4q + j + 16 (r / 2)
#pragma unroll
    for (int j = 0; j < 4; ++j)
      a[r] |= uint32_t{uint8_t(A[(g + 8 * (r & 1)) * 32 + 4 * q + j + 16 * (r >> 1)])} << (8 * j);
#pragma unroll
  for (int r = 0; r < 2; ++r)  // k = 4q + j + 16r, column g
#pragma unroll
    for (int j = 0; j < 4; ++j) b[r] |= uint32_t{uint8_t(B[(4 * q + j + 16 * r) * 8 + g])} << (8 * j);
  int c[4];
#pragma unroll
  for (int i = 0; i < 4; ++i) c[i] = C[c_index(lane, i)];
  asm volatile(
      "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32 {%0, %1, %2, %3}, {%4, %5, %6, "
      "%7}, {%8, %9}, {%0, %1, %2, %3};\n"
      : "+r"(c[0]), "+r"(c[1]), "+r"(c[2]), "+r"(c[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#pragma unroll
  for (int i = 0; i < 4; ++i) D[c_index(lane, i)] = c[i];
}

extern "C" __global__ void mma_u8s8_k16(const uint8_t* A, const int8_t* B, const int* C, int* D) {
  const int lane = threadIdx.x, g = lane >> 2, q = lane & 3;
  uint32_t a[2] = {0, 0}, b = 0;
#pragma unroll
  for (int r = 0; r < 2; ++r)  // row g + 8r, columns 4q + j
#pragma unroll
    for (int j = 0; j < 4; ++j) a[r] |= uint32_t{A[(g + 8 * r) * 16 + 4 * q + j]} << (8 * j);
#pragma unroll
  for (int j = 0; j < 4; ++j) b |= uint32_t{uint8_t(B[(4 * q + j) * 8 + g])} << (8 * j);
  int c[4];
#pragma unroll
  for (int i = 0; i < 4; ++i) c[i] = C[c_index(lane, i)];
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.s32.u8.s8.s32 {%0, %1, %2, %3}, {%4, %5}, {%6}, "
      "{%0, %1, %2, %3};\n"
      : "+r"(c[0]), "+r"(c[1]), "+r"(c[2]), "+r"(c[3])
      : "r"(a[0]), "r"(a[1]), "r"(b));
#pragma unroll
  for (int i = 0; i < 4; ++i) D[c_index(lane, i)] = c[i];
}

// mma_f16acc_k16: m16n8k16 .f16.f16.f16.f16 (f16 accumulators: c0/c1 and c2/c3 packed in two
// .f16x2 registers, the lower column in the low half).
extern "C" __global__ void mma_f16acc_k16(const uint16_t* A, const uint16_t* B, const uint16_t* C,
                                          uint16_t* D) {
  const int lane = threadIdx.x, g = lane >> 2, q = lane & 3;
  uint32_t a[4], b[2], c[2];
#pragma unroll
  for (int r = 0; r < 4; ++r) {  // row g + 8 (r % 2), columns 2q + 8 (r / 2) and one more
    const int at = (g + 8 * (r & 1)) * 16 + 2 * q + 8 * (r >> 1);
    a[r] = A[at] | (uint32_t{A[at + 1]} << 16);
  }
#pragma unroll
  for (int r = 0; r < 2; ++r)  // k = 2q + 8r and one more, column g
    b[r] = B[(2 * q + 8 * r) * 8 + g] | (uint32_t{B[(2 * q + 8 * r + 1) * 8 + g]} << 16);
#pragma unroll
  for (int r = 0; r < 2; ++r) c[r] = C[c_index(lane, 2 * r)] | (uint32_t{C[c_index(lane, 2 * r + 1)]} << 16);
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0, %1}, {%2, %3, %4, %5}, {%6, %7}, "
      "{%0, %1};\n"
      : "+r"(c[0]), "+r"(c[1])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#pragma unroll
  for (int i = 0; i < 4; ++i) D[c_index(lane, i)] = uint16_t(c[i / 2] >> (16 * (i % 2)));
}
