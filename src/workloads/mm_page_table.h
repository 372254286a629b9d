// mm.page_table (docs/tensor-unit.md "Experiments", docs/page-table.md "Timing"): one int8 GEMM
// on mm twice, B at byte addresses and B through a page-table segment whose pages lie
// scattered in device memory (seed2 ¶58–66). Reports both runs' cycles and the translation
// cache's hits, misses, PTE loads and waiting cycles; functional runs check C exactly.
#pragma once

#include "kernel/registry.h"
#include "sim/result.h"
#include "system/workload.h"

namespace xpusim::workloads {

Status register_mm_page_table(kernel::KernelRegistry& kernels, system::WorkloadRegistry& workloads);

}  // namespace xpusim::workloads
