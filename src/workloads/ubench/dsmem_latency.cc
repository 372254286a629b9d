// Distributed shared memory load latency (Luo et al. 2024 measure Hopper's SM-to-SM network
// this way): a cluster of two CTAs; rank 1 builds a chain of 4 B offsets in its own shared
// memory, cluster.sync, then one lane of rank 0 follows the chain over DSMEM
// (ld.shared::cluster), so every hop is a full round trip to the other SM.
#include <fmt/format.h>

#include <memory>

#include "mem/mem_request.h"
#include "workloads/ubench/common.h"
#include "workloads/ubench/families.h"
#include "workloads/ubench/shared_chase.h"

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
  if (w.cluster_rank() == 1) co_await write_chain(w, n, stride);
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

class DsmemLatency final : public SharedChase {
 public:
  std::string_view name() const override { return "ubench.dsmem_latency"; }
  std::string_view description() const override {
    return "DSMEM load latency: a pointer chase from one CTA of a cluster of 2 through the "
           "other's shared memory";
  }

 protected:
  Shape shape() const override {
    return {.kernel = kKernel,
            .ctas = 2,
            .footprint_note = "shared bytes the chain spans in the remote CTA",
            .footprint = 4096,
            .hops = 512};
  }

  Result<system::Measurement> measure(system::Chip& chip, double cycles_per_hop) const override {
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
    return system::Measurement{
        .name = "DSMEM load latency",
        .measured = cycles_per_hop,
        .configured = configured,
        .unit = "cycles",
        .note = fmt::format("{} hops of 4 B from SM {} into SM {}; configured = 2 "
                            "x dsmem.latency_cycles + request and data "
                            "serialization",
                            hops_, sms[0], sms[1])};
  }
};

}  // namespace

Status register_dsmem_latency(kernel::KernelRegistry& kernels,
                              system::WorkloadRegistry& workloads) {
  if (auto st = kernels.add({.name = std::string(kKernel),
                             .description = "rank 0 of a cluster of 2 follows a chain of 4 B "
                                            "offsets in rank 1's shared memory over DSMEM",
                             .args = chase_args(),
                             .body = dsmem_chase,
                             .static_shared_bytes = 0});
      !st) {
    return st;
  }
  return workloads.add(std::make_unique<DsmemLatency>());
}

}  // namespace xpusim::workloads::ubench
