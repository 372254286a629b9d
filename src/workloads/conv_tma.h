// conv.tma: implicit-GEMM convolution on gemm.tma's kernel. Input NHWC (bf16 or s8), filter
// KRSC, output NPQK (fp32 or int32): the GEMM C (M = N·P·Q output pixels x K output channels)
// = A (M x R·S·C, the im2col view of the input, loaded by TMA im2col) x B (the filter).
// See conv_tma.cc and docs/workloads.md.
#pragma once

#include "kernel/registry.h"
#include "sim/result.h"
#include "system/workload.h"

namespace xpusim::workloads {

// The kernel "conv_tma" and the workload "conv.tma".
Status register_conv_tma(kernel::KernelRegistry& kernels, system::WorkloadRegistry& workloads);

}  // namespace xpusim::workloads
