// Block-wide barriers beyond __syncthreads: __syncthreads_count / _and / _or (bar.red.popc,
// bar.red.and, bar.red.or) and a producer / consumer hand-off over named barrier 1 (the
// producers bar.arrive, the consumers bar.sync; 128 threads take part).

// Per CTA: out[3 b] = threads with in > 0, out[3 b + 1] = all in != 0, out[3 b + 2] = any in < 0.
extern "C" __global__ void block_vote(const int* in, int* out) {
  const int v = in[blockIdx.x * blockDim.x + threadIdx.x];
  const int count = __syncthreads_count(v > 0);
  const int all = __syncthreads_and(v != 0);
  const int any = __syncthreads_or(v < 0);
  if (threadIdx.x == 0) {
    out[3 * blockIdx.x] = count;
    out[3 * blockIdx.x + 1] = all;
    out[3 * blockIdx.x + 2] = any;
  }
}

// 192 threads a CTA: warps 0-1 write 64 values to shared memory and arrive on barrier 1; warps
// 2-3 wait there and combine neighbours; warps 4-5 take no part in barrier 1.
extern "C" __global__ void named_handoff(const int* in, int* out) {
  __shared__ int buf[64];
  const int t = threadIdx.x;
  if (t < 64) {
    buf[t] = in[blockIdx.x * 64 + t] * 2 + 1;
    asm volatile("bar.arrive 1, 128;" ::: "memory");
  } else if (t < 128) {
    asm volatile("bar.sync 1, 128;" ::: "memory");
    const int i = t - 64;
    out[blockIdx.x * 64 + i] = buf[i] + buf[(i + 1) % 64];
  }
}
