// "oldest": always the oldest ready warp (no greed).
#include "core/warp_scheduler.h"

#include <algorithm>
#include <memory>

namespace xpusim::core {
namespace {

class OldestFirst final : public WarpScheduler {
 public:
  std::size_t pick(std::span<const std::uint64_t> ready, std::uint64_t, bool) const override {
    return oldest_ready(ready);
  }
};

}  // namespace

Status register_warp_scheduler_oldest(WarpSchedulerRegistry& r) {
  return r.add(
      {.name = "oldest",
       .description = "the oldest ready warp, always (no greed)",
       .make = []() -> std::unique_ptr<WarpScheduler> { return std::make_unique<OldestFirst>(); },
       .order = 2});
}

}  // namespace xpusim::core
