// Kernels a scenario launches on their own (`kernel:` in a scenario file, docs/run.md), with
// the host-side reference check of a launch (KernelDef::check) where the kernel has one:
//
//  - stream_copy(src ptr, dst ptr, n u64): dst[i] = src[i] for n u32 elements, a grid-stride
//    loop (each warp instruction moves 32 consecutive elements, 128 B). Verified: dst == src.
//  - stream_sum(src ptr, n u64, out ptr): out[t] = the sum (mod 2^32) of src[i] over thread
//    t's elements (i = t, t + threads, ... < n), each load followed by the add that uses it.
//    Verified against a host sum per thread.
//  - stream_fill(dst ptr, n u64): dst[i] = i (mod 2^32) for n u32 elements, stores only.
//    Verified: every element.
//  - hang_demo(): an mbarrier expecting two arrivals gets one, so every warp of the CTA waits
//    forever: shows the hang report (`xpusim run` exits 1 and lists the parked warps).
//  - fault_demo(): every warp reads DSMEM of cluster rank 1 outside a cluster: a fault, which
//    puts its queue in the HSA error state while other queues go on (`xpusim run` exits 1).
#pragma once

#include "kernel/registry.h"
#include "sim/result.h"

namespace xpusim::workloads {

Status register_kernels(kernel::KernelRegistry& kernels);

}  // namespace xpusim::workloads
