#include "core/warp_scheduler.h"

#include <fmt/format.h>

#include <algorithm>

#include "sim/suggest.h"

namespace xpusim::core {
namespace {

std::size_t oldest(std::span<const std::uint64_t> ready) {
  return static_cast<std::size_t>(std::min_element(ready.begin(), ready.end()) - ready.begin());
}

class GreedyThenOldest final : public WarpScheduler {
 public:
  std::size_t pick(std::span<const std::uint64_t> ready, std::uint64_t last,
                   bool has_last) const override {
    if (has_last) {
      const auto it = std::find(ready.begin(), ready.end(), last);
      if (it != ready.end()) return static_cast<std::size_t>(it - ready.begin());
    }
    return oldest(ready);
  }
};

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
    return best == ready.size() ? oldest(ready) : best;
  }
};

class OldestFirst final : public WarpScheduler {
 public:
  std::size_t pick(std::span<const std::uint64_t> ready, std::uint64_t, bool) const override {
    return oldest(ready);
  }
};

}  // namespace

std::vector<std::string> warp_scheduler_names() {
  return {"gto", "lrr", "oldest"};
}

std::shared_ptr<const WarpScheduler> default_scheduler() {
  return std::make_shared<const GreedyThenOldest>();
}

Result<std::unique_ptr<WarpScheduler>> make_warp_scheduler(std::string_view name) {
  if (name == "gto") return std::unique_ptr<WarpScheduler>(new GreedyThenOldest);
  if (name == "lrr") return std::unique_ptr<WarpScheduler>(new LooseRoundRobin);
  if (name == "oldest") return std::unique_ptr<WarpScheduler>(new OldestFirst);
  const std::vector<std::string> all = warp_scheduler_names();
  return Error{fmt::format("warp scheduler '{}' is unknown{}; schedulers: {}", name,
                           sim::did_you_mean(name, all), fmt::join(all, ", "))};
}

}  // namespace xpusim::core
