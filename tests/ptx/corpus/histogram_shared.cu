// histogram_shared: 256-bin histogram of bytes; shared-memory atomics per block, then one
// global atomicAdd per non-empty bin per block. Grid-stride loop over the input.
extern "C" __global__ void histogram_shared(const unsigned char* data, unsigned* hist, int n) {
  __shared__ unsigned bins[256];
  for (int b = threadIdx.x; b < 256; b += blockDim.x) bins[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&bins[data[i]], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < 256; b += blockDim.x)
    if (bins[b] != 0) atomicAdd(&hist[b], bins[b]);
}
