// The work distributor's models of the GPU (seed1 ¶194, claim 7): the live usage of every SM, and
// a speculative snapshot of free slots with per-SM launch-slot registers (¶166, ¶209).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "sched/resources.h"
#include "sched/topology.h"

namespace xpusim::sched {

class GpuState {
 public:
  explicit GpuState(const Topology& topo);

  const Topology& topology() const { return topo_; }
  const SmUsage& usage(std::uint32_t sm) const;
  void launch(std::uint32_t sm, const CtaFootprint& f);  // XPUSIM_CHECKs the CTA fits
  void retire(std::uint32_t sm, const CtaFootprint& f);
  std::uint32_t free_slots(std::uint32_t sm, const CtaFootprint& f) const;
  std::uint64_t resident_ctas() const { return resident_; }

 private:
  Topology topo_;  // a copy: states outlive the Topology they were built from in tests and tools
  std::vector<SmUsage> usage_;
  std::uint64_t resident_ = 0;
};

// Speculation: a snapshot of free slots per SM for one CTA footprint plus launch-slot registers;
// effective free = free − launch (¶209). commit applies all reservations to the live state,
// cancel drops them: all-or-nothing (claims 14, 20). The snapshot can only be pessimistic
// (CTAs retire, never launch behind the distributor's back, ¶194).
class ShadowState {
 public:
  ShadowState(const GpuState& live, const CtaFootprint& f);

  const Topology& topology() const { return *topo_; }
  std::uint32_t free(std::uint32_t sm) const;
  // Effective free slots of SMs [first, first + count), in SM order (a GPC's query input).
  std::vector<std::uint32_t> free_range(std::uint32_t first, std::uint32_t count) const;
  void reserve(std::uint32_t sm, std::uint32_t n);  // bumps the launch register; XPUSIM_CHECKs fit
  // reserve(first + i, per_sm[i]) for every i.
  void reserve_range(std::uint32_t first, std::span<const std::uint32_t> per_sm);
  std::uint32_t reserved(std::uint32_t sm) const { return launch_[sm]; }  // launch register
  std::uint64_t reserved_total() const { return reserved_total_; }
  void cancel();  // resets every launch register
  // Launches the reserved CTAs on `live` (same footprint as the snapshot), folds them into the
  // snapshot and resets the launch registers.
  void commit(GpuState& live, const CtaFootprint& f);

 private:
  const Topology* topo_;
  std::vector<std::uint32_t> free_;
  std::vector<std::uint32_t> launch_;
  std::uint64_t reserved_total_ = 0;
};

}  // namespace xpusim::sched
