// Shared-memory load latency by pointer chasing, as the global one (pointer_chase.cc) but over
// the CTA's own shared window (Jia et al. 2018; Luo et al. 2024 measure ~29 cycles on Hopper):
// the warp builds the chain of 4 B offsets itself, then one lane follows it.
#include <fmt/format.h>

#include <memory>

#include "workloads/ubench/common.h"
#include "workloads/ubench/families.h"
#include "workloads/ubench/shared_chase.h"

namespace xpusim::workloads::ubench {
namespace {

using kernel::Addr;
using kernel::Lanes;
using U32 = std::uint32_t;
using U64 = std::uint64_t;

constexpr std::string_view kKernel = "ubench.shared_chase";

// Args: elements, stride (bytes), warm-up hops, timed hops, out. out[0] = timed cycles less the
// clock reads' own cost, out[1] = the last offset loaded.
sim::Task<> shared_chase(kernel::Warp& w) {
  const kernel::KernelArgs& a = w.args();
  const U32 n = a.get_u32(0), stride = a.get_u32(1);
  const U64 warm = a.get_u64(2), hops = a.get_u64(3);
  const Addr out = a.get_ptr(4);
  co_await write_chain(w, n, stride);
  U32 p = 0;
  for (U64 i = 0; i < warm; ++i)
    p = (co_await w.load_shared<U32>(Lanes<Addr>{p}, 1))[0];
  const U64 c0 = co_await w.clock();
  const U64 c1 = co_await w.clock();
  for (U64 i = 0; i < hops; ++i)
    p = (co_await w.load_shared<U32>(Lanes<Addr>{p}, 1))[0];
  const U64 c2 = co_await w.clock();
  co_await w.store_global<U64>(Lanes<Addr>{out, out + 8}, Lanes<U64>{(c2 - c1) - (c1 - c0), p},
                               0b11);
}

class SharedLatency final : public SharedChase {
 public:
  std::string_view name() const override { return "ubench.shared_latency"; }
  std::string_view description() const override {
    return "shared-memory load latency: one lane chases 4 B offsets through its CTA's shared "
           "memory";
  }

 protected:
  Shape shape() const override {
    return {.kernel = kKernel,
            .ctas = 1,
            .footprint_note = "shared bytes the chain spans (the CTA's dynamic shared memory)",
            .footprint = 8192,
            .hops = 2048};
  }

  Result<system::Measurement> measure(system::Chip& chip, double cycles_per_hop) const override {
    // The SM's path for a conflict-free access (core/sm.cc dispatch): the LSU issue slot, one
    // wavefront on the shared data stage, then the shared latency.
    const core::SmTiming& t = chip.timing();
    const double configured = t.lsu_issue_cycles + 1 + t.shared_latency - 1;
    return system::Measurement{
        .name = "shared load latency",
        .measured = cycles_per_hop,
        .configured = configured,
        .unit = "cycles",
        .note = fmt::format("{} hops of {} B over {} B; configured = LSU issue {} + 1 "
                            "wavefront + shared_latency {} - 1",
                            hops_, stride_, footprint_, t.lsu_issue_cycles, t.shared_latency)};
  }
};

}  // namespace

Status register_shared_latency(kernel::KernelRegistry& kernels,
                               system::WorkloadRegistry& workloads) {
  if (auto st = kernels.add({.name = std::string(kKernel),
                             .description = "one lane follows a chain of 4 B offsets in shared "
                                            "memory, timing the hops with clock64",
                             .args = chase_args(),
                             .body = shared_chase,
                             .static_shared_bytes = 0});
      !st) {
    return st;
  }
  return workloads.add(std::make_unique<SharedLatency>());
}

}  // namespace xpusim::workloads::ubench
