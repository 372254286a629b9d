// A launch as the work distributor receives it (seed1 ¶82, ¶118–121): a grid of CTAs, optionally
// grouped into GPC_CGAs (clusters), each optionally made of CPC_CGAs, and the GPC_CGAs optionally
// into µGPU_CGAs or GPU_CGAs (¶115, ¶169), plus the CTA shape.
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

// The outermost CGA level: the launch unit the policy places all-or-nothing.
enum class ClusterKind : std::uint8_t { kNone, kGpcCga, kGpuCga, kUgpuCga };

struct GridSpec {
  // {} initializers let callers use designated initializers without -Wmissing-field-initializers.
  Dim3 grid{};     // in CTAs
  Dim3 cluster{};  // CTAs per GPC_CGA (1,1,1 with kind kNone)
  ClusterKind kind = ClusterKind::kNone;
  std::uint32_t gpc_cgas_per_gpu_cga = 1;   // kGpuCga only: GPC_CGAs in one GPU_CGA (seed1 ¶200)
  std::uint32_t gpc_cgas_per_ugpu_cga = 1;  // kUgpuCga only: GPC_CGAs in one µGPU_CGA (¶115)
  // 0: no CPC level. k: each GPC_CGA is k CPC_CGAs of ctas_per_cga() / k CTAs, rank blocks in
  // order, each inside one CPC (¶169); k = 1 makes every cluster a CPC_CGA.
  std::uint32_t cpc_cgas_per_gpc_cga = 0;
  CtaShape shape{};
  bool multicast = false;      // seed1 ¶142/¶214: ≤1 CTA of a cluster per SM, TPC pairs first
  std::uint32_t priority = 0;  // higher launches first (task table, ¶135)

  std::uint32_t ctas_per_cga()
      const;  // cluster.count() (1 for kNone); for kGpuCga the GPC_CGA size
  // Units the policy launches: CTAs for kNone, GPC_CGAs for kGpcCga, GPU_CGAs for kGpuCga,
  // µGPU_CGAs for kUgpuCga.
  std::uint64_t num_cgas() const;
  // GPC_CGAs in one launch unit: the GPU_CGA's or µGPU_CGA's, else 1.
  std::uint32_t gpc_cgas_per_unit() const;
  // CTAs of one CPC_CGA (the whole cluster without a CPC level).
  std::uint32_t ctas_per_cpc_cga() const;
};

// One-line errors for: zero dims; grid dims beyond the 32b-16b-16b CTA id (seed1 ¶129); cluster
// dims not dividing grid dims; a cluster on a plain grid; a cluster larger than max_cluster_size;
// a CTA shape check_cta_shape rejects; a cluster no GPC holds even empty (¶224, digest §5.10);
// a GPU_CGA whose GPC_CGAs cannot all fit on an empty chip; a CPC split that does not divide the
// cluster or whose CPC_CGA no CPC holds; a µGPU_CGA that no empty µGPU holds.
Status check_grid(const Topology& topo, const GridSpec& grid, std::uint32_t max_cluster_size);

// A launch unit holds one CGA memory slot per GPC_CGA (seed1 ¶222): a unit of more GPC_CGAs
// than a limited pool (memory_slots > 0) has would never launch.
Status check_memory_slots(const GridSpec& grid, std::uint32_t memory_slots);

}  // namespace xpusim::sched
