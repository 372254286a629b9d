// multi_cast distribution inside one GPC (seed1 ¶142, ¶214, claim 11): at most one CTA of a
// cluster per SM, so the cluster can share TMA multicast loads (¶215).
#pragma once

#include <cstdint>
#include <span>

#include "sched/waterfill.h"

namespace xpusim::sched {

// ≤1 CTA per SM; SMs of TPCs where every SM is eligible (free ≥ 1) first, then TPCs with some
// eligible; within a class most-free first, then priority (lower index). sms_per_tpc groups
// consecutive candidates. FAIL if fewer eligible SMs than n. probes is 0 (a sort, no level search).
Fill multicast_fill(std::span<const std::uint32_t> free, std::uint32_t sms_per_tpc,
                    std::uint32_t n);

}  // namespace xpusim::sched
