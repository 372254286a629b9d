// warp_reduce: per-warp int sum with __shfl_down_sync; lane 0 stores the warp's sum and
// atomically adds it into *total.
extern "C" __global__ void warp_reduce(const int* in, int* warp_sums, int* total, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? in[i] : 0;
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
  if ((threadIdx.x & 31) == 0) {
    int warp = i >> 5;
    warp_sums[warp] = v;
    atomicAdd(total, v);
  }
}
