#include "sched/topology.h"

#include <fmt/format.h>

#include <algorithm>

namespace xpusim::sched {

Topology Topology::from_chip(const config::ChipSpec& chip) {
  auto t = make(chip.topology.tpcs_per_gpc, chip.topology.sms_per_tpc, SmCapacity::from_chip(chip),
                {.cpcs_per_gpc = chip.topology.cpcs_per_gpc, .ugpus = chip.topology.ugpus});
  XPUSIM_CHECK(t.ok(), "a validated chip config has a valid topology");
  return std::move(t).value();
}

Result<Topology> Topology::make(std::vector<std::uint32_t> tpcs_per_gpc, std::uint32_t sms_per_tpc,
                                SmCapacity capacity, Hierarchy hierarchy) {
  if (tpcs_per_gpc.empty()) return Error{"topology: at least one GPC is needed"};
  if (sms_per_tpc == 0) return Error{"topology: sms_per_tpc = 0; a TPC holds at least one SM"};
  const std::uint32_t gpcs = static_cast<std::uint32_t>(tpcs_per_gpc.size());
  if (hierarchy.cpcs_per_gpc == 0) {
    return Error{"topology: cpcs_per_gpc = 0; a GPC holds at least one CPC"};
  }
  if (hierarchy.ugpus == 0 || hierarchy.ugpus > gpcs) {
    return Error{
        fmt::format("topology: ugpus = {}; it must be 1 to the {} GPCs", hierarchy.ugpus, gpcs)};
  }
  Topology t;
  t.cpcs_per_gpc_ = hierarchy.cpcs_per_gpc;
  t.sms_per_tpc_ = sms_per_tpc;
  t.capacity_ = capacity;
  t.first_sm_.push_back(0);
  for (std::size_t g = 0; g < tpcs_per_gpc.size(); ++g) {
    if (tpcs_per_gpc[g] == 0) {
      return Error{fmt::format("topology: GPC {} has 0 TPCs; every GPC needs at least one", g)};
    }
    const std::uint32_t c = hierarchy.cpcs_per_gpc;
    if (tpcs_per_gpc[g] < c) {
      return Error{
          fmt::format("topology: GPC {} has {} TPCs, fewer than cpcs_per_gpc = {}; every CPC "
                      "needs at least one TPC",
                      g, tpcs_per_gpc[g], c)};
    }
    for (std::uint32_t i = 0, sm = t.first_sm_.back(); i < c; ++i) {
      t.cpc_first_sm_.push_back(sm);
      sm += (tpcs_per_gpc[g] / c + (i < tpcs_per_gpc[g] % c ? 1 : 0)) * sms_per_tpc;
    }
    t.first_sm_.push_back(t.first_sm_.back() + tpcs_per_gpc[g] * sms_per_tpc);
    t.gpc_of_sm_.insert(t.gpc_of_sm_.end(), tpcs_per_gpc[g] * sms_per_tpc,
                        static_cast<std::uint32_t>(g));
  }
  t.cpc_first_sm_.push_back(t.first_sm_.back());
  const std::uint32_t u = hierarchy.ugpus;
  t.ugpu_first_gpc_.push_back(0);
  for (std::uint32_t i = 0; i < u; ++i)
    t.ugpu_first_gpc_.push_back(t.ugpu_first_gpc_.back() + gpcs / u + (i < gpcs % u ? 1 : 0));
  t.tpcs_per_gpc_ = std::move(tpcs_per_gpc);
  return t;
}

std::uint32_t Topology::largest_gpc_sms() const {
  std::uint32_t most = 0;
  for (std::uint32_t g = 0; g < num_gpcs(); ++g)
    most = std::max(most, sms_in_gpc(g));
  return most;
}

std::uint32_t Topology::largest_cpc_sms() const {
  std::uint32_t most = 0;
  for (std::size_t i = 0; i + 1 < cpc_first_sm_.size(); ++i)
    most = std::max(most, cpc_first_sm_[i + 1] - cpc_first_sm_[i]);
  return most;
}

std::uint32_t Topology::ugpu_of(std::uint32_t gpc) const {
  const auto it = std::upper_bound(ugpu_first_gpc_.begin(), ugpu_first_gpc_.end(), gpc);
  return static_cast<std::uint32_t>(it - ugpu_first_gpc_.begin()) - 1;
}

}  // namespace xpusim::sched
