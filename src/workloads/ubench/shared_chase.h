// What the two shared-window latency benchmarks share (shared_latency.cc: a CTA's own shared
// memory; dsmem_latency.cc: another CTA's, over DSMEM): one warp writes a chain of 4 B offsets
// into a shared window, then one lane follows it, timing the hops with clock64 and writing
// out[0] = timed cycles less the clock reads' own cost, out[1] = the last offset loaded.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "kernel/warp.h"
#include "sim/task.h"
#include "system/workload.h"

namespace xpusim::workloads::ubench {

// Element k of the chain (at k x stride) holds element k + 1's offset (the last: 0's).
sim::Task<> write_chain(kernel::Warp& w, std::uint32_t elements, std::uint32_t stride);

// The kernel's arguments: elements, stride (bytes), warm-up hops, timed hops, out.
std::vector<kernel::ArgDecl> chase_args();

class SharedChase : public system::Workload {
 public:
  std::vector<system::ParamDecl> params() const override;
  Status setup(system::Chip& chip, const kernel::KernelRegistry& kernels,
               const system::ParamValues& values) override;
  // Checks the run and where the chase ended, then measure().
  Result<std::vector<system::Measurement>> report(system::Chip& chip) override;

 protected:
  struct Shape {
    std::string_view kernel;          // the registered chase kernel
    std::uint32_t ctas = 1;           // a cluster of this many CTAs (2: the DSMEM chase)
    std::string_view footprint_note;  // what `footprint` spans
    std::uint64_t footprint = 0;      // defaults
    std::uint64_t hops = 0;
  };
  virtual Shape shape() const = 0;
  virtual Result<system::Measurement> measure(system::Chip& chip, double cycles_per_hop) const = 0;

  std::uint64_t footprint_ = 0, stride_ = 0, hops_ = 0, warmup_ = 0, elements_ = 0;
  std::uint32_t launch_ = 0;
  kernel::Addr results_ = 0;
};

}  // namespace xpusim::workloads::ubench
