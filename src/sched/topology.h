// The chip as the work distributor sees it (seed1 ¶131, ¶135): µGPUs of GPCs of CPCs of TPCs of
// SMs, with unequal TPC counts per GPC on floor-swept parts, and one SmCapacity for every SM.
// SM ids are GPC-major, TPC-adjacent, the same numbering as config::ChipSpec. A CPC is a
// contiguous run of a GPC's TPCs and a µGPU a contiguous run of GPCs (seed1 ¶9, ¶101–114).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "config/chip_spec.h"
#include "sched/resources.h"
#include "sim/result.h"

namespace xpusim::sched {

// The levels between the GPU and the GPC, and inside a GPC. Each GPC's t TPCs are split into
// cpcs_per_gpc CPCs as evenly as possible (the lower CPCs take the t mod c extra TPCs); the GPCs
// into ugpus µGPUs the same way.
struct Hierarchy {
  std::uint32_t cpcs_per_gpc = 1;
  std::uint32_t ugpus = 1;
};

class Topology {
 public:
  static Topology from_chip(const config::ChipSpec& chip);
  // For tests and what-if studies; every entry of tpcs_per_gpc must be >= 1, every GPC must have
  // at least cpcs_per_gpc TPCs and there must be at least `ugpus` GPCs.
  static Result<Topology> make(std::vector<std::uint32_t> tpcs_per_gpc, std::uint32_t sms_per_tpc,
                               SmCapacity capacity, Hierarchy hierarchy = {});

  std::uint32_t num_gpcs() const { return static_cast<std::uint32_t>(first_sm_.size()) - 1; }
  std::uint32_t num_sms() const { return first_sm_.back(); }
  std::uint32_t sms_per_tpc() const { return sms_per_tpc_; }
  std::uint32_t num_tpcs() const { return num_sms() / sms_per_tpc_; }
  std::uint32_t first_sm(std::uint32_t gpc) const { return first_sm_[gpc]; }
  std::uint32_t sms_in_gpc(std::uint32_t gpc) const { return first_sm_[gpc + 1] - first_sm_[gpc]; }
  std::uint32_t gpc_of(std::uint32_t sm) const { return gpc_of_sm_[sm]; }
  std::uint32_t tpc_of(std::uint32_t sm) const { return sm / sms_per_tpc_; }
  std::uint32_t largest_gpc_sms() const;

  // CPCs (seed1 ¶169): index c of GPC g, SMs [cpc_first_sm(g, c), + sms_in_cpc(g, c)).
  std::uint32_t cpcs_per_gpc() const { return cpcs_per_gpc_; }
  std::uint32_t cpc_first_sm(std::uint32_t gpc, std::uint32_t cpc) const {
    return cpc_first_sm_[gpc * cpcs_per_gpc_ + cpc];
  }
  std::uint32_t sms_in_cpc(std::uint32_t gpc, std::uint32_t cpc) const {
    return cpc_first_sm_[gpc * cpcs_per_gpc_ + cpc + 1] - cpc_first_sm_[gpc * cpcs_per_gpc_ + cpc];
  }
  std::uint32_t largest_cpc_sms() const;
  // µGPUs (seed1 ¶101–114): GPCs [ugpu_first_gpc(u), + gpcs_in_ugpu(u)).
  std::uint32_t num_ugpus() const { return static_cast<std::uint32_t>(ugpu_first_gpc_.size()) - 1; }
  std::uint32_t ugpu_first_gpc(std::uint32_t u) const { return ugpu_first_gpc_[u]; }
  std::uint32_t gpcs_in_ugpu(std::uint32_t u) const {
    return ugpu_first_gpc_[u + 1] - ugpu_first_gpc_[u];
  }
  std::uint32_t ugpu_of(std::uint32_t gpc) const;
  const SmCapacity& capacity() const { return capacity_; }
  std::span<const std::uint32_t> tpcs_per_gpc() const { return tpcs_per_gpc_; }

 private:
  std::vector<std::uint32_t> tpcs_per_gpc_;
  std::vector<std::uint32_t> first_sm_;  // num_gpcs + 1 entries
  std::vector<std::uint32_t> gpc_of_sm_;
  std::uint32_t sms_per_tpc_ = 2;
  std::uint32_t cpcs_per_gpc_ = 1;
  // cpcs_per_gpc per GPC, GPC-major, plus one end entry (= num_sms): the CPCs tile the SMs.
  std::vector<std::uint32_t> cpc_first_sm_;
  std::vector<std::uint32_t> ugpu_first_gpc_;  // num_ugpus + 1 entries
  SmCapacity capacity_;
};

}  // namespace xpusim::sched
