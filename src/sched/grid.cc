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
  switch (kind) {
    case ClusterKind::kNone:
      return grid.count();
    case ClusterKind::kGpcCga:
      return grid.count() / cluster.count();
    case ClusterKind::kGpuCga:
      return grid.count() / (cluster.count() * gpc_cgas_per_gpu_cga);
  }
  return 0;
}

namespace {

std::string dims(const Dim3& d) {
  return fmt::format("{}x{}x{}", d.x, d.y, d.z);
}

// How many GPC_CGAs of `grid` fit at once on an empty chip, counting up to `enough`: the
// water-fill policy's own query, repeated on a shadow (per-GPC sequences are independent).
std::uint64_t empty_chip_clusters(const Topology& topo, const GridSpec& grid,
                                  std::uint64_t enough) {
  const GpuState empty(topo);
  ShadowState shadow(empty, footprint(topo.capacity(), grid.shape));
  std::uint64_t count = 0;
  for (std::uint32_t g = 0; g < topo.num_gpcs() && count < enough; ++g) {
    for (Fill f = query_gpc(shadow, g, grid); f.ok && count < enough;
         f = query_gpc(shadow, g, grid)) {
      shadow.reserve_range(topo.first_sm(g), f.per_sm);
      ++count;
    }
  }
  return count;
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
    const std::uint64_t fit = empty_chip_clusters(topo, grid, grid.gpc_cgas_per_gpu_cga);
    if (fit < grid.gpc_cgas_per_gpu_cga) {
      return Error{fmt::format(
          "GPU_CGA of {} GPC_CGAs ({} CTAs each) does not fit on an empty chip: only {} GPC_CGAs "
          "fit at once",
          grid.gpc_cgas_per_gpu_cga, n, fit)};
    }
  }
  return Ok{};
}

}  // namespace xpusim::sched
