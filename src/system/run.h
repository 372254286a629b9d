// system::Run: the builder of one scenario run (docs/run.md). It resolves the scenario's names
// in registries it owns (filled by the caller's registrar, e.g. workloads::register_all: the
// system layer knows no concrete workload), assembles the chip the scenario and the chip spec
// describe — host → AQL queues in simulated memory → kernel agents (standard or condensed
// packets, seed3) → work distributor (seed1) → SMs (warps, mm, TMA) → L1/L2/HBM — sets it up
// (buffers filled, the workload's or kernels' launches queued through the command processor),
// runs it and reports: the outcome, each kernel's result check, the workload's measurements.
// The CLI (`xpusim run`), the tests and the benchmarks build their chips through it.
//
//   auto run = system::Run::create(sim, scenario, spec, workloads::register_all).value();
//   const system::RunReport r = run->report(run->simulate());
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "config/chip_spec.h"
#include "kernel/registry.h"
#include "sim/result.h"
#include "sim/simulation.h"
#include "system/chip.h"
#include "system/graph_host.h"
#include "system/scenario.h"
#include "system/workload.h"

namespace xpusim::system {

// Fills the registries a run resolves its names in (workloads::register_all).
using Registrar = Status (*)(kernel::KernelRegistry& kernels, WorkloadRegistry& workloads);

// What a run needs beyond the scenario.
struct RunOptions {
  std::uint64_t seed = 1;                       // random32 buffer fills
  bool memory_thread = false;                   // ChipOptions::memory_thread
  kernel::LineProfile* line_profile = nullptr;  // ChipOptions::line_profile
};

// The chip options a scenario asks for on `spec`: mode, policy, warp scheduler, SM timing and
// command-processor costs over the chip config's, memory timing, sampling, queues.
ChipOptions chip_options(const Scenario& s, const config::ChipSpec& spec,
                         bool memory_thread = false);

// How a run ended, after the simulation stopped.
struct RunReport {
  sim::StopReason stop = sim::StopReason::kDrained;
  std::uint64_t cycles = 0;  // SM cycles simulated
  // Every launch finished without a fault.
  bool completed = false;
  // The simulation reached the caller's time limit before every launch finished.
  bool cut_short = false;
  // The "result" lines: "verified: ...", "stream_fill (fill): verified: ...", "not checked ...".
  // A run where a queue failed still checks the kernels that completed.
  std::vector<std::string> results;
  // The workload's; in a graph each workload entry's, named "ENTRY: measurement".
  std::vector<Measurement> measurements;
  // One line each: each kernel fault (its queue is then in the HSA error state), queue errors
  // (bad packets, a barrier on a failed kernel), the time limit, a hang, verification failures,
  // TMA requests dropped at setup.
  std::vector<Error> errors;
  std::vector<std::string> hang;  // one line per parked warp, when launches never completed
  // One line per `outputs:` file: "FILE: buffer NAME, N bytes" when written; when the run
  // failed (any error above), none is written and each line says so.
  std::vector<std::string> outputs;
  bool ok() const { return errors.empty(); }
};

class Run {
 public:
  // Resolves `s` (one run: scenario_runs), builds the chip on `sim` and sets it up. Errors, all
  // located in the scenario, before anything is simulated: unknown names, parameters or
  // arguments, a chip option the chip rejects, buffers that do not fit or whose file cannot be
  // read, an output file that cannot be created, a rejected launch, a workload's setup error.
  static Result<std::unique_ptr<Run>> create(sim::Simulation& sim, const Scenario& s,
                                             const config::ChipSpec& spec, Registrar registrar,
                                             const RunOptions& o = {});
  // The same in two steps, so that a caller with several runs finds every run's bad names
  // before it opens any output file: resolve needs no chip, build does the rest.
  static Result<std::unique_ptr<Run>> resolve(const Scenario& s, Registrar registrar);
  Status build(sim::Simulation& sim, const config::ChipSpec& spec, const RunOptions& o = {});

  const Scenario& scenario() const { return s_; }
  const ResolvedScenario& resolved() const { return resolved_; }
  // After build:
  Chip& chip() { return *chip_; }
  sim::Simulation& sim() { return *sim_; }

  // Runs the simulation up to `limit` (callers may run sim() themselves, e.g. in slices).
  sim::StopReason simulate(sim::Tick limit = sim::kMaxTick);
  // After the simulation stopped (`stop`: how): the outcome, the checks, the measurements, and
  // the scenario's outputs written when there was no error (a write error is one more error).
  // Call once: a workload's report may read its state only once.
  RunReport report(sim::StopReason stop);

 private:
  explicit Run(const Scenario& s) : s_(s) {}
  void check_results(RunReport& r);
  void check_graph(RunReport& r);

  sim::Simulation* sim_ = nullptr;
  Scenario s_;
  kernel::KernelRegistry kernels_;
  WorkloadRegistry workloads_;
  ResolvedScenario resolved_;
  std::unique_ptr<Chip> chip_;
  std::vector<std::uint32_t> launch_ids_;  // the chip's id of the kernel / the workload's
  // A graph: each workload entry's own registry (one workload instance per entry: a workload
  // keeps state between setup and report), and the host program issuing the entries.
  std::vector<std::unique_ptr<kernel::KernelRegistry>> entry_kernels_;
  std::vector<std::unique_ptr<WorkloadRegistry>> entry_workloads_;
  std::vector<Workload*> entry_workload_;
  std::unique_ptr<GraphHost> graph_;
};

// The whole run in one call, on a fresh simulation seeded with o.seed: create, simulate to
// completion, report.
Result<RunReport> run(const Scenario& s, const config::ChipSpec& spec, Registrar registrar,
                      const RunOptions& o = {});

}  // namespace xpusim::system
