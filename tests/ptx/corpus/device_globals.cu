// device_globals: module-scope variables. A __constant__ float table with an initializer
// (a degree-7 polynomial by Horner's rule, and one coefficient picked by a data-dependent index,
// which nvcc reads through a register holding the table's address), a __constant__ int table
// with a partial initializer (the rest are zeros), a __device__ lookup table read at a
// data-dependent index, and __device__ per-block counters (a partial initializer) that
// atomicAdd accumulates into and thread 0 reads back after __syncthreads. A __noinline__
// function reads the lookup table through a generic pointer (cvta.global of its address).
__constant__ float coeff[8] = {1.0f, -0.5f, 0.25f, 0.125f, -2.0f, 3.0f, 0.0625f, -1.5f};
__constant__ int shifts[4] = {1, 3};
__device__ unsigned lut[16] = {0x9e3779b9u, 0x7f4a7c15u, 0xf39cc060u, 0x5ced1b6du,
                               0x1b873593u, 0xcc9e2d51u, 0x85ebca6bu, 0xc2b2ae35u,
                               0x27d4eb2fu, 0x165667b1u, 0xd3a2646cu, 0xfd7046c5u,
                               0xb55a4f09u, 0x3c6ef372u, 0xa54ff53au, 0x510e527fu};
__device__ unsigned counters[4] = {7u, 100u};

__device__ __noinline__ unsigned pick(const unsigned* table, unsigned k) { return table[k]; }

extern "C" __global__ void device_globals(const float* x, const unsigned* keys, float* y,
                                          unsigned* z, unsigned* totals, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const float v = x[i];
    float acc = coeff[7];
    for (int k = 6; k >= 0; --k) acc = fmaf(acc, v, coeff[k]);
    const unsigned key = keys[i];
    y[i] = acc + coeff[key & 7u];
    z[i] = pick(lut, key & 15u) ^ pick(keys, i) ^ (key >> shifts[key & 3u]);
    atomicAdd(&counters[blockIdx.x & 3u], key & 255u);
  }
  __syncthreads();
  if (threadIdx.x == 0) totals[blockIdx.x] = atomicAdd(&counters[blockIdx.x & 3u], 0u);
}
