// Global-memory load-to-use latency by pointer chasing (Jia et al., "Dissecting the NVIDIA
// Volta GPU Architecture via Microbenchmarking", 2018; Luo et al. 2024 for Hopper): one thread
// follows a chain the host wrote, element k holding the address of element k + 1, so every
// load's address is the previous load's value and each hop is one full round trip. The
// footprint picks the level: inside L1, between L1 and L2, or beyond L2.
#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <span>

#include "mem/mem_request.h"
#include "mem/memory_system.h"
#include "workloads/ubench/common.h"
#include "workloads/ubench/families.h"

namespace xpusim::workloads::ubench {
namespace {

using kernel::Addr;
using kernel::Lanes;
using U64 = std::uint64_t;

constexpr std::string_view kKernel = "ubench.pointer_chase";

// Args: start, warm-up hops, timed hops, out. One lane chases; out[0] = cycles of the timed
// hops with the clock reads' own cost taken off, out[1] = the last pointer loaded.
sim::Task<> pointer_chase(kernel::Warp& w) {
  const kernel::KernelArgs& a = w.args();
  const U64 warm = a.get_u64(1), hops = a.get_u64(2);
  const Addr out = a.get_ptr(3);
  Addr p = a.get_ptr(0);
  for (U64 i = 0; i < warm; ++i)
    p = (co_await w.load_global<U64>(Lanes<Addr>{p}, 1))[0];
  const U64 c0 = co_await w.clock();
  const U64 c1 = co_await w.clock();  // c1 - c0: what a clock read itself costs
  for (U64 i = 0; i < hops; ++i)
    p = (co_await w.load_global<U64>(Lanes<Addr>{p}, 1))[0];
  const U64 c2 = co_await w.clock();
  co_await w.store_global<U64>(Lanes<Addr>{out, out + 8}, Lanes<U64>{(c2 - c1) - (c1 - c0), p},
                               0b11);
}

enum class Level : std::uint8_t { kL1, kL2, kHbm };

struct Defaults {
  std::uint64_t footprint, stride, hops, warmup;
};

class ChaseLatency final : public system::Workload {
 public:
  ChaseLatency(Level level, std::string name, std::string description, Defaults d)
      : level_(level), name_(std::move(name)), description_(std::move(description)), d_(d) {}

  std::string_view name() const override { return name_; }
  std::string_view description() const override { return description_; }
  std::vector<system::ParamDecl> params() const override {
    return {{.name = "footprint",
             .description = "bytes the chain spans",
             .default_value = d_.footprint,
             .min = 256,
             .max = std::uint64_t{1} << 32},
            {.name = "stride",
             .description = "bytes between consecutive chain elements (8 B pointers)",
             .default_value = d_.stride,
             .min = 8,
             .max = std::uint64_t{1} << 20},
            {.name = "hops",
             .description = "timed loads",
             .default_value = d_.hops,
             .min = 1,
             .max = 1 << 20},
            {.name = "warmup",
             .description = "1: one untimed pass over the whole chain first",
             .default_value = d_.warmup,
             .min = 0,
             .max = 1}};
  }

  Status setup(system::Chip& chip, const kernel::KernelRegistry& kernels,
               const system::ParamValues& values) override {
    if (auto st = require_functional(chip, name_, kChase); !st) return st;
    footprint_ = param(values, "footprint");
    stride_ = param(values, "stride");
    hops_ = param(values, "hops");
    warmup_ = param(values, "warmup");
    if (stride_ % 8 != 0 || footprint_ % stride_ != 0 || footprint_ / stride_ < 2) {
      return Error{
          fmt::format("{}: stride {} must be a multiple of 8 dividing footprint {} into "
                      "at least 2 elements",
                      name_, stride_, footprint_)};
    }
    auto k = kernels.find(kKernel);
    if (!k) return k.errors();
    const kernel::LaunchParams p{.grid = {1, 1, 1}, .block = {32, 1, 1}};
    if (auto st = check_level(chip.spec(), chip.l1_bytes_for(**k, p)); !st) return st;
    n_ = footprint_ / stride_;
    auto b = allocate(chip, name_, 16, footprint_);
    if (!b) return b.errors();
    buffers_ = *b;
    // Only the elements the run visits are written: a cold chain beyond L2 stays cheap.
    const U64 total = warmup_ * n_ + hops_;
    for (U64 k = 0; k < std::min(n_, total); ++k) {
      const U64 next = element((k + 1) % n_);
      if (auto st = chip.memory().write(element(k), std::as_bytes(std::span(&next, 1))); !st) {
        return st;
      }
    }
    auto id = chip.launch(
        **k, p,
        kernel::KernelArgs().ptr(element(0)).u64(warmup_ * n_).u64(hops_).ptr(buffers_.results));
    if (!id) return id.errors();
    launch_ = *id;
    return Ok{};
  }

  Result<std::vector<system::Measurement>> report(system::Chip& chip) override {
    if (auto st = check_completed(chip, launch_, name_); !st) return st.errors();
    auto out = read_words(chip, buffers_.results, 2);
    if (!out) return out.errors();
    const U64 want = element((warmup_ * n_ + hops_) % n_);
    if ((*out)[1] != want) {
      return Error{
          fmt::format("{}: the chase ended at {:#x}, expected {:#x}", name_, (*out)[1], want)};
    }
    const std::vector<std::uint32_t> sms = busy_sms(chip);
    if (sms.size() != 1) return Error{fmt::format("{}: expected one busy SM", name_)};
    const double far = far_fraction(chip, sms[0]);
    const double measured = static_cast<double>((*out)[0]) / static_cast<double>(hops_);
    const double configured = expected(chip.spec(), far);
    const std::string note = fmt::format(
        "{} hops of {} B over {} B on SM {}{}; {:.0f}% of lines in the far L2 partition", hops_,
        stride_, footprint_, sms[0], warmup_ != 0 ? " after a warm-up pass" : ", cold", 100 * far);
    const config::ChipSpec& s = chip.spec();
    return std::vector<system::Measurement>{
        {.name = fmt::format("{} load latency", level_name()),
         .measured = measured,
         .configured = configured,
         .unit = "cycles",
         .note = note},
        {.name = fmt::format("{} load latency", level_name()),
         .measured = sm_cycles_to_ns(s, measured),
         .configured = sm_cycles_to_ns(s, configured),
         .unit = "ns",
         .note = fmt::format("at the {} MHz SM clock", s.clocks.sm_hz / 1'000'000)}};
  }

 private:
  Addr element(U64 k) const { return buffers_.data + k * stride_; }
  std::string_view level_name() const {
    return level_ == Level::kL1 ? "L1 hit" : level_ == Level::kL2 ? "L2 hit" : "HBM (L2 miss)";
  }

  // The footprint must land the timed hops in the level this workload measures. `l1`: the L1
  // capacity beside the chase kernel's shared-memory carve-out.
  Status check_level(const config::ChipSpec& spec, std::uint64_t l1) const {
    const std::uint64_t l2 = spec.l2.size_bytes;
    switch (level_) {
      case Level::kL1:
        if (footprint_ <= l1 && warmup_ == 1) return Ok{};
        return Error{fmt::format("{}: needs warmup = 1 and footprint <= the L1's {} B", name_, l1)};
      case Level::kL2:
        if (footprint_ > 2 * l1 && footprint_ <= l2 / 2 && warmup_ == 1) return Ok{};
        return Error{fmt::format(
            "{}: needs warmup = 1 and footprint in ({}, {}] B (twice the L1, half the L2: set "
            "conflicts stay rare)",
            name_, 2 * l1, l2 / 2)};
      case Level::kHbm:
        if (warmup_ == 0 || footprint_ >= 2 * l2) return Ok{};
        return Error{fmt::format(
            "{}: a warm-up pass over {} B leaves lines in the {} B L2; use warmup = 0 (the L2 "
            "starts cold) or footprint >= {} B",
            name_, footprint_, l2, 2 * l2)};
    }
    return Ok{};
  }

  // Of the lines the timed hops load, the share behind the far L2 partition (the model adds
  // l2.cross_partition_cycles to those).
  double far_fraction(system::Chip& chip, std::uint32_t sm) const {
    if (level_ == Level::kL1) return 0;
    const mem::MemorySystem& m = chip.memory_system();
    const std::uint32_t near = m.params().near_partition(sm);
    U64 far = 0;
    for (U64 i = 0; i < hops_; ++i) {
      const U64 line = m.address_map().line_of(element((warmup_ * n_ + i) % n_));
      far += m.address_map().partition_of_slice(m.address_map().slice_of_line(line)) != near;
    }
    return static_cast<double>(far) / static_cast<double>(hops_);
  }

  // The sum of the latencies on the model's load path (mem/memory_system.cc load()), in SM
  // cycles: L1 lookup; request over the crossbar (a control message), L2 lookup, one 32 B sector
  // back over the crossbar; for a miss the HBM channel's latency and the sector's transfer.
  double expected(const config::ChipSpec& s, double far) const {
    const double l1 = s.l1.hit_latency_cycles;
    if (level_ == Level::kL1) return l1;
    const std::uint64_t port = s.l2.slice_bytes_per_cycle;
    const double l2_cycles =
        static_cast<double>(serialization(mem::kControlMessageBytes, port) +
                            s.crossbar.latency_cycles + s.l2.hit_latency_cycles +
                            serialization(s.l2.sector_bytes, port) + s.crossbar.latency_cycles) +
        far * s.l2.cross_partition_cycles;
    const double l2 = l1 + l2_to_sm_cycles(s, l2_cycles);
    if (level_ == Level::kL2) return l2;
    const double channel_bytes_per_s =
        static_cast<double>(s.hbm.bandwidth_bytes_per_s / s.hbm.channels);
    const double transfer_ps = s.l2.sector_bytes * 1e12 / channel_bytes_per_s;
    return l2 + ps_to_sm_cycles(s, static_cast<double>(s.hbm.latency_ps) + transfer_ps);
  }

  Level level_;
  std::string name_, description_;
  Defaults d_;
  U64 footprint_ = 0, stride_ = 0, hops_ = 0, warmup_ = 0, n_ = 0;
  std::uint32_t launch_ = 0;
  Buffers buffers_;
};

}  // namespace

Status register_pointer_chase(kernel::KernelRegistry& kernels,
                              system::WorkloadRegistry& workloads) {
  if (auto st = kernels.add({.name = std::string(kKernel),
                             .description = "one thread follows a chain of 8 B pointers in "
                                            "global memory, timing the hops with clock64",
                             .args = {{"start", kernel::ArgKind::kPtr},
                                      {"warmup_hops", kernel::ArgKind::kU64},
                                      {"hops", kernel::ArgKind::kU64},
                                      {"out", kernel::ArgKind::kPtr}},
                             .body = pointer_chase,
                             .static_shared_bytes = 0});
      !st) {
    return st;
  }
  const auto add = [&](Level level, std::string name, std::string what, Defaults d) {
    return workloads.add(
        std::make_unique<ChaseLatency>(level, std::move(name), std::move(what), d));
  };
  if (auto st = add(Level::kL1, "ubench.l1_latency",
                    "L1 hit latency: a pointer chase over 16 KiB (inside the L1), warmed first",
                    {.footprint = 16 << 10, .stride = 128, .hops = 2048, .warmup = 1});
      !st) {
    return st;
  }
  if (auto st = add(Level::kL2, "ubench.l2_latency",
                    "L2 hit latency: a pointer chase over 4 MiB (past the L1, inside the L2), "
                    "warmed first; near and far partition hits averaged",
                    {.footprint = 4 << 20, .stride = 128, .hops = 4096, .warmup = 1});
      !st) {
    return st;
  }
  return add(Level::kHbm, "ubench.hbm_latency",
             "HBM latency (L2 miss): a cold pointer chase over 64 MiB, one line per hop",
             {.footprint = 64 << 20, .stride = 128, .hops = 2048, .warmup = 0});
}

}  // namespace xpusim::workloads::ubench
