// GraphHost: the host program of a kernel graph (Scenario::graph, docs/run.md "Kernel graphs").
// Each queue's entries are issued in graph order, as by a host thread of its own:
//  - a kernel entry is one launch;
//  - a workload entry is a launch group (Chip::begin_group): its setup's launches and those its
//    completion callbacks make, all on the entry's queue. The host issues that queue's next
//    entry once the workload has finished, because its host side may still launch kernels as
//    earlier ones complete (a microbenchmark reads counters between launches).
// Dependencies are completion signals made before anything is launched, so an entry may wait
// for one its queue's host thread has not issued yet: `after` an entry on the same queue sets
// the barrier bit, on another queue a barrier-AND packet; `after_any` a barrier-OR packet. A
// kernel entry's signal is its dispatch's completion signal; a workload entry's is completed by
// a marker packet behind its last launch.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "kernel/registry.h"
#include "sim/result.h"
#include "system/chip.h"
#include "system/scenario.h"
#include "system/workload.h"

namespace xpusim::system {

class GraphHost {
 public:
  struct Node {
    bool issued = false;
    bool failed = false;                  // its launch or setup failed (Errors name it)
    std::uint64_t signal = 0;             // its completion signal (0: nobody waits for it)
    std::uint32_t group = ~0u;            // a workload entry's launch group
    std::vector<std::uint32_t> launches;  // a kernel entry's launch (a workload's: its group's)
  };

  // Issues what can be issued now (every queue's entries up to its first workload entry, that
  // one included). `workloads[i]` is entry i's own workload instance (nullptr for a kernel).
  // Errors, located at the entry: a launch the chip rejects, a workload's setup error.
  static Result<std::unique_ptr<GraphHost>> start(const Scenario& s, const ResolvedScenario& r,
                                                  std::vector<Workload*> workloads, Chip& chip,
                                                  const kernel::KernelRegistry& kernels);

  const Node& node(std::size_t i) const { return nodes_[i]; }
  // Entry i's launches so far (a workload entry's may grow while it runs).
  std::vector<std::uint32_t> launches(std::size_t i) const;
  // A workload entry has finished (its group), a kernel entry completed.
  bool finished(std::size_t i) const;
  Workload* workload(std::size_t i) const { return workloads_[i]; }
  // Errors of entries issued during the simulation (a workload's setup, a rejected launch);
  // the queue issues nothing after such an entry.
  const std::vector<Error>& errors() const { return errors_; }

 private:
  GraphHost(const Scenario& s, const ResolvedScenario& r, std::vector<Workload*> workloads,
            Chip& chip, const kernel::KernelRegistry& kernels);
  // Issues queue q's entries from its next one until a workload entry is running.
  Status issue(std::uint32_t q);
  Status issue_node(std::size_t i);
  std::vector<Error> located(std::size_t i, const std::vector<Error>& errors) const;

  const Scenario& s_;
  const ResolvedScenario& r_;
  std::vector<Workload*> workloads_;
  Chip& chip_;
  const kernel::KernelRegistry& kernels_;
  std::vector<Node> nodes_;
  std::vector<std::vector<std::size_t>> order_;  // per queue: its entries in graph order
  std::vector<std::size_t> next_;                // per queue: the next entry to issue
  std::vector<bool> waiting_;                    // per queue: a workload entry is running
  std::vector<bool> issuing_;                    // per queue: inside issue()
  std::vector<Error> errors_;
};

}  // namespace xpusim::system
