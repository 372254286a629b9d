#include "system/run.h"

#include <fmt/format.h>

#include <utility>

namespace xpusim::system {

ChipOptions chip_options(const Scenario& s, const config::ChipSpec& spec, bool memory_thread) {
  return ChipOptions{.functional = s.mode == RunMode::kFunctional,
                     .policy = s.policy,
                     .scheduler = s.sm_scheduler,
                     .timing = scenario_sm_timing(s, sm_timing_of(spec)),
                     .distributor = {},
                     .max_touched_bytes = mem::GlobalMemory::kDefaultMaxTouchedBytes,
                     .memory_timing = s.memory_timing,
                     .set_sampling = s.set_sampling,
                     .wave_sampling = {.tolerance = s.wave_sampling / 100},
                     .memory_thread = memory_thread,
                     .queues = s.queues,
                     .cp_timing = scenario_cp_timing(s, agent_timing_of(spec))};
}

Result<std::unique_ptr<Run>> Run::resolve(const Scenario& s, Registrar registrar) {
  std::unique_ptr<Run> run(new Run(s));
  // A registrar error is a bug in the registered code, not the user's input; it still comes
  // back as an error rather than a crash.
  if (auto st = registrar(run->kernels_, run->workloads_); !st) return st.errors();
  auto resolved = resolve_scenario(run->s_, run->kernels_, run->workloads_);
  if (!resolved) return resolved.errors();
  run->resolved_ = std::move(resolved).value();
  return run;
}

Status Run::build(sim::Simulation& sim, const config::ChipSpec& spec, const RunOptions& o) {
  XPUSIM_CHECK(chip_ == nullptr, "a run is built once");
  sim_ = &sim;
  auto chip = Chip::create(sim, spec, chip_options(s_, spec, o.memory_thread));
  if (!chip) return chip.errors();
  chip_ = std::move(chip).value();
  auto ids = setup_scenario(s_, resolved_, *chip_, kernels_, o.seed);
  if (!ids) return ids.errors();
  launch_ids_ = std::move(ids).value();
  return Ok{};
}

Result<std::unique_ptr<Run>> Run::create(sim::Simulation& sim, const Scenario& s,
                                         const config::ChipSpec& spec, Registrar registrar,
                                         const RunOptions& o) {
  auto run = resolve(s, registrar);
  if (!run) return run.errors();
  if (auto st = (*run)->build(sim, spec, o); !st) return st.errors();
  return std::move(run).value();
}

sim::StopReason Run::simulate(sim::Tick limit) {
  return sim_->run(limit);
}

void Run::check_results(RunReport& r) {
  Chip& chip = *chip_;
  if (s_.is_workload()) {
    auto ms = resolved_.workload->report(chip);
    if (!ms) {
      for (const Error& e : ms.errors())
        r.errors.push_back({fmt::format("{}: verification failed: {}", s_.workload, e.message)});
      return;
    }
    r.measurements = std::move(ms).value();
    r.results.emplace_back(s_.mode == RunMode::kFunctional ? "verified"
                                                           : "not checked (timing-only)");
    return;
  }
  if (s_.mode == RunMode::kTimingOnly) {
    r.results.emplace_back("not checked (timing-only)");
    return;
  }
  // One kernel, or each node of a graph, against its kernel's host reference.
  const std::size_t n = s_.is_graph() ? s_.graph.size() : 1;
  for (std::size_t i = 0; i < n; ++i) {
    const KernelRun& k = chip.run(launch_ids_[i]);
    const std::string label =
        s_.is_graph() ? fmt::format("{} ({})", s_.graph[i].name, k.kernel->name) : k.kernel->name;
    if (k.kernel->check == nullptr) {
      r.results.push_back(s_.is_graph()
                              ? fmt::format("{}: not checked (no reference)", label)
                              : fmt::format("not checked (kernel {} has no reference)", label));
      continue;
    }
    const auto v = k.kernel->check(chip.memory(), k.args, k.params);
    if (!v) {
      for (const Error& e : v.errors())
        r.errors.push_back({fmt::format("{}: verification failed: {}", label, e.message)});
      continue;
    }
    r.results.push_back(s_.is_graph() ? fmt::format("{}: verified: {}", label, *v)
                                      : fmt::format("verified: {}", *v));
  }
}

RunReport Run::report(sim::StopReason stop) {
  Chip& chip = *chip_;
  chip.memory_system().settle();  // a run cut short counts the fills back too
  RunReport r;
  r.stop = stop;
  // The chip's timeline: with wave sampling, the skipped waves' time too.
  r.cycles = chip.clock().cycle_at(sim_->now() + chip.distributor().skipped_ticks());
  if (auto fault = chip.fault()) {
    r.errors.push_back({fmt::format("fault: {}", fault->message)});
  } else if (!chip.all_done() && stop == sim::StopReason::kTickLimit) {
    r.cut_short = true;
    r.errors.push_back(
        {fmt::format("the simulation stopped at cycle {} before every launch finished", r.cycles)});
  } else if (!chip.all_done() && !chip.queue_errors().empty()) {
    for (const std::string& e : chip.queue_errors())
      r.errors.push_back({fmt::format("queue error: {}", e)});
  } else if (!chip.all_done()) {
    r.hang = chip.hang_report();
    r.errors.push_back({fmt::format(
        "hang: nothing left to simulate at cycle {} but launches did not complete; {} warp{} "
        "wait{} forever",
        r.cycles, r.hang.size(), r.hang.size() == 1 ? "" : "s", r.hang.size() == 1 ? "s" : "")});
  } else {
    r.completed = true;
    check_results(r);
    // TMA requests dropped at setup (seed0 ¶88) in a run that still completed: bad input too.
    for (const std::string& e : chip.tma_errors())
      r.errors.push_back({fmt::format("tma: {}", e)});
  }
  return r;
}

Result<RunReport> run(const Scenario& s, const config::ChipSpec& spec, Registrar registrar,
                      const RunOptions& o) {
  sim::Simulation sim{o.seed};
  auto r = Run::create(sim, s, spec, registrar, o);
  if (!r) return r.errors();
  return (*r)->report((*r)->simulate());
}

}  // namespace xpusim::system
