// float_convert: float/double/int/half/bf16 conversions, three entry points so that each
// output set has one element kind.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

// float_to_int: int results of f[i] (9 arrays of n, struct of arrays):
// rn, rz, rd, ru, uint rz, plain (int) cast, double->int rn, (int)(d), long long rz low 32.
extern "C" __global__ void float_to_int(const float* f, const double* d, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = f[i];
  double y = d[i];
  out[0 * n + i] = __float2int_rn(x);
  out[1 * n + i] = __float2int_rz(x);
  out[2 * n + i] = __float2int_rd(x);
  out[3 * n + i] = __float2int_ru(x);
  out[4 * n + i] = (int)__float2uint_rz(x);
  out[5 * n + i] = __float2int_rz(x * 0.5f);
  out[6 * n + i] = __double2int_rn(y);
  out[7 * n + i] = __double2int_rz(y);
  out[8 * n + i] = (int)__float2ll_rz(x);
}

// float_results: float results (8 arrays of n): int->float rn and rz of k[i], unsigned->float
// rn of k[i], half round trip, bf16 round trip, double->float rn, float->double->float with
// the double multiplied by 3, and __half2float(__float2half_rz).
extern "C" __global__ void float_results(const float* f, const double* d, const int* k,
                                         float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = f[i];
  out[0 * n + i] = __int2float_rn(k[i]);
  out[1 * n + i] = __int2float_rz(k[i]);
  out[2 * n + i] = __uint2float_rn((unsigned)k[i]);
  out[3 * n + i] = __half2float(__float2half_rn(x));
  out[4 * n + i] = __bfloat162float(__float2bfloat16_rn(x));
  out[5 * n + i] = __double2float_rn(d[i]);
  out[6 * n + i] = (float)((double)x * 3.0);
  out[7 * n + i] = __half2float(__float2half_rz(x));
}

// half_bits: raw bits of __float2half_rn and __float2bfloat16_rn (2 arrays of n, u16);
// NaN results are canonicalized in the kernel (0x7e00 / 0x7fc0) so the bits are defined.
extern "C" __global__ void half_bits(const float* f, unsigned short* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = f[i];
  unsigned short h = __half_as_ushort(__float2half_rn(x));
  if ((h & 0x7c00u) == 0x7c00u && (h & 0x03ffu) != 0) h = 0x7e00;
  unsigned short b = __bfloat16_as_ushort(__float2bfloat16_rn(x));
  if ((b & 0x7f80u) == 0x7f80u && (b & 0x007fu) != 0) b = 0x7fc0;
  out[0 * n + i] = h;
  out[1 * n + i] = b;
}
