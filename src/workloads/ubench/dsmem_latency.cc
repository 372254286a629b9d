// Distributed shared memory load latency (Luo et al. 2024 measure Hopper's SM-to-SM network
// this way): a cluster of two CTAs; rank 1 builds a chain of 4 B offsets in its own shared
// memory, cluster.sync, then one lane of rank 0 follows the chain over DSMEM
// (ld.shared::cluster), so every hop is a full round trip to the other SM.
#include <fmt/format.h>

#include <memory>

#include "mem/mem_request.h"
#include "workloads/ubench/common.h"
#include "workloads/ubench/families.h"

namespace xpusim::workloads::ubench {
namespace {

using kernel::Addr;
using kernel::Lanes;
using U32 = std::uint32_t;
using U64 = std::uint64_t;

constexpr std::string_view kKernel = "ubench.dsmem_chase";

// Args: elements, stride (bytes), warm-up hops, timed hops, out. out[0] = timed cycles less
// the clock reads' own cost, out[1] = the last offset loaded.
sim::Task<> dsmem_chase(kernel::Warp& w) {
  const kernel::KernelArgs& a = w.args();
  const U32 n = a.get_u32(0), stride = a.get_u32(1);
  const U64 warm = a.get_u64(2), hops = a.get_u64(3);
  const Addr out = a.get_ptr(4);
  if (w.cluster_rank() == 1) {
    for (U32 base = 0; base < n; base += kernel::kWarpSize) {  // element k holds k + 1's offset
      kernel::LaneMask m = 0;
      for (U32 l = 0; l < kernel::kWarpSize && base + l < n; ++l)
        m |= kernel::LaneMask{1} << l;
      co_await w.store_shared<U32>(
          kernel::lanes<Addr>([&](U32 l) { return (base + l) * stride; }),
          kernel::lanes<U32>([&](U32 l) { return (base + l + 1) % n * stride; }), m);
    }
  }
  co_await w.cluster_sync();
  if (w.cluster_rank() == 0) {
    U32 p = 0;
    for (U64 i = 0; i < warm; ++i)
      p = (co_await w.load_dsmem<U32>(Lanes<Addr>{kernel::cluster_address(1, p)}, 1))[0];
    const U64 c0 = co_await w.clock();
    const U64 c1 = co_await w.clock();
    for (U64 i = 0; i < hops; ++i)
      p = (co_await w.load_dsmem<U32>(Lanes<Addr>{kernel::cluster_address(1, p)}, 1))[0];
    const U64 c2 = co_await w.clock();
    co_await w.store_global<U64>(Lanes<Addr>{out, out + 8}, Lanes<U64>{(c2 - c1) - (c1 - c0), p},
                                 0b11);
  }
  co_await w.cluster_sync();  // rank 1's shared memory stays until rank 0 is done
}

class DsmemLatency final : public Workload {
 public:
  std::string_view name() const override { return "ubench.dsmem_latency"; }
  std::string_view description() const override {
    return "DSMEM load latency: a pointer chase from one CTA of a cluster of 2 through the "
           "other's shared memory";
  }
  std::vector<ParamDecl> params() const override {
    return {{.name = "footprint",
             .description = "shared bytes the chain spans in the remote CTA",
             .default_value = 4096,
             .min = 64,
             .max = 128 << 10},
            {.name = "stride",
             .description = "bytes between consecutive elements (4 B offsets)",
             .default_value = 4,
             .min = 4,
             .max = 4096},
            {.name = "hops",
             .description = "timed loads",
             .default_value = 512,
             .min = 1,
             .max = 1 << 20},
            {.name = "warmup",
             .description = "1: one untimed pass over the chain first",
             .default_value = 1,
             .min = 0,
             .max = 1}};
  }

  Status setup(system::Chip& chip, const kernel::KernelRegistry& kernels,
               const ParamValues& values) override {
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
    n_ = footprint_ / stride_;
    auto k = kernels.find(kKernel);
    if (!k) return k.errors();
    const kernel::LaunchParams p{.grid = {2, 1, 1},
                                 .cluster = {2, 1, 1},
                                 .block = {32, 1, 1},
                                 .dynamic_shared_bytes = static_cast<U32>(footprint_),
                                 .registers_per_thread = 32};
    auto id = chip.launch(**k, p,
                          kernel::KernelArgs()
                              .u32(static_cast<U32>(n_))
                              .u32(static_cast<U32>(stride_))
                              .u64(warmup_ * n_)
                              .u64(hops_)
                              .ptr(kResults));
    if (!id) return id.errors();
    launch_ = *id;
    return Ok{};
  }

  Result<std::vector<Measurement>> report(system::Chip& chip) override {
    if (auto st = check_completed(chip, launch_, name()); !st) return st.errors();
    auto out = read_words(chip, kResults, 2);
    if (!out) return out.errors();
    const U64 want = (warmup_ * n_ + hops_) % n_ * stride_;
    if ((*out)[1] != want) {
      return Error{fmt::format("{}: the chase ended at offset {:#x}, expected {:#x}", name(),
                               (*out)[1], want)};
    }
    const std::vector<std::uint32_t> sms = busy_sms(chip);
    if (sms.size() != 2) {
      return Error{
          fmt::format("{}: the cluster's two CTAs ran on {} SM(s), not 2: no DSMEM "
                      "network between them",
                      name(), sms.size())};
    }
    // The network's round trip (mem/dsmem_network.cc): a request message out of this SM's
    // port, then the data out of the target's, each port's serialization plus the latency.
    const config::DsmemSpec& d = chip.spec().dsmem;
    const double configured = static_cast<double>(
        2 * U64{d.latency_cycles} + serialization(mem::kControlMessageBytes, d.bytes_per_cycle) +
        serialization(4, d.bytes_per_cycle));
    return std::vector<Measurement>{
        {.name = "DSMEM load latency",
         .measured = static_cast<double>((*out)[0]) / static_cast<double>(hops_),
         .configured = configured,
         .unit = "cycles",
         .note = fmt::format("{} hops of 4 B from SM {} into SM {}; configured = 2 x "
                             "dsmem.latency_cycles + request and data serialization",
                             hops_, sms[0], sms[1])}};
  }

 private:
  U64 footprint_ = 0, stride_ = 0, hops_ = 0, warmup_ = 0, n_ = 0;
  std::uint32_t launch_ = 0;
};

}  // namespace

Status register_dsmem_latency(kernel::KernelRegistry& kernels, WorkloadRegistry& workloads) {
  if (auto st = kernels.add({.name = std::string(kKernel),
                             .description = "rank 0 of a cluster of 2 follows a chain of 4 B "
                                            "offsets in rank 1's shared memory over DSMEM",
                             .args = {{"elements", kernel::ArgKind::kU32},
                                      {"stride", kernel::ArgKind::kU32},
                                      {"warmup_hops", kernel::ArgKind::kU64},
                                      {"hops", kernel::ArgKind::kU64},
                                      {"out", kernel::ArgKind::kPtr}},
                             .body = dsmem_chase,
                             .static_shared_bytes = 0});
      !st) {
    return st;
  }
  return workloads.add(std::make_unique<DsmemLatency>());
}

}  // namespace xpusim::workloads::ubench
