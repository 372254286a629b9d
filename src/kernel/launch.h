// What one kernel launch is (CUDA's <<<grid, block, smem>>> plus cluster dims) and where one
// warp sits in it: the coordinates a kernel reads (CUDA's gridDim, blockIdx, clusterDim,
// %cluster_ctarank, warp and lane ids, warp groups of four warps for wgmma-style code).
#pragma once

#include <cstdint>
#include <string>

namespace xpusim::kernel {

struct Dim3 {
  std::uint32_t x = 1, y = 1, z = 1;
  std::uint64_t count() const { return std::uint64_t{x} * y * z; }
  friend bool operator==(const Dim3&, const Dim3&) = default;
};

struct LaunchParams {
  Dim3 grid{};                              // CTAs
  Dim3 cluster{};                           // CTAs per cluster; (1,1,1) = no cluster
  Dim3 block{};                             // threads per CTA
  std::uint32_t dynamic_shared_bytes = 0;   // on top of the kernel's static shared memory
  std::uint32_t registers_per_thread = 32;  // the compiled kernel's, for residency
  // Work-distributor launch attributes (seed1; CUDA sets them per launch): GPC_CGAs grouped
  // into one GPU_CGA (1: clusters are GPC_CGAs, ¶200), multicast placement (at most one CTA of
  // a cluster per SM, ¶142), and priority in the task table (higher first, ¶135).
  std::uint32_t gpc_cgas_per_gpu_cga = 1;
  // GPC_CGAs grouped into one µGPU_CGA (0: none; ¶115) and CPC_CGAs a cluster is split into
  // (0: none; ¶169).
  std::uint32_t gpc_cgas_per_ugpu_cga = 0;
  std::uint32_t cpc_cgas_per_gpc_cga = 0;
  bool multicast = false;
  std::uint32_t priority = 0;
  // The work distributor's placement policy for this launch (sched/policy.h); "": the chip's.
  std::string policy{};

  std::uint32_t threads_per_block() const { return static_cast<std::uint32_t>(block.count()); }
  std::uint32_t warps_per_block() const { return (threads_per_block() + 31) / 32; }
};

// Where one warp is. Ids are linear x-fastest, as CUDA numbers threads and blocks.
struct WarpCoords {
  Dim3 block_id{0, 0, 0};          // blockIdx
  Dim3 cluster_id{0, 0, 0};        // %clusterid: the cluster's index in the grid
  std::uint32_t cluster_rank = 0;  // %cluster_ctarank: the CTA's rank inside its cluster
  std::uint32_t warp = 0;          // warp index inside the CTA (threadIdx linear / 32)
  std::uint32_t sm = 0;            // %smid: the SM the CTA runs on
  std::uint32_t warp_group() const { return warp / 4; }
  std::uint32_t first_thread() const { return warp * 32; }
};

}  // namespace xpusim::kernel
