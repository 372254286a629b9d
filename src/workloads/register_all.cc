#include "workloads/ubench/ubench.h"
#include "workloads/workload.h"

namespace xpusim::workloads {

Status register_all(kernel::KernelRegistry& kernels, WorkloadRegistry& workloads) {
  return ubench::register_ubench(kernels, workloads);
}

}  // namespace xpusim::workloads
