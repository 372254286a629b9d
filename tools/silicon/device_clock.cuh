// The clocks the silicon programs read on the GPU: the SM's cycle counter and the global
// nanosecond timer (PTX %clock64, %globaltimer). Shared by latency.cu and kernels.cu.
#pragma once

__device__ __forceinline__ unsigned long long clk() {
  unsigned long long c;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(c)::"memory");
  return c;
}
__device__ __forceinline__ unsigned long long gtime() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)::"memory");
  return t;
}
