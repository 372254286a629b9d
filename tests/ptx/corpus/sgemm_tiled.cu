// sgemm_tiled: C[M][N] = A[M][K] * B[K][N], row-major, 16x16 shared-memory tiles,
// block (16,16), grid (N/16, M/16); M, N, K multiples of 16.
constexpr int kTile = 16;

extern "C" __global__ void sgemm_tiled(const float* A, const float* B, float* C, int M, int N,
                                       int K) {
  __shared__ float As[kTile][kTile];
  __shared__ float Bs[kTile][kTile];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * kTile + ty;
  int col = blockIdx.x * kTile + tx;
  float acc = 0.0f;
  for (int t = 0; t < K; t += kTile) {
    As[ty][tx] = A[row * K + t + tx];
    Bs[ty][tx] = B[(t + ty) * N + col];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kTile; ++k) acc += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  if (row < M && col < N) C[row * N + col] = acc;
}
