// latency.cu: measures on a real Hopper GPU (sm_90: H100 or H200) what xpusim's microbenchmark
// workloads (src/workloads/ubench/) measure on the model, each defined the same way (what is
// timed, hop structure, footprint, warm-up, clock-read cost subtracted), so that
// docs/fidelity.md can put silicon next to simulation.
// Build (CUDA 12.5 or later; no -lcuda: cuTensorMapEncodeTiled comes through the runtime's
// cudaGetDriverEntryPointByVersion):
//   nvcc -O2 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -o latency tools/silicon/latency.cu
// Run: ./latency   (with OUT=DIR set it also writes DIR/latency.json). About a second of GPU
// work; ~4.5 GiB of device memory. Seen running on an H100 SXM 80GB and an H200 (driver 580).
// Not part of the CMake build or CI: neither has a GPU. Check the SASS with
//   cuobjdump --dump-sass latency | grep -E 'LDG|LDS|CS2R|STS|UTMALDG|SYNCS'
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <random>
#include <string>
#include <unordered_set>
#include <vector>

#include "device_clock.cuh"

using u32 = uint32_t;
using u64 = unsigned long long;  // matches %llu

// ------------------------------------------------------------------ host plumbing

struct Row {
  std::string name;
  double value;  // NaN: the measurement failed
  std::string unit, notes;
};
static std::vector<Row> g_rows;
static bool g_broken = false;  // a sticky error: the context is unusable, skip what is left
static double g_ghz = 0;       // the SM clock measured in a kernel (cycles -> ns)
static cudaDeviceProp g_prop;

__attribute__((format(printf, 1, 2))) static std::string fmt(const char* f, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, f);
  vsnprintf(buf, sizeof buf, f, ap);
  va_end(ap);
  return buf;
}
static void add(const std::string& name, double v, const char* unit, const std::string& notes) {
  g_rows.push_back({name, v, unit, notes});
}
static void fail(const std::string& name, const char* unit, const std::string& why) {
  fprintf(stderr, "FAILED: %s: %s\n", name.c_str(), why.c_str());
  add(name, NAN, unit, "FAILED: " + why);
}
static std::string ns(double cycles) {
  return g_ghz > 0 ? fmt("%.1f ns at the measured %.0f MHz", cycles / g_ghz, g_ghz * 1e3) : "";
}

// Prints a failed call; a sticky error (the context is gone) marks every later measurement
// skipped, anything else lets the next one run.
static bool ok(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return true;
  fprintf(stderr, "error: %s: %s (%s)\n", what, cudaGetErrorName(e), cudaGetErrorString(e));
  cudaGetLastError();  // clears a non-sticky error
  if (cudaDeviceSynchronize() != cudaSuccess) {
    g_broken = true;
    fprintf(stderr, "error: the CUDA context is broken; skipping the remaining measurements\n");
  }
  return false;
}
#define CK(call) ok((call), #call)
static bool launched(const char* what) {
  return ok(cudaGetLastError(), what) && ok(cudaDeviceSynchronize(), what);
}

// A device allocation freed at scope exit.
template <class T>
struct Dev {
  T* p = nullptr;
  bool alloc(size_t count) { return CK(cudaMalloc(&p, count * sizeof(T))); }
  ~Dev() {
    if (p) cudaFree(p);
  }
};

static double median(std::vector<double> v) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}
static std::string spread(const std::vector<double>& v) {
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  return fmt("median of %zu (%.1f to %.1f)", v.size(), *lo, *hi);
}

// ------------------------------------------------------------------ device helpers

__device__ __forceinline__ u32 saddr(const void* p) {
  return (u32)__cvta_generic_to_shared(p);
}
// A store of v cannot issue before v has arrived, and a warp issues in order, so a clock read
// placed after it comes after the load that produced v (else the last hop would go untimed).
__device__ __forceinline__ void wait_for(u32 sink, u64 v) {
  asm volatile("st.volatile.shared.u64 [%0], %1;" ::"r"(sink), "l"(v) : "memory");
}
template <bool kCg>
__device__ __forceinline__ u64 ldg(u64 a) {
  u64 v;
  if constexpr (kCg)
    asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(v) : "l"(a) : "memory");
  else
    asm volatile("ld.global.ca.u64 %0, [%1];" : "=l"(v) : "l"(a) : "memory");
  return v;
}
__device__ __forceinline__ u32 lds(u32 a) {
  u32 v;
  asm volatile("ld.volatile.shared.u32 %0, [%1];" : "=r"(v) : "r"(a) : "memory");
  return v;
}
__device__ __forceinline__ void sts(u32 a, u32 v) {
  asm volatile("st.shared.u32 [%0], %1;" ::"r"(a), "r"(v) : "memory");
}
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release;\n\tbarrier.cluster.wait.acquire;" ::: "memory");
}
constexpr u32 kSpin = 1u << 16;  // wait attempts before a wait reports a timeout
// Waits for the phase of `parity` to complete; false on timeout. try_wait may park the thread
// until the phase completes (what CUTLASS pipelines use); test_wait only polls.
#define MBAR_WAIT(op)                                 \
  asm volatile("{ .reg .pred p; mbarrier." op         \
               ".parity.shared::cta.b64 p, [%1], %2;" \
               " selp.u32 %0, 1, 0, p; }"             \
               : "=r"(done)                           \
               : "r"(bar), "r"(parity)                \
               : "memory")
template <bool kPoll = false>
__device__ __forceinline__ bool mbar_wait(u32 bar, u32 parity) {
  for (u32 i = 0; i < kSpin; ++i) {
    u32 done;
    if constexpr (kPoll)
      MBAR_WAIT("test_wait");
    else
      MBAR_WAIT("try_wait");
    if (done) return true;
  }
  return false;
}
__device__ __forceinline__ void mbar_init(u32 bar, u32 count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}
__device__ __forceinline__ void mbar_arrive(u32 bar) {
  asm volatile("{ .reg .b64 s; mbarrier.arrive.shared::cta.b64 s, [%0]; }" ::"r"(bar) : "memory");
}

// The workloads' timing: `warm` untimed hops, then clock reads c0, c1 (c1 - c0: what one read
// costs), `hops` timed hops, c2; returns (c2 - c1) - (c1 - c0). `sink`: a shared word.
template <class T, class Load>
__device__ __forceinline__ u64 time_chase(T& p, u32 warm, u32 hops, u32 sink, Load ld) {
  for (u32 i = 0; i < warm; ++i)
    p = ld(p);
  wait_for(sink, p);
  const u64 c0 = clk();
  const u64 c1 = clk();
  for (u32 i = 0; i < hops; ++i)
    p = ld(p);
  wait_for(sink, p);
  const u64 c2 = clk();
  return (c2 - c1) - (c1 - c0);
}

// ------------------------------------------------------------------ kernels

// SM clock: clock64 and globaltimer over ~20 ms in one thread.
__global__ void clock_probe(u64* out) {
  const u64 t0 = gtime(), c0 = clk();
  u64 t = t0;
  for (u32 i = 0; i < (1u << 30) && t - t0 < 20'000'000; ++i)
    t = gtime();
  const u64 c1 = clk();
  out[0] = c1 - c0;
  out[1] = t - t0;
}

// Writes the chain: word idx[k] of base holds val[k].
__global__ void scatter(u64* base, const u64* idx, const u64* val, u64 m) {
  for (u64 k = blockIdx.x * (u64)blockDim.x + threadIdx.x; k < m; k += (u64)gridDim.x * blockDim.x)
    base[idx[k]] = val[k];
}

// As pointer_chase.cc: one thread follows 8 B pointers (`warm` untimed hops, then `hops` timed
// ones). out[0] = timed cycles less one clock read's cost, out[1] = the last pointer loaded.
template <bool kCg>
__global__ void chase_global(u64 start, u32 warm, u32 hops, u64* out) {
  __shared__ u64 sink;
  u64 p = start;
  out[0] = time_chase(p, warm, hops, saddr(&sink), [](u64 a) { return ldg<kCg>(a); });
  out[1] = p;
}

// As shared_latency.cc: the warp writes a chain of 4 B elements (`stride` apart) in its dynamic
// shared memory, then lane 0 follows it. Elements hold absolute shared addresses, so a hop is
// one LDS with no add. out[1] = the last element's offset.
__global__ void chase_shared(u32 n, u32 stride, u32 warm, u32 hops, u64* out) {
  extern __shared__ __align__(16) unsigned char dyn[];
  __shared__ u64 sink;
  const u32 base = saddr(dyn), s = saddr(&sink);
  for (u32 k = threadIdx.x; k < n; k += blockDim.x)
    sts(base + k * stride, base + (k + 1) % n * stride);
  __syncwarp();
  if (threadIdx.x != 0) return;
  u32 p = base;
  out[0] = time_chase(p, warm, hops, s, [](u32 a) { return lds(a); });
  out[1] = p - base;
}

// As dsmem_latency.cc: a cluster of 2; the chain lives in rank 1's shared memory, and after a
// cluster sync lane 0 of rank 0 follows it. Elements are 8 B generic addresses into rank 1's
// shared memory (mapa), so a hop is one LD and nothing else: ld.shared::cluster on 4 B offsets
// compiles to the same generic LD plus a register move in the chain. Rank 0 writes the chain
// (the workload has rank 1 write it; the timed hops are the same), only after a first cluster
// sync: DSMEM may be touched only once the target CTA runs. out[2], out[3] = the ranks' SM
// ids; out[4] = 1 if the first element was not the address expected (then no chase).
__global__ void __cluster_dims__(2, 1, 1)
    chase_dsmem(u32 n, u32 stride, u32 warm, u32 hops, u64* out) {
  extern __shared__ __align__(16) unsigned char dyn[];
  __shared__ u64 sink;
  u32 rank, sm;
  u64 remote;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
  asm volatile("mapa.u64 %0, %1, 1;" : "=l"(remote) : "l"((u64)dyn));
  if (threadIdx.x == 0) out[2 + rank] = sm;
  cluster_sync();
  if (rank == 0)
    for (u32 k = threadIdx.x; k < n; k += blockDim.x)
      asm volatile("st.u64 [%0], %1;" ::"l"(remote + k * stride), "l"(remote + (k + 1) % n * stride)
                   : "memory");
  cluster_sync();
  if (rank == 0 && threadIdx.x == 0) {
    auto ldc = [](u64 a) {
      u64 v;
      asm volatile("ld.u64 %0, [%1];" : "=l"(v) : "l"(a) : "memory");
      return v;
    };
    u64 p = remote;
    out[4] = ldc(p) != remote + 1 % n * stride;
    if (!out[4]) {
      out[0] = time_chase(p, warm, hops, saddr(&sink), ldc);
      out[1] = p - remote;
    }
  }
  cluster_sync();  // rank 1's shared memory must outlive rank 0's chase
}

// As mbarrier_round_trip.cc: lane 0 of warp 0 arrives on A and waits for B's phase; lane 0 of
// warp 1 waits for A's phase and arrives on B (count 1 each: one lane stands for the sim's one
// warp-level arrive). out[0] = timed cycles less one clock read, out[1] = 1 if both barriers
// ended on the last phase, out[2] = 1 on a timeout. kPoll: test_wait polling, not try_wait.
template <bool kPoll>
__global__ void mbar_ping_pong(u32 warm, u32 timed, u64* out) {
  __shared__ __align__(8) u64 bars[2];
  const u32 a = saddr(&bars[0]), b = saddr(&bars[1]);
  if (threadIdx.x == 0) {
    mbar_init(a, 1);
    mbar_init(b, 1);
  }
  __syncthreads();
  if (threadIdx.x % 32 != 0) return;
  const u32 total = warm + timed;
  if (threadIdx.x == 32) {
    for (u32 i = 0; i < total; ++i) {
      if (!mbar_wait<kPoll>(a, i & 1)) {
        out[2] = 1;
        return;
      }
      mbar_arrive(b);
    }
    return;
  }
  u64 c0 = 0, c1 = 0;
  for (u32 i = 0; i < total; ++i) {
    if (i == warm) {
      c0 = clk();
      c1 = clk();
    }
    mbar_arrive(a);
    if (!mbar_wait<kPoll>(b, i & 1)) {
      out[2] = 1;
      return;
    }
  }
  const u64 c2 = clk();
  const u32 last = (total - 1) & 1;
  u32 done;
  asm volatile(
      "{ .reg .pred p, q; mbarrier.test_wait.parity.shared::cta.b64 p, [%1], %3;"
      " mbarrier.test_wait.parity.shared::cta.b64 q, [%2], %3; and.pred p, p, q;"
      " selp.u32 %0, 1, 0, p; }"
      : "=r"(done)
      : "r"(a), "r"(b), "r"(last)
      : "memory");
  out[0] = (c2 - c1) - (c1 - c0);
  out[1] = done;
}

// As bank_conflicts.cc: lane l of one warp uses the 4 B word l * s. The word holds its own
// address, so (1) a dependent chase `p = ld[p]` times one access per hop (latency), and (2) 32
// independent loads per round time the access rate (throughput, what wavefronts bound).
// out[0] = latency cycles, out[1] = throughput cycles (both totals less one clock read),
// out[2] = lanes that read a wrong word.
constexpr u32 kMaxStride = 64;
__global__ void bank_stride(u32 stride, u32 iters, u64* out) {
  __shared__ __align__(16) u32 words[32 * kMaxStride];
  __shared__ u64 sink[32];
  const u32 lane = threadIdx.x, a = saddr(&words[lane * stride]), s = saddr(&sink[lane]);
  sts(a, a);
  __syncwarp();
  u32 p = a;
  const u64 lat = time_chase(p, 1, iters, s, [](u32 a) { return lds(a); });
  u32 x = 0;
  const u64 c3 = clk();
  const u64 c4 = clk();
  for (u32 i = 0; i < iters / 32; ++i) {
    u32 v[32];
#pragma unroll
    for (u32 j = 0; j < 32; ++j)
      v[j] = lds(a);
#pragma unroll
    for (u32 j = 0; j < 32; ++j)
      x ^= v[j] ^ a;
  }
  wait_for(s, x);
  const u64 c5 = clk();
  const u32 bad = __popc(__ballot_sync(~0u, p != a || x != 0));
  if (lane == 0) {
    out[0] = lat;
    out[1] = (c5 - c4) - (c4 - c3);
    out[2] = bad;
  }
}

// As stream.cc: grid-stride reads, 16 B per lane (ld.global.cg: the L1 never serves them, so no
// role rotation is needed), `passes` times over n16 16 B words; n16 is a multiple of the grid's
// threads. Four loads in flight per lane. Thread 0 records globaltimer and clock64 spans.
__global__ void __launch_bounds__(1024, 2)
    stream_read(const uint4* p, u64 n16, u32 passes, u64* out) {
  const u64 nt = (u64)gridDim.x * blockDim.x, tid = blockIdx.x * (u64)blockDim.x + threadIdx.x;
  u64 t0 = 0, c0 = 0;
  if (tid == 0) {
    t0 = gtime();
    c0 = clk();
  }
  const u64 total = n16 / nt * passes;
  u64 i = tid, k = 0;
  u32 acc = 0;
  auto ld = [&](u64 j) {
    uint4 v;
    asm volatile("ld.global.cg.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(p + j));
    return v;
  };
  auto next = [&] {
    const u64 j = i;
    i += nt;
    if (i >= n16) i -= n16;
    return j;
  };
  for (; k + 4 <= total; k += 4) {
    const u64 j0 = next(), j1 = next(), j2 = next(), j3 = next();
    const uint4 a = ld(j0), b = ld(j1), c = ld(j2), d = ld(j3);
    acc += a.x ^ a.y ^ a.z ^ a.w ^ b.x ^ b.y ^ b.z ^ b.w ^ c.x ^ c.y ^ c.z ^ c.w ^ d.x ^ d.y ^ d.z ^
           d.w;
  }
  for (; k < total; ++k) {
    const uint4 a = ld(next());
    acc += a.x ^ a.y ^ a.z ^ a.w;
  }
  if (acc == 0x9e3779b9u) out[4] = acc;  // keeps the sum live; practically never stores
  if (tid == 0) {
    out[1] = clk() - c0;
    out[0] = gtime() - t0;
  }
}

// TMA load latency: one thread, for each of nbox boxes (distinct 64-element x 64-row tiles of
// the tensor, in a scattered order): clock, arrive.expect_tx, cp.async.bulk.tensor, wait for the
// phase, clock. With warm, every box is loaded once untimed first (into L2). out[k] = cycles of
// box k less one clock read; out[nbox] = 1 on a timeout.
__global__ void tma_latency(const __grid_constant__ CUtensorMap map, u32 nx, u32 ny, u32 nbox,
                            u32 bytes, u32 warm, u64* out) {
  __shared__ __align__(1024) unsigned char buf[64 * 64 * 2];
  __shared__ __align__(8) u64 bar;
  if (threadIdx.x != 0) return;
  const u32 b = saddr(&bar), dst = saddr(buf);
  mbar_init(b, 1);
  asm volatile("fence.mbarrier_init.release.cluster;\n\tfence.proxy.async.shared::cta;" ::
                   : "memory");
  u32 phase = 0;
  const u64 c0 = clk();
  const u64 c1 = clk();
  for (u32 pass = warm ? 0 : 1; pass < 2; ++pass) {
    for (u32 k = 0; k < nbox; ++k) {
      // nx, ny are powers of 2 and 7, 13 odd: k -> (x, y) is one-to-one for k < nx.
      const int x = (int)(((k * 7 + 3) & (nx - 1)) * 64), y = (int)(((k * 13 + 5) & (ny - 1)) * 64);
      const u64 t0 = clk();
      asm volatile(
          "{ .reg .b64 s; mbarrier.arrive.expect_tx.shared::cta.b64 s, [%0], %1; }" ::"r"(b),
          "r"(bytes)
          : "memory");
      asm volatile(
          "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
          " [%0], [%1, {%2, %3}], [%4];" ::"r"(dst),
          "l"(&map), "r"(x), "r"(y), "r"(b)
          : "memory");
      const bool done = mbar_wait(b, phase);
      const u64 t1 = clk();
      phase ^= 1;
      if (!done) {
        out[nbox] = 1;
        return;
      }
      if (pass == 1) out[k] = (t1 - t0) - (c1 - c0);
    }
  }
  out[nbox] = 0;
}

// Reads a buffer several times the L2 through L2 (evicting whatever a chase left there).
static uint4* g_flush = nullptr;
static u64 g_flush16 = 0;
static u64* g_scratch = nullptr;  // stream_read's out for the flush
static bool flush_l2() {
  stream_read<<<2 * g_prop.multiProcessorCount, 1024>>>(g_flush, g_flush16, 1, g_scratch);
  return launched("flush_l2");
}

// ------------------------------------------------------------------ measurements

static void measure_clock() {
  Dev<u64> out;
  if (!out.alloc(2)) return;
  clock_probe<<<1, 1>>>(out.p);
  u64 h[2];
  if (!launched("clock_probe") || !CK(cudaMemcpy(h, out.p, sizeof h, cudaMemcpyDeviceToHost))) {
    fail("SM clock (one idle-chip thread)", "MHz", "kernel failed");
    return;
  }
  g_ghz = (double)h[0] / (double)h[1];
  add("SM clock (one idle-chip thread)", g_ghz * 1e3, "MHz",
      fmt("clock64 / globaltimer over %.1f ms", h[1] / 1e6));
}

// One global chase: `order` lists the chain's elements (line indices, `stride` B apart from
// base); element order[k] points at order[k + 1], the last at order[0]. `cold`: the L2 is
// flushed before each repetition and there is no warm-up.
static void chase(const std::string& name, char* base, u64 stride, const std::vector<u64>& order,
                  u32 warm, u32 hops, bool cg, bool cold, const std::string& what) {
  if (g_broken) return fail(name, "cycles", "skipped: context broken");
  const u64 m = order.size();
  std::vector<u64> idx(m), val(m);
  for (u64 k = 0; k < m; ++k) {
    idx[k] = order[k] * stride / 8;
    val[k] = (u64)base + order[(k + 1) % m] * stride;
  }
  Dev<u64> di, dv, out;
  if (!di.alloc(m) || !dv.alloc(m) || !out.alloc(2) ||
      !CK(cudaMemcpy(di.p, idx.data(), m * 8, cudaMemcpyHostToDevice)) ||
      !CK(cudaMemcpy(dv.p, val.data(), m * 8, cudaMemcpyHostToDevice)))
    return fail(name, "cycles", "setup failed");
  scatter<<<256, 256>>>((u64*)base, di.p, dv.p, m);
  if (!launched("scatter")) return fail(name, "cycles", "writing the chain failed");
  const u64 want = (u64)base + order[(warm + hops) % m] * stride;
  std::vector<double> reps;
  for (int r = 0; r < (cold ? 7 : 5); ++r) {
    if (cold && !flush_l2()) return fail(name, "cycles", "L2 flush failed");
    const u64 start = (u64)base + order[0] * stride;
    if (cg)
      chase_global<true><<<1, 1>>>(start, warm, hops, out.p);
    else
      chase_global<false><<<1, 1>>>(start, warm, hops, out.p);
    u64 h[2];
    if (!launched("chase_global") || !CK(cudaMemcpy(h, out.p, 16, cudaMemcpyDeviceToHost)))
      return fail(name, "cycles", "kernel failed");
    if (h[1] != want)
      return fail(name, "cycles", fmt("chase ended at %#llx, expected %#llx", h[1], want));
    reps.push_back((double)h[0] / hops);
  }
  const double v = median(reps);
  add(name, v, "cycles", what + "; " + spread(reps) + "; " + ns(v));
}

static void measure_global_chases(char* big, u64 big_bytes) {
  // L1 hit: pointer_chase.cc's l1_latency, 16 KiB of 128 B lines, one warm-up pass, 2048 hops.
  std::vector<u64> seq(16 << 10 >> 7);
  for (u64 k = 0; k < seq.size(); ++k)
    seq[k] = k;
  chase("L1 hit load latency", big, 128, seq, seq.size(), 2048, false, false,
        "ld.global.ca chase, 16 KiB, 128 B per hop, warmed, 2048 hops (ubench.l1_latency)");
  // L2 hit: 4 MiB, warmed, 4096 hops; .cg so no hop is an L1 hit.
  seq.resize(4 << 20 >> 7);
  for (u64 k = 0; k < seq.size(); ++k)
    seq[k] = k;
  chase("L2 hit load latency", big, 128, seq, seq.size(), 4096, true, false,
        "ld.global.cg chase, 4 MiB, 128 B per hop, warmed, 4096 hops (ubench.l2_latency)");
  // HBM, as the workload defines it: a cold chain of consecutive 128 B lines (2048 hops span
  // 256 KiB: one 2 MiB page, consecutive DRAM columns).
  seq.resize(2049);
  for (u64 k = 0; k < seq.size(); ++k)
    seq[k] = k;
  chase("HBM load latency, consecutive lines", big, 128, seq, 0, 2048, true, true,
        "cold (L2 flushed), 2048 hops over consecutive 128 B lines (ubench.hbm_latency's chain)");
  // HBM, random lines inside one 2 MiB-aligned region (TLB reach kept, DRAM locality lost).
  std::mt19937_64 rng(12345);
  const u64 region = ((u64)big + (2u << 20) - 1) / (2u << 20) * (2u << 20) - (u64)big + (64u << 20);
  std::vector<u64> lines(2 << 20 >> 7);
  for (u64 k = 0; k < lines.size(); ++k)
    lines[k] = region / 128 + k;
  std::shuffle(lines.begin(), lines.end(), rng);
  lines.resize(2049);
  chase("HBM load latency, random lines in 2 MiB", big, 128, lines, 0, 2048, true, true,
        "cold, 2048 hops over random distinct lines of one 2 MiB-aligned region");
  // HBM, random lines over the whole buffer: most hops also miss the TLBs.
  std::unordered_set<u64> seen;
  lines.clear();
  while (lines.size() < 2049) {
    const u64 l = rng() % (big_bytes / 128);
    if (seen.insert(l).second) lines.push_back(l);
  }
  chase("HBM load latency, random lines in 1 GiB", big, 128, lines, 0, 2048, true, true,
        fmt("cold, 2048 hops over random distinct lines of %llu MiB (TLB misses included)",
            big_bytes >> 20));
}

static void measure_shared(bool dsmem) {
  const std::string name = dsmem ? "DSMEM load latency (cluster of 2)" : "shared load latency";
  if (g_broken) return fail(name, "cycles", "skipped: context broken");
  // shared_latency.cc: 8 KiB of 4 B elements, 2048 hops; dsmem_latency.cc: 4 KiB, 512 hops.
  // DSMEM: 8 B elements (generic addresses; see chase_dsmem).
  const u32 foot = dsmem ? 4096 : 8192, stride = dsmem ? 8 : 4, n = foot / stride;
  const u32 hops = dsmem ? 512 : 2048;
  // DSMEM: each CTA asks for over half an SM's shared memory, so the two cannot share an SM.
  const size_t smem = dsmem ? g_prop.sharedMemPerMultiprocessor / 2 + 1024 : foot;
  Dev<u64> out;
  if (!out.alloc(5)) return fail(name, "cycles", "setup failed");
  if (dsmem && (smem > g_prop.sharedMemPerBlockOptin ||
                !CK(cudaFuncSetAttribute(chase_dsmem, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         (int)smem))))
    return fail(name, "cycles", "cannot give a CTA over half the SM's shared memory");
  std::vector<double> reps;
  u64 h[5] = {};
  for (int r = 0; r < 5; ++r) {
    if (!CK(cudaMemset(out.p, 0, 40))) return fail(name, "cycles", "memset failed");
    if (dsmem)
      chase_dsmem<<<2, 32, smem>>>(n, stride, n, hops, out.p);
    else
      chase_shared<<<1, 32, smem>>>(n, stride, n, hops, out.p);
    if (!launched(name.c_str()) || !CK(cudaMemcpy(h, out.p, sizeof h, cudaMemcpyDeviceToHost)))
      return fail(name, "cycles", "kernel failed");
    if (h[4])
      return fail(name, "cycles", "the remote chain did not hold the expected mapa addresses");
    if (h[1] != (u64)(n + hops) % n * stride)
      return fail(name, "cycles", fmt("chase ended at offset %llu", h[1]));
    reps.push_back((double)h[0] / hops);
  }
  const double v = median(reps);
  if (dsmem)
    add(name, v, "cycles",
        fmt("DSMEM chase, %u B of 8 B generic pointers in rank 1, %u hops, warmed; SMs %llu and "
            "%llu%s; ",
            foot, hops, h[2], h[3], h[2] == h[3] ? " (SAME SM: not a DSMEM network trip)" : "") +
            spread(reps) + "; " + ns(v));
  else
    add(name, v, "cycles",
        fmt("ld.shared chase, %u B of 4 B elements, %u hops, warmed; ", foot, hops) + spread(reps) +
            "; " + ns(v));
}

static void measure_mbarrier(bool poll) {
  const std::string name = poll ? "mbarrier round trip, test_wait polling" : "mbarrier round trip";
  if (g_broken) return fail(name, "cycles", "skipped: context broken");
  const u32 warm = 16, timed = 1024;  // the workload's defaults
  Dev<u64> out;
  if (!out.alloc(3)) return fail(name, "cycles", "setup failed");
  std::vector<double> reps;
  for (int r = 0; r < 5; ++r) {
    u64 h[3];
    if (!CK(cudaMemset(out.p, 0, 24))) return fail(name, "cycles", "memset failed");
    if (poll)
      mbar_ping_pong<true><<<1, 64>>>(warm, timed, out.p);
    else
      mbar_ping_pong<false><<<1, 64>>>(warm, timed, out.p);
    if (!launched("mbar_ping_pong") || !CK(cudaMemcpy(h, out.p, sizeof h, cudaMemcpyDeviceToHost)))
      return fail(name, "cycles", "kernel failed");
    if (h[2]) return fail(name, "cycles", "a wait loop timed out");
    if (h[1] != 1) return fail(name, "cycles", "the barriers did not end on the last phase");
    reps.push_back((double)h[0] / timed);
  }
  add(name, median(reps), "cycles",
      fmt("two warps (lane 0 each) ping-pong on two count-1 mbarriers, arrive + %s.parity, "
          "16 warm + 1024 timed; ",
          poll ? "test_wait" : "try_wait") +
          spread(reps));
}

static void measure_banks() {
  if (g_broken) return fail("bank conflicts", "cycles/access", "skipped: context broken");
  const u32 iters = 1024;
  Dev<u64> out;
  if (!out.alloc(3)) return fail("bank conflicts", "cycles/access", "setup failed");
  for (u32 s = 1; s <= 32 && !g_broken; ++s) {
    const std::string name = fmt("shared access, stride %u words", s);
    std::vector<double> lat, thr;
    std::string err;
    for (int r = 0; r < 3 && err.empty(); ++r) {
      u64 h[3] = {};
      bank_stride<<<1, 32>>>(s, iters, out.p);
      if (!launched("bank_stride") || !CK(cudaMemcpy(h, out.p, sizeof h, cudaMemcpyDeviceToHost)))
        err = "kernel failed";
      else if (h[2])
        err = fmt("%llu lanes read a wrong word", h[2]);
      lat.push_back((double)h[0] / iters);
      thr.push_back((double)h[1] / iters);
    }
    if (!err.empty()) {
      fail(name, "cycles/access", err);
      continue;
    }
    add(name, median(thr), "cycles/access",
        fmt("1 warp, 32 independent LDS per round, 1024 loads; dependent-load latency %.1f cycles; "
            "gcd(s,32) = %u wavefronts (ubench.bank_conflicts)",
            median(lat), std::gcd(s, 32u)));
  }
}

// Steady bandwidth = (bytes of launch b - bytes of launch a) / (time b - time a), as stream.cc.
static void measure_stream(bool l2) {
  const std::string name = l2 ? "L2 read bandwidth" : "HBM read bandwidth";
  if (g_broken) return fail(name, "GB/s", "skipped: context broken");
  const u32 grid = 2 * g_prop.multiProcessorCount;
  const u64 chunk = (u64)grid * 1024 * 16;  // one 16 B load per thread: 4.125 MiB on 132 SMs
  // L2: stream.cc's 4.125 MiB, 200 then 400 passes (long enough for cudaEvent timing).
  // HBM: ~1 GiB then a disjoint ~2 GiB buffer, one pass each (each evicts the other from L2).
  const u64 fa = l2 ? chunk : (1ull << 30) / chunk * chunk;
  const u32 pa = l2 ? 200 : 1;
  Dev<uint4> buf;
  Dev<u64> out;
  if (!buf.alloc(l2 ? fa / 16 : 3 * fa / 16) || !out.alloc(5))
    return fail(name, "GB/s", "allocation failed");
  if (!CK(cudaMemset(buf.p, 0x5a, l2 ? fa : 3 * fa))) return fail(name, "GB/s", "memset failed");
  cudaEvent_t e0, e1;
  if (!CK(cudaEventCreate(&e0)) || !CK(cudaEventCreate(&e1)))
    return fail(name, "GB/s", "events failed");
  auto timed = [&](const uint4* p, u64 bytes, u32 passes, double* ms) {
    CK(cudaEventRecord(e0));
    stream_read<<<grid, 1024>>>(p, bytes / 16, passes, out.p);
    CK(cudaEventRecord(e1));
    float f = 0;
    if (!launched("stream_read") || !CK(cudaEventElapsedTime(&f, e0, e1))) return false;
    *ms = f;
    return true;
  };
  double ms;
  std::vector<double> ta, tb;
  u64 h[2] = {};
  bool good = timed(buf.p, fa, 1, &ms);  // warm-up (L2: loads the buffer into L2)
  for (int r = 0; r < 7 && good; ++r) {
    good = timed(buf.p, fa, pa, &ms);
    ta.push_back(ms);
    good = good && timed(l2 ? buf.p : buf.p + fa / 16, l2 ? fa : 2 * fa, l2 ? 2 * pa : 1, &ms);
    tb.push_back(ms);
  }
  good = good && CK(cudaMemcpy(h, out.p, 16, cudaMemcpyDeviceToHost));
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  if (!good) return fail(name, "GB/s", "kernel failed");
  const double bytes_a = (double)fa * pa, bytes_b = 2 * bytes_a;
  const double a = median(ta), b = median(tb);
  const std::string shape =
      fmt("%u CTAs x 1024 threads, ld.global.cg 16 B per lane, 4 loads in flight; ", grid);
  add(name, (bytes_b - bytes_a) / ((b - a) * 1e-3) / 1e9, "GB/s",
      shape + fmt("steady: (%.0f MiB - %.0f MiB read) / (%.3f - %.3f ms), medians of 7 (ubench.%s)",
                  bytes_b / 1048576, bytes_a / 1048576, b, a,
                  l2 ? "l2_bandwidth" : "hbm_bandwidth"));
  add(name + ", whole launch", bytes_b / (b * 1e-3) / 1e9, "GB/s",
      fmt("%.0f MiB / %.3f ms", bytes_b / 1048576, b));
  if (l2 && h[0] > 0)
    add("SM clock under streaming load", (double)h[1] / (double)h[0] * 1e3, "MHz",
        "thread 0 of the last L2 stream launch: clock64 / globaltimer");
}

static PFN_cuTensorMapEncodeTiled_v12000 g_encode = nullptr;

// TMA box load latency; `cold`: boxes of a 1 GiB tensor after an L2 flush, else boxes of a
// 2 MiB tensor loaded once untimed first.
static void measure_tma(char* big, u32 box, bool cold) {
  const std::string name =
      fmt("TMA load latency, %ux%u fp16 box, %s", box, box, cold ? "cold (HBM)" : "L2 hit");
  if (g_broken) return fail(name, "cycles", "skipped: context broken");
  if (!g_encode) {
    cudaDriverEntryPointQueryResult q;
    void* f = nullptr;
    if (!CK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &f, 12000, cudaEnableDefault,
                                             &q)) ||
        q != cudaDriverEntryPointSuccess || !f)
      return fail(name, "cycles", "cuTensorMapEncodeTiled not found in the driver");
    g_encode = (PFN_cuTensorMapEncodeTiled_v12000)f;
  }
  const u64 w = cold ? 16384 : 1024, hgt = cold ? 32768 : 1024;  // fp16 elements; 1 GiB or 2 MiB
  const u32 nbox = cold ? 32 : 16;
  CUtensorMap map;
  const cuuint64_t dims[2] = {w, hgt}, strides[1] = {w * 2};
  const cuuint32_t boxd[2] = {box, box}, estr[2] = {1, 1};
  const CUresult cr = g_encode(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, big, dims, strides, boxd,
                               estr, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                               CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (cr != CUDA_SUCCESS)
    return fail(name, "cycles", fmt("cuTensorMapEncodeTiled returned %d", (int)cr));
  Dev<u64> out;
  if (!out.alloc(nbox + 1)) return fail(name, "cycles", "setup failed");
  std::vector<double> all;
  for (int r = 0; r < 3; ++r) {
    if (cold && !flush_l2()) return fail(name, "cycles", "L2 flush failed");
    tma_latency<<<1, 32>>>(map, (u32)(w / 64), (u32)(hgt / 64), nbox, box * box * 2, !cold, out.p);
    std::vector<u64> h(nbox + 1);
    if (!launched("tma_latency") ||
        !CK(cudaMemcpy(h.data(), out.p, 8 * (nbox + 1), cudaMemcpyDeviceToHost)))
      return fail(name, "cycles", "kernel failed");
    if (h[nbox]) return fail(name, "cycles", "the mbarrier wait timed out");
    for (u32 k = 0; k < nbox; ++k)
      all.push_back((double)h[k]);
  }
  const double v = median(all);
  add(name, v, "cycles",
      fmt("1 thread: clock, arrive.expect_tx(%u B) + cp.async.bulk.tensor.2d, try_wait.parity, "
          "clock; %s; boxes: ",
          box * box * 2,
          cold ? "each a distinct tile of a 1 GiB tensor after an L2 flush"
               : "tiles of a 2 MiB tensor each loaded once before") +
          spread(all) + "; " + ns(v));
}

// ------------------------------------------------------------------ output

static std::string json_str(const std::string& s) {
  std::string o = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    if ((unsigned char)c >= 0x20) o += c;
  }
  return o + "\"";
}

int main() {
  int dev = 0, drv = 0, rt = 0, clock_khz = 0;
  if (!CK(cudaSetDevice(dev)) || !CK(cudaGetDeviceProperties(&g_prop, dev))) return 1;
  cudaDriverGetVersion(&drv);
  cudaRuntimeGetVersion(&rt);
  cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, dev);
  printf(
      "device: %s (sm_%d%d), %d SMs, L2 %d B, %zu B shared per SM, max SM clock %d MHz "
      "(attribute)\n",
      g_prop.name, g_prop.major, g_prop.minor, g_prop.multiProcessorCount, g_prop.l2CacheSize,
      g_prop.sharedMemPerMultiprocessor, clock_khz / 1000);
  printf("driver %d, runtime %d\n", drv, rt);
  if (g_prop.major != 9)
    fprintf(stderr, "warning: not a Hopper (sm_90) device; the sm_90a build will not run\n");

  measure_clock();
  const u64 big_bytes = 1ull << 30;
  Dev<char> big;
  g_flush16 = std::max<u64>(4ull * g_prop.l2CacheSize, 256ull << 20) / 16;
  g_flush16 =
      g_flush16 / (2048ull * g_prop.multiProcessorCount) * (2048ull * g_prop.multiProcessorCount);
  if (big.alloc(big_bytes) && CK(cudaMalloc(&g_flush, g_flush16 * 16)) &&
      CK(cudaMalloc(&g_scratch, 64)) && CK(cudaMemset(big.p, 0, big_bytes)) &&
      CK(cudaMemset(g_flush, 1, g_flush16 * 16))) {
    measure_global_chases(big.p, big_bytes);
  } else {
    fail("global chases", "cycles", "allocation failed");
  }
  measure_shared(false);
  measure_shared(true);
  measure_mbarrier(false);
  measure_mbarrier(true);
  measure_banks();
  if (big.p && g_flush && g_scratch) {
    for (u32 box : {64u, 16u}) {
      measure_tma(big.p, box, false);
      measure_tma(big.p, box, true);
    }
  }
  measure_stream(true);
  measure_stream(false);

  printf("\n%-46s | %10s | %-13s | notes\n", "name", "measured", "unit");
  for (const Row& r : g_rows)
    printf("%-46s | %10.2f | %-13s | %s\n", r.name.c_str(), r.value, r.unit.c_str(),
           r.notes.c_str());

  if (const char* dir = getenv("OUT")) {
    const std::string path = std::string(dir) + "/latency.json";
    if (FILE* f = fopen(path.c_str(), "w")) {
      fprintf(f, "{\n  \"device\": %s,\n  \"sm_count\": %d,\n  \"l2_bytes\": %d,\n",
              json_str(g_prop.name).c_str(), g_prop.multiProcessorCount, g_prop.l2CacheSize);
      fprintf(f, "  \"sm_clock_attr_mhz\": %d,\n  \"sm_clock_measured_mhz\": %.1f,\n",
              clock_khz / 1000, g_ghz * 1e3);
      fprintf(f, "  \"driver_version\": %d,\n  \"runtime_version\": %d,\n  \"results\": [\n", drv,
              rt);
      for (size_t i = 0; i < g_rows.size(); ++i) {
        const Row& r = g_rows[i];
        fprintf(
            f, "    {\"name\": %s, \"measured\": %s, \"unit\": %s, \"notes\": %s}%s\n",
            json_str(r.name).c_str(), std::isnan(r.value) ? "null" : fmt("%.4f", r.value).c_str(),
            json_str(r.unit).c_str(), json_str(r.notes).c_str(), i + 1 < g_rows.size() ? "," : "");
      }
      fprintf(f, "  ]\n}\n");
      fclose(f);
      printf("wrote %s\n", path.c_str());
    } else {
      fprintf(stderr, "error: cannot write %s\n", path.c_str());
    }
  }
  cudaFree(g_flush);
  cudaFree(g_scratch);
  return g_broken ? 1 : 0;
}
