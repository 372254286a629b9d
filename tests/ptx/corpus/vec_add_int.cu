// vec_add_int: int32 add, sub and mul (wrapping) into three outputs.
extern "C" __global__ void vec_add_int(const int* a, const int* b, int* sum, int* diff,
                                       int* prod, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int x = a[i], y = b[i];
  // Wrapping arithmetic done in unsigned so the C++ meaning is defined.
  sum[i] = (int)((unsigned)x + (unsigned)y);
  diff[i] = (int)((unsigned)x - (unsigned)y);
  prod[i] = (int)((unsigned)x * (unsigned)y);
}
