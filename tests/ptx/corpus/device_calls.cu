// device_calls: non-inlined device functions with several parameters of different types.
__device__ __noinline__ long long mix(int a, unsigned b, long long c, float f, double d) {
  long long r = (long long)a * (long long)b + c;
  r ^= (long long)(f * 2.0f);
  r += (long long)d;
  return r;
}

__device__ __noinline__ float scale(float x, float y, int k) { return x * y + (float)k; }

__device__ __noinline__ unsigned hash(unsigned v) {
  v ^= v >> 16;
  v *= 0x7feb352du;
  v ^= v >> 15;
  v *= 0x846ca68bu;
  v ^= v >> 16;
  return v;
}

extern "C" __global__ void device_calls(const int* ia, const unsigned* ub, const float* fx,
                                        const double* dy, long long* out_mix, float* out_scale,
                                        unsigned* out_hash, long long bias, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out_mix[i] = mix(ia[i], ub[i], bias + i, fx[i], dy[i]);
  out_scale[i] = scale(fx[i], (float)dy[i], ia[i] >> 20);
  out_hash[i] = hash(hash(ub[i]) + (unsigned)i);
}
