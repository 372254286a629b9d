// The `mm` tensor-unit experiments of docs/tensor-unit.md (seed2 §5 items 15–16):
//   mm.broadcast       B fetched once per warp (broadcast) against once per thread;
//   mm.ka_utilization  16 C rows on 64 threads: ka1 (48 threads idle) against ka4;
//   mm.t1_retention    row-major B (t1): lines kept until every column used them, or re-read.
// Each runs its variants as launches one after another, each on fresh buffers, and reports the
// SM's mm counters, the L1's and the cycles of every launch.
#pragma once

#include "kernel/registry.h"
#include "sim/result.h"
#include "system/workload.h"

namespace xpusim::workloads {

Status register_mm_experiments(kernel::KernelRegistry& kernels,
                               system::WorkloadRegistry& workloads);

}  // namespace xpusim::workloads
