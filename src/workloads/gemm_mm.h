// gemm.mm: a kernel-level GEMM on the `mm` broadcast tensor-multiply instruction (seed2),
// C (M x N, fp32 or int32, row-major) = A (M x K, row-major) x B (K x N, column-major → mm t0,
// or row-major → mm t1), bf16 or s8 inputs. See gemm_mm.cc for the kernel's structure.
#pragma once

#include "kernel/op.h"
#include "kernel/registry.h"
#include "sim/result.h"
#include "system/workload.h"

namespace xpusim::workloads {

// The workload allocates A, B and C from the chip's allocator; the kernel's first three
// arguments are their addresses.

// The kernel "gemm_mm" and the workload "gemm.mm".
Status register_gemm_mm(kernel::KernelRegistry& kernels, system::WorkloadRegistry& workloads);

}  // namespace xpusim::workloads
