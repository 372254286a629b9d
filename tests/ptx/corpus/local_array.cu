// local_array: a per-thread int[16] written and read at data-dependent indices, so nvcc keeps
// it in local memory (.local, ld.local / st.local).
extern "C" __global__ void local_array(const unsigned* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned s = in[i];
  int arr[16];
  for (int j = 0; j < 16; ++j) arr[j] = (int)(s * (unsigned)(j + 1)) ^ j;
  for (int j = 0; j < 16; ++j) {
    unsigned idx = (s >> j) & 15u;                   // data-dependent store index
    arr[idx] = (int)((unsigned)arr[idx] + (unsigned)(j * j));
  }
  int sum = 0;
  for (int j = 0; j < 8; ++j) {
    unsigned idx = (s >> (3 * j)) & 15u;             // data-dependent load index
    sum = (int)((unsigned)sum + (unsigned)arr[idx]);
  }
  out[i] = sum ^ arr[s >> 28];
}
