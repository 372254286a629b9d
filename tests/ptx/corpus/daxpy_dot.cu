// daxpy_dot: y = a * x + y (double, fma) and, per block, the tree-reduced dot product of x
// with the new y (static shared memory; blockDim.x == 128).
constexpr int kBlock = 128;

extern "C" __global__ void daxpy_dot(double a, const double* x, double* y, double* partial,
                                     long long n) {
  __shared__ double s[kBlock];
  unsigned tid = threadIdx.x;
  long long i = (long long)blockIdx.x * kBlock + tid;
  double prod = 0.0;
  if (i < n) {
    double xi = x[i];
    double yi = a * xi + y[i];
    y[i] = yi;
    prod = xi * yi;
  }
  s[tid] = prod;
  __syncthreads();
  for (unsigned stride = kBlock / 2; stride > 0; stride >>= 1) {
    if (tid < stride) s[tid] = s[tid] + s[tid + stride];
    __syncthreads();
  }
  if (tid == 0) partial[blockIdx.x] = s[0];
}
