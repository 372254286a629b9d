// One launch study end to end: a chip topology, grids, a policy and a run-time model in, the
// figures `xpusim launch` prints and the experiments tabulate out (makespan, clusters resident
// at once, fill time, idle SM-cycles, utilization over time, the placement map).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "sched/distributor.h"
#include "sched/grid.h"
#include "sched/policy.h"
#include "sched/runtime_model.h"
#include "sched/topology.h"
#include "sim/result.h"
#include "sim/simulation.h"

namespace xpusim::sched {

struct LaunchScenario {
  Topology topology;
  std::uint32_t max_cluster_size = 16;
  std::uint64_t clock_hz = 1'830'000'000;
  std::vector<GridSpec> grids;  // all submitted at time 0, launched by priority then order
  std::string policy = "waterfill";
  DecisionCost cost;
  DistributorTiming timing;
  CgaTrackerConfig tracker = default_tracker_config();
  RuntimeModel runtime;
  WaveSampling sampling;  // off unless a tolerance is set (wave_sampler.h)
};

struct LaunchReport {
  bool completed = false;  // every CTA exited before the time limit
  std::string policy;
  std::uint32_t num_sms = 0;
  std::uint64_t makespan_cycles = 0;     // until the last CTA exits (skipped waves included)
  std::uint64_t first_start_cycles = 0;  // launch latency of the first CTA
  std::uint64_t fill_cycles = 0;         // when the running CTAs first reached their peak
  std::uint64_t peak_ctas = 0;
  std::uint64_t max_clusters = 0;  // clusters running at once (clustered grids)
  std::vector<std::uint64_t> max_clusters_per_gpc;
  std::uint64_t decision_cycles = 0;
  std::uint64_t steps = 0;
  std::uint64_t skipped_ctas = 0;     // wave sampling: CTAs not simulated
  std::uint64_t id_stalls = 0;        // launch attempts refused by an empty id pool / counter
  std::uint64_t slot_stalls = 0;      // launch attempts refused by an empty CGA memory-slot pool
  std::uint32_t peak_slots = 0;       // CGA memory slots in use at once (0: pool unlimited)
  std::uint64_t idle_sm_cycles = 0;   // Σ over SMs of cycles with no CTA, from 0 to makespan
  double utilization = 0;             // busy SM-cycles / (SMs × makespan)
  std::vector<ResidencyPoint> curve;  // residency changes, ticks converted to cycles
  std::vector<WorkDistributor::Resident> peak_placement;
};

// The model of one study, built on a Simulation; it must outlive any stats dump of that
// Simulation (its components own the stats).
class LaunchStudy {
 public:
  // Checks every grid, the policy name and the tracker config (all errors, one line each).
  static Result<std::unique_ptr<LaunchStudy>> create(sim::Simulation& sim, const LaunchScenario& s);
  ~LaunchStudy();
  LaunchStudy(const LaunchStudy&) = delete;
  LaunchStudy& operator=(const LaunchStudy&) = delete;

  // Simulates until every CTA has exited or `limit`; `completed` says which. Call once.
  // `run_until(limit)` runs the simulation (the CLI's slices with a progress line); empty:
  // Simulation::run.
  LaunchReport run(sim::Tick limit = sim::kMaxTick,
                   const std::function<sim::StopReason(sim::Tick)>& run_until = {});

  // How far a run has got, for a progress line: SM cycles, CTAs exited of those submitted.
  struct Progress {
    std::uint64_t cycles = 0;
    std::uint64_t ctas_done = 0;
    std::uint64_t ctas_total = 0;
  };
  Progress progress() const;

 private:
  struct Model;
  explicit LaunchStudy(std::unique_ptr<Model> m);
  std::unique_ptr<Model> m_;
};

// create + run on a private Simulation; for experiments and tests.
Result<LaunchReport> run_launch(const LaunchScenario& s, std::uint64_t seed = 1);

}  // namespace xpusim::sched
