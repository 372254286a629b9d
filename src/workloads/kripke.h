// The Kripke-like loop of seed3 (¶66) on the real SMs: six dependent small sweep kernels
// (LTimes, Scattering, Source, LPlusTimes, Sweep, Population) launched `iterations` times on
// queue 0, each after the one before (the barrier bit). Run with the queue's dispatch mode
// standard or condensed (scenario `queues:`), it measures what condensed dispatch saves on the
// whole chip (configs/scenarios/kripke-dispatch.yaml; docs/command-processor.md).
//
// Each kernel is y[i] = x[i]·a_k + b_k (u32, mod 2^32) over `elements` words, a grid-stride
// loop; the kernels alternate between two buffers, so every iteration's launches are the same
// packets (and share their kernarg segments). Functional runs check the final buffer against
// a host loop.
#pragma once

#include "kernel/registry.h"
#include "sim/result.h"
#include "system/workload.h"

namespace xpusim::workloads {

Status register_kripke(kernel::KernelRegistry& kernels, system::WorkloadRegistry& workloads);

}  // namespace xpusim::workloads
