// Function pointers: a table of three __noinline__ device functions in local memory, each
// thread calling the one its input picks (an indirect `call` through a register with a
// .callprototype; the warp's lanes reach different callees, which run one after the other).
typedef int (*op_t)(int, int);
__device__ __noinline__ int addf(int a, int b) { return a + b; }
__device__ __noinline__ int mulf(int a, int b) { return a * b; }
__device__ __noinline__ int subf(int a, int b) { return a - b; }

extern "C" __global__ void indirect_calls(const int* in, int* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  op_t ops[3] = {addf, mulf, subf};
  const op_t f = ops[in[i] % 3];
  out[i] = f(in[i], i);
}
