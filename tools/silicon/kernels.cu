// kernels.cu: whole scenario kernels timed on a real Hopper GPU (H100 or H200), next to what
// `xpusim run` reports for the same launch (docs/fidelity.md, "Whole kernels"). Where
// latency.cu isolates one quantity, these run a shipped scenario's kernel as the scenario
// launches it, so latency and bandwidth mix as they do in the model.
//   stream_copy: configs/scenarios/stream-copy.yaml (grid 528 x 256 threads, u32 per lane,
//                grid-stride, each thread's load then its store; workloads/kernels.cc), over
//                the scenario's 16 MiB and over 256 MiB; stream_sum (stream-sum.yaml) and
//                stream_fill (stream-fill.yaml), its load and its store alone, the same way.
// Each run starts cold: the L2 is flushed (a 256 MiB read, which also writes back the last
// run's dirty lines) before every repetition. Timed two ways: the span from the first CTA's
// start to the last CTA's end (globaltimer, as the model's "ran N cycles"), and cudaEvents
// around the launch. Cycles use the SM clock measured over ~20 ms in one thread.
// Build: nvcc -O2 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -o kernels kernels.cu
// Run: ./kernels [--sweep] [--loaded [--samples FILE]]   (tables on stdout). --sweep adds the
// 256 MiB runs at 1 to 64 warps per SM and the extras below; --loaded the latency of single HBM
// reads under background traffic (below), --samples writes every one of them (SM cycles). A few seconds of GPU work each; ~2.6 GiB of device memory.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "device_clock.cuh"

using u32 = uint32_t;
using u64 = unsigned long long;

#define CK(call)                                                                      \
  do {                                                                                \
    const cudaError_t e_ = (call);                                                    \
    if (e_ != cudaSuccess) {                                                          \
      fprintf(stderr, "error: %s: %s\n", #call, cudaGetErrorString(e_));              \
      exit(1);                                                                        \
    }                                                                                 \
  } while (0)


__global__ void clock_probe(u64* out) {
  const u64 t0 = gtime(), c0 = clk();
  u64 t = t0;
  for (u32 i = 0; i < (1u << 30) && t - t0 < 20'000'000; ++i)
    t = gtime();
  out[0] = clk() - c0;
  out[1] = t - t0;
}

// Once the whole CTA is done: span[2 * cta] = its start `t0`, span[2 * cta + 1] = now.
__device__ __forceinline__ void end_span(u64* span, u64 t0) {
  __syncthreads();
  if (threadIdx.x == 0) {
    span[2 * blockIdx.x] = t0;
    span[2 * blockIdx.x + 1] = gtime();
  }
}

// As workloads/kernels.cc's stream_copy: one load, then its store, per iteration (no unrolling:
// the model's warp issues them in that order too). span[2 * cta] = start, [2 * cta + 1] = end.
__global__ void stream_copy(const u32* src, u32* dst, u64 n, u64* span) {
  const u64 t0 = gtime();
  const u64 stride = (u64)gridDim.x * blockDim.x;
#pragma unroll 1
  for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < n; i += stride)
    dst[i] = src[i];
  end_span(span, t0);
}

// The two halves of stream_copy alone, same shape, as workloads/kernels.cc's stream_sum (each
// load, then the add that uses it: one load in flight per thread; the thread's sum stored at
// the end) and stream_fill (the store of the index).
__global__ void stream_sum(const u32* src, u64 n, u32* out, u64* span) {
  const u64 t0 = gtime();
  const u64 stride = (u64)gridDim.x * blockDim.x;
  const u64 tid = blockIdx.x * (u64)blockDim.x + threadIdx.x;
  u32 acc = 0;
#pragma unroll 1
  for (u64 i = tid; i < n; i += stride)
    acc += src[i];
  out[tid] = acc;
  end_span(span, t0);
}
__global__ void stream_fill(u32* dst, u64 n, u64* span) {
  const u64 t0 = gtime();
  const u64 stride = (u64)gridDim.x * blockDim.x;
#pragma unroll 1
  for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < n; i += stride)
    dst[i] = (u32)i;
  end_span(span, t0);
}

// For the sweep's extras: U independent accesses per iteration (U loads in flight per thread,
// or U stores issued back to back), elements i, i + S, ..., i + (U - 1) S of a grid of S threads.
template <int U>
__global__ void sum_unrolled(const u32* src, u64 n, u32* out, u64* span) {
  const u64 t0 = gtime();
  const u64 stride = (u64)gridDim.x * blockDim.x;
  const u64 tid = blockIdx.x * (u64)blockDim.x + threadIdx.x;
  u32 acc = 0;
  u64 i = tid;
#pragma unroll 1
  for (; i + (U - 1) * stride < n; i += U * stride) {
    u32 v[U];
#pragma unroll
    for (int k = 0; k < U; ++k)
      v[k] = src[i + k * stride];
#pragma unroll
    for (int k = 0; k < U; ++k)
      acc += v[k];
  }
#pragma unroll 1
  for (; i < n; i += stride)
    acc += src[i];
  out[tid] = acc;
  end_span(span, t0);
}
template <int U>
__global__ void fill_unrolled(u32* dst, u64 n, u64* span) {
  const u64 t0 = gtime();
  const u64 stride = (u64)gridDim.x * blockDim.x;
  u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x;
#pragma unroll 1
  for (; i + (U - 1) * stride < n; i += U * stride) {
#pragma unroll
    for (int k = 0; k < U; ++k)
      dst[i + k * stride] = (u32)(i + k * stride);
  }
#pragma unroll 1
  for (; i < n; i += stride)
    dst[i] = (u32)i;
  end_span(span, t0);
}

// --loaded: how one read's HBM latency grows with other traffic, for a model of HBM under load
// (docs/fidelity.md, "Whole kernels": the model's reads wait only when a channel's bandwidth is
// short; the H100's grow from well below that, more with writes in the mix). Thread 0 of CTA 0
// chases `hops` pointers through cold lines of `chain` (a random order of distinct lines, none
// of them the background's), timing each load alone with clock64, then raises `done`; every
// other warp of the grid runs the background until it sees `done`: kind 0 copy, 1 sum, 2 fill,
// 3 add (dst[i] = src[i] + src[n + i], the second load made to wait for the first: a third of
// the bytes written, a mix the model's curves do not hold), grid-stride over `n` u32 elements
// and round again, one access in flight per thread. So the
// background runs for every sample. bg[0] / bg[1]: the earliest CTA start and the latest
// background end, bg[2]: the accesses it made. The distribution tells queueing (a smooth tail)
// from reads held behind write bursts (a second mode).
__global__ void loaded(int kind, const u32* src, u32* dst, u64 n, const u64* chain, u32 hops,
                       u64 start_delay_ns, u32* lat, u64* span, volatile u32* done, u64* bg,
                       u32* sums) {
  __shared__ u64 sink;
  const u64 t0 = gtime();
  if (blockIdx.x == 0 && threadIdx.x < 32) {
    if (threadIdx.x != 0) return;
    while (gtime() - t0 < start_delay_ns) {  // let the background reach its steady state
    }
    u64 p = 0;
    span[0] = gtime();
    for (u32 h = 0; h < hops; ++h) {
      const u64 c0 = clk();
      asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(p) : "l"(chain + p) : "memory");
      // In-order issue: the shared store waits for the load's data, the clock read for it.
      asm volatile("st.volatile.shared.u64 [%0], %1;" ::"r"((u32)__cvta_generic_to_shared(&sink)),
                   "l"(p)
                   : "memory");
      lat[h] = (u32)(clk() - c0);
    }
    span[1] = gtime();
    __threadfence();
    *done = 1;
    return;
  }
  // The background, over every other thread of the grid (the probe warp's elements are
  // skipped: a hole of 32 in each stride).
  if (threadIdx.x == (blockIdx.x == 0 ? 32 : 0)) atomicMin(&bg[0], t0);
  const u64 stride = (u64)gridDim.x * blockDim.x;
  const u64 tid = blockIdx.x * (u64)blockDim.x + threadIdx.x;
  u32 acc = 0, pass = 0;
  u64 i = tid, count = 0;
#pragma unroll 1
  for (;; ++count) {
    if ((count & 63) == 0 && *done) break;  // an L2 read every 64 accesses
    if (kind == 0) dst[i] = src[i] + pass;
    if (kind == 3) {
      const u32 a = src[i];  // src holds 0x07070707: a >> 28 is 0, which nvcc cannot know
      dst[i] = a + src[n + i + (a >> 28)] + pass;
    }
    if (kind == 1) acc += src[i];
    if (kind == 2) dst[i] = (u32)i + pass;
    i += stride;
    if (i >= n) {
      i = tid;
      ++pass;
    }
  }
  sums[tid] = acc;
  atomicAdd(&bg[2], count);
  atomicMax(&bg[1], gtime());
}

// Reads `n16` 16 B words through the L2 (ld.cg): evicts whatever the last run left there.
__global__ void flush(const uint4* p, u64 n16, u32* sink) {
  u32 acc = 0;
  for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < n16;
       i += (u64)gridDim.x * blockDim.x) {
    uint4 v;
    asm volatile("ld.global.cg.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(p + i));
    acc ^= v.x ^ v.w;
  }
  if (acc == 0x9e3779b9u) *sink = acc;
}

static double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

struct Timing {
  double span_us, lo_us, hi_us, event_us;
  size_t runs;
};

// `reps` cold runs of kernel `kind` (0 copy, 1 sum, 2 fill) over n u32 elements; the first
// launch is dropped (it pays for loading the kernel).
static Timing time_kernel(int kind, u32 grid, u32 block, u64 n, int reps, u32* src, u32* dst,
                          u32* sums, u64* span, const uint4* fl, u64 flush16, u32* sink,
                          u32 flush_grid) {
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  std::vector<double> spans, events;
  for (int r = 0; r <= reps; ++r) {
    flush<<<flush_grid, 1024>>>(fl, flush16, sink);
    CK(cudaEventRecord(e0));
    if (kind == 0) stream_copy<<<grid, block>>>(src, dst, n, span);
    if (kind == 1) stream_sum<<<grid, block>>>(src, n, sums, span);
    if (kind == 2) stream_fill<<<grid, block>>>(dst, n, span);
    if (kind == 3) sum_unrolled<4><<<grid, block>>>(src, n, sums, span);
    if (kind == 4) fill_unrolled<4><<<grid, block>>>(dst, n, span);
    CK(cudaEventRecord(e1));
    CK(cudaDeviceSynchronize());
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    std::vector<u64> s(2 * grid);
    CK(cudaMemcpy(s.data(), span, s.size() * sizeof(u64), cudaMemcpyDeviceToHost));
    u64 lo = ~0ull, hi = 0;
    for (u32 c = 0; c < grid; ++c) {
      lo = std::min(lo, s[2 * c]);
      hi = std::max(hi, s[2 * c + 1]);
    }
    if (r == 0) continue;
    spans.push_back((double)(hi - lo) / 1e3);
    events.push_back(ms * 1e3);
  }
  CK(cudaEventDestroy(e0));
  CK(cudaEventDestroy(e1));
  return {median(spans), *std::min_element(spans.begin(), spans.end()),
          *std::max_element(spans.begin(), spans.end()), median(events), spans.size()};
}

static const char* kNames[] = {"stream_copy", "stream_sum", "stream_fill", "sum_unroll4",
                               "fill_unroll4"};

// Percentile q (0..1) of sorted values.
static double pct(const std::vector<double>& sorted, double q) {
  return sorted[std::min(sorted.size() - 1, (size_t)(q * (double)(sorted.size() - 1) + 0.5))];
}

// One --loaded row: the probe's per-load cycles as ns (mean and percentiles).
static void latency_row(const char* background, u32 warps, double gbps,
                        const std::vector<u32>& cycles, double ghz, const char* probe_us) {
  std::vector<double> ns;
  double mean = 0;
  for (const u32 c : cycles) {
    ns.push_back(c / ghz);
    mean += c / ghz / cycles.size();
  }
  std::sort(ns.begin(), ns.end());
  printf("%-10s %8u %10.0f %8.1f %8.1f %8.1f %8.1f %8.1f %8.1f %9s\n", background, warps, gbps,
         mean, pct(ns, 0.1), pct(ns, 0.5), pct(ns, 0.9), pct(ns, 0.99), ns.back(), probe_us);
}

int main(int argc, char** argv) {
  bool sweep = false, loaded_mode = false;
  FILE* samples = nullptr;  // --samples FILE: every --loaded sample, one row a line
  for (int a = 1; a < argc; ++a) {
    sweep |= std::string(argv[a]) == "--sweep";
    loaded_mode |= std::string(argv[a]) == "--loaded";
    if (std::string(argv[a]) == "--samples" && a + 1 < argc) samples = fopen(argv[++a], "w");
  }
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  u64* probe;
  CK(cudaMalloc(&probe, 16));
  clock_probe<<<1, 1>>>(probe);
  CK(cudaDeviceSynchronize());
  u64 h[2];
  CK(cudaMemcpy(h, probe, 16, cudaMemcpyDeviceToHost));
  const double ghz = (double)h[0] / (double)h[1];
  printf("# %s, %d SMs, SM clock %.0f MHz (clock64 / globaltimer over %.1f ms)\n", prop.name,
         prop.multiProcessorCount, ghz * 1e3, h[1] / 1e6);

  const u64 flush_bytes = 256ull << 20;
  uint4* fl;
  u32* sink;
  CK(cudaMalloc(&fl, flush_bytes));
  CK(cudaMemset(fl, 1, flush_bytes));
  CK(cudaMalloc(&sink, 4));
  const u32 max_grid = 4 * prop.multiProcessorCount, max_block = 512;
  u64* span;
  CK(cudaMalloc(&span, 2 * max_grid * sizeof(u64)));
  u32* sums;
  CK(cudaMalloc(&sums, max_grid * max_block * sizeof(u32)));
  const u64 max_n = (1024ull << 20) / 4;  // the extras' largest
  u32 *src, *dst;
  CK(cudaMalloc(&src, max_n * 4));
  CK(cudaMalloc(&dst, max_n * 4));
  CK(cudaMemset(src, 7, max_n * 4));
  CK(cudaMemset(dst, 0, max_n * 4));
  const auto run = [&](int kind, u32 grid, u32 block, u64 mib, int reps) {
    return time_kernel(kind, grid, block, (mib << 20) / 4, reps, src, dst, sums, span, fl,
                       flush_bytes / 16, sink, 2 * prop.multiProcessorCount);
  };

  // The scenarios' launch (stream-copy.yaml: grid 528 x 256, 4 CTAs per SM on 132 SMs).
  printf("%-24s %10s %10s %10s %10s %12s\n", "kernel", "MiB", "span_us", "span_cyc", "event_us",
         "GB/s_moved");
  for (const int kind : {0, 1, 2}) {
    if (loaded_mode && !sweep) break;
    for (const u64 mib : {16ull, 256ull}) {
      const Timing t = run(kind, 528, 256, mib, 10);
      printf("%-24s %10llu %10.2f %10.0f %10.2f %12.0f   (medians of %zu; span %.2f to %.2f us)\n",
             (std::string(kNames[kind]) + " 528x256").c_str(), mib, t.span_us,
             t.span_us * ghz * 1e3, t.event_us,
             (kind == 0 ? 2.0 : 1.0) * (mib << 20) / (t.span_us * 1e-6) / 1e9, t.runs, t.lo_us,
             t.hi_us);
    }
  }
  const u32 sms = prop.multiProcessorCount;
  if (loaded_mode) {
    // The chain: `hops` distinct random lines of a 256 MiB region nothing else touches, each
    // holding the next one's word index (128 B lines, 16 words apart).
    const u64 region = 256ull << 20;
    const u32 hops = 4096;
    // The chain over the first `lines` lines of the region (line 0 first, then a random order).
    const auto make_chain = [&](u64 lines) {
      std::vector<u64> order(lines);
      for (u64 k = 0; k < lines; ++k)
        order[k] = k;
      u64 rng = 0x9e3779b97f4a7c15ull;
      for (u64 k = lines - 1; k > 0; --k) {  // Fisher-Yates with splitmix64
        rng += 0x9e3779b97f4a7c15ull;
        u64 z = rng;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        std::swap(order[k], order[(z ^ (z >> 31)) % (k + 1)]);
      }
      std::vector<u64> words(region / 8, 0);
      u64 at = 0;  // word index of the current line; the chase starts at word 0 (line 0)
      std::swap(*std::find(order.begin(), order.end(), 0ull), order[0]);
      for (u32 h = 0; h < hops; ++h) {
        const u64 next = order[h + 1] * 16;
        words[at] = next;
        at = next;
      }
      return words;
    };
    std::vector<u64> words = make_chain(region / 128);
    u64* chain;
    CK(cudaMalloc(&chain, region));
    CK(cudaMemcpy(chain, words.data(), region, cudaMemcpyHostToDevice));
    u32* lat;
    CK(cudaMalloc(&lat, hops * 4));
    u64* lspan;
    CK(cudaMalloc(&lspan, 2 * 8));
    u32* done;
    CK(cudaMalloc(&done, 4));
    u64* bg;
    CK(cudaMalloc(&bg, 3 * 8));
    const u64 n = (256ull << 20) / 4;
    printf("\n# --loaded: %u timed HBM reads (random cold lines) by one thread while the rest of "
           "the grid streams over 256 MiB until the last one\n",
           hops);
    printf("%-10s %8s %10s %8s %8s %8s %8s %8s %8s %9s\n", "background", "warps/SM", "bg_GB/s",
           "mean_ns", "p10", "p50", "p90", "p99", "max", "probe_us");
    const struct {
      u32 grid, block;
    } shapes[] = {{sms, 32},      {sms, 64},      {sms, 128},    {sms, 256},
                  {2 * sms, 256}, {4 * sms, 256}, {4 * sms, 512}};
    // A run: the L2 flushed, the background's state reset, then the launch.
    const auto loaded_run = [&](int kind, u32 grid, u32 block, u32 probe_hops, const char* name) {
      flush<<<2 * sms, 1024>>>(fl, flush_bytes / 16, sink);
      const u64 init[3] = {~0ull, 0, 0};
      CK(cudaMemcpy(bg, init, sizeof init, cudaMemcpyHostToDevice));
      CK(cudaMemset(done, 0, 4));
      CK(cudaDeviceSynchronize());
      loaded<<<grid, block>>>(kind, src, dst, n, chain, probe_hops, 20000, lat, lspan, done, bg,
                              sums);
      CK(cudaDeviceSynchronize());
      std::vector<u32> l(probe_hops);
      CK(cudaMemcpy(l.data(), lat, probe_hops * 4, cudaMemcpyDeviceToHost));
      if (samples) {  // in issue order, SM cycles
        fprintf(samples, "%s %u", name, grid * block / 32 / sms);
        for (const u32 c : l)
          fprintf(samples, " %u", c);
        fprintf(samples, "\n");
      }
      return l;
    };
    const char* const loaded_names[] = {"stream_copy", "stream_sum", "stream_fill", "stream_add"};
    for (const int kind : {1, 2, 0, 3}) {
      for (const auto& sh : shapes) {
        const char* name = loaded_names[kind];
        const std::vector<u32> l = loaded_run(kind, sh.grid, sh.block, hops, name);
        u64 b[3], sp[2];
        CK(cudaMemcpy(b, bg, sizeof b, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(sp, lspan, sizeof sp, cudaMemcpyDeviceToHost));
        const double moved = (kind == 0 ? 2.0 : kind == 3 ? 3.0 : 1.0) * 4.0 * (double)b[2];
        char probe_us[32];
        snprintf(probe_us, sizeof probe_us, "%.0f", (double)(sp[1] - sp[0]) / 1e3);
        latency_row(name, sh.grid * sh.block / 32 / sms,
                    moved / ((double)(b[1] - b[0]) * 1e-9) / 1e9, l, ghz, probe_us);
      }
    }
    // The probe alone (no background): one CTA of one warp; then with its chain inside one
    // 2 MiB page (a quarter of its lines), which leaves out what address translation adds.
    latency_row("none", 0, 0.0, loaded_run(1, 1, 32, hops, "none"), ghz, "-");
    words = make_chain((2ull << 20) / 128);
    CK(cudaMemcpy(chain, words.data(), region, cudaMemcpyHostToDevice));
    latency_row("none_2MiB", 0, 0.0, loaded_run(1, 1, 32, hops, "none_2MiB"), ghz, "-");
  }
  if (!sweep) return 0;
  // The load sweep: 256 MiB with 1 to 64 warps per SM (one access in flight per thread), the
  // loaded latency against the traffic. ns_per_iter = span / iterations of a thread.
  const struct {
    u32 grid, block;
  } shapes[] = {{sms, 32},      {sms, 128},     {sms, 256},    {2 * sms, 256},
                {4 * sms, 256}, {4 * sms, 512}};
  printf("\n%-12s %6s %6s %8s %10s %12s %12s\n", "kernel", "grid", "block", "warps/SM",
         "span_us", "ns_per_iter", "GB/s_moved");
  for (const int kind : {1, 2, 0}) {
    for (const auto& sh : shapes) {
      const Timing t = run(kind, sh.grid, sh.block, 256, 5);
      const double iters = (double)((256ull << 20) / 4) / ((double)sh.grid * sh.block);
      printf("%-12s %6u %6u %8u %10.2f %12.1f %12.0f   (medians of %zu; %.2f to %.2f us)\n",
             kNames[kind], sh.grid, sh.block, sh.grid * sh.block / 32 / sms, t.span_us,
             t.span_us * 1e3 / iters, (kind == 0 ? 2.0 : 1.0) * (256ull << 20) / (t.span_us * 1e-6) / 1e9,
             t.runs, t.lo_us, t.hi_us);
    }
  }
  // Extras for a model of the store path and of HBM under load:
  //  - four independent stores per iteration at 1 and 4 warps per SM: is a warp's store rate
  //    its loop's instructions (4x the stores per iteration) or its stores in flight (same);
  //  - the fill and the four-load sum at 64 warps per SM over 128 MiB to 1 GiB: the steady
  //    write and read bandwidth by difference (the L2's share drops out).
  printf("\n%-12s %6s %6s %8s %6s %10s %12s %12s\n", "kernel", "grid", "block", "warps/SM",
         "MiB", "span_us", "ns_per_access", "GB/s_moved");
  const auto extra = [&](int kind, u32 grid, u32 block, u64 mib) {
    const Timing t = run(kind, grid, block, mib, 5);
    const double per_thread = (double)(mib << 20) / 4 / ((double)grid * block);
    printf("%-12s %6u %6u %8u %6llu %10.2f %12.1f %12.0f   (medians of %zu; %.2f to %.2f us)\n",
           kNames[kind], grid, block, grid * block / 32 / sms, mib, t.span_us,
           t.span_us * 1e3 / per_thread, (double)(mib << 20) / (t.span_us * 1e-6) / 1e9, t.runs,
           t.lo_us, t.hi_us);
  };
  extra(4, sms, 32, 256);
  extra(4, sms, 128, 256);
  for (const u64 mib : {128ull, 256ull, 512ull, 1024ull})
    extra(2, 4 * sms, 512, mib);
  for (const u64 mib : {128ull, 256ull, 512ull, 1024ull})
    extra(3, 4 * sms, 512, mib);
  return 0;
}
