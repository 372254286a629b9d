// The warp-scheduler registry and the helpers its files share; the schedulers are in
// warp_scheduler_*.cc, one each.
#include "core/warp_scheduler.h"

#include <algorithm>

namespace xpusim::core {

// Generated from the warp_scheduler_*.cc files (cmake/registry.cmake).
Status register_warp_schedulers(WarpSchedulerRegistry& r);

WarpSchedulerRegistry warp_schedulers() {
  WarpSchedulerRegistry r("warp scheduler", "warp schedulers");
  sim::check_builtin(register_warp_schedulers(r));
  return r;
}

std::vector<std::string> warp_scheduler_names() {
  return warp_schedulers().names();
}

std::shared_ptr<const WarpScheduler> default_scheduler() {
  auto made = make_warp_scheduler("gto");
  XPUSIM_CHECK(made.ok(), "the default warp scheduler 'gto' is registered");
  return std::shared_ptr<const WarpScheduler>(std::move(*made));
}

Result<std::unique_ptr<WarpScheduler>> make_warp_scheduler(std::string_view name) {
  const WarpSchedulerRegistry all = warp_schedulers();
  auto e = all.find(name);
  if (!e) return e.errors();
  return (*e)->make();
}

std::size_t oldest_ready(std::span<const std::uint64_t> ready) {
  return static_cast<std::size_t>(std::min_element(ready.begin(), ready.end()) - ready.begin());
}

}  // namespace xpusim::core
