#include "cp/grid_launcher.h"

namespace xpusim::cp {

Status FixedTimeLauncher::launch(const DispatchPacket& kernel, Done done) {
  const auto it = cycles_.find(kernel.kernel_object);
  const std::uint64_t cycles = it == cycles_.end() ? 1 : it->second;
  const sim::Tick start = sim_.now();
  const sim::Tick at = clock_.edge(clock_.cycle_at(start) + cycles);
  sim_.events().post(
      at, [done = std::move(done), start, at] { done({.first_start = start, .completed = at}); });
  return Ok{};
}

}  // namespace xpusim::cp
