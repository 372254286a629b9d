// collatz: steps for base + i to reach 1 (divergent loop), capped at cap steps.
extern "C" __global__ void collatz(unsigned* steps, unsigned base, unsigned cap, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned v = base + (unsigned)i;
  unsigned count = 0;
  while (v != 1 && count < cap) {
    if (v & 1)
      v = 3 * v + 1;
    else
      v >>= 1;
    ++count;
  }
  steps[i] = count;
}
