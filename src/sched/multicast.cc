#include "sched/multicast.h"

#include <algorithm>
#include <limits>

#include "sim/result.h"

namespace xpusim::sched {

Fill multicast_fill(std::span<const std::uint32_t> free, std::uint32_t sms_per_tpc,
                    std::uint32_t n) {
  XPUSIM_CHECK(sms_per_tpc > 0, "a TPC holds at least one SM");
  Fill r;
  r.per_sm.assign(free.size(), 0);

  // Class 0: SMs of TPCs whose every SM can take a CTA; class 1: the rest of the eligible SMs
  // (¶214: "partitions where both SMs can take a CTA" first).
  struct Candidate {
    std::uint32_t cls, free, index;
  };
  std::vector<Candidate> order;
  for (std::size_t tpc = 0; tpc * sms_per_tpc < free.size(); ++tpc) {
    const std::size_t first = tpc * sms_per_tpc;
    const std::size_t last = std::min(free.size(), first + sms_per_tpc);
    const bool whole = std::all_of(free.begin() + static_cast<std::ptrdiff_t>(first),
                                   free.begin() + static_cast<std::ptrdiff_t>(last),
                                   [](std::uint32_t f) { return f >= 1; });
    for (std::size_t i = first; i < last; ++i)
      if (free[i] >= 1) order.push_back({whole ? 0u : 1u, free[i], static_cast<std::uint32_t>(i)});
  }
  if (order.size() < n) return r;  // digest §5.6: fewer eligible SMs than CTAs → FAIL

  // Within a class the order is unspecified (digest §6); most free first keeps the balance of
  // ¶139, then SM priority (lower index) as in ¶157.
  std::sort(order.begin(), order.end(), [](const Candidate& a, const Candidate& b) {
    if (a.cls != b.cls) return a.cls < b.cls;
    if (a.free != b.free) return a.free > b.free;
    return a.index < b.index;
  });
  r.ok = true;
  r.speed = n == 0 ? 0 : std::numeric_limits<std::uint32_t>::max();
  for (std::uint32_t k = 0; k < n; ++k) {
    r.per_sm[order[k].index] = 1;
    r.speed = std::min(r.speed, order[k].free - 1);  // ¶167
  }
  return r;
}

}  // namespace xpusim::sched
