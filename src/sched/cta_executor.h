// The narrow interface between the work distributor and whatever runs CTAs (issue "work
// distributor"): the distributor calls start() when a CTA's launch reaches its SM, and the
// executor reports the CTA's exit back through WorkDistributor::cta_exited(). Today the
// executor is ModelledSms (a run-time model); the SM model plugs in here later.
#pragma once

#include <cstdint>

#include "sched/rasterizer.h"

namespace xpusim::sched {

struct CtaLaunch {
  std::uint32_t grid = 0;  // index in the distributor's task table
  std::uint64_t unit = 0;  // the launch unit: a CTA (plain grid), GPC_CGA or GPU_CGA
  std::uint32_t ctas_in_unit = 1;
  std::uint64_t cga = 0;  // CgaTracker handle of the CTA's GPC_CGA; 0 for plain grids
  std::uint32_t sm = 0;
  std::uint32_t gpc = 0;
  CtaId id;                // %ctaid
  std::uint32_t rank = 0;  // %cluster_ctarank (cga_cta_id, seed1 ¶228)
};

class CtaExecutor {
 public:
  virtual ~CtaExecutor() = default;
  virtual void start(const CtaLaunch& cta) = 0;
};

}  // namespace xpusim::sched
