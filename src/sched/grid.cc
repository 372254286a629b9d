#include "sched/grid.h"

#include <fmt/format.h>

#include <array>

#include "sched/gpc_choice.h"
#include "sched/gpu_state.h"

namespace xpusim::sched {

std::uint64_t Dim3::count() const {
  return std::uint64_t{x} * y * z;
}

std::uint32_t GridSpec::ctas_per_cga() const {
  return kind == ClusterKind::kNone ? 1 : static_cast<std::uint32_t>(cluster.count());
}

std::uint64_t GridSpec::num_cgas() const {
  if (kind == ClusterKind::kNone) return grid.count();
  return grid.count() / (cluster.count() * gpc_cgas_per_unit());
}

std::uint32_t GridSpec::gpc_cgas_per_unit() const {
  switch (kind) {
    case ClusterKind::kNone:
    case ClusterKind::kGpcCga:
      return 1;
    case ClusterKind::kGpuCga:
      return gpc_cgas_per_gpu_cga;
    case ClusterKind::kUgpuCga:
      return gpc_cgas_per_ugpu_cga;
  }
  return 1;
}

std::uint32_t GridSpec::ctas_per_cpc_cga() const {
  return cpc_cgas_per_gpc_cga == 0 ? ctas_per_cga() : ctas_per_cga() / cpc_cgas_per_gpc_cga;
}

namespace {

std::string dims(const Dim3& d) {
  return fmt::format("{}x{}x{}", d.x, d.y, d.z);
}

// How many GPC_CGAs of `grid` fit at once in GPCs [first, first + gpcs) of an empty chip,
// counting up to `enough`.
std::uint64_t empty_chip_clusters(const Topology& topo, const GridSpec& grid, std::uint32_t first,
                                  std::uint32_t gpcs, std::uint64_t enough) {
  const GpuState empty(topo);
  ShadowState shadow(empty, footprint(topo.capacity(), grid.shape));
  return gpc_cgas_that_fit(shadow, grid, first, gpcs, enough);
}

}  // namespace

Status check_grid(const Topology& topo, const GridSpec& grid, std::uint32_t max_cluster_size) {
  const std::array<std::pair<const char*, std::uint32_t>, 6> all = {
      {{"grid.x", grid.grid.x},
       {"grid.y", grid.grid.y},
       {"grid.z", grid.grid.z},
       {"cluster.x", grid.cluster.x},
       {"cluster.y", grid.cluster.y},
       {"cluster.z", grid.cluster.z}}};
  for (const auto& [item, v] : all)
    if (v == 0)
      return Error{fmt::format("{} = 0; every grid and cluster dimension must be >= 1", item)};
  // The CTA id travels as a 32b-16b-16b tuple (seed1 ¶129, ¶175).
  if (grid.grid.x > 0x7fffffffu || grid.grid.y > 0xffffu || grid.grid.z > 0xffffu) {
    return Error{fmt::format("grid = {} exceeds the CTA id range (x <= {}, y and z <= 65535)",
                             dims(grid.grid), 0x7fffffffu)};
  }
  if (grid.kind == ClusterKind::kNone) {
    if (grid.cluster != Dim3{}) {
      return Error{
          fmt::format("cluster = {} on a plain grid; without a CGA kind the cluster is 1x1x1",
                      dims(grid.cluster))};
    }
    if (grid.multicast) {
      return Error{
          "multicast = true on a plain grid; multicast spreads one cluster over SMs "
          "(seed1 ¶142) and needs a cluster"};
    }
  }
  if (grid.kind != ClusterKind::kGpuCga && grid.gpc_cgas_per_gpu_cga != 1) {
    return Error{fmt::format("gpc_cgas_per_gpu_cga = {} but the grid has no GPU_CGAs; it must be 1",
                             grid.gpc_cgas_per_gpu_cga)};
  }
  if (grid.kind != ClusterKind::kUgpuCga && grid.gpc_cgas_per_ugpu_cga != 1) {
    return Error{
        fmt::format("gpc_cgas_per_ugpu_cga = {} but the grid has no µGPU_CGAs; it must be 1",
                    grid.gpc_cgas_per_ugpu_cga)};
  }
  if (grid.kind == ClusterKind::kNone && grid.cpc_cgas_per_gpc_cga != 0) {
    return Error{fmt::format(
        "cpc_cgas_per_gpc_cga = {} on a plain grid; CPC_CGAs split a cluster and need one",
        grid.cpc_cgas_per_gpc_cga)};
  }
  if (grid.grid.x % grid.cluster.x != 0 || grid.grid.y % grid.cluster.y != 0 ||
      grid.grid.z % grid.cluster.z != 0) {
    return Error{fmt::format("cluster = {} does not divide grid = {} on every axis",
                             dims(grid.cluster), dims(grid.grid))};
  }
  if (grid.cluster.count() > max_cluster_size) {
    return Error{fmt::format("cluster = {} has {} CTAs, more than the maximum cluster size {}",
                             dims(grid.cluster), grid.cluster.count(), max_cluster_size)};
  }
  if (Status s = check_cta_shape(topo.capacity(), grid.shape); !s.ok()) return s;

  // A cluster that no GPC holds even empty would never launch (¶224, digest §5.10).
  const std::uint32_t n = grid.ctas_per_cga();
  if (const std::uint32_t k = grid.cpc_cgas_per_gpc_cga; k != 0) {
    if (n % k != 0) {
      return Error{fmt::format(
          "cpc_cgas_per_gpc_cga = {} does not divide the cluster's {} CTAs into equal CPC_CGAs", k,
          n)};
    }
    const std::uint32_t part = n / k;
    const std::uint32_t cpc = topo.largest_cpc_sms();
    const std::uint32_t each =
        free_slots(topo.capacity(), SmUsage{}, footprint(topo.capacity(), grid.shape));
    if ((grid.multicast && part > cpc) || std::uint64_t{cpc} * each < part) {
      return Error{fmt::format(
          "CPC_CGA of {} CTAs ({} per cluster / cpc_cgas_per_gpc_cga = {}) fits in no CPC: the "
          "largest CPC has {} SMs and holds {} CTAs of this shape{}",
          part, n, k, cpc, grid.multicast ? std::uint64_t{cpc} : std::uint64_t{cpc} * each,
          grid.multicast ? " (multicast: one per SM)" : "")};
    }
  }
  const std::uint32_t sms = topo.largest_gpc_sms();
  const std::uint32_t per_sm =
      free_slots(topo.capacity(), SmUsage{}, footprint(topo.capacity(), grid.shape));
  if (grid.multicast && n > sms) {
    return Error{fmt::format(
        "multicast cluster of {} CTAs needs {} SMs (one CTA per SM, seed1 ¶142) but the largest "
        "GPC has {} SMs",
        n, n, sms)};
  }
  if (std::uint64_t{sms} * per_sm < n) {
    return Error{fmt::format(
        "cluster of {} CTAs fits in no GPC: the largest GPC has {} SMs and holds {} CTAs of this "
        "shape ({} per SM)",
        n, sms, std::uint64_t{sms} * per_sm, per_sm)};
  }
  if (grid.kind == ClusterKind::kGpuCga) {
    if (grid.gpc_cgas_per_gpu_cga == 0) {
      return Error{"gpc_cgas_per_gpu_cga = 0; a GPU_CGA holds at least one GPC_CGA"};
    }
    const std::uint64_t clusters = grid.grid.count() / grid.cluster.count();
    if (clusters % grid.gpc_cgas_per_gpu_cga != 0) {
      return Error{fmt::format(
          "gpc_cgas_per_gpu_cga = {} does not divide the grid's {} GPC_CGAs into whole GPU_CGAs",
          grid.gpc_cgas_per_gpu_cga, clusters)};
    }
    // Pass I on an empty chip (¶207–210): every GPC_CGA must find a home at once.
    const std::uint64_t fit =
        empty_chip_clusters(topo, grid, 0, topo.num_gpcs(), grid.gpc_cgas_per_gpu_cga);
    if (fit < grid.gpc_cgas_per_gpu_cga) {
      return Error{fmt::format(
          "GPU_CGA of {} GPC_CGAs ({} CTAs each) does not fit on an empty chip: only {} GPC_CGAs "
          "fit at once",
          grid.gpc_cgas_per_gpu_cga, n, fit)};
    }
  }
  if (grid.kind == ClusterKind::kUgpuCga) {
    const std::uint32_t m = grid.gpc_cgas_per_ugpu_cga;
    if (m == 0) return Error{"gpc_cgas_per_ugpu_cga = 0; a µGPU_CGA holds at least one GPC_CGA"};
    const std::uint64_t clusters = grid.grid.count() / grid.cluster.count();
    if (clusters % m != 0) {
      return Error{fmt::format(
          "gpc_cgas_per_ugpu_cga = {} does not divide the grid's {} GPC_CGAs into whole "
          "µGPU_CGAs",
          m, clusters)};
    }
    // A µGPU_CGA lives in one µGPU (¶101–114): some µGPU must hold all of its GPC_CGAs at once.
    std::uint64_t most = 0;
    for (std::uint32_t u = 0; u < topo.num_ugpus() && most < m; ++u) {
      most = std::max(
          most, empty_chip_clusters(topo, grid, topo.ugpu_first_gpc(u), topo.gpcs_in_ugpu(u), m));
    }
    if (most < m) {
      return Error{fmt::format(
          "µGPU_CGA of {} GPC_CGAs ({} CTAs each) fits in no µGPU of an empty chip: at most {} "
          "GPC_CGAs fit in one of the {} µGPUs",
          m, n, most, topo.num_ugpus())};
    }
  }
  return Ok{};
}

Status check_memory_slots(const GridSpec& grid, std::uint32_t memory_slots) {
  if (grid.kind == ClusterKind::kNone || memory_slots == 0) return Ok{};
  if (const std::uint32_t parts = grid.gpc_cgas_per_unit(); parts > memory_slots) {
    return Error{fmt::format(
        "a launch unit of {} GPC_CGAs needs {} CGA memory slots at once, but the pool has {} "
        "(cga_memory_slots; every GPC_CGA holds one, seed1 ¶222)",
        parts, parts, memory_slots)};
  }
  return Ok{};
}

}  // namespace xpusim::sched
