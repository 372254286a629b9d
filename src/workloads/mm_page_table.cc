// mm.page_table: the same int8 GEMM with B at plain addresses and with B through the page-table
// device (seed2 ¶58–66, docs/page-table.md "Timing", docs/tensor-unit.md "Experiments").
//
// Kernel mm.paged: CTA c, warp w computes C rows [32·g, 32·g + 32) for g = c·warps + w with one
// mm (one row per thread, ka 1). A is written straight into r256.. (a formula of row and
// element, no memory traffic); B is K × N int8, column-major, every column k bytes, in pages
// of page_columns columns: page p at b + (pages − 1 − p)·page_stride (reverse order, so no two
// neighbours are adjacent). With seg < 0 the mm names column j by that byte address; with
// seg ≥ 0 by its element offset j·k in the segment (seg:rf:imm, ¶60) whose PTEs map those
// same pages. Both variants read the same lines; only the translation differs. C (int32) is
// stored column-major, m rows.
//
// The two variants run one after the other, each with its own B and C, so each starts with
// cold caches; the SM counters are read at each completion.
#include "workloads/mm_page_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kernel/warp.h"
#include "workloads/ubench/common.h"

namespace xpusim::workloads {
namespace {

using kernel::Addr;
using kernel::kWarpSize;
using kernel::MmInstruction;
using kernel::MmType;
using kernel::Warp;
using U32 = std::uint32_t;
using U64 = std::uint64_t;

constexpr std::string_view kKernel = "mm.paged";
constexpr std::string_view kName = "mm.page_table";
constexpr U32 kCBase = 0, kABase = 256;
constexpr U64 kPageAlign = 4096;  // where each page of the paged B starts

// Small values: every int32 sum is exact, so C is compared with the reference exactly.
int a_value(U32 row, U32 e) {
  return static_cast<int>((row * 7 + e * 13 + 1) % 9) - 4;
}
int b_value(U32 e, U32 j) {
  return static_cast<int>((e * 5 + j * 11 + 2) % 7) - 3;
}

// Args: k, n, warps, seg (s32), b, page_columns, page_stride, c, m (see the top).
sim::Task<> mm_paged(Warp& w) {
  const kernel::KernelArgs& a = w.args();
  const U32 k = a.get_u32(0), n = a.get_u32(1), warps = a.get_u32(2);
  const std::int32_t seg = a.get_s32(3);
  const Addr b = a.get_ptr(4);
  const U32 page_columns = a.get_u32(5);
  const U64 page_stride = a.get_u64(6);
  const Addr c = a.get_ptr(7);
  const U32 m = a.get_u32(8);
  const U32 pages = (n + page_columns - 1) / page_columns;
  const U32 row0 = (w.block_id().x * warps + w.warp_id()) * kWarpSize;
  kernel::RegisterFile& regs = w.registers();
  for (U32 t = 0; t < kWarpSize; ++t) {
    for (U32 j = 0; j < n; ++j)
      regs.at(t, kCBase + j) = 0;
    for (U32 r = 0; r < (k + 3) / 4; ++r)
      regs.at(t, kABase + r) = 0;
    for (U32 e = 0; e < k; ++e) {
      const auto v = static_cast<std::uint8_t>(static_cast<std::int8_t>(a_value(row0 + t, e)));
      regs.at(t, kABase + e / 4) |= U32{v} << (8 * (e % 4));
    }
  }
  MmInstruction mm{.a_type = MmType::kS8,
                   .b_type = MmType::kS8,
                   .c_base = kCBase,
                   .a_base = kABase,
                   .k = k,
                   .n = n,
                   .segment = seg};
  for (U32 j = 0; j < n; ++j)
    mm.b_addresses.push_back(seg >= 0 ? U64{j} * k
                                      : b + (pages - 1 - j / page_columns) * page_stride +
                                            U64{j % page_columns} * k);
  co_await w.mm(mm);
  for (U32 j = 0; j < n; ++j) {
    co_await w.store_global<U32>(
        kernel::lanes<Addr>([&](U32 t) { return c + 4 * (U64{m} * j + row0 + t); }),
        kernel::lanes<U32>([&](U32 t) { return regs.at(t, kCBase + j); }));
  }
}

constexpr const char* kCounters[] = {"mm.translation_hits",    "mm.translation_misses",
                                     "mm.pte_loads",           "mm.translation_cycles",
                                     "mm.translation_flushes", "mm.b_line_fetches"};

struct Figures {
  double cycles = 0;
  std::vector<double> counters;  // kCounters' gains over the launch, summed over the SMs
};

class PageTableGemm final : public system::Workload {
 public:
  std::string_view name() const override { return kName; }
  std::string_view description() const override {
    return "int8 GEMM on mm, B at plain addresses vs through the page-table device (pages "
           "scattered, each SM's translation cache, PTE loads on misses; seed2 ¶58-66)";
  }
  std::vector<system::ParamDecl> params() const override {
    return {
        {.name = "ctas", .description = "CTAs", .default_value = 4, .min = 1, .max = 65535},
        {.name = "warps",
         .description = "warps per CTA, 32 C rows each",
         .default_value = 8,
         .min = 1,
         .max = 32},
        {.name = "k",
         .description = "K (int8 A elements per thread, r256..)",
         .default_value = 64,
         .min = 1,
         .max = 1024},
        {.name = "n", .description = "N (B columns)", .default_value = 256, .min = 1, .max = 256},
        {.name = "page_columns",
         .description = "B columns per page of the segment (pages = ceil(n / page_columns))",
         .default_value = 8,
         .min = 1,
         .max = 256}};
  }

  Status setup(system::Chip& chip, const kernel::KernelRegistry& kernels,
               const system::ParamValues& values) override {
    auto kernel = kernels.find(kKernel);
    if (!kernel) return kernel.errors();
    kernel_ = *kernel;
    ctas_ = static_cast<U32>(ubench::param(values, "ctas"));
    warps_ = static_cast<U32>(ubench::param(values, "warps"));
    k_ = static_cast<U32>(ubench::param(values, "k"));
    n_ = static_cast<U32>(ubench::param(values, "n"));
    page_columns_ = static_cast<U32>(ubench::param(values, "page_columns"));
    if (page_columns_ > n_) {
      return Error{
          fmt::format("{}: page_columns {} is more than n {} (a page holds at most all "
                      "of B's columns)",
                      kName, page_columns_, n_)};
    }
    m_ = ctas_ * warps_ * kWarpSize;
    figures_.clear();
    launches_.clear();
    failed_.reset();

    const U64 c_bytes = U64{4} * m_ * n_;
    pages_ = (n_ + page_columns_ - 1) / page_columns_;
    page_stride_ = (U64{k_} * page_columns_ + kPageAlign - 1) / kPageAlign * kPageAlign;
    std::vector<std::byte> column(k_);
    for (std::size_t i = 0; i < 2; ++i) {
      auto b = chip.allocate(fmt::format("{} B", kName), U64{pages_} * page_stride_);
      if (!b) return b.errors();
      auto c = chip.allocate(fmt::format("{} C", kName), c_bytes);
      if (!c) return c.errors();
      b_[i] = *b;
      c_[i] = *c;
      for (U32 j = 0; j < n_; ++j) {
        for (U32 e = 0; e < k_; ++e)
          column[e] = static_cast<std::byte>(static_cast<std::int8_t>(b_value(e, j)));
        if (auto st = chip.memory().write(column_address(i, j), column); !st) return st;
      }
    }
    // The segment over the second copy: dims {k, n} (a column is contiguous in its page).
    auto seg = chip.define_segment(
        fmt::format("{} B{}", kName, chip.page_table().segments()),
        {.dims = {k_, n_}, .page_dims = {k_, page_columns_}, .element_bytes = 1});
    if (!seg) return seg.errors();
    segment_ = *seg;
    for (U32 p = 0; p < pages_; ++p) {
      if (auto st = chip.page_table().load_page(segment_, p, column_address(1, p * page_columns_));
          !st) {
        return st;
      }
    }
    auto now = counters(chip);
    if (!now) return now.errors();
    last_ = std::move(*now);
    return launch(chip, 0);
  }

  Result<std::vector<system::Measurement>> report(system::Chip& chip) override {
    if (failed_) return *failed_;
    for (std::size_t i = 0; i < 2; ++i) {
      if (i >= launches_.size()) return Error{fmt::format("{}: launch {} never ran", kName, i)};
      if (auto st = ubench::check_completed(chip, launches_[i], kName); !st) return st.errors();
    }
    if (figures_.size() != 2) {
      return Error{fmt::format("{}: {} of 2 launches completed", kName, figures_.size())};
    }
    for (std::size_t i = 0; i < 2; ++i) {
      const system::KernelRun& r = chip.run(launches_[i]);
      figures_[i].cycles = static_cast<double>(chip.clock().cycle_at(r.completed) -
                                               chip.clock().cycle_at(r.first_start));
      if (chip.options().functional) {
        if (auto st = verify(chip, i); !st) return st.errors();
      }
    }
    const Figures& plain = figures_[0];
    const Figures& paged = figures_[1];
    const double mms = static_cast<double>(ctas_) * warps_;
    std::vector<system::Measurement> out;
    const auto add = [&](std::string name, double v, std::optional<double> configured,
                         std::string unit, std::string note) {
      out.push_back({std::move(name), v, configured, std::move(unit), std::move(note)});
    };
    add("plain: cycles", plain.cycles, std::nullopt, "cycles",
        "kernel, first instruction to completion (B at the pages' byte addresses)");
    add("paged: cycles", paged.cycles, std::nullopt, "cycles",
        fmt::format("the same GEMM, B through segment '{}' ({} pages of {} columns)",
                    chip.page_table().name(segment_), pages_, page_columns_));
    add("paged over plain", 100.0 * (paged.cycles / plain.cycles - 1), std::nullopt, "%",
        "what translation costs the kernel");
    add("paged: pages touched", mms * pages_, std::nullopt, "pages",
        "every mm touches every page once (hits + misses)");
    add("paged: mm.translation_hits", paged.counters[0], std::nullopt, "pages",
        "found in the SM's translation cache");
    add("paged: mm.translation_misses", paged.counters[1], std::nullopt, "pages",
        "not in the cache: a PTE load issued or joined");
    add("paged: mm.pte_loads", paged.counters[2], std::nullopt, "loads",
        "16 B PTE loads through L1/L2");
    add("paged: translation cycles per mm", paged.counters[3] / mms, std::nullopt, "cycles",
        "mm.translation_cycles / mm instructions (waiting for PTEs)");
    add("plain: mm.b_line_fetches", plain.counters[5], std::nullopt, "lines",
        "B lines the mm memory issues requested");
    add("paged: mm.b_line_fetches", paged.counters[5], plain.counters[5], "lines",
        "configured: the plain run's (the same lines)");
    add("translation cache entries", chip.spec().sm.tensor.translation_cache_entries, std::nullopt,
        "entries", "sm.tensor.translation_cache_entries, per SM");
    return out;
  }

 private:
  // Where column j of copy i lies (the kernel's formula, mm_paged).
  Addr column_address(std::size_t i, U32 j) const {
    return b_[i] + U64{pages_ - 1 - j / page_columns_} * page_stride_ + U64{j % page_columns_} * k_;
  }

  static Result<std::vector<double>> counters(system::Chip& chip) {
    std::vector<double> out;
    for (const char* s : kCounters) {
      auto v = ubench::sum_over_sms(chip, s);
      if (!v) return v.errors();
      out.push_back(*v);
    }
    return out;
  }

  Status launch(system::Chip& chip, std::size_t i) {
    const kernel::LaunchParams p{.grid = {ctas_, 1, 1},
                                 .cluster = {1, 1, 1},
                                 .block = {kWarpSize * warps_, 1, 1},
                                 .registers_per_thread = 32};
    const kernel::KernelArgs args = kernel::KernelArgs()
                                        .u32(k_)
                                        .u32(n_)
                                        .u32(warps_)
                                        .s32(i == 0 ? -1 : static_cast<std::int32_t>(segment_))
                                        .ptr(b_[i])
                                        .u32(page_columns_)
                                        .u64(page_stride_)
                                        .ptr(c_[i])
                                        .u32(m_);
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
    Figures f;
    for (std::size_t x = 0; x < now->size(); ++x)
      f.counters.push_back((*now)[x] - last_[x]);
    last_ = std::move(*now);
    figures_.push_back(std::move(f));
    if (i == 1 || chip.fault()) return;
    if (auto st = launch(chip, 1); !st) failed_ = st.error();
  }

  Status verify(system::Chip& chip, std::size_t i) const {
    std::vector<std::int32_t> got(std::size_t{m_} * n_);
    if (auto st = chip.memory().read(c_[i], std::as_writable_bytes(std::span(got))); !st) {
      return st;
    }
    for (U32 j = 0; j < n_; ++j) {
      for (U32 row = 0; row < m_; ++row) {
        std::int32_t want = 0;
        for (U32 e = 0; e < k_; ++e)
          want += a_value(row, e) * b_value(e, j);
        if (got[std::size_t{j} * m_ + row] != want) {
          return Error{fmt::format("{}: {}: C[{}][{}] is {}, the reference GEMM gives {}", kName,
                                   i == 0 ? "plain" : "paged", row, j,
                                   got[std::size_t{j} * m_ + row], want)};
        }
      }
    }
    return Ok{};
  }

  const kernel::KernelDef* kernel_ = nullptr;
  U32 ctas_ = 0, warps_ = 0, k_ = 0, n_ = 0, page_columns_ = 0, m_ = 0, pages_ = 0;
  std::uint32_t segment_ = 0;
  U64 page_stride_ = 0;
  Addr b_[2] = {0, 0};
  Addr c_[2] = {0, 0};
  std::vector<Figures> figures_;
  std::vector<std::uint32_t> launches_;
  std::vector<double> last_;
  std::optional<Error> failed_;
};

}  // namespace

Status register_mm_page_table(kernel::KernelRegistry& kernels,
                              system::WorkloadRegistry& workloads) {
  if (auto st = kernels.add({.name = std::string(kKernel),
                             .description = "int8 GEMM, one mm per warp; B column-major in "
                                            "pages, at byte addresses (seg < 0) or through "
                                            "page-table segment seg (element offsets); C stored "
                                            "column-major",
                             .args = {{"k", kernel::ArgKind::kU32},
                                      {"n", kernel::ArgKind::kU32},
                                      {"warps", kernel::ArgKind::kU32},
                                      {"seg", kernel::ArgKind::kS32},
                                      {"b", kernel::ArgKind::kPtr},
                                      {"page_columns", kernel::ArgKind::kU32},
                                      {"page_stride", kernel::ArgKind::kU64},
                                      {"c", kernel::ArgKind::kPtr},
                                      {"m", kernel::ArgKind::kU32}},
                             .body = mm_paged,
                             .static_shared_bytes = 0});
      !st) {
    return st;
  }
  return workloads.add(std::make_unique<PageTableGemm>());
}

}  // namespace xpusim::workloads
