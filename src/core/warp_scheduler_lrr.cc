// "lrr", loose round-robin: the ready warp next after the last one in launch order, wrapping
// around; spreads issue evenly (more latency hiding, less locality).
#include "core/warp_scheduler.h"

#include <algorithm>
#include <memory>

namespace xpusim::core {
namespace {

class LooseRoundRobin final : public WarpScheduler {
 public:
  std::size_t pick(std::span<const std::uint64_t> ready, std::uint64_t last,
                   bool has_last) const override {
    // The youngest-after-last is the smallest age above `last`; none: wrap to the oldest.
    std::size_t best = ready.size();
    for (std::size_t i = 0; i < ready.size(); ++i) {
      if (has_last && ready[i] <= last) continue;
      if (best == ready.size() || ready[i] < ready[best]) best = i;
    }
    return best == ready.size() ? oldest_ready(ready) : best;
  }
};

}  // namespace

Status register_warp_scheduler_lrr(WarpSchedulerRegistry& r) {
  return r.add(
      {.name = "lrr",
       .description =
           "loose round-robin: the next ready warp after the last in launch order, wrapping",
       .make = []() -> std::unique_ptr<WarpScheduler> {
         return std::make_unique<LooseRoundRobin>();
       },
       .order = 1});
}

}  // namespace xpusim::core
