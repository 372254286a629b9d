// The narrow launch interface between the command processor and whatever runs kernels: launch a
// grid, hear when it has completed. FixedTimeLauncher (here) runs each kernel for a fixed time,
// so the command processor can be studied alone; system/distributor_launcher.h sends the grid
// through the work distributor to (modelled) SMs.
#pragma once

#include <cstdint>
#include <functional>
#include <map>

#include "cp/packets.h"
#include "sim/clock.h"
#include "sim/result.h"
#include "sim/simulation.h"

namespace xpusim::cp {

// When a launched grid got going and finished, as the launcher saw it.
struct GridTimes {
  sim::Tick first_start = 0;  // its first CTA began (= the launch tick without a distributor)
  sim::Tick completed = 0;
};

class GridLauncher {
 public:
  using Done = std::function<void(const GridTimes&)>;
  virtual ~GridLauncher() = default;
  // Starts `kernel`; `done` runs once it has completed. An error (nothing launched, `done` never
  // runs) names the rule the dispatch breaks, e.g. a workgroup no SM can hold.
  virtual Status launch(const DispatchPacket& kernel, Done done) = 0;
};

// Runs each kernel for a fixed number of cycles per kernel object (1 for unlisted ones).
class FixedTimeLauncher : public GridLauncher {
 public:
  FixedTimeLauncher(sim::Simulation& sim, const sim::Clock& clock) : sim_(sim), clock_(clock) {}
  void set_cycles(std::uint64_t kernel_object, std::uint64_t cycles) {
    cycles_[kernel_object] = cycles;
  }
  Status launch(const DispatchPacket& kernel, Done done) override;

 private:
  sim::Simulation& sim_;
  const sim::Clock& clock_;
  std::map<std::uint64_t, std::uint64_t> cycles_;
};

}  // namespace xpusim::cp
