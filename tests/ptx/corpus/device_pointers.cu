// Tables of addresses in module variables: a __device__ array of pointers into other
// __device__ variables (`generic(a)+4`, `generic(b)`, `generic(a)` initializers, placed with the
// module's variables) and a __device__ table of function pointers (`{_Z5twicei}`), used through
// an indirect call.
__device__ int a[4] = {1, 2, 3, 4};
__device__ int b = 7;
__device__ int* ptrs[3] = {&a[1], &b, a};
__device__ __noinline__ int twice(int x) { return 2 * x; }
__device__ int (*fns[1])(int) = {twice};

extern "C" __global__ void device_pointers(int* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = fns[0](*ptrs[i % 3]) + i;
}
