// gemm.mm: a kernel-level GEMM on the `mm` broadcast tensor-multiply instruction (seed2),
// C (M x N, fp32 or int32, row-major) = A (M x K, row-major) x B (K x N, column-major → mm t0,
// or row-major → mm t1), bf16 or s8 inputs. See gemm_mm.cc for the kernel's structure.
#pragma once

#include "kernel/op.h"
#include "kernel/registry.h"
#include "sim/result.h"
#include "system/workload.h"

namespace xpusim::workloads {

// Where the workload keeps its matrices in device memory (each fits in 4 GiB at the largest
// parameters): A, B and C, 4 GiB apart.
inline constexpr kernel::Addr kGemmMmA = 0x1'0000'0000;
inline constexpr kernel::Addr kGemmMmB = 0x2'0000'0000;
inline constexpr kernel::Addr kGemmMmC = 0x3'0000'0000;

// The kernel "gemm_mm" and the workload "gemm.mm".
Status register_gemm_mm(kernel::KernelRegistry& kernels, system::WorkloadRegistry& workloads);

}  // namespace xpusim::workloads
