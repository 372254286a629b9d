// The small chip of the memory-system tests, at 1 GHz (1 cycle = 1000 ps): 2 GPCs x 4 SMs,
// 4 L2 slices in 2 partitions, 8 HBM channels, a 2-set L1.
#pragma once

#include "mem/memory_system.h"

namespace xpusim::mem {

inline MemoryParams small_chip(MemoryTiming timing = MemoryTiming::kEvents) {
  MemoryParams p;
  p.timing = timing;
  p.sm_clock_hz = 1'000'000'000;
  p.l2_clock_hz = 1'000'000'000;
  p.gpc_of_sm = {0, 0, 0, 0, 1, 1, 1, 1};
  p.gpcs = 2;
  p.map = AddressMapParams{.line_bytes = 128,
                           .sector_bytes = 32,
                           .l2_slices = 4,
                           .l2_partitions = 2,
                           .hbm_channels = 8,
                           .hbm_interleave_bytes = 256};
  p.l1 = L1Params{.bytes = 2 * 4 * 128, .ways = 4, .hit_latency_cycles = 32};  // 2 sets
  p.crossbar = CrossbarParams{
      .latency_cycles = 70, .slice_bytes_per_cycle = 64, .cross_partition_cycles = 100};
  p.l2 = L2Params{.size_bytes = 2 << 20,
                  .slices = 4,
                  .ways = 16,
                  .hit_latency_cycles = 80,
                  .mshrs_per_slice = 64};
  p.hbm = HbmParams{
      .channels = 8, .bandwidth_bytes_per_s = 200'000'000'000, .latency = 150 * sim::kNanosecond};
  p.dsmem = DsmemParams{.latency_cycles = 180, .bytes_per_cycle = 32};
  return p;
}

}  // namespace xpusim::mem
