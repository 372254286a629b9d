// Shared-memory bank conflicts against the access stride (Jia et al. 2018 §3.4; the CUDA
// Programming Guide's "Shared Memory" examples): lane l of one warp accesses the 4 B word l * s.
// One launch per stride, run one after another; the SMs' `shared_wavefronts` counter, read when
// each launch completes, gives the wavefronts (shared data cycles) that stride costs.
#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <optional>

#include "workloads/ubench/common.h"
#include "workloads/ubench/families.h"

namespace xpusim::workloads::ubench {
namespace {

using kernel::Addr;
using kernel::Lanes;
using U32 = std::uint32_t;
using U64 = std::uint64_t;

constexpr std::string_view kKernel = "ubench.bank_stride";
constexpr U32 kMaxStride = 64;

// Args: stride (words), repeats, out. Writes word l * s once, reads it `repeats` times and
// stores the number of lanes that read something else to out.
sim::Task<> bank_stride(kernel::Warp& w) {
  const kernel::KernelArgs& a = w.args();
  const U32 s = a.get_u32(0), repeats = a.get_u32(1);
  const auto addr = kernel::lanes<Addr>([&](U32 l) { return Addr{4} * l * s; });
  const auto value = kernel::lanes<U32>([&](U32 l) { return l * s + 1; });
  co_await w.store_shared<U32>(addr, value);
  U64 bad = 0;
  for (U32 r = 0; r < repeats; ++r) {
    const auto v = co_await w.load_shared<U32>(addr);
    for (U32 l = 0; l < kernel::kWarpSize; ++l)
      bad += v[l] != value[l];
  }
  co_await w.store_global<U64>(Lanes<Addr>{a.get_ptr(2)}, Lanes<U64>{bad}, 1);
}

// The rule as the CUDA guide states it, counted directly: 32 lanes on distinct words, and a
// bank serves one word per wavefront, so the access takes as many wavefronts as the busiest
// bank has lanes.
U32 busiest_bank(U32 stride, U32 banks) {
  std::vector<U32> lanes(banks, 0);
  for (U32 l = 0; l < kernel::kWarpSize; ++l)
    ++lanes[l * stride % banks];
  return *std::max_element(lanes.begin(), lanes.end());
}

class BankConflicts final : public system::Workload {
 public:
  std::string_view name() const override { return "ubench.bank_conflicts"; }
  std::string_view description() const override {
    return "shared-memory wavefronts per warp access at word strides min_stride..max_stride";
  }
  std::vector<system::ParamDecl> params() const override {
    return {{.name = "min_stride",
             .description = "first stride, in 4 B words",
             .default_value = 1,
             .min = 1,
             .max = kMaxStride},
            {.name = "max_stride",
             .description = "last stride, in 4 B words",
             .default_value = 32,
             .min = 1,
             .max = kMaxStride},
            {.name = "repeats",
             .description = "timed loads per stride (after one store)",
             .default_value = 8,
             .min = 1,
             .max = 1024}};
  }

  Status setup(system::Chip& chip, const kernel::KernelRegistry& kernels,
               const system::ParamValues& values) override {
    min_ = static_cast<U32>(param(values, "min_stride"));
    max_ = static_cast<U32>(param(values, "max_stride"));
    repeats_ = static_cast<U32>(param(values, "repeats"));
    if (min_ > max_) {
      return Error{fmt::format("{}: min_stride {} is above max_stride {}", name(), min_, max_)};
    }
    auto k = kernels.find(kKernel);
    if (!k) return k.errors();
    kernel_ = *k;
    auto b = allocate(chip, name(), 8 * (std::uint64_t{max_} - min_ + 1));
    if (!b) return b.errors();
    results_ = b->results;
    wavefronts_.clear();
    launches_.clear();
    failed_.reset();
    auto before = sum_over_sms(chip, "shared_wavefronts");
    if (!before) return before.errors();
    last_ = *before;
    return launch(chip, min_);
  }

  Result<std::vector<system::Measurement>> report(system::Chip& chip) override {
    if (failed_) return *failed_;
    if (wavefronts_.size() != max_ - min_ + 1) {
      return Error{fmt::format("{}: {} of {} strides completed", name(), wavefronts_.size(),
                               max_ - min_ + 1)};
    }
    std::vector<system::Measurement> out;
    for (U32 s = min_; s <= max_; ++s) {
      const std::uint32_t id = launches_[s - min_];
      if (auto st = check_completed(chip, id, name()); !st) return st.errors();
      if (chip.options().functional) {
        auto bad = read_words(chip, results_ + 8 * (s - min_), 1);
        if (!bad) return bad.errors();
        if ((*bad)[0] != 0) {
          return Error{fmt::format("{}: stride {}: {} lane reads returned the wrong word", name(),
                                   s, (*bad)[0])};
        }
      }
      out.push_back({.name = fmt::format("wavefronts at stride {}", s),
                     .measured = wavefronts_[s - min_],
                     .configured = busiest_bank(s, chip.spec().sm.shared_memory_banks),
                     .unit = "wavefronts",
                     .note = fmt::format("shared_wavefronts / {} accesses; configured = lanes "
                                         "on the busiest bank",
                                         repeats_ + 1)});
    }
    return out;
  }

 private:
  // Queues stride s; its completion records the wavefronts and queues s + 1.
  Status launch(system::Chip& chip, U32 s) {
    const kernel::LaunchParams p{.grid = {1, 1, 1},
                                 .cluster = {1, 1, 1},
                                 .block = {32, 1, 1},
                                 .dynamic_shared_bytes = 0,
                                 .registers_per_thread = 32};
    auto id = chip.launch(*kernel_, p,
                          kernel::KernelArgs().u32(s).u32(repeats_).ptr(results_ + 8 * (s - min_)),
                          [this, &chip, s](const system::KernelRun&) { completed(chip, s); });
    if (!id) return id.errors();
    launches_.push_back(*id);
    return Ok{};
  }

  void completed(system::Chip& chip, U32 s) {
    auto now = sum_over_sms(chip, "shared_wavefronts");
    if (!now) {
      failed_ = now.error();
      return;
    }
    wavefronts_.push_back((*now - last_) / (repeats_ + 1));
    last_ = *now;
    if (s == max_) return;
    if (auto st = launch(chip, s + 1); !st) failed_ = st.error();
  }

  U32 min_ = 1, max_ = 1, repeats_ = 1;
  const kernel::KernelDef* kernel_ = nullptr;
  double last_ = 0;
  std::vector<double> wavefronts_;
  std::vector<std::uint32_t> launches_;
  std::optional<Error> failed_;
  kernel::Addr results_ = 0;
};

}  // namespace

Status register_bank_conflicts(kernel::KernelRegistry& kernels,
                               system::WorkloadRegistry& workloads) {
  if (auto st = kernels.add({.name = std::string(kKernel),
                             .description = "one warp stores then loads shared word lane x stride",
                             .args = {{"stride", kernel::ArgKind::kU32},
                                      {"repeats", kernel::ArgKind::kU32},
                                      {"out", kernel::ArgKind::kPtr}},
                             .body = bank_stride,
                             .static_shared_bytes = 4 * kernel::kWarpSize * kMaxStride});
      !st) {
    return st;
  }
  return workloads.add(std::make_unique<BankConflicts>());
}

}  // namespace xpusim::workloads::ubench
