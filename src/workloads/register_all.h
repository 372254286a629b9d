// Every kernel and workload of src/workloads (kernels.cc, gemm_*, conv_tma, kripke,
// mm_experiments, ubench/), registered into registries the caller owns. system::Run takes this
// function as its registrar.
#pragma once

#include "kernel/registry.h"
#include "sim/result.h"
#include "system/workload.h"

namespace xpusim::workloads {

Status register_all(kernel::KernelRegistry& kernels, system::WorkloadRegistry& workloads);

}  // namespace xpusim::workloads
