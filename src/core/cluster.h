// ClusterContext: the CTAs of one running cluster as the SMs see them — where each rank runs
// and its shared window (the targets of DSMEM accesses), and the cluster barrier
// (barrier.cluster.arrive + wait). The launcher (system::Chip) owns one per running cluster;
// an SM gives a plain CTA a private context of size 1 (CUDA: a non-cluster launch is a
// cluster of one).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "kernel/warp.h"
#include "mem/shared_memory.h"

namespace xpusim::core {

class Sm;

struct ClusterContext {
  ClusterContext(std::uint32_t ctas, std::uint32_t warps_per_cta)
      : ranks(ctas), warps_total(ctas * warps_per_cta) {}

  struct Rank {
    Sm* sm = nullptr;                   // set when the CTA starts
    mem::SharedMemory* smem = nullptr;  // null before the CTA starts and after it exits
    bool exited = false;
  };
  std::vector<Rank> ranks;
  std::uint32_t warps_total;  // every warp of every CTA, started or not
  std::uint32_t warps_exited = 0;
  std::uint32_t arrived = 0;  // at the current cluster barrier
  std::vector<std::pair<Sm*, kernel::Warp*>> waiting;
  std::uint32_t ctas_exited = 0;

  std::uint32_t size() const { return static_cast<std::uint32_t>(ranks.size()); }
  // Exited warps count as arrived (as for bar.sync).
  bool barrier_complete() const { return arrived > 0 && arrived >= warps_total - warps_exited; }
};

}  // namespace xpusim::core
