// The chip as the work distributor sees it (seed1 ¶131, ¶135): GPCs of TPCs of SMs, with
// unequal TPC counts per GPC on floor-swept parts, and one SmCapacity for every SM. SM ids are
// GPC-major, TPC-adjacent, the same numbering as config::ChipSpec.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "config/chip_spec.h"
#include "sched/resources.h"
#include "sim/result.h"

namespace xpusim::sched {

class Topology {
 public:
  static Topology from_chip(const config::ChipSpec& chip);
  // For tests and what-if studies; every entry of tpcs_per_gpc must be >= 1.
  static Result<Topology> make(std::vector<std::uint32_t> tpcs_per_gpc, std::uint32_t sms_per_tpc,
                               SmCapacity capacity);

  std::uint32_t num_gpcs() const { return static_cast<std::uint32_t>(first_sm_.size()) - 1; }
  std::uint32_t num_sms() const { return first_sm_.back(); }
  std::uint32_t sms_per_tpc() const { return sms_per_tpc_; }
  std::uint32_t num_tpcs() const { return num_sms() / sms_per_tpc_; }
  std::uint32_t first_sm(std::uint32_t gpc) const { return first_sm_[gpc]; }
  std::uint32_t sms_in_gpc(std::uint32_t gpc) const { return first_sm_[gpc + 1] - first_sm_[gpc]; }
  std::uint32_t gpc_of(std::uint32_t sm) const { return gpc_of_sm_[sm]; }
  std::uint32_t tpc_of(std::uint32_t sm) const { return sm / sms_per_tpc_; }
  std::uint32_t largest_gpc_sms() const;
  const SmCapacity& capacity() const { return capacity_; }
  std::span<const std::uint32_t> tpcs_per_gpc() const { return tpcs_per_gpc_; }

 private:
  std::vector<std::uint32_t> tpcs_per_gpc_;
  std::vector<std::uint32_t> first_sm_;  // num_gpcs + 1 entries
  std::vector<std::uint32_t> gpc_of_sm_;
  std::uint32_t sms_per_tpc_ = 2;
  SmCapacity capacity_;
};

}  // namespace xpusim::sched
