// A CtaExecutor without an SM model: each CTA runs for a RuntimeModel duration, stretched by
// its SM's warp occupancy at launch, and every CTA of a launch unit (a cluster, or a GPU_CGA)
// exits together when its slowest CTA is done (seed1 ¶163).
#pragma once

#include <cstdint>
#include <unordered_map>

#include "sched/cta_executor.h"
#include "sched/distributor.h"
#include "sched/runtime_model.h"
#include "sim/component.h"

namespace xpusim::sched {

class ModelledSms : public sim::Component, public CtaExecutor {
 public:
  ModelledSms(sim::Component& parent, WorkDistributor& cwd, const sim::Clock& clock,
              const RuntimeModel& model);
  void start(const CtaLaunch& cta) override;

 private:
  struct Unit {
    std::uint32_t started = 0;
    sim::Tick end = 0;
    std::vector<CtaLaunch> ctas;
  };
  WorkDistributor& cwd_;
  const sim::Clock& clock_;
  RuntimeModel model_;
  std::unordered_map<std::uint64_t, Unit> units_;  // units whose CTAs have not all started
  sim::Average& cta_cycles_;
  sim::Average& occupancy_;
};

}  // namespace xpusim::sched
