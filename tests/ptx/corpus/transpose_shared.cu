// transpose_shared: out[x][y] = in[y][x] for a height x width row-major matrix, through a
// 32x33 (padded) shared tile. block (32, 8), grid (ceil(width/32), ceil(height/32)).
// __launch_bounds__ gives the entry .maxntid and .minnctapersm directives.
constexpr int kTile = 32;
constexpr int kRows = 8;

extern "C" __global__ void __launch_bounds__(256, 2)
    transpose_shared(const float* in, float* out, int width, int height) {
  __shared__ float tile[kTile][kTile + 1];
  int x = blockIdx.x * kTile + threadIdx.x;
  int y = blockIdx.y * kTile + threadIdx.y;
  for (int j = 0; j < kTile; j += kRows)
    if (x < width && y + j < height) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * width + x];
  __syncthreads();
  x = blockIdx.y * kTile + threadIdx.x;  // transposed block
  y = blockIdx.x * kTile + threadIdx.y;
  for (int j = 0; j < kTile; j += kRows)
    if (x < height && y + j < width) out[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}
