// "gto", greedy-then-oldest (Rogers et al., MICRO 2012): the warp that issued last goes again
// while it is ready, else the oldest ready warp. The default: it keeps a warp's locality.
#include "core/warp_scheduler.h"

#include <algorithm>
#include <memory>

namespace xpusim::core {
namespace {

class GreedyThenOldest final : public WarpScheduler {
 public:
  std::size_t pick(std::span<const std::uint64_t> ready, std::uint64_t last,
                   bool has_last) const override {
    if (has_last) {
      const auto it = std::find(ready.begin(), ready.end(), last);
      if (it != ready.end()) return static_cast<std::size_t>(it - ready.begin());
    }
    return oldest_ready(ready);
  }
};

}  // namespace

Status register_warp_scheduler_gto(WarpSchedulerRegistry& r) {
  return r.add(
      {.name = "gto",
       .description =
           "greedy-then-oldest: the last warp again while ready, else the oldest (default)",
       .make = []() -> std::unique_ptr<WarpScheduler> {
         return std::make_unique<GreedyThenOldest>();
       },
       .order = 0});
}

}  // namespace xpusim::core
