#include "workloads/ubench/families.h"
#include "workloads/ubench/ubench.h"

namespace xpusim::workloads::ubench {

Status register_ubench(kernel::KernelRegistry& kernels, system::WorkloadRegistry& workloads) {
  for (auto* family : {register_pointer_chase, register_shared_latency, register_stream,
                       register_bank_conflicts, register_dsmem_latency,
                       register_mbarrier_round_trip, register_tma_latency, register_hbm_loaded}) {
    if (auto st = family(kernels, workloads); !st) return st;
  }
  return Ok{};
}

}  // namespace xpusim::workloads::ubench
