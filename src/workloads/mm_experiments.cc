// The `mm` experiments (mm_experiments.h; docs/tensor-unit.md "Experiments").
//
// Kernel mm.experiment: one CTA; warp w < mm_warps computes C rows [w·R, (w+1)·R) with one mm
// (R = rows, or 32 / ka when rows is 0; thread t of the warp serves row t / ka, part t % ka,
// contiguous column split). Its A row segment is written straight into the mm registers
// r256.. (a formula of row and element, no memory traffic, so that every load the L1 sees is
// a B fetch of the mm); C starts at 0 in r0... B is in global memory: t0 column j at
// b + j·stride, t1 row e at b + e·stride. After the mm each thread stores its C values to
// column-major C (m rows) with 4-byte stores, and the clock before and after its mm to
// times[2·w], times[2·w + 1]. Warps >= mm_warps do nothing. The stores wait for their
// acknowledgement, so the kernel's cycles are mostly the C epilogue; the mm's own cycles come
// from the clocks (functional mode: they come back through memory).
//
// Element values are small integers (A in [-4, 4], B in [-3, 3]), so every sum is exact in
// fp32 and in int32: the check compares C with the reference GEMM exactly.
//
// The workloads run their variants as launches one after another (each queued when the previous
// completes), each on its own B and C buffers, so that every launch starts with the lines it
// reads absent from L1 and L2; the SM counters and the L1 counters are read at each completion
// and reported per launch.
#include "workloads/mm_experiments.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "kernel/warp.h"
#include "sim/float_formats.h"
#include "workloads/ubench/common.h"

namespace xpusim::workloads {
namespace {

using kernel::Addr;
using kernel::kWarpSize;
using kernel::LaneMask;
using kernel::MmInstruction;
using kernel::MmType;
using kernel::Warp;
using U32 = std::uint32_t;
using U64 = std::uint64_t;

constexpr std::string_view kKernel = "mm.experiment";
constexpr U32 kCBase = 0;    // r0.. (seed2 ¶95)
constexpr U32 kABase = 256;  // r256..
constexpr U32 kTypeBf16 = 0, kTypeS8 = 1;
constexpr U32 kT1 = 1, kBroadcast = 2, kRetention = 4;  // flags
constexpr U64 kSpacing = U64{64} << 20;  // variant i's buffers: B at +0, C at +32 MiB
constexpr U64 kLine = 128;               // B columns/rows start on their own line

MmType type_of(U32 code) {
  return code == kTypeS8 ? MmType::kS8 : MmType::kBF16;
}

int a_value(U32 row, U32 e, U32 seed) {
  return static_cast<int>((row * 7 + e * 13 + seed * 5 + 1) % 9) - 4;
}
int b_value(U32 e, U32 j, U32 seed) {
  return static_cast<int>((e * 5 + j * 11 + seed * 3 + 2) % 7) - 3;
}
U32 raw_of(MmType t, int v) {
  if (t == MmType::kS8) return static_cast<std::uint8_t>(static_cast<std::int8_t>(v));
  return float_to_bf16(static_cast<float>(v));
}

// Args: type, k, n, ka, rows, mm_warps, flags, b, b_stride, c, m, seed, times (see the top).
sim::Task<> mm_experiment(Warp& w) {
  const kernel::KernelArgs& a = w.args();
  const MmType type = type_of(a.get_u32(0));
  const U32 k = a.get_u32(1), n = a.get_u32(2), ka = a.get_u32(3), rows_arg = a.get_u32(4);
  const U32 mm_warps = a.get_u32(5), flags = a.get_u32(6);
  const Addr b = a.get_ptr(7);
  const U64 stride = a.get_u64(8);
  const Addr c = a.get_ptr(9);
  const U32 m = a.get_u32(10), seed = a.get_u32(11);
  const Addr times = a.get_ptr(12);
  const U32 warp = w.warp_id();
  if (warp >= mm_warps) co_return;
  const U32 rows = rows_arg != 0 ? rows_arg : kWarpSize / ka;
  const U32 row0 = warp * rows;
  const U32 chunk = (n + ka - 1) / ka;
  const U32 eb = kernel::mm_type_bytes(type), per = 4 / eb;
  kernel::RegisterFile& regs = w.registers();
  for (U32 t = 0; t < kWarpSize; ++t) {
    if (t / ka >= rows) continue;
    for (U32 l = 0; l < chunk; ++l)
      regs.at(t, kCBase + l) = 0;
    for (U32 r = 0; r < (k + per - 1) / per; ++r)
      regs.at(t, kABase + r) = 0;
    for (U32 e = 0; e < k; ++e)
      regs.at(t, kABase + e / per) |= raw_of(type, a_value(row0 + t / ka, e, seed))
                                      << (8 * eb * (e % per));
  }
  MmInstruction mm{.a_type = type,
                   .b_type = type,
                   .c_base = kCBase,
                   .a_base = kABase,
                   .k = k,
                   .n = n,
                   .ka = ka,
                   .rows = rows_arg,
                   .t1 = (flags & kT1) != 0,
                   .broadcast = (flags & kBroadcast) != 0,
                   .retention = (flags & kRetention) != 0};
  const U32 entries = mm.t1 ? k : n;
  for (U32 i = 0; i < entries; ++i)
    mm.b_addresses.push_back(b + U64{i} * stride);
  const U64 before = co_await w.clock();
  co_await w.mm(mm);
  const U64 after = co_await w.clock();
  for (U32 l = 0; l < chunk; ++l) {
    LaneMask mask = 0;
    const auto at = kernel::lanes<Addr>([&](U32 t) -> Addr {
      const U32 row = t / ka, j = (t % ka) * chunk + l;
      if (row >= rows || j >= n) return 0;
      mask |= LaneMask{1} << t;
      return c + 4 * (U64{m} * j + row0 + row);
    });
    const auto v = kernel::lanes<U32>([&](U32 t) { return regs.at(t, kCBase + l); });
    if (mask != 0) co_await w.store_global<U32>(at, v, mask);
  }
  // The clock around the mm: lane 0 the cycle it issued, lane 1 the cycle after it finished.
  co_await w.store_global<U64>(
      kernel::lanes<Addr>([&](U32 l) { return times + 16 * U64{warp} + 8 * (l & 1); }),
      kernel::lanes<U64>([&](U32 l) { return l == 0 ? before : after; }), LaneMask{3});
}

// One launch of mm.experiment.
struct Variant {
  std::string label;
  U32 type = kTypeBf16;
  U32 k = 8, n = 1, ka = 1, rows = 0, warps = 1, mm_warps = 1, flags = kBroadcast | kRetention;
  U64 stride = kLine;
  U32 dynamic_shared = 0;
  U32 m = 32;  // C rows computed (all warps), the column-major leading dimension
  // Set by setup.
  Addr b = 0, c = 0, times = 0;
  U32 seed = 0;
};

// What one launch did (counters summed over the SMs, differences across the launch).
struct Figures {
  double cycles = 0;
  std::optional<double> mm_cycles;  // functional mode: first mm issue to last mm completion
  double instructions = 0, math_issues = 0, line_fetches = 0, b_bytes = 0, a_reads = 0, macs = 0;
  double active_threads = 0, busy = 0, token_stall = 0, pinned = 0, not_pinned = 0;
  double l1_hits = 0, l1_misses = 0, l1_sector_misses = 0, l1_evictions = 0;
  U64 l1_bytes = 0;  // the L1's capacity during the launch
};

constexpr const char* kSmStats[] = {
    "mm.instructions",       "mm.math_issues",  "mm.b_line_fetches",  "mm.b_bytes",
    "mm.a_register_reads",   "mm.macs",         "mm.active_threads",  "tensor.busy_cycles",
    "mm.token_stall_cycles", "mm.lines_pinned", "mm.lines_not_pinned"};
constexpr const char* kL1Stats[] = {"load_hits", "load_misses", "sector_misses", "evictions"};

// Every counter above, summed over the SMs, in that order.
Result<std::vector<double>> counters(system::Chip& chip) {
  std::vector<double> out;
  for (const char* s : kSmStats) {
    auto v = ubench::sum_over_sms(chip, s);
    if (!v) return v.errors();
    out.push_back(*v);
  }
  for (const char* s : kL1Stats) {
    double sum = 0;
    for (U32 i = 0; i < chip.num_sms(); ++i) {
      auto v =
          ubench::stat_value(chip, fmt::format("{}.l1.sm{}.{}", chip.memory_system().path(), i, s));
      if (!v) return v.errors();
      sum += *v;
    }
    out.push_back(sum);
  }
  return out;
}

Figures figures_of(const std::vector<double>& d) {
  Figures f;
  double* fields[] = {
      &f.instructions, &f.math_issues,    &f.line_fetches, &f.b_bytes,          &f.a_reads,
      &f.macs,         &f.active_threads, &f.busy,         &f.token_stall,      &f.pinned,
      &f.not_pinned,   &f.l1_hits,        &f.l1_misses,    &f.l1_sector_misses, &f.l1_evictions};
  for (std::size_t i = 0; i < d.size(); ++i)
    *fields[i] = d[i];
  return f;
}

class MmExperiment : public system::Workload {
 public:
  Status setup(system::Chip& chip, const kernel::KernelRegistry& kernels,
               const system::ParamValues& values) override {
    auto k = kernels.find(kKernel);
    if (!k) return k.errors();
    kernel_ = *k;
    auto plan = variants(values);
    if (!plan) return plan.errors();
    variants_ = std::move(*plan);
    figures_.clear();
    launches_.clear();
    failed_.reset();
    auto base = chip.allocate(name(), variants_.size() * kSpacing);
    if (!base) return base.errors();
    for (std::size_t i = 0; i < variants_.size(); ++i) {
      Variant& v = variants_[i];
      v.b = *base + i * kSpacing;
      v.c = v.b + kSpacing / 2;
      v.times = v.b + kSpacing / 4;
      v.seed = static_cast<U32>(i + 1);
      if (auto st = write_b(chip, v); !st) return st;
    }
    auto now = counters(chip);
    if (!now) return now.errors();
    last_ = std::move(*now);
    return launch(chip, 0);
  }

  Result<std::vector<system::Measurement>> report(system::Chip& chip) override {
    if (failed_) return *failed_;
    for (std::size_t i = 0; i < variants_.size(); ++i) {
      if (i >= launches_.size()) return Error{fmt::format("{}: launch {} never ran", name(), i)};
      if (auto st = ubench::check_completed(chip, launches_[i], name()); !st) return st.errors();
    }
    if (figures_.size() != variants_.size()) {
      return Error{fmt::format("{}: {} of {} launches completed", name(), figures_.size(),
                               variants_.size())};
    }
    for (std::size_t i = 0; i < variants_.size(); ++i) {
      const system::KernelRun& r = chip.run(launches_[i]);
      figures_[i].cycles = static_cast<double>(chip.clock().cycle_at(r.completed) -
                                               chip.clock().cycle_at(r.first_start));
      if (chip.options().functional) {
        if (auto st = verify(chip, variants_[i]); !st) return st.errors();
        auto span = mm_span(chip, variants_[i]);
        if (!span) return span.errors();
        figures_[i].mm_cycles = *span;
      }
    }
    std::vector<system::Measurement> out;
    summarize(chip, out);
    return out;
  }

 protected:
  virtual Result<std::vector<Variant>> variants(const system::ParamValues& values) const = 0;
  virtual void summarize(system::Chip& chip, std::vector<system::Measurement>& out) const = 0;

  const Variant& variant(std::size_t i) const { return variants_[i]; }
  // The mm's cycles where measured, else the kernel's.
  static double cycles_of(const Figures& f) { return f.mm_cycles.value_or(f.cycles); }
  static void mm_cycles(const Variant& v, const Figures& f, std::vector<system::Measurement>& out) {
    if (!f.mm_cycles) return;
    out.push_back({.name = v.label + ": mm cycles",
                   .measured = *f.mm_cycles,
                   .configured = std::nullopt,
                   .unit = "cycles",
                   .note = "clock before the first warp's mm to clock after the last warp's"});
  }
  const Figures& fig(std::size_t i) const { return figures_[i]; }

  // The usual per-launch lines: cycles, B fetched by the mm, what the L1 saw.
  static void common(const Variant& v, const Figures& f, std::vector<system::Measurement>& out) {
    mm_cycles(v, f, out);
    out.push_back({.name = v.label + ": cycles",
                   .measured = f.cycles,
                   .configured = std::nullopt,
                   .unit = "cycles",
                   .note = "kernel, first instruction to completion (includes the C stores)"});
    out.push_back({.name = v.label + ": mm.b_line_fetches",
                   .measured = f.line_fetches,
                   .configured = std::nullopt,
                   .unit = "lines",
                   .note = "B lines the mm memory issues requested from the L1"});
    out.push_back({.name = v.label + ": mm.b_bytes",
                   .measured = f.b_bytes,
                   .configured = std::nullopt,
                   .unit = "bytes",
                   .note = "B bytes the mm memory issues read (whole lines)"});
    out.push_back({.name = v.label + ": L1 load accesses",
                   .measured = f.l1_hits + f.l1_misses,
                   .configured = std::nullopt,
                   .unit = "lines",
                   .note = "L1 load_hits + load_misses (every load here is an mm B fetch)"});
    out.push_back({.name = v.label + ": L1 misses (L2->L1 fills)",
                   .measured = f.l1_misses,
                   .configured = std::nullopt,
                   .unit = "lines",
                   .note = "L1 load_misses: line requests sent to L2"});
    out.push_back({.name = v.label + ": L2->L1 bytes",
                   .measured = f.l1_sector_misses * 32,
                   .configured = std::nullopt,
                   .unit = "bytes",
                   .note = "L1 sector_misses x 32 B sectors"});
  }

 private:
  Status write_b(system::Chip& chip, const Variant& v) {
    const MmType t = type_of(v.type);
    const U32 eb = kernel::mm_type_bytes(t);
    const U32 outer = (v.flags & kT1) != 0 ? v.k : v.n;  // rows (t1) or columns (t0)
    const U32 inner = (v.flags & kT1) != 0 ? v.n : v.k;
    std::vector<std::byte> run(std::size_t{inner} * eb);
    for (U32 o = 0; o < outer; ++o) {
      for (U32 i = 0; i < inner; ++i) {
        const U32 e = (v.flags & kT1) != 0 ? o : i, j = (v.flags & kT1) != 0 ? i : o;
        const U32 raw = raw_of(t, b_value(e, j, v.seed));
        for (U32 x = 0; x < eb; ++x)
          run[std::size_t{i} * eb + x] = static_cast<std::byte>(raw >> (8 * x) & 0xFF);
      }
      if (auto st = chip.memory().write(v.b + U64{o} * v.stride, run); !st) return st;
    }
    return Ok{};
  }

  Status verify(system::Chip& chip, const Variant& v) const {
    const MmType t = type_of(v.type);
    std::vector<U32> got(std::size_t{v.m} * v.n);
    if (auto st = chip.memory().read(v.c, std::as_writable_bytes(std::span(got))); !st) return st;
    for (U32 j = 0; j < v.n; ++j) {
      for (U32 row = 0; row < v.m; ++row) {
        std::int64_t want = 0;
        for (U32 e = 0; e < v.k; ++e)
          want += std::int64_t{a_value(row, e, v.seed)} * b_value(e, j, v.seed);
        const U32 g = got[std::size_t{j} * v.m + row];
        const bool same = t == MmType::kS8 ? static_cast<std::int32_t>(g) == want
                                           : std::bit_cast<float>(g) == static_cast<float>(want);
        if (!same) {
          return Error{fmt::format(
              "{}: {}: C[{}][{}] is {:#x}, the reference GEMM gives {} (first mismatch)", name(),
              v.label, row, j, g, want)};
        }
      }
    }
    return Ok{};
  }

  // Over the warps that issued an mm: the last one's completion minus the first one's issue.
  Result<double> mm_span(system::Chip& chip, const Variant& v) const {
    std::vector<U64> t(2 * std::size_t{v.mm_warps});
    if (auto st = chip.memory().read(v.times, std::as_writable_bytes(std::span(t))); !st)
      return st.errors();
    U64 first = ~U64{0}, last = 0;
    for (U32 w = 0; w < v.mm_warps; ++w) {
      first = std::min(first, t[2 * w]);
      last = std::max(last, t[2 * w + 1]);
    }
    return static_cast<double>(last - first);
  }

  Status launch(system::Chip& chip, std::size_t i) {
    const Variant& v = variants_[i];
    const kernel::LaunchParams p{.grid = {1, 1, 1},
                                 .cluster = {1, 1, 1},
                                 .block = {32 * v.warps, 1, 1},
                                 .dynamic_shared_bytes = v.dynamic_shared,
                                 .registers_per_thread = 32};
    const kernel::KernelArgs args = kernel::KernelArgs()
                                        .u32(v.type)
                                        .u32(v.k)
                                        .u32(v.n)
                                        .u32(v.ka)
                                        .u32(v.rows)
                                        .u32(v.mm_warps)
                                        .u32(v.flags)
                                        .ptr(v.b)
                                        .u64(v.stride)
                                        .ptr(v.c)
                                        .u32(v.m)
                                        .u32(v.seed)
                                        .ptr(v.times);
    l1_bytes_ = chip.l1_bytes_for(*kernel_, p);
    auto id = chip.launch(*kernel_, p, args,
                          [this, &chip, i](const system::KernelRun&) { completed(chip, i); });
    if (!id) return id.errors();
    launches_.push_back(*id);
    return Ok{};
  }

  void completed(system::Chip& chip, std::size_t i) {
    auto now = counters(chip);
    if (!now) {
      failed_ = now.error();
      return;
    }
    std::vector<double> d(now->size());
    for (std::size_t x = 0; x < d.size(); ++x)
      d[x] = (*now)[x] - last_[x];
    last_ = std::move(*now);
    figures_.push_back(figures_of(d));
    figures_.back().l1_bytes = l1_bytes_;
    if (i + 1 == variants_.size() || chip.fault()) return;
    if (auto st = launch(chip, i + 1); !st) failed_ = st.error();
  }

  const kernel::KernelDef* kernel_ = nullptr;
  std::vector<Variant> variants_;
  std::vector<Figures> figures_;
  std::vector<std::uint32_t> launches_;
  std::vector<double> last_;
  U64 l1_bytes_ = 0;
  std::optional<Error> failed_;
};

U64 round_up(U64 x, U64 to) {
  return (x + to - 1) / to * to;
}

system::ParamDecl type_param() {
  return {.name = "int8",
          .description = "element type: 0 = bf16 x bf16 -> fp32, 1 = s8 x s8 -> int32",
          .default_value = 0,
          .min = 0,
          .max = 1};
}

system::ParamDecl k_param() {
  return {.name = "k",
          .description = "K: A elements per thread (A registers from r256)",
          .default_value = 64,
          .min = 1,
          .max = 256};
}

// The type, K and N of the parameters; B column-major (t0), each column padded to whole lines.
Variant column_major(const system::ParamValues& values) {
  Variant v;
  v.type = static_cast<U32>(ubench::param(values, "int8"));
  v.k = static_cast<U32>(ubench::param(values, "k"));
  v.n = static_cast<U32>(ubench::param(values, "n"));
  v.stride = round_up(U64{v.k} * kernel::mm_type_bytes(type_of(v.type)), kLine);
  return v;
}

// ---- mm.broadcast ----------------------------------------------------------------------------
class Broadcast final : public MmExperiment {
 public:
  std::string_view name() const override { return "mm.broadcast"; }
  std::string_view description() const override {
    return "M x N x K mm on warps x 32 rows, B in global memory (t0): B fetched once per warp "
           "(broadcast) vs once per thread";
  }
  std::vector<system::ParamDecl> params() const override {
    return {{.name = "warps",
             .description = "warps of the CTA, 32 C rows each (M = 32 x warps)",
             .default_value = 8,
             .min = 1,
             .max = 32},
            {.name = "n",
             .description = "B columns (C registers r0..r(n-1))",
             .default_value = 256,
             .min = 1,
             .max = 256},
            k_param(),
            type_param()};
  }

 protected:
  Result<std::vector<Variant>> variants(const system::ParamValues& values) const override {
    Variant v = column_major(values);
    v.warps = v.mm_warps = static_cast<U32>(ubench::param(values, "warps"));
    v.m = 32 * v.warps;
    Variant on = v, off = v;
    on.label = "broadcast on";
    off.label = "broadcast off";
    off.flags = kRetention;
    return std::vector<Variant>{on, off};
  }

  void summarize(system::Chip&, std::vector<system::Measurement>& out) const override {
    const Variant& v = variant(0);
    const double lines = static_cast<double>(v.stride / kLine);  // per column (stride = lines)
    const double per_warp = v.n * lines * kLine;                 // B bytes one fetch of B reads
    for (std::size_t i = 0; i < 2; ++i) {
      common(variant(i), fig(i), out);
      out.back().note += " (configured: B once from HBM)";
      out.back().configured = per_warp;
      out[out.size() - 4].configured = per_warp * v.warps * (i == 0 ? 1 : kWarpSize);
      out[out.size() - 4].note += " (configured: warps x K x N bytes, x 32 threads when off)";
    }
    out.push_back({.name = "B bytes, off / on",
                   .measured = fig(1).b_bytes / fig(0).b_bytes,
                   .configured = 32.0,
                   .unit = "x",
                   .note = "every thread of the warp fetches B itself without broadcast"});
    out.push_back({.name = "cycles, off / on",
                   .measured = cycles_of(fig(1)) / cycles_of(fig(0)),
                   .configured = std::nullopt,
                   .unit = "x",
                   .note = fmt::format(
                       "mm cycles (kernel cycles in timing-only mode); M = {}, N = {}, K = {} {}",
                       v.m, v.n, v.k, kernel::mm_type_name(type_of(v.type)))});
  }
};

// ---- mm.ka_utilization -----------------------------------------------------------------------
class KaUtilization final : public MmExperiment {
 public:
  std::string_view name() const override { return "mm.ka_utilization"; }
  std::string_view description() const override {
    return "16 C rows on 64 threads (seed2 ¶113): ka1 (warp 0, rows = 16; 48 threads idle) vs "
           "ka4 (both warps, 8 rows x 4 threads each)";
  }
  std::vector<system::ParamDecl> params() const override {
    return {{.name = "n",
             .description = "B columns (ka1: n C registers per thread; ka4: n / 4)",
             .default_value = 256,
             .min = 4,
             .max = 256},
            k_param(),
            type_param()};
  }

 protected:
  Result<std::vector<Variant>> variants(const system::ParamValues& values) const override {
    Variant v = column_major(values);
    v.warps = 2;
    v.m = 16;
    Variant ka1 = v, ka4 = v;
    ka1.label = "ka1";
    ka1.mm_warps = 1;
    ka1.rows = 16;
    ka4.label = "ka4";
    ka4.mm_warps = 2;
    ka4.ka = 4;
    ka4.rows = 0;  // 32 / 4 = 8 rows per warp
    return std::vector<Variant>{ka1, ka4};
  }

  void summarize(system::Chip&, std::vector<system::Measurement>& out) const override {
    constexpr double kThreads = 64;
    for (std::size_t i = 0; i < 2; ++i) {
      const Variant& v = variant(i);
      const Figures& f = fig(i);
      out.push_back({.name = v.label + ": lane utilization",
                     .measured = 100.0 * f.active_threads / kThreads,
                     .configured = i == 0 ? 25.0 : 100.0,
                     .unit = "%",
                     .note = "mm.active_threads (summed over the mm instructions) / the CTA's 64 "
                             "threads; configured: 16 / 64 and 64 / 64"});
      mm_cycles(v, f, out);
      out.push_back({.name = v.label + ": cycles",
                     .measured = f.cycles,
                     .configured = std::nullopt,
                     .unit = "cycles",
                     .note = "kernel, first instruction to completion (includes the C stores)"});
      out.push_back({.name = v.label + ": C registers per thread",
                     .measured = static_cast<double>((v.n + v.ka - 1) / v.ka),
                     .configured = std::nullopt,
                     .unit = "registers",
                     .note = "columns each active thread accumulates"});
      out.push_back({.name = v.label + ": mm.instructions",
                     .measured = f.instructions,
                     .configured = std::nullopt,
                     .unit = "instructions",
                     .note = "one per warp that issues an mm"});
      out.push_back({.name = v.label + ": mm.math_issues",
                     .measured = f.math_issues,
                     .configured = std::nullopt,
                     .unit = "issues",
                     .note = "one per B column per instruction"});
      out.push_back({.name = v.label + ": tensor.busy_cycles",
                     .measured = f.busy,
                     .configured = std::nullopt,
                     .unit = "cycles",
                     .note = "summed over the sub-partitions' tensor units"});
      out.push_back({.name = v.label + ": mm.macs",
                     .measured = f.macs,
                     .configured = 16.0 * v.n * v.k,
                     .unit = "MACs",
                     .note = "configured: 16 rows x N x K"});
      out.push_back({.name = v.label + ": mm.b_bytes",
                     .measured = f.b_bytes,
                     .configured = std::nullopt,
                     .unit = "bytes",
                     .note = "B bytes the mm memory issues read (one fetch per instruction)"});
    }
    out.push_back({.name = "cycles, ka1 / ka4",
                   .measured = cycles_of(fig(0)) / cycles_of(fig(1)),
                   .configured = std::nullopt,
                   .unit = "x",
                   .note = "speed-up of ka4, mm cycles (kernel cycles in timing-only mode)"});
  }
};

// ---- mm.t1_retention -------------------------------------------------------------------------
class T1Retention final : public MmExperiment {
 public:
  std::string_view name() const override { return "mm.t1_retention"; }
  std::string_view description() const override {
    return "row-major B (t1), lines retained until every column used them vs re-read per column: "
           "seed2's 4x4 int8 example and a K-row case whose lines exceed the L1";
  }
  std::vector<system::ParamDecl> params() const override {
    return {{.name = "rows",
             .description = "large case: B rows (K, s8 A elements per thread; A in r256..)",
             .default_value = 256,
             .min = 4,
             .max = 1024},
            {.name = "n",
             .description = "large case: B columns (C registers r0..r(n-1))",
             .default_value = 256,
             .min = 1,
             .max = 256},
            {.name = "row_stride",
             .description = "large case: bytes from one B row to the next (>= n, multiple of 128)",
             .default_value = 256,
             .min = 128,
             .max = 65536},
            {.name = "dynamic_shared_kib",
             .description = "large case: dynamic shared memory (KiB) the CTA asks for; the L1 is "
                            "what the carve-out leaves",
             .default_value = 227,
             .min = 0,
             .max = 227}};
  }

 protected:
  Result<std::vector<Variant>> variants(const system::ParamValues& values) const override {
    Variant small;
    small.type = kTypeS8;
    small.k = 4;
    small.n = 4;
    small.flags = kT1 | kBroadcast | kRetention;
    small.stride = kLine;  // each row in its own line
    Variant big = small;
    big.k = static_cast<U32>(ubench::param(values, "rows"));
    big.n = static_cast<U32>(ubench::param(values, "n"));
    big.stride = ubench::param(values, "row_stride");
    big.dynamic_shared = static_cast<U32>(ubench::param(values, "dynamic_shared_kib") << 10);
    if (big.stride % kLine != 0 || big.stride < big.n) {
      return Error{fmt::format("{}: row_stride {} must be a multiple of {} and at least n {}",
                               name(), big.stride, kLine, big.n)};
    }
    if ((big.k + 3) / 4 > 256) {
      return Error{fmt::format("{}: rows {} need {} A registers; r256..r511 hold 256", name(),
                               big.k, (big.k + 3) / 4)};
    }
    Variant s0 = small, s1 = small, b0 = big, b1 = big;
    s0.label = "4x4 retention";
    s1.label = "4x4 no retention";
    s1.flags = kT1 | kBroadcast;
    b0.label = fmt::format("{}-row retention", big.k);
    b1.label = fmt::format("{}-row no retention", big.k);
    b1.flags = kT1 | kBroadcast;
    return std::vector<Variant>{s0, s1, b0, b1};
  }

  void summarize(system::Chip&, std::vector<system::Measurement>& out) const override {
    for (std::size_t i = 0; i < 4; ++i) {
      const Variant& v = variant(i);
      common(v, fig(i), out);
      const bool retained = (v.flags & kRetention) != 0;
      const double lines_per_row = static_cast<double>((v.n + kLine - 1) / kLine);
      system::Measurement& fetches = out[out.size() - 5];
      fetches.configured = retained ? v.k * lines_per_row : static_cast<double>(v.k) * v.n;
      fetches.note += retained ? " (configured: each row's lines once)"
                               : " (configured: one per (column, row) selection)";
      if (retained) {
        out.push_back({.name = v.label + ": mm.lines_pinned",
                       .measured = fig(i).pinned,
                       .configured = std::nullopt,
                       .unit = "lines",
                       .note = "row lines pinned in the L1 until every column used them"});
        out.push_back({.name = v.label + ": mm.lines_not_pinned",
                       .measured = fig(i).not_pinned,
                       .configured = std::nullopt,
                       .unit = "lines",
                       .note = "row lines the L1 could not pin (set full of pinned lines): "
                               "re-read per column"});
      }
      out.push_back({.name = v.label + ": L1 capacity",
                     .measured = static_cast<double>(fig(i).l1_bytes),
                     .configured = std::nullopt,
                     .unit = "bytes",
                     .note = "sm.l1_shared_bytes minus the shared-memory carve-out"});
    }
    out.push_back({.name = "4x4: line fetches, no retention / retention",
                   .measured = fig(1).line_fetches / fig(0).line_fetches,
                   .configured = 4.0,
                   .unit = "x",
                   .note = "16 (column, row) selections vs 4 row lines (seed2 ¶122-124)"});
    out.push_back(
        {.name = "large: L2->L1 fills, no retention / retention",
         .measured = fig(3).l1_misses / fig(2).l1_misses,
         .configured = std::nullopt,
         .unit = "x",
         .note = "L1 load_misses (all requests of a memory issue leave at once; the L1 does not "
                 "merge misses to a line in flight)"});
    out.push_back({.name = "large: cycles, no retention / retention",
                   .measured = cycles_of(fig(3)) / cycles_of(fig(2)),
                   .configured = std::nullopt,
                   .unit = "x",
                   .note = "mm cycles (kernel cycles in timing-only mode)"});
  }
};

}  // namespace

Status register_mm_experiments(kernel::KernelRegistry& kernels,
                               system::WorkloadRegistry& workloads) {
  if (auto st = kernels.add({.name = std::string(kKernel),
                             .description = "warps < mm_warps: one mm on A written to the "
                                            "registers, B in global memory; C stored column-major",
                             .args = {{"type", kernel::ArgKind::kU32},
                                      {"k", kernel::ArgKind::kU32},
                                      {"n", kernel::ArgKind::kU32},
                                      {"ka", kernel::ArgKind::kU32},
                                      {"rows", kernel::ArgKind::kU32},
                                      {"mm_warps", kernel::ArgKind::kU32},
                                      {"flags", kernel::ArgKind::kU32},
                                      {"b", kernel::ArgKind::kPtr},
                                      {"b_stride", kernel::ArgKind::kU64},
                                      {"c", kernel::ArgKind::kPtr},
                                      {"m", kernel::ArgKind::kU32},
                                      {"seed", kernel::ArgKind::kU32},
                                      {"times", kernel::ArgKind::kPtr}},
                             .body = mm_experiment,
                             .static_shared_bytes = 0});
      !st) {
    return st;
  }
  if (auto st = workloads.add(std::make_unique<Broadcast>()); !st) return st;
  if (auto st = workloads.add(std::make_unique<KaUtilization>()); !st) return st;
  return workloads.add(std::make_unique<T1Retention>());
}

}  // namespace xpusim::workloads
