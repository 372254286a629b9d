#include "sched/modelled_sms.h"

#include <algorithm>

namespace xpusim::sched {

ModelledSms::ModelledSms(sim::Component& parent, WorkDistributor& cwd, const sim::Clock& clock,
                         const RuntimeModel& model)
    : sim::Component(parent, "sms"),
      cwd_(cwd),
      clock_(clock),
      model_(model),
      cta_cycles_(add_average("cta_cycles", "cycles", "CTA run time, occupancy slowdown included")),
      occupancy_(add_average("occupancy", "fraction", "SM warp occupancy seen by launching CTAs")) {
}

void ModelledSms::start(const CtaLaunch& cta) {
  const SmUsage& used = cwd_.state().usage(cta.sm);
  const double occupancy =
      static_cast<double>(used.warps) / static_cast<double>(cwd_.topology().capacity().warps);
  const std::uint64_t cycles = model_.cycles(model_.base_cycles(rng()), occupancy);
  cta_cycles_.sample(static_cast<double>(cycles));
  occupancy_.sample(occupancy);
  const sim::Tick end = clock_.edge(clock_.cycle_at(now()) + cycles);
  // Units are keyed by grid and index; the distributor starts a unit's CTAs in one step.
  const std::uint64_t key = (std::uint64_t{cta.grid} << 44) | cta.unit;
  Unit& u = units_[key];
  u.end = std::max(u.end, end);
  u.ctas.push_back(cta);
  if (++u.started < cta.ctas_in_unit) return;
  Unit done = std::move(u);
  units_.erase(key);
  events().post(done.end, [this, ctas = std::move(done.ctas)] {
    for (const CtaLaunch& c : ctas)
      cwd_.cta_exited(c);
  });
}

}  // namespace xpusim::sched
