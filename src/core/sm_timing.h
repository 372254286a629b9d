// Latency classes and pipe widths of one SM, in SM cycles. Defaults follow public Hopper
// microbenchmarks where they exist (docs/sm.md has the table and sources); the rest are ours.
#pragma once

#include <cstdint>

namespace xpusim::core {

struct SmTiming {
  std::uint32_t sub_partitions = 4;    // each issues at most one warp instruction per cycle
  std::uint32_t alu_latency = 4;       // FFMA/IADD dependent-issue latency
  std::uint32_t sfu_latency = 18;      // MUFU class
  std::uint32_t sfu_issue_cycles = 2;  // 16 SFU lanes per sub-partition: 2 cycles per warp
  // PTX mma.sync on the sub-partition's tensor pipe: pipe cycles per 1024 f16 FMAs, and the
  // latency after them (a lone m16n8k16.f16: 2 × 6 − 1 + 22 = 33 cycles).
  std::uint32_t mma_issue_cycles = 6;
  std::uint32_t mma_latency = 22;
  std::uint32_t shared_latency = 29;            // LDS hit, no conflict
  std::uint32_t lsu_issue_cycles = 1;           // a memory instruction's issue slot
  std::uint32_t barrier_latency = 20;           // last arrival at bar.sync → waiters issue again
  std::uint32_t mbarrier_latency = 12;          // mbarrier op round trip to shared memory
  std::uint32_t cluster_barrier_latency = 190;  // last arrival at cluster.sync → waiters issue
  // Global stores in flight per SM, issue to the L2's acknowledgement. A store is posted: its
  // warp goes on after the issue slot, and waits only when the queue is full. 0: every store
  // holds its warp until acknowledged, as a load does (a what-if).
  std::uint32_t store_queue = 32;
};

// The tensor unit that runs `mm` (seed2; docs/tensor-unit.md): dense multiply-accumulates
// per cycle per SM by operand family (config sm.tensor.*), split evenly over `cores` units;
// sub-partition s uses unit s % cores.
struct TensorTiming {
  std::uint32_t cores = 4;
  std::uint32_t int8_fma_per_cycle = 4096;
  std::uint32_t f16_fma_per_cycle = 2048;  // f16 and bf16
  std::uint32_t tf32_fma_per_cycle = 1024;
  std::uint32_t f32_fma_per_cycle = 128;
  std::uint32_t registers_per_thread = 512;  // the mm register file
  std::uint32_t line_bytes = 128;            // B fetch granule (L1 line, shared wavefront)
  // Page-table translations cached per SM for B through a segment (mem/translation_cache.h).
  std::uint32_t translation_cache_entries = 16;
};

}  // namespace xpusim::core
