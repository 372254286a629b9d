// TMA conformance on a real Hopper GPU: runs each case of a case file (tma_case.h's format)
// through cuTensorMapEncodeTiled / cuTensorMapEncodeIm2col and one cp.async.bulk.tensor load,
// and writes one result line per case in the format our model writes (run_model), so that
// tests/unit/tma/silicon_conformance_test.cc can hold our golden model to the silicon.
// Not part of CI (no GPU there); tools/silicon/README.md says how to run it.
//   nvcc -O2 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -o tma_check tma_check.cu
//   tma_check CASES RESULTS [BYTES]   (appends; cases already in RESULTS are skipped)
// Exit 3 after a launch fault (the context is lost): run it again to go on with the next case.
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

// ---- the case format (a second, independent reader of tma_case.h's lines) ----------------
struct Case {
  int id = -1;
  bool im2col = false;
  unsigned dtype = 0, rank = 0, il = 0, sw = 0, l2 = 0, oob = 0, cpp = 0, ppc = 0, dst = 0;
  unsigned long long offset = 0, tx = 0;
  bool copy = false;
  unsigned pat = 0;
  std::vector<unsigned long long> dims, strides;
  std::vector<unsigned> box, estr, offsets;
  std::vector<int> lower, upper, coords;
};

template <class T>
std::vector<T> list(const std::string& v) {
  std::vector<T> out;
  std::stringstream ss(v);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (!item.empty()) out.push_back(static_cast<T>(std::strtoll(item.c_str(), nullptr, 10)));
  }
  return out;
}

bool parse(const std::string& line, Case& c) {
  std::stringstream ss(line.substr(0, line.find('#')));
  std::string word;
  while (ss >> word) {
    const auto eq = word.find('=');
    if (eq == std::string::npos) return false;
    const std::string k = word.substr(0, eq), v = word.substr(eq + 1);
    const unsigned long long n = std::strtoull(v.c_str(), nullptr, 10);
    if (k == "id") c.id = static_cast<int>(n);
    else if (k == "mode") c.im2col = v == "im2col";
    else if (k == "dtype") c.dtype = n;
    else if (k == "rank") c.rank = n;
    else if (k == "offset") c.offset = n;
    else if (k == "dims") c.dims = list<unsigned long long>(v);
    else if (k == "strides") c.strides = list<unsigned long long>(v);
    else if (k == "box") c.box = list<unsigned>(v);
    else if (k == "estr") c.estr = list<unsigned>(v);
    else if (k == "il") c.il = n;
    else if (k == "sw") c.sw = n;
    else if (k == "l2") c.l2 = n;
    else if (k == "oob") c.oob = n;
    else if (k == "lower") c.lower = list<int>(v);
    else if (k == "upper") c.upper = list<int>(v);
    else if (k == "cpp") c.cpp = n;
    else if (k == "ppc") c.ppc = n;
    else if (k == "coords") c.coords = list<int>(v);
    else if (k == "offsets") c.offsets = list<unsigned>(v);
    else if (k == "dst") c.dst = n;
    else if (k == "tx") c.tx = n;
    else if (k == "copy") c.copy = n == 1;
    else if (k == "pat") c.pat = n;
    else return false;
  }
  return c.id >= 0;
}

// The same pattern, hash and guard as tma_case.cc (kept in step by hand: the two sides must
// not share code, or a bug in one would hide in both).
__host__ __device__ unsigned long long splitmix64(unsigned long long i) {
  unsigned long long z = i * 0x9E3779B97F4A7C15ull + 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
__host__ __device__ unsigned special_f32(unsigned long long j) {
  const unsigned long long r = splitmix64(j ^ 0x5EC1A1ull);
  const unsigned sign = static_cast<unsigned>(r >> 63) << 31;
  const unsigned exp = static_cast<unsigned>((r >> 40) % 254 + 1) << 23;
  const unsigned mant = static_cast<unsigned>(r >> 8) & 0x7FFFFF;
  switch (r % 8) {
    case 0: return sign | mant;
    case 1: return sign | exp | (mant & ~0x1FFFu) | 0x1000;
    case 2: return sign | exp | (mant & ~0x1FFFu) | 0x1001;
    case 3: return sign | exp | (mant & ~0x1FFFu) | 0x0FFF;
    case 4: return sign | 0x7F800000 | ((mant & 0x1FFF) | 1);
    case 5: return sign | ((r >> 16) % 2 == 0 ? 0x7F800000u : 0x7F7FFFFFu);
    case 6: return sign | (mant & 0x1FFF);
    default: return sign | exp | mant;
  }
}
unsigned long long fnv1a64(const unsigned char* p, unsigned long long n) {
  unsigned long long h = 0xCBF29CE484222325ull;
  for (unsigned long long i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001B3ull;
  return h;
}
constexpr unsigned kGuardBytes = 256;
constexpr unsigned char kPoison = 0xA5;
constexpr size_t kPatternBytes = 8u << 20;
constexpr unsigned kMaxSpan = 128u << 10;  // tma_case.h's kMaxSpan

__global__ void fill_pattern(unsigned long long* p, size_t words) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < words; i += gridDim.x * blockDim.x) {
    p[i] = splitmix64(i);
  }
}
__global__ void fill_special(unsigned* p, size_t words) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < words; i += gridDim.x * blockDim.x) {
    p[i] = special_f32(i);
  }
}

struct Args {
  int coords[5];
  unsigned short offs[3];
  unsigned rank, im2col, dst, tx, span;
};

__device__ unsigned smem_addr(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

__device__ void issue(const CUtensorMap* map, const Args& a, unsigned dst, unsigned bar) {
  const unsigned long long m = reinterpret_cast<unsigned long long>(map);
  const int* c = a.coords;
  if (!a.im2col) {
    switch (a.rank) {
      case 1:
        asm volatile("cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2}], [%3];"
                     :: "r"(dst), "l"(m), "r"(c[0]), "r"(bar) : "memory");
        break;
      case 2:
        asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                     :: "r"(dst), "l"(m), "r"(c[0]), "r"(c[1]), "r"(bar) : "memory");
        break;
      case 3:
        asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], [%5];"
                     :: "r"(dst), "l"(m), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(bar) : "memory");
        break;
      case 4:
        asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, %5}], [%6];"
                     :: "r"(dst), "l"(m), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]), "r"(bar) : "memory");
        break;
      default:
        asm volatile("cp.async.bulk.tensor.5d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, %5, %6}], [%7];"
                     :: "r"(dst), "l"(m), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]), "r"(c[4]), "r"(bar) : "memory");
        break;
    }
    return;
  }
  const unsigned short* o = a.offs;
  switch (a.rank) {
    case 3:
      asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], [%5], {%6};"
                   :: "r"(dst), "l"(m), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(bar), "h"(o[0]) : "memory");
      break;
    case 4:
      asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, %5}], [%6], {%7, %8};"
                   :: "r"(dst), "l"(m), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]), "r"(bar), "h"(o[0]), "h"(o[1]) : "memory");
      break;
    default:
      asm volatile("cp.async.bulk.tensor.5d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, %5, %6}], [%7], {%8, %9, %10};"
                   :: "r"(dst), "l"(m), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]), "r"(c[4]), "r"(bar), "h"(o[0]), "h"(o[1]), "h"(o[2]) : "memory");
      break;
  }
}

__device__ bool try_wait(unsigned bar, unsigned parity) {
  unsigned ok;
  asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
               : "=r"(ok) : "r"(bar), "r"(parity) : "memory");
  return ok != 0;
}

// status[0]: 1 when the phase completed; status[1]: 1 when more bytes arrived than tx said
// (the next phase then waits on them).
__global__ void load_kernel(const __grid_constant__ CUtensorMap map, Args a, unsigned char* out,
                            int* status) {
  extern __shared__ unsigned char dyn[];
  __shared__ __align__(8) unsigned long long bar_word;
  const unsigned base = smem_addr(dyn), aligned = (base + 1023u) & ~1023u;
  unsigned char* buf = dyn + (aligned - base);
  for (unsigned i = threadIdx.x; i < a.span; i += blockDim.x) buf[i] = kPoison;
  __syncthreads();
  const unsigned bar = smem_addr(&bar_word);
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(bar) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    // The poison was written by the generic proxy; the copy writes through the async one.
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(bar), "r"(a.tx) : "memory");
    issue(&map, a, aligned + a.dst, bar);
    bool done = false;
    const long long t0 = clock64();
    while (!done && clock64() - t0 < 4000000) done = try_wait(bar, 0);  // about 2 ms
    status[0] = done;
    status[1] = 0;
    if (done) {
      __nanosleep(50000);  // late bytes of an over-long box land meanwhile
      asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(bar) : "memory");
      bool next = false;
      for (int it = 0; it < 1000 && !next; ++it) next = try_wait(bar, 1);
      status[1] = !next;
    }
  }
  __syncthreads();
  for (unsigned i = threadIdx.x; i < a.span; i += blockDim.x) out[i] = buf[i];
}

using EncodeTiled = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*,
                                 const cuuint64_t*, const cuuint64_t*, const cuuint32_t*,
                                 const cuuint32_t*, CUtensorMapInterleave, CUtensorMapSwizzle,
                                 CUtensorMapL2promotion, CUtensorMapFloatOOBfill);
using EncodeIm2col = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*,
                                  const cuuint64_t*, const cuuint64_t*, const int*, const int*,
                                  cuuint32_t, cuuint32_t, const cuuint32_t*,
                                  CUtensorMapInterleave, CUtensorMapSwizzle,
                                  CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

#define CHECK(call)                                                                   \
  do {                                                                                \
    cudaError_t e_ = (call);                                                          \
    if (e_ != cudaSuccess) {                                                          \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,            \
                   cudaGetErrorString(e_));                                           \
      std::exit(2);                                                                   \
    }                                                                                 \
  } while (0)

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s CASES RESULTS [BYTES [SHARD NSHARDS]]\n", argv[0]);
    return 2;
  }
  const int shard = argc > 5 ? std::atoi(argv[4]) : 0, nshards = argc > 5 ? std::atoi(argv[5]) : 1;
  std::vector<Case> cases;
  {
    std::ifstream in(argv[1]);
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#') continue;
      Case c;
      if (!parse(line, c)) {
        std::fprintf(stderr, "bad case line: %s\n", line.c_str());
        return 2;
      }
      if (c.id % nshards == shard) cases.push_back(c);
    }
  }
  std::set<int> done;
  {
    std::ifstream in(argv[2]);
    std::string line;
    while (std::getline(in, line)) {
      if (line.rfind("id=", 0) == 0) done.insert(std::atoi(line.c_str() + 3));
    }
  }
  FILE* results = std::fopen(argv[2], "a");
  FILE* bytes = argc > 3 ? std::fopen(argv[3], "ab") : nullptr;
  if (results == nullptr) return 2;

  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  int drv = 0;
  CHECK(cudaDriverGetVersion(&drv));
  if (done.empty() && shard == 0) std::fprintf(results, "# silicon: %s, sm_%d%d, driver %d\n", prop.name, prop.major, prop.minor, drv);

  void* fn = nullptr;
  cudaDriverEntryPointQueryResult q{};
  CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &q));
  const auto encode_tiled = reinterpret_cast<EncodeTiled>(fn);
  CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeIm2col", &fn, 12000, cudaEnableDefault, &q));
  const auto encode_im2col = reinterpret_cast<EncodeIm2col>(fn);

  unsigned char* pattern = nullptr;
  unsigned char* specials = nullptr;
  unsigned char* out = nullptr;
  int* status = nullptr;
  CHECK(cudaMalloc(&pattern, kPatternBytes));
  CHECK(cudaMalloc(&specials, kPatternBytes));
  CHECK(cudaMalloc(&out, kMaxSpan));
  CHECK(cudaMalloc(&status, 2 * sizeof(int)));
  fill_pattern<<<256, 256>>>(reinterpret_cast<unsigned long long*>(pattern), kPatternBytes / 8);
  fill_special<<<256, 256>>>(reinterpret_cast<unsigned*>(specials), kPatternBytes / 4);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaFuncSetAttribute(load_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kMaxSpan + 1024));
  std::vector<unsigned char> host(kMaxSpan);

  for (const Case& c : cases) {
    if (done.count(c.id) != 0) continue;
    CUtensorMap map;
    std::memset(&map, 0, sizeof map);
    std::vector<cuuint64_t> dims(c.dims.begin(), c.dims.end()), strides(c.strides.begin(), c.strides.end());
    std::vector<cuuint32_t> box(c.box.begin(), c.box.end()), estr(c.estr.begin(), c.estr.end());
    void* addr = (c.pat == 1 ? specials : pattern) + c.offset;
    // Arrays are passed as the case has them; an empty one becomes a valid pointer.
    dims.resize(5), strides.resize(5), box.resize(5), estr.resize(5);
    std::vector<int> lower(c.lower), upper(c.upper);
    lower.resize(3), upper.resize(3);
    CUresult r = c.im2col
        ? encode_im2col(&map, static_cast<CUtensorMapDataType>(c.dtype), c.rank, addr, dims.data(), strides.data(),
                        lower.data(), upper.data(), c.cpp, c.ppc, estr.data(),
                        static_cast<CUtensorMapInterleave>(c.il), static_cast<CUtensorMapSwizzle>(c.sw),
                        static_cast<CUtensorMapL2promotion>(c.l2), static_cast<CUtensorMapFloatOOBfill>(c.oob))
        : encode_tiled(&map, static_cast<CUtensorMapDataType>(c.dtype), c.rank, addr, dims.data(), strides.data(),
                       box.data(), estr.data(), static_cast<CUtensorMapInterleave>(c.il),
                       static_cast<CUtensorMapSwizzle>(c.sw), static_cast<CUtensorMapL2promotion>(c.l2),
                       static_cast<CUtensorMapFloatOOBfill>(c.oob));
    if (r != CUDA_SUCCESS) {
      std::fprintf(results, "id=%d encode=rejected copy=none hash=0000000000000000 cu=%d\n", c.id, static_cast<int>(r));
      std::fflush(results);
      continue;
    }
    // As tma_case.h's smem_span: a swizzled box may spread its rows a swizzle span apart.
    const unsigned long long span64 = c.dst + 8 * c.tx + kGuardBytes;
    const unsigned span = static_cast<unsigned>(span64 > kMaxSpan ? kMaxSpan + 1 : span64);
    if (!c.copy || c.tx == 0 || span > kMaxSpan || c.rank > 5 || c.coords.size() != c.rank) {
      std::fprintf(results, "id=%d encode=ok copy=none hash=0000000000000000\n", c.id);
      std::fflush(results);
      continue;
    }
    Args a{};
    for (unsigned i = 0; i < c.rank; ++i) a.coords[i] = c.coords[i];
    for (size_t i = 0; i < c.offsets.size() && i < 3; ++i) a.offs[i] = static_cast<unsigned short>(c.offsets[i]);
    a.rank = c.rank, a.im2col = c.im2col, a.dst = c.dst, a.tx = static_cast<unsigned>(c.tx), a.span = span;
    load_kernel<<<1, 128, span + 1024>>>(map, a, out, status);
    cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    if (e != cudaSuccess) {
      std::fprintf(results, "id=%d encode=ok copy=fault hash=0000000000000000 err=%s\n", c.id, cudaGetErrorName(e));
      std::fflush(results);
      return 3;
    }
    int st[2];
    CHECK(cudaMemcpy(st, status, sizeof st, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(host.data(), out, span, cudaMemcpyDeviceToHost));
    const char* what = st[0] == 0 ? "timeout" : (st[1] != 0 ? "excess_tx" : "ok");
    std::fprintf(results, "id=%d encode=ok copy=%s hash=%016llx\n", c.id, what, fnv1a64(host.data(), span));
    std::fflush(results);
    if (bytes != nullptr) {
      const int hdr[2] = {c.id, static_cast<int>(span)};
      std::fwrite(hdr, sizeof hdr, 1, bytes);
      std::fwrite(host.data(), 1, span, bytes);
      std::fflush(bytes);
    }
  }
  std::fclose(results);
  return 0;
}
