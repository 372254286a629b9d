#include "sched/launch_run.h"

#include <fmt/format.h>

#include "sched/modelled_sms.h"
#include "sim/clock.h"
#include "sim/component.h"

namespace xpusim::sched {

namespace {

std::vector<std::uint32_t> gpc_sizes(const Topology& t) {
  std::vector<std::uint32_t> out(t.num_gpcs());
  for (std::uint32_t g = 0; g < t.num_gpcs(); ++g)
    out[g] = t.sms_in_gpc(g);
  return out;
}

}  // namespace

struct LaunchStudy::Model {
  Model(sim::Simulation& sim, const LaunchScenario& s, std::unique_ptr<Policy> policy)
      : scenario(s),
        clock(sim.events(), s.clock_hz),
        chip(sim, "chip0"),
        cwd(chip, s.topology, std::move(policy), clock, s.timing, s.tracker),
        sms(chip, cwd, clock, s.runtime) {
    cwd.set_executor(&sms);
    cwd.set_wave_sampling(s.sampling);
  }
  LaunchScenario scenario;
  sim::Clock clock;
  sim::Component chip;
  WorkDistributor cwd;
  ModelledSms sms;
  bool ran = false;
};

LaunchStudy::LaunchStudy(std::unique_ptr<Model> m) : m_(std::move(m)) {}
// A time-limited run can leave the CWD process waiting on the distributor's signal: end it
// before the distributor goes.
LaunchStudy::~LaunchStudy() {
  m_->cwd.sim().shutdown();
}

Result<std::unique_ptr<LaunchStudy>> LaunchStudy::create(sim::Simulation& sim,
                                                         const LaunchScenario& s) {
  std::vector<Error> errors;
  if (s.grids.empty()) errors.push_back({"launch: no grid to launch"});
  for (std::size_t i = 0; i < s.grids.size(); ++i) {
    Status st = check_grid(s.topology, s.grids[i], s.max_cluster_size);
    if (st) st = check_memory_slots(s.grids[i], s.tracker.memory_slots);
    if (!st) {
      for (const Error& e : st.errors()) {
        errors.push_back(
            {s.grids.size() == 1 ? e.message : fmt::format("grid {}: {}", i, e.message)});
      }
    }
  }
  auto policy = make_policy(s.policy, s.cost);
  if (!policy) errors.insert(errors.end(), policy.errors().begin(), policy.errors().end());
  if (!(s.sampling.tolerance >= 0 && s.sampling.tolerance <= kMaxWaveSamplingTolerance)) {
    errors.push_back({fmt::format("launch: wave sampling {}%: must be 0 (off) to {}%",
                                  s.sampling.tolerance * 100, kMaxWaveSamplingTolerance * 100)});
  }
  if (auto st = CgaTracker::check(gpc_sizes(s.topology), s.tracker); !st) {
    errors.insert(errors.end(), st.errors().begin(), st.errors().end());
  }
  if (!errors.empty()) return errors;
  return std::unique_ptr<LaunchStudy>(
      new LaunchStudy(std::make_unique<Model>(sim, s, std::move(policy).value())));
}

LaunchStudy::Progress LaunchStudy::progress() const {
  return {.cycles = m_->clock.cycle_at(m_->cwd.now()),
          .ctas_done = m_->cwd.ctas_exited(),
          .ctas_total = m_->cwd.ctas_total()};
}

LaunchReport LaunchStudy::run(sim::Tick limit,
                              const std::function<sim::StopReason(sim::Tick)>& run_until) {
  XPUSIM_CHECK(!m_->ran, "LaunchStudy::run called twice");
  m_->ran = true;
  WorkDistributor& cwd = m_->cwd;
  const sim::Clock& clock = m_->clock;
  for (const GridSpec& g : m_->scenario.grids)
    cwd.submit(g);
  cwd.start();
  if (run_until) {
    run_until(limit);
  } else {
    cwd.sim().run(limit);
  }

  const auto cycles = [&](sim::Tick t) { return clock.cycle_at(t); };
  LaunchReport r;
  r.completed = cwd.all_done();
  r.policy = m_->scenario.policy;
  r.num_sms = cwd.topology().num_sms();
  r.makespan_cycles = cycles(r.completed ? cwd.last_exit() : cwd.now());
  r.first_start_cycles = cwd.first_start() == sim::kMaxTick ? 0 : cycles(cwd.first_start());
  r.fill_cycles = cycles(cwd.fill_tick());
  r.max_clusters = cwd.max_running_clusters();
  r.max_clusters_per_gpc = cwd.max_running_clusters_per_gpc();
  r.decision_cycles = cwd.decision_cycles();
  r.steps = cwd.steps();
  r.skipped_ctas = cwd.skipped_ctas();
  r.id_stalls = cwd.tracker().stalls();
  r.slot_stalls = cwd.tracker().slot_stalls();
  r.peak_slots = cwd.tracker().peak_slots();
  r.peak_placement = cwd.peak_placement();
  r.peak_ctas = cwd.max_running_ctas();
  const auto busy = static_cast<double>(cwd.busy_sm_cycles(r.makespan_cycles));
  for (ResidencyPoint p : cwd.residency()) {
    p.tick = std::min(cycles(p.tick), r.makespan_cycles);
    r.curve.push_back(p);
  }
  const double total = static_cast<double>(r.num_sms) * static_cast<double>(r.makespan_cycles);
  r.idle_sm_cycles = static_cast<std::uint64_t>(total - busy);
  r.utilization = total > 0 ? busy / total : 0;
  return r;
}

Result<LaunchReport> run_launch(const LaunchScenario& s, std::uint64_t seed) {
  sim::Simulation sim(seed);
  auto study = LaunchStudy::create(sim, s);
  if (!study) return study.errors();
  return (*study)->run();
}

}  // namespace xpusim::sched
