// The microbenchmarks (docs/fidelity.md): small kernels that measure one latency or bandwidth
// of the modelled chip the way public GPU microbenchmarks measure a real one, each a workload
// whose report prints the measured value next to the configured one.
#pragma once

#include "kernel/registry.h"
#include "system/workload.h"

namespace xpusim::workloads::ubench {

Status register_ubench(kernel::KernelRegistry& kernels, system::WorkloadRegistry& workloads);

}  // namespace xpusim::workloads::ubench
