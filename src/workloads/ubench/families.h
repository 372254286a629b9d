// One registration function per microbenchmark family (one .cc each); register.cc calls them.
#pragma once

#include "kernel/registry.h"
#include "system/workload.h"

namespace xpusim::workloads::ubench {

// ubench.l1_latency, ubench.l2_latency, ubench.hbm_latency (pointer_chase.cc).
Status register_pointer_chase(kernel::KernelRegistry& kernels, system::WorkloadRegistry& workloads);
// ubench.shared_latency (shared_latency.cc).
Status register_shared_latency(kernel::KernelRegistry& kernels,
                               system::WorkloadRegistry& workloads);
// ubench.l2_bandwidth, ubench.hbm_bandwidth (stream.cc).
Status register_stream(kernel::KernelRegistry& kernels, system::WorkloadRegistry& workloads);
// ubench.bank_conflicts (bank_conflicts.cc).
Status register_bank_conflicts(kernel::KernelRegistry& kernels,
                               system::WorkloadRegistry& workloads);
// ubench.dsmem_latency (dsmem_latency.cc).
Status register_dsmem_latency(kernel::KernelRegistry& kernels, system::WorkloadRegistry& workloads);
// ubench.mbarrier_round_trip (mbarrier_round_trip.cc).
Status register_mbarrier_round_trip(kernel::KernelRegistry& kernels,
                                    system::WorkloadRegistry& workloads);
// ubench.tma_latency, ubench.tma_cold_latency (tma_latency.cc).
Status register_tma_latency(kernel::KernelRegistry& kernels, system::WorkloadRegistry& workloads);

// ubench.hbm_loaded (hbm_loaded.cc).
Status register_hbm_loaded(kernel::KernelRegistry& kernels, system::WorkloadRegistry& workloads);

}  // namespace xpusim::workloads::ubench
