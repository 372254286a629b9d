#include "workloads/ubench/shared_chase.h"

#include <fmt/format.h>

#include "workloads/ubench/common.h"

namespace xpusim::workloads::ubench {

sim::Task<> write_chain(kernel::Warp& w, std::uint32_t elements, std::uint32_t stride) {
  using kernel::Addr;
  for (std::uint32_t base = 0; base < elements; base += kernel::kWarpSize) {
    kernel::LaneMask m = 0;
    for (std::uint32_t l = 0; l < kernel::kWarpSize && base + l < elements; ++l)
      m |= kernel::LaneMask{1} << l;
    co_await w.store_shared<std::uint32_t>(
        kernel::lanes<Addr>([&](std::uint32_t l) { return (base + l) * stride; }),
        kernel::lanes<std::uint32_t>(
            [&](std::uint32_t l) { return (base + l + 1) % elements * stride; }),
        m);
  }
}

std::vector<kernel::ArgDecl> chase_args() {
  return {{"elements", kernel::ArgKind::kU32},
          {"stride", kernel::ArgKind::kU32},
          {"warmup_hops", kernel::ArgKind::kU64},
          {"hops", kernel::ArgKind::kU64},
          {"out", kernel::ArgKind::kPtr}};
}

std::vector<system::ParamDecl> SharedChase::params() const {
  const Shape s = shape();
  return {{.name = "footprint",
           .description = std::string(s.footprint_note),
           .default_value = s.footprint,
           .min = 64,
           .max = 128 << 10},
          {.name = "stride",
           .description = "bytes between consecutive elements (4 B offsets)",
           .default_value = 4,
           .min = 4,
           .max = 4096},
          {.name = "hops",
           .description = "timed loads",
           .default_value = s.hops,
           .min = 1,
           .max = 1 << 20},
          {.name = "warmup",
           .description = "1: one untimed pass over the chain first",
           .default_value = 1,
           .min = 0,
           .max = 1}};
}

Status SharedChase::setup(system::Chip& chip, const kernel::KernelRegistry& kernels,
                          const system::ParamValues& values) {
  if (auto st = require_functional(chip, name(), kChase); !st) return st;
  footprint_ = param(values, "footprint");
  stride_ = param(values, "stride");
  hops_ = param(values, "hops");
  warmup_ = param(values, "warmup");
  if (stride_ % 4 != 0 || footprint_ % stride_ != 0 || footprint_ / stride_ < 2) {
    return Error{
        fmt::format("{}: stride {} must be a multiple of 4 dividing footprint {} into "
                    "at least 2 elements",
                    name(), stride_, footprint_)};
  }
  elements_ = footprint_ / stride_;
  const Shape s = shape();
  auto k = kernels.find(s.kernel);
  if (!k) return k.errors();
  auto b = allocate(chip, name(), 16);
  if (!b) return b.errors();
  results_ = b->results;
  const kernel::LaunchParams p{.grid = {s.ctas, 1, 1},
                               .cluster = {s.ctas, 1, 1},
                               .block = {32, 1, 1},
                               .dynamic_shared_bytes = static_cast<std::uint32_t>(footprint_),
                               .registers_per_thread = 32};
  auto id = chip.launch(**k, p,
                        kernel::KernelArgs()
                            .u32(static_cast<std::uint32_t>(elements_))
                            .u32(static_cast<std::uint32_t>(stride_))
                            .u64(warmup_ * elements_)
                            .u64(hops_)
                            .ptr(results_));
  if (!id) return id.errors();
  launch_ = *id;
  return Ok{};
}

Result<std::vector<system::Measurement>> SharedChase::report(system::Chip& chip) {
  if (auto st = check_completed(chip, launch_, name()); !st) return st.errors();
  auto out = read_words(chip, results_, 2);
  if (!out) return out.errors();
  const std::uint64_t want = (warmup_ * elements_ + hops_) % elements_ * stride_;
  if ((*out)[1] != want) {
    return Error{fmt::format("{}: the chase ended at offset {:#x}, expected {:#x}", name(),
                             (*out)[1], want)};
  }
  auto m = measure(chip, static_cast<double>((*out)[0]) / static_cast<double>(hops_));
  if (!m) return m.errors();
  return std::vector<system::Measurement>{*m};
}

}  // namespace xpusim::workloads::ubench
