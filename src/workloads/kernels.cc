#include "workloads/kernels.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "kernel/warp.h"

namespace xpusim::workloads {
namespace {

using kernel::Addr;
using kernel::Warp;

// The grid's threads: a grid-stride loop's step.
std::uint64_t grid_threads(const Warp& w) {
  return std::uint64_t{w.params().grid.count()} * w.params().threads_per_block();
}

// The lanes that are threads of the CTA and whose index is below n.
kernel::LaneMask below(const kernel::Lanes<std::uint64_t>& i, std::uint64_t n, const Warp& w) {
  kernel::LaneMask m = 0;
  for (std::uint32_t l = 0; l < kernel::kWarpSize; ++l)
    m |= i[l] < n ? kernel::LaneMask{1} << l : 0;
  return m & w.thread_mask();
}

// A grid-stride loop's own instructions per iteration: the 64-bit index step, the compare, the
// branch and the next address, each waiting for the last. The H100 runs stream_fill's loop at
// one warp per SM in 55 cycles an iteration, about 51 of them this chain (fill_unroll4's
// four stores cost 12 cycles more; tools/silicon/data/kernels_h100.txt): 12 ALU latencies.
constexpr std::uint32_t kLoopChain = 12;

// dst[i] = src[i] for i < n (u32), a grid-stride loop over the whole grid's threads.
sim::Task<> stream_copy(Warp& w) {
  const Addr src = w.args().get_ptr(0), dst = w.args().get_ptr(1);
  const std::uint64_t n = w.args().get_u64(2);
  const std::uint64_t stride = grid_threads(w);
  for (auto i = w.global_thread_ids(); i[0] < n;) {
    const kernel::LaneMask m = below(i, n, w);
    if (m == 0) break;
    const auto x = co_await w.load_global<std::uint32_t>(Warp::lane_addresses(src, 4, i), m);
    co_await w.store_global<std::uint32_t>(Warp::lane_addresses(dst, 4, i), x, m);
    co_await w.alu_chain(kLoopChain);
    for (auto& v : i)
      v += stride;
  }
}

// out[t] = the sum (mod 2^32) of src[i] over thread t's elements i < n, a grid-stride loop:
// each load, then the add that uses it (one load in flight per thread, as stream_copy).
sim::Task<> stream_sum(Warp& w) {
  const Addr src = w.args().get_ptr(0), out = w.args().get_ptr(2);
  const std::uint64_t n = w.args().get_u64(1);
  const std::uint64_t stride = grid_threads(w);
  const auto first = w.global_thread_ids();
  kernel::Lanes<std::uint32_t> acc{};
  for (auto i = first; i[0] < n;) {
    const kernel::LaneMask m = below(i, n, w);
    if (m == 0) break;
    const auto x = co_await w.load_global<std::uint32_t>(Warp::lane_addresses(src, 4, i), m);
    co_await w.alu(1);  // the add, waiting for the load
    co_await w.alu_chain(kLoopChain);
    for (std::uint32_t l = 0; l < kernel::kWarpSize; ++l)
      acc[l] += (m >> l) & 1 ? x[l] : 0;
    for (auto& v : i)
      v += stride;
  }
  co_await w.store_global<std::uint32_t>(Warp::lane_addresses(out, 4, first), acc, w.thread_mask());
}

// dst[i] = i (mod 2^32) for i < n, a grid-stride loop of stores.
sim::Task<> stream_fill(Warp& w) {
  const Addr dst = w.args().get_ptr(0);
  const std::uint64_t n = w.args().get_u64(1);
  const std::uint64_t stride = grid_threads(w);
  for (auto i = w.global_thread_ids(); i[0] < n;) {
    const kernel::LaneMask m = below(i, n, w);
    if (m == 0) break;
    const auto v = kernel::lanes<std::uint32_t>([&](std::uint32_t l) { return i[l]; });
    co_await w.store_global<std::uint32_t>(Warp::lane_addresses(dst, 4, i), v, m);
    co_await w.alu_chain(kLoopChain);
    for (auto& x : i)
      x += stride;
  }
}

// Warp 0 initialises an mbarrier for two arrivals; after __syncthreads it arrives once, and
// every warp waits for phase 0, which never completes.
sim::Task<> hang_demo(Warp& w) {
  if (w.warp_id() == 0) co_await w.mbarrier_init(0, 2);
  co_await w.sync_threads();
  if (w.warp_id() == 0) co_await w.mbarrier_arrive(0);
  co_await w.mbarrier_wait_parity(0, 0);
}

// Every warp reads shared memory of cluster rank 1, which a CTA outside a cluster does not
// have: a DSMEM fault (the SM names the rank and the cluster size).
sim::Task<> fault_demo(Warp& w) {
  co_await w.load_dsmem<std::uint32_t>(kernel::Lanes<Addr>{kernel::cluster_address(1, 0)}, 1);
}

Result<std::string> verify_stream_copy(const mem::GlobalMemory& memory,
                                       const kernel::KernelArgs& args,
                                       const kernel::LaunchParams& /*launch*/) {
  const Addr src = args.get_ptr(0), dst = args.get_ptr(1);
  const std::uint64_t n = args.get_u64(2);
  constexpr std::uint64_t kChunk = 1 << 16;  // elements compared at a time
  std::vector<std::uint32_t> a(kChunk), b(kChunk);
  for (std::uint64_t at = 0; at < n; at += kChunk) {
    const std::uint64_t count = std::min(kChunk, n - at);
    const auto ra = std::as_writable_bytes(std::span(a.data(), count));
    const auto rb = std::as_writable_bytes(std::span(b.data(), count));
    if (auto st = memory.read(src + 4 * at, ra); !st) return st.errors();
    if (auto st = memory.read(dst + 4 * at, rb); !st) return st.errors();
    for (std::uint64_t i = 0; i < count; ++i) {
      if (a[i] != b[i]) {
        return Error{fmt::format(
            "stream_copy: dst[{}] = {:#x} at {:#x}, expected src[{}] = {:#x} (at {:#x})", at + i,
            b[i], dst + 4 * (at + i), at + i, a[i], src + 4 * (at + i))};
      }
    }
  }
  return fmt::format("dst == src over {} u32 elements", n);
}

// Reads n u32 from `at` in chunks, calling f(index, value) for each.
template <class F>
Status for_each_u32(const mem::GlobalMemory& memory, Addr at, std::uint64_t n, F&& f) {
  constexpr std::uint64_t kChunk = 1 << 16;
  std::vector<std::uint32_t> a(kChunk);
  for (std::uint64_t i = 0; i < n; i += kChunk) {
    const std::uint64_t count = std::min(kChunk, n - i);
    if (auto st = memory.read(at + 4 * i, std::as_writable_bytes(std::span(a.data(), count)));
        !st) {
      return st;
    }
    for (std::uint64_t k = 0; k < count; ++k)
      f(i + k, a[k]);
  }
  return Ok{};
}

Result<std::string> verify_stream_sum(const mem::GlobalMemory& memory,
                                      const kernel::KernelArgs& args,
                                      const kernel::LaunchParams& launch) {
  const Addr src = args.get_ptr(0), out = args.get_ptr(2);
  const std::uint64_t n = args.get_u64(1);
  const std::uint64_t threads = std::uint64_t{launch.grid.count()} * launch.threads_per_block();
  // The naive reference: thread t's elements are t, t + threads, ... (mod 2^32 sums).
  std::vector<std::uint32_t> want(threads, 0);
  if (auto st = for_each_u32(memory, src, n,
                             [&](std::uint64_t i, std::uint32_t v) { want[i % threads] += v; });
      !st) {
    return st.errors();
  }
  std::optional<Error> bad;
  if (auto st = for_each_u32(memory, out, threads,
                             [&](std::uint64_t t, std::uint32_t v) {
                               if (!bad && v != want[t]) {
                                 bad = Error{fmt::format(
                                     "stream_sum: out[{}] = {:#x} at {:#x}, expected {:#x}", t, v,
                                     out + 4 * t, want[t])};
                               }
                             });
      !st) {
    return st.errors();
  }
  if (bad) return *bad;
  return fmt::format("out == per-thread sums over {} u32 elements", n);
}

Result<std::string> verify_stream_fill(const mem::GlobalMemory& memory,
                                       const kernel::KernelArgs& args,
                                       const kernel::LaunchParams& /*launch*/) {
  const Addr dst = args.get_ptr(0);
  const std::uint64_t n = args.get_u64(1);
  std::optional<Error> bad;
  if (auto st = for_each_u32(memory, dst, n,
                             [&](std::uint64_t i, std::uint32_t v) {
                               if (!bad && v != static_cast<std::uint32_t>(i)) {
                                 bad = Error{fmt::format(
                                     "stream_fill: dst[{}] = {:#x} at {:#x}, expected {:#x}", i, v,
                                     dst + 4 * i, static_cast<std::uint32_t>(i))};
                               }
                             });
      !st) {
    return st.errors();
  }
  if (bad) return *bad;
  return fmt::format("dst[i] == i over {} u32 elements", n);
}

}  // namespace

Status register_kernels(kernel::KernelRegistry& kernels) {
  const kernel::KernelDef defs[] = {
      {.name = "stream_copy",
       .description = "dst[i] = src[i] for n u32 elements, grid-stride loop",
       .args = {{"src", kernel::ArgKind::kPtr},
                {"dst", kernel::ArgKind::kPtr},
                {"n", kernel::ArgKind::kU64}},
       .body = stream_copy,
       .static_shared_bytes = 0,
       .check = verify_stream_copy},
      {.name = "stream_sum",
       .description = "out[t] = sum of src[i] over thread t's elements of n u32, grid-stride "
                      "loop, one load in flight per thread",
       .args = {{"src", kernel::ArgKind::kPtr},
                {"n", kernel::ArgKind::kU64},
                {"out", kernel::ArgKind::kPtr}},
       .body = stream_sum,
       .static_shared_bytes = 0,
       .check = verify_stream_sum},
      {.name = "stream_fill",
       .description = "dst[i] = i for n u32 elements, grid-stride loop",
       .args = {{"dst", kernel::ArgKind::kPtr}, {"n", kernel::ArgKind::kU64}},
       .body = stream_fill,
       .static_shared_bytes = 0,
       .check = verify_stream_fill},
      {.name = "hang_demo",
       .description = "an mbarrier expecting two arrivals gets one: shows the hang report",
       .args = {},
       .body = hang_demo,
       .static_shared_bytes = 8},
      {.name = "fault_demo",
       .description = "every warp reads DSMEM of a cluster rank its CTA does not have: shows a "
                      "fault ending its queue",
       .args = {},
       .body = fault_demo,
       .static_shared_bytes = 16},
  };
  for (const kernel::KernelDef& d : defs) {
    if (auto st = kernels.add(d); !st) return st;
  }
  return Ok{};
}

}  // namespace xpusim::workloads
