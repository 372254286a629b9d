// TMA load latency: one warp loads boxes of a 2-D f16 tensor one at a time, each with
// mbarrier.arrive.expect_tx, cp.async.bulk.tensor and a wait on the phase, and times each from
// before the arrive to after the wait (clock64) - the same window tools/silicon/latency.cu
// times on a real GPU (docs/fidelity.md "Silicon": 436 cycles for an L2-hit 64 x 64 box on an
// H100). Warm boxes were loaded once before (L2 hits); cold ones come from HBM.
#include <fmt/format.h>

#include <memory>

#include "tma/copy_engine.h"
#include "tma/tensor_map_encode.h"
#include "workloads/gemm_tma.h"
#include "workloads/ubench/common.h"
#include "workloads/ubench/families.h"

namespace xpusim::workloads::ubench {
namespace {

using kernel::Addr;
using kernel::Lanes;
using U64 = std::uint64_t;

constexpr std::string_view kKernel = "ubench.tma_box_latency";
constexpr Addr kMapOffset = 0x100;              // the tensor map (128 B blob) after out's words
constexpr std::uint32_t kBar = 0, kBox = 1024;  // shared offsets: mbarrier, box
constexpr U64 kDim = 2048;                      // f16 elements per side: an 8 MiB tensor

// Args: box side, boxes, warm (1: load every box once first), out (the tensor map is at
// out + kMapOffset). Box b is at (0, b x side):
// distinct lines for every box. out[0] = the boxes' cycles less the clock reads' own cost.
sim::Task<> box_latency(kernel::Warp& w) {
  const kernel::KernelArgs& a = w.args();
  const auto side = static_cast<std::int32_t>(a.get_u64(0));
  const U64 boxes = a.get_u64(1);
  const bool warm = a.get_u64(2) != 0;
  const Addr out = a.get_ptr(3);
  const Addr map = out + kMapOffset;
  const auto bytes = static_cast<std::uint32_t>(side * side * 2);
  co_await w.mbarrier_init(kBar, 1);
  std::uint32_t phase = 0;
  const auto load = [&](U64 b) -> sim::Task<> {
    co_await w.mbarrier_arrive_expect_tx(kBar, bytes);
    co_await w.tma_load_tile(map, {0, static_cast<std::int32_t>(b) * side}, kBox, kBar);
    co_await w.mbarrier_wait_parity(kBar, phase);
    phase ^= 1;
  };
  for (U64 b = 0; warm && b < boxes; ++b)
    co_await load(b);
  U64 total = 0;
  for (U64 b = 0; b < boxes; ++b) {
    const U64 c0 = co_await w.clock();
    const U64 c1 = co_await w.clock();
    co_await load(b);
    const U64 c2 = co_await w.clock();
    total += (c2 - c1) - (c1 - c0);
  }
  co_await w.store_global<U64>(Lanes<Addr>{out}, Lanes<U64>{total}, 0b1);
}

class TmaLatency final : public system::Workload {
 public:
  TmaLatency(std::string_view name, bool warm) : name_(name), warm_(warm) {}
  std::string_view name() const override { return name_; }
  std::string_view description() const override {
    return warm_ ? "TMA load latency of an L2-hit box (issue to mbarrier phase complete)"
                 : "TMA load latency of a cold box from HBM (issue to mbarrier phase complete)";
  }
  std::vector<system::ParamDecl> params() const override {
    return {
        {.name = "box",
         .description = "box side in f16 elements (a square box; 64: 8 KiB)",
         .default_value = 64,
         .min = 8,
         .max = 128},
        {.name = "boxes", .description = "boxes timed", .default_value = 16, .min = 1, .max = 16}};
  }

  Status setup(system::Chip& chip, const kernel::KernelRegistry& kernels,
               const system::ParamValues& values) override {
    if (auto st = require_functional(chip, name(), "its clock64 result comes back through memory");
        !st)
      return st;
    side_ = param(values, "box");
    boxes_ = param(values, "boxes");
    if (side_ % 8 != 0) {
      return Error{fmt::format("{}: box = {}: must be a multiple of 8 (16 B rows)", name(), side_)};
    }
    auto b = allocate(chip, name(), kMapOffset + 128, kDim * kDim * 2);
    if (!b) return b.errors();
    results_ = b->results;
    const auto map = tma::encode_tiled(
        {.data_type = tma::DataType::kFloat16,
         .rank = 2,
         .global_address = b->data,
         .global_dim = {kDim, kDim},
         .global_strides = {kDim * 2},
         .box_dim = {static_cast<std::uint32_t>(side_), static_cast<std::uint32_t>(side_)},
         .element_strides = {1, 1}});
    if (auto st = write_tensor_map(chip, results_ + kMapOffset, map, name(), "box"); !st) return st;
    auto k = kernels.find(kKernel);
    if (!k) return k.errors();
    const kernel::LaunchParams p{
        .grid = {1, 1, 1},
        .cluster = {1, 1, 1},
        .block = {32, 1, 1},
        .dynamic_shared_bytes = static_cast<std::uint32_t>(kBox + side_ * side_ * 2),
        .registers_per_thread = 32};
    auto id = chip.launch(
        **k, p, kernel::KernelArgs().u64(side_).u64(boxes_).u64(warm_ ? 1 : 0).ptr(results_));
    if (!id) return id.errors();
    launch_ = *id;
    return Ok{};
  }

  Result<std::vector<system::Measurement>> report(system::Chip& chip) override {
    if (auto st = check_completed(chip, launch_, name()); !st) return st.errors();
    auto out = read_words(chip, results_, 1);
    if (!out) return out.errors();
    const double cycles = static_cast<double>((*out)[0]) / static_cast<double>(boxes_);
    return std::vector<system::Measurement>{
        {.name = warm_ ? "TMA box load latency, L2 hit" : "TMA box load latency, cold",
         .measured = cycles,
         .configured = std::nullopt,
         .unit = "cycles",
         .note =
             fmt::format("{} boxes of {} x {} f16 ({} B){}; arrive.expect_tx + "
                         "cp.async.bulk.tensor + wait, clock to clock (H100 silicon: {})",
                         boxes_, side_, side_, side_ * side_ * 2,
                         warm_ ? ", each loaded once before" : ", first touch",
                         warm_ ? "436 cycles at 64, 377 at 16" : "1233 cycles at 64, 1020 at 16")},
        {.name = "TMA box load latency",
         .measured = sm_cycles_to_ns(chip.spec(), cycles),
         .configured = std::nullopt,
         .unit = "ns",
         .note = fmt::format("at the {:.0f} MHz SM clock", chip.spec().clocks.sm_hz / 1e6)}};
  }

 private:
  std::string_view name_;
  bool warm_;
  U64 side_ = 0, boxes_ = 0;
  std::uint32_t launch_ = 0;
  Addr results_ = 0;
};

}  // namespace

Status register_tma_latency(kernel::KernelRegistry& kernels, system::WorkloadRegistry& workloads) {
  if (auto st = kernels.add({.name = std::string(kKernel),
                             .description = "one warp loads TMA boxes one at a time, timing each "
                                            "from arrive.expect_tx to the phase's completion",
                             .args = {{"box", kernel::ArgKind::kU64},
                                      {"boxes", kernel::ArgKind::kU64},
                                      {"warm", kernel::ArgKind::kU64},
                                      {"out", kernel::ArgKind::kPtr}},
                             .body = box_latency,
                             .static_shared_bytes = 0});
      !st) {
    return st;
  }
  if (auto st = workloads.add(std::make_unique<TmaLatency>("ubench.tma_latency", true)); !st) {
    return st;
  }
  return workloads.add(std::make_unique<TmaLatency>("ubench.tma_cold_latency", false));
}

}  // namespace xpusim::workloads::ubench
