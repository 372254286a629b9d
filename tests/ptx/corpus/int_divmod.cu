// int_divmod: signed/unsigned 32- and 64-bit division and remainder, by run-time and by
// constant divisors. Division by zero is avoided (divisor 0 -> 1) and INT_MIN / -1 (and its
// 64-bit twin) is guarded: quotient is the dividend, remainder 0.
// out32 has 8 arrays of n (s32 q, s32 r, u32 q, u32 r, a/7, a%10, u/3, u%1000),
// out64 has 4 arrays of n (s64 q, s64 r, u64 q, u64 r), all as struct of arrays.
extern "C" __global__ void int_divmod(const int* a, const int* b, const long long* c,
                                      const long long* d, unsigned* out32,
                                      unsigned long long* out64, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int x = a[i], y = b[i];
  if (y == 0) y = 1;
  int q, r;
  if (x == (int)0x80000000 && y == -1) {
    q = x;
    r = 0;
  } else {
    q = x / y;
    r = x % y;
  }
  unsigned ux = (unsigned)x, uy = (unsigned)y;
  out32[0 * n + i] = (unsigned)q;
  out32[1 * n + i] = (unsigned)r;
  out32[2 * n + i] = ux / uy;
  out32[3 * n + i] = ux % uy;
  out32[4 * n + i] = (unsigned)(x / 7);
  out32[5 * n + i] = (unsigned)(x % 10);
  out32[6 * n + i] = ux / 3u;
  out32[7 * n + i] = ux % 1000u;

  long long X = c[i], Y = d[i];
  if (Y == 0) Y = 1;
  long long Q, R;
  if (X == (long long)0x8000000000000000ull && Y == -1) {
    Q = X;
    R = 0;
  } else {
    Q = X / Y;
    R = X % Y;
  }
  unsigned long long uX = (unsigned long long)X, uY = (unsigned long long)Y;
  out64[0 * n + i] = (unsigned long long)Q;
  out64[1 * n + i] = (unsigned long long)R;
  out64[2 * n + i] = uX / uY;
  out64[3 * n + i] = uX % uY;
}
