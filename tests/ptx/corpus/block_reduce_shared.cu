// block_reduce_shared: shared-memory tree reduction of floats, one sum per block.
// Dynamic shared memory: blockDim.x floats; blockDim.x must be a power of two.
extern "C" __global__ void block_reduce_shared(const float* in, float* block_sums, int n) {
  extern __shared__ float sdata[];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x + tid;
  sdata[tid] = i < (unsigned)n ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0) block_sums[blockIdx.x] = sdata[0];
}
