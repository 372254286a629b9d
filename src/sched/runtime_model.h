// How long a CTA runs when no SM model is attached: the work distributor studied on its own
// (issue "work distributor"). A CTA's duration is a base time (fixed, or drawn from a seeded
// uniform range) stretched by the occupancy of its SM at launch: with `slowdown` s and the SM
// holding a fraction u of its warp slots after the launch, duration = base × (1 + s·u). That
// is the premise of seed1 ¶139/¶163 (more free slots = a faster CTA); a cluster finishes with
// its slowest CTA (¶163), which the executor (modelled_sms.h) applies.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "sim/result.h"
#include "sim/rng.h"

namespace xpusim::sched {

struct RuntimeModel {
  std::uint64_t min_cycles = 10000;  // base duration range; min == max means fixed
  std::uint64_t max_cycles = 10000;
  double slowdown = 0.0;  // s ≥ 0: a full SM runs a CTA (1 + s) times slower than an empty one

  bool fixed() const { return min_cycles == max_cycles; }
  // Base duration of one CTA, drawn from `rng` (no draw when fixed).
  std::uint64_t base_cycles(sim::Rng& rng) const;
  // Duration of a CTA launched on an SM whose warp occupancy after the launch is `occupancy`.
  std::uint64_t cycles(std::uint64_t base, double occupancy) const;
  std::string describe() const;
};

// Parses the --runtime-model flag: "fixed:CYCLES" or "uniform:MIN-MAX", optionally followed by
// ",slowdown=S", e.g. "uniform:5000-15000,slowdown=0.5". Errors name the flag, the value and
// the rule.
Result<RuntimeModel> parse_runtime_model(std::string_view text);

}  // namespace xpusim::sched
