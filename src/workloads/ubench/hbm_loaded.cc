// HBM read latency under load, as tools/silicon/kernels.cu --loaded measures it on an H100
// (docs/fidelity.md, "HBM under load"): one thread chases pointers through random cold lines,
// timing each load alone with clock64, while every other warp of the grid streams a sum, a fill,
// a copy or an add of two arrays (u32 per lane, one access in flight per thread, grid-stride
// and round again) until it sees the chase's end flag. The probe's latency distribution next to the
// background's rate is the calibration set for a model of HBM under load.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <memory>
#include <set>
#include <span>

#include "sim/rng.h"
#include "workloads/ubench/common.h"
#include "workloads/ubench/families.h"

namespace xpusim::workloads::ubench {
namespace {

using kernel::Addr;
using kernel::Lanes;
using U32 = std::uint32_t;
using U64 = std::uint64_t;

constexpr std::string_view kKernel = "ubench.hbm_loaded";
enum Background : U64 { kNone = 0, kSum = 1, kFill = 2, kCopy = 3, kAdd = 4 };
// The background's loop as kernels.cu's: the access, its pass counter, the wrap and the flag
// test. On the H100 its fill at one warp per SM took 107 cycles an iteration (310 GB/s from 131
// warps; stream_fill's plainer loop 55): about 25 dependent instructions besides the store.
constexpr U32 kLoopChain = 25;
constexpr U64 kFlagEvery = 64;  // iterations between the background's reads of the end flag

// Args: background, src, dst, n (u32 elements, a multiple of 32), chain, hops, delay (SM
// cycles before the first timed load), out, flag. The add's second array follows src. The probe
// (the grid's first warp, lane 0) writes its hops' latencies to out[0..hops) and its last pointer
// to out[hops], then raises the flag; background warp g (g >= 1) writes the elements it
// accessed to out[hops + g].
sim::Task<> hbm_loaded(kernel::Warp& w) {
  const kernel::KernelArgs& a = w.args();
  const U64 kind = a.get_u64(0), n = a.get_u64(3), hops = a.get_u64(5), delay = a.get_u64(6);
  const Addr src = a.get_ptr(1), dst = a.get_ptr(2), out = a.get_ptr(7), flag = a.get_ptr(8);
  const U64 first = w.global_thread_ids()[0];
  if (first == 0) {  // the probe
    const U64 c0 = co_await w.clock();
    for (U64 c = c0; c - c0 < delay;) {  // the background reaches its steady state first
      co_await w.alu_chain(64);
      c = co_await w.clock();
    }
    const U64 k0 = co_await w.clock();
    const U64 k1 = co_await w.clock();  // k1 - k0: what a clock read itself costs
    Addr p = a.get_ptr(4);
    for (U64 h = 0; h < hops; ++h) {
      const U64 t0 = co_await w.clock();
      p = (co_await w.load_global<U64>(Lanes<Addr>{p}, 1))[0];
      const U64 t1 = co_await w.clock();
      co_await w.store_global<U64>(Lanes<Addr>{out + 8 * h}, Lanes<U64>{t1 - t0 - (k1 - k0)}, 1);
    }
    co_await w.store_global<U64>(Lanes<Addr>{out + 8 * hops}, Lanes<U64>{p}, 1);
    co_await w.store_global<U32>(Lanes<Addr>{flag}, Lanes<U32>{1}, 1);
    co_return;
  }
  const U64 stride = U64{w.params().grid.count()} * w.params().threads_per_block();
  const kernel::LaneMask mask = w.thread_mask();
  U64 i = first, count = 0;
  U32 pass = 0;
  for (;; ++count) {
    if (count % kFlagEvery == 0 && (co_await w.load_global<U32>(Lanes<Addr>{flag}, 1))[0] != 0) {
      break;
    }
    const auto addr = [&](Addr base) {
      return kernel::lanes<Addr>([&](U32 l) { return base + 4 * (i + l); });
    };
    if (kind == kSum) {
      co_await w.load_global<U32>(addr(src), mask);
      co_await w.alu(1);  // the add, waiting for the load
    } else if (kind == kFill) {
      co_await w.store_global<U32>(
          addr(dst), kernel::lanes<U32>([&](U32 l) { return static_cast<U32>(i + l) + pass; }),
          mask);
    } else {
      auto v = co_await w.load_global<U32>(addr(src), mask);
      if (kind == kAdd) {  // dst[i] = src[i] + src[n + i]: a third of the bytes written
        const auto b = co_await w.load_global<U32>(addr(src + 4 * n), mask);
        for (U32 l = 0; l < kernel::kWarpSize; ++l)
          v[l] += b[l];
      }
      for (U32& x : v)
        x += pass;
      co_await w.store_global<U32>(addr(dst), v, mask);
    }
    co_await w.alu_chain(kLoopChain);
    i += stride;
    if (i >= n) {  // n and the stride are multiples of 32: a warp wraps as one
      i = first;
      ++pass;
    }
  }
  const U64 g = first / kernel::kWarpSize;
  co_await w.store_global<U64>(Lanes<Addr>{out + 8 * (hops + g)},
                               Lanes<U64>{count * static_cast<U64>(std::popcount(mask))}, 1);
}

// Percentile q (0..1) of sorted values: the nearest rank, as kernels.cu's pct().
double percentile(const std::vector<double>& sorted, double q) {
  const auto at = static_cast<std::size_t>(q * static_cast<double>(sorted.size() - 1) + 0.5);
  return sorted[std::min(sorted.size() - 1, at)];
}

class HbmLoaded final : public system::Workload {
 public:
  std::string_view name() const override { return "ubench.hbm_loaded"; }
  std::string_view description() const override {
    return "HBM read latency under load: one thread chases random cold lines while the rest of "
           "the grid streams a sum, a fill, a copy or an add (tools/silicon/kernels.cu --loaded)";
  }
  std::vector<system::ParamDecl> params() const override {
    return {{.name = "background",
             .description = "what the other warps stream: 0 nothing (the probe alone), 1 a sum "
                            "(reads), 2 a fill (writes), 3 a copy (both), 4 an add of two arrays "
                            "(a third writes)",
             .default_value = kSum,
             .min = 0,
             .max = 4},
            {.name = "ctas_per_sm",
             .description = "CTAs per SM in the grid",
             .default_value = 4,
             .min = 1,
             .max = 32},
            {.name = "threads",
             .description = "threads per CTA (a multiple of 32)",
             .default_value = 256,
             .min = 32,
             .max = 1024},
            {.name = "footprint",
             .description = "bytes the background streams over (a multiple of 128)",
             .default_value = U64{256} << 20,
             .min = 128,
             .max = U64{1} << 34},
            {.name = "hops",
             .description = "timed loads of the probe, each a cold line",
             .default_value = 256,
             .min = 1,
             .max = 1 << 16},
            {.name = "delay_ns",
             .description = "time the background runs before the first timed load",
             .default_value = 2000,
             .min = 0,
             .max = 1'000'000}};
  }

  Status setup(system::Chip& chip, const kernel::KernelRegistry& kernels,
               const system::ParamValues& values) override {
    if (auto st = require_functional(chip, name(), kChase); !st) return st;
    background_ = param(values, "background");
    hops_ = param(values, "hops");
    const U64 footprint = param(values, "footprint"), threads = param(values, "threads");
    if (footprint % 128 != 0 || threads % kernel::kWarpSize != 0) {
      return Error{fmt::format("{}: footprint {} must be a multiple of 128 and threads {} of 32",
                               name(), footprint, threads)};
    }
    auto k = kernels.find(kKernel);
    if (!k) return k.errors();
    const U32 ctas =
        background_ == kNone ? 1 : static_cast<U32>(param(values, "ctas_per_sm") * chip.num_sms());
    const kernel::LaunchParams p{
        .grid = {ctas, 1, 1},
        .cluster = {1, 1, 1},
        .block = {background_ == kNone ? 32 : static_cast<U32>(threads), 1, 1},
        .dynamic_shared_bytes = 0,
        .registers_per_thread = 32};
    warps_ = p.grid.count() * p.warps_per_block();
    if (background_ != kNone && footprint / 4 < U64{p.grid.count()} * threads) {
      return Error{
          fmt::format("{}: footprint {} must hold an element for each of the grid's {} "
                      "threads (4 B each)",
                      name(), footprint, U64{p.grid.count()} * threads)};
    }
    // One allocation: the background's source (two arrays for the add) and destination, then
    // the chain's region (256 MiB, nothing else touches it), the results and the flag.
    const U64 results = 8 * (hops_ + warps_ + 1);
    auto b = allocate(chip, name(), 3 * footprint + kChainBytes + results + 4);
    if (!b) return b.errors();
    src_ = b->results;
    dst_ = src_ + 2 * footprint;
    chain_ = dst_ + footprint;
    out_ = chain_ + kChainBytes;
    flag_ = out_ + results;
    if (auto st = write_chain(chip); !st) return st;
    const config::ChipSpec& s = chip.spec();
    const U64 delay = static_cast<U64>(std::llround(static_cast<double>(param(values, "delay_ns")) *
                                                    static_cast<double>(s.clocks.sm_hz) / 1e9));
    auto id = chip.launch(**k, p,
                          kernel::KernelArgs()
                              .u64(background_)
                              .ptr(src_)
                              .ptr(dst_)
                              .u64(footprint / 4)
                              .ptr(chain_)
                              .u64(hops_)
                              .u64(delay)
                              .ptr(out_)
                              .ptr(flag_));
    if (!id) return id.errors();
    launch_ = *id;
    return Ok{};
  }

  Result<std::vector<system::Measurement>> report(system::Chip& chip) override {
    if (auto st = check_completed(chip, launch_, name()); !st) return st.errors();
    auto out = read_words(chip, out_, hops_ + warps_);
    if (!out) return out.errors();
    if ((*out)[hops_] != line_addr(lines_.back())) {
      return Error{fmt::format("{}: the chase ended at {:#x}, expected {:#x}", name(),
                               (*out)[hops_], line_addr(lines_.back()))};
    }
    const config::ChipSpec& s = chip.spec();
    std::vector<double> ns;
    double mean = 0;
    for (U64 h = 0; h < hops_; ++h) {
      ns.push_back(sm_cycles_to_ns(s, static_cast<double>((*out)[h])));
      mean += ns.back() / static_cast<double>(hops_);
    }
    std::sort(ns.begin(), ns.end());
    U64 elements = 0;
    for (U64 g = 1; g < warps_; ++g)
      elements += (*out)[hops_ + g];
    const system::KernelRun& run = chip.run(launch_);
    const double seconds =
        static_cast<double>(run.completed - run.first_start) / static_cast<double>(sim::kSecond);
    const double bytes = static_cast<double>(elements) * 4 *
                         (background_ == kCopy  ? 2
                          : background_ == kAdd ? 3
                                                : 1);
    const std::string shape =
        fmt::format("{} timed cold-line loads; background {} from {:.3g} warps per SM", hops_,
                    kNames[background_], static_cast<double>(warps_) / chip.num_sms());
    std::vector<system::Measurement> m;
    const auto add = [&](std::string what, double v) {
      m.push_back({.name = "probe latency " + what,
                   .measured = v,
                   .configured = std::nullopt,
                   .unit = "ns",
                   .note = shape});
    };
    add("mean", mean);
    add("p10", percentile(ns, 0.1));
    add("p50", percentile(ns, 0.5));
    add("p90", percentile(ns, 0.9));
    add("p99", percentile(ns, 0.99));
    add("max", ns.back());
    m.push_back({.name = "background bandwidth",
                 .measured = bytes / seconds / 1e9,
                 .configured = std::nullopt,
                 .unit = "GB/s",
                 .note = fmt::format("{:.0f} MB moved in {:.1f} us (the whole launch)", bytes / 1e6,
                                     seconds * 1e6)});
    return m;
  }

 private:
  static constexpr U64 kChainBytes = U64{256} << 20;
  static constexpr const char* kNames[] = {"none", "sum", "fill", "copy", "add"};

  Addr line_addr(U64 line) const { return chain_ + 128 * line; }

  // hops + 1 distinct random lines of the chain's region (line 0 first), each holding the
  // next one's address: splitmix64 from a fixed seed, so every run chases the same lines.
  Status write_chain(system::Chip& chip) {
    const U64 lines = kChainBytes / 128;
    std::set<U64> seen{0};
    lines_ = {0};
    U64 rng = sim::kSplitMix64Gamma;
    while (lines_.size() < hops_ + 1) {
      const U64 line = sim::splitmix64(rng) % lines;
      rng += sim::kSplitMix64Gamma;
      if (seen.insert(line).second) lines_.push_back(line);
    }
    for (U64 h = 0; h < hops_; ++h) {
      const U64 next = line_addr(lines_[h + 1]);
      if (auto st = chip.memory().write(line_addr(lines_[h]), std::as_bytes(std::span(&next, 1)));
          !st) {
        return st;
      }
    }
    return Ok{};
  }

  U64 background_ = 0, hops_ = 0, warps_ = 0;
  Addr src_ = 0, dst_ = 0, chain_ = 0, out_ = 0, flag_ = 0;
  std::vector<U64> lines_;
  std::uint32_t launch_ = 0;
};

}  // namespace

Status register_hbm_loaded(kernel::KernelRegistry& kernels, system::WorkloadRegistry& workloads) {
  if (auto st = kernels.add({.name = std::string(kKernel),
                             .description = "one thread times loads of random cold lines while "
                                            "the other warps stream until it is done",
                             .args = {{"background", kernel::ArgKind::kU64},
                                      {"src", kernel::ArgKind::kPtr},
                                      {"dst", kernel::ArgKind::kPtr},
                                      {"n", kernel::ArgKind::kU64},
                                      {"chain", kernel::ArgKind::kPtr},
                                      {"hops", kernel::ArgKind::kU64},
                                      {"delay_cycles", kernel::ArgKind::kU64},
                                      {"out", kernel::ArgKind::kPtr},
                                      {"flag", kernel::ArgKind::kPtr}},
                             .body = hbm_loaded,
                             .static_shared_bytes = 0});
      !st) {
    return st;
  }
  return workloads.add(std::make_unique<HbmLoaded>());
}

}  // namespace xpusim::workloads::ubench
