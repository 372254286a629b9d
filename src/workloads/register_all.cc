#include "system/workload.h"
#include "workloads/conv_tma.h"
#include "workloads/gemm_mm.h"
#include "workloads/gemm_tma.h"
#include "workloads/kernels.h"
#include "workloads/kripke.h"
#include "workloads/mm_experiments.h"
#include "workloads/mm_page_table.h"
#include "workloads/ubench/ubench.h"

namespace xpusim::workloads {

Status register_all(kernel::KernelRegistry& kernels, system::WorkloadRegistry& workloads) {
  if (auto st = register_kernels(kernels); !st) return st;
  if (auto st = register_gemm_mm(kernels, workloads); !st) return st;
  if (auto st = register_gemm_tma(kernels, workloads); !st) return st;
  if (auto st = register_conv_tma(kernels, workloads); !st) return st;
  if (auto st = register_mm_experiments(kernels, workloads); !st) return st;
  if (auto st = register_mm_page_table(kernels, workloads); !st) return st;
  if (auto st = register_kripke(kernels, workloads); !st) return st;
  return ubench::register_ubench(kernels, workloads);
}

}  // namespace xpusim::workloads
