// Warp schedulers: which ready warp of a sub-partition issues next. Selected by name
// (SmConfig::scheduler, the scenario's `sm_scheduler`), one small class in one file each:
//  - "gto"    greedy-then-oldest (Rogers et al., MICRO 2012): the warp that issued last goes
//             again while it is ready, else the oldest ready warp. The default.
//  - "lrr"    loose round-robin: the ready warp next after the last one in launch order,
//             wrapping around; spreads issue evenly (more latency hiding, less locality).
//  - "oldest" always the oldest ready warp (no greed).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sim/registry.h"
#include "sim/result.h"

namespace xpusim::core {

class WarpScheduler {
 public:
  virtual ~WarpScheduler() = default;
  // `ready` holds the ages (launch order: lower is older, all distinct) of the ready warps;
  // `last` is the age of the warp this sub-partition issued last (`has_last` false before the
  // first issue). Returns the index in `ready` to issue. `ready` is never empty.
  virtual std::size_t pick(std::span<const std::uint64_t> ready, std::uint64_t last,
                           bool has_last) const = 0;
};

// The schedulers by name: one warp_scheduler_*.cc each, which defines
// `Status register_warp_scheduler_<stem>(WarpSchedulerRegistry&)` (cmake/registry.cmake).
using WarpSchedulerFactory = std::unique_ptr<WarpScheduler> (*)();
using WarpSchedulerRegistry = sim::Registry<WarpSchedulerFactory>;
// Built on each call: "gto" (the default), "lrr", "oldest".
WarpSchedulerRegistry warp_schedulers();

// Thin wrappers over warp_schedulers(). Errors: an unknown name, with the valid ones.
Result<std::unique_ptr<WarpScheduler>> make_warp_scheduler(std::string_view name);
std::vector<std::string> warp_scheduler_names();
// The default, "gto", shared (schedulers are stateless).
std::shared_ptr<const WarpScheduler> default_scheduler();

// The oldest ready warp (the smallest age): what every scheduler falls back on.
std::size_t oldest_ready(std::span<const std::uint64_t> ready);

}  // namespace xpusim::core
