#include "workloads/ubench/ubench.h"

namespace xpusim::workloads::ubench {

Status register_ubench(kernel::KernelRegistry&, WorkloadRegistry&) { return Ok{}; }

}  // namespace xpusim::workloads::ubench
