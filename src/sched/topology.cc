#include "sched/topology.h"

#include <fmt/format.h>

#include <algorithm>

namespace xpusim::sched {

Topology Topology::from_chip(const config::ChipSpec& chip) {
  auto t = make(chip.topology.tpcs_per_gpc, chip.topology.sms_per_tpc, SmCapacity::from_chip(chip));
  XPUSIM_CHECK(t.ok(), "a validated chip config has a valid topology");
  return std::move(t).value();
}

Result<Topology> Topology::make(std::vector<std::uint32_t> tpcs_per_gpc, std::uint32_t sms_per_tpc,
                                SmCapacity capacity) {
  if (tpcs_per_gpc.empty()) return Error{"topology: at least one GPC is needed"};
  if (sms_per_tpc == 0) return Error{"topology: sms_per_tpc = 0; a TPC holds at least one SM"};
  Topology t;
  t.sms_per_tpc_ = sms_per_tpc;
  t.capacity_ = capacity;
  t.first_sm_.push_back(0);
  for (std::size_t g = 0; g < tpcs_per_gpc.size(); ++g) {
    if (tpcs_per_gpc[g] == 0) {
      return Error{fmt::format("topology: GPC {} has 0 TPCs; every GPC needs at least one", g)};
    }
    t.first_sm_.push_back(t.first_sm_.back() + tpcs_per_gpc[g] * sms_per_tpc);
    t.gpc_of_sm_.insert(t.gpc_of_sm_.end(), tpcs_per_gpc[g] * sms_per_tpc,
                        static_cast<std::uint32_t>(g));
  }
  t.tpcs_per_gpc_ = std::move(tpcs_per_gpc);
  return t;
}

std::uint32_t Topology::largest_gpc_sms() const {
  std::uint32_t most = 0;
  for (std::uint32_t g = 0; g < num_gpcs(); ++g)
    most = std::max(most, sms_in_gpc(g));
  return most;
}

}  // namespace xpusim::sched
