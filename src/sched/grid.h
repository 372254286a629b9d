// A launch as the work distributor receives it (seed1 ¶82, ¶118–121): a grid of CTAs, optionally
// grouped into GPC_CGAs (clusters) and those into GPU_CGAs, plus the CTA shape.
#pragma once

#include <cstdint>

#include "sched/resources.h"
#include "sched/topology.h"
#include "sim/result.h"

namespace xpusim::sched {

struct Dim3 {
  std::uint32_t x = 1, y = 1, z = 1;
  std::uint64_t count() const;
  friend bool operator==(const Dim3&, const Dim3&) = default;
};

enum class ClusterKind : std::uint8_t { kNone, kGpcCga, kGpuCga };

struct GridSpec {
  // {} initializers let callers use designated initializers without -Wmissing-field-initializers.
  Dim3 grid{};     // in CTAs
  Dim3 cluster{};  // CTAs per GPC_CGA (1,1,1 with kind kNone)
  ClusterKind kind = ClusterKind::kNone;
  std::uint32_t gpc_cgas_per_gpu_cga = 1;  // kGpuCga only: GPC_CGAs in one GPU_CGA (seed1 ¶200)
  CtaShape shape{};
  bool multicast = false;      // seed1 ¶142/¶214: ≤1 CTA of a cluster per SM, TPC pairs first
  std::uint32_t priority = 0;  // higher launches first (task table, ¶135)

  std::uint32_t ctas_per_cga()
      const;  // cluster.count() (1 for kNone); for kGpuCga the GPC_CGA size
  // Units the policy launches: CTAs for kNone, GPC_CGAs for kGpcCga, GPU_CGAs for kGpuCga.
  std::uint64_t num_cgas() const;
};

// One-line errors for: zero dims; grid dims beyond the 32b-16b-16b CTA id (seed1 ¶129); cluster
// dims not dividing grid dims; a cluster on a plain grid; a cluster larger than max_cluster_size;
// a CTA shape check_cta_shape rejects; a cluster no GPC holds even empty (¶224, digest §5.10);
// a GPU_CGA whose GPC_CGAs cannot all fit on an empty chip.
Status check_grid(const Topology& topo, const GridSpec& grid, std::uint32_t max_cluster_size);

}  // namespace xpusim::sched
