// bit_tricks: per element bit intrinsics. out is a struct of arrays: out[k * n + i] for
// k = 0 .. kOutputs-1 (see the list below; cases.cc mirrors it).
constexpr int kOutputs = 24;

extern "C" __global__ void bit_tricks(const unsigned* a, const unsigned* b, const unsigned* c,
                                      unsigned* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned x = a[i], y = b[i], z = c[i];
  unsigned r[kOutputs];
  r[0] = __popc(x);
  r[1] = __clz((int)x);
  r[2] = __brev(x);
  r[3] = __ffs((int)x);
  r[4] = __byte_perm(x, y, 0x3210);
  r[5] = __byte_perm(x, y, 0x7531);
  r[6] = __byte_perm(x, y, 0x0123);
  r[7] = __byte_perm(x, y, 0xC0DE);           // nibbles above 7: only the low 3 bits count
  r[8] = __byte_perm(x, y, z);                // run-time selector
  unsigned s = z & 63;
  r[9] = __funnelshift_l(x, y, s);            // shift & 31
  r[10] = __funnelshift_r(x, y, s);
  r[11] = __funnelshift_lc(x, y, s);          // min(shift, 32)
  r[12] = __funnelshift_rc(x, y, s);
  unsigned pos = z & 31, len = 1 + ((z >> 5) & 15);
  r[13] = (x >> pos) & ((1u << len) - 1u);    // unsigned field extract
  unsigned sl = (z >> 9) & 31, sr = (z >> 14) & 31;
  r[14] = (unsigned)((int)(x << sl) >> sr);   // signed field extract (arithmetic shift)
  r[15] = (x << 4) >> 24;                     // constant unsigned field: bits 20..27
  r[16] = (unsigned)((int)(x << 8) >> 20);    // constant signed field: bits 12..23
  r[17] = min(x, y);                          // unsigned min / max
  r[18] = max(x, y);
  r[19] = (unsigned)min((int)x, (int)y);      // signed min / max
  r[20] = (unsigned)max((int)x, (int)y);
  unsigned long long w = ((unsigned long long)x << 32) | y;
  r[21] = __popcll(w);
  r[22] = __clzll((long long)(w >> (z & 63)));
  r[23] = __ffsll((long long)(w << (z & 63)));
#pragma unroll
  for (int k = 0; k < kOutputs; ++k) out[k * n + i] = r[k];
}
