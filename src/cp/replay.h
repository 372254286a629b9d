// The launch-overhead experiment of seed3 (digest §5 item 11): a Kripke-like loop of six
// dependent kernels (LTimes, Scattering, Source, LPlusTimes, Sweep, Population, ¶66) run for N
// iterations, with standard dispatch packets or with reference packets once and then one
// condensed packet per iteration. The host writes each iteration's packets (enqueue_cycles
// each), rings the doorbell once, and waits for the last kernel's completion signal (the loop
// continues on the previous iteration's convergence, ¶66).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cp/kernel_agent.h"
#include "sim/result.h"
#include "sim/simulation.h"

namespace xpusim::cp {

enum class ReplayMode : std::uint8_t { kStandard, kCondensed };

// Builds the launcher kernels run on, timed by `clock`; `root` is the host's component (the
// launcher may hang its own root on root.sim(), e.g. the chip: system/chip_launcher.h). Errors
// abort the study's creation.
using LauncherFactory = std::function<Result<std::unique_ptr<GridLauncher>>(
    sim::Component& root, const sim::Clock& clock)>;

struct ReplayConfig {
  ReplayMode mode = ReplayMode::kCondensed;
  std::uint32_t iterations = 100;
  // Without a launcher factory every kernel runs kernel_cycles (FixedTimeLauncher).
  LauncherFactory launcher;
  std::uint64_t kernel_cycles = 2000;
  std::uint32_t enqueue_cycles = 50;  // host time to write one packet (E); our assumption
  AgentTiming timing;
  std::uint64_t clock_hz = 1'830'000'000;
};

struct ReplayResult {
  std::uint64_t total_cycles = 0;
  std::uint64_t packets = 0;
  std::uint64_t bytes_fetched = 0;
  std::uint64_t kernels = 0;
  std::uint64_t overhead_cycles = 0;  // the agent's: doorbell, fetch, decode, setup, diff, cleanup
  std::uint64_t execution_cycles = 0;
  std::uint64_t host_cycles = 0;  // enqueue time
  // The digest §3 timing formula's prediction, with Σ X_k the measured execution time (launch
  // to completion; kernel_cycles each on the fixed-time launcher).
  std::uint64_t formula_cycles = 0;
  std::vector<KernelSummary> per_kernel;
  double overhead_share() const {
    const double o = static_cast<double>(total_cycles - execution_cycles);
    return total_cycles == 0 ? 0 : o / static_cast<double>(total_cycles);
  }
};

std::string_view name(ReplayMode m);
Result<ReplayMode> parse_replay_mode(std::string_view text);

// The model of one run on a Simulation; it must outlive any stats dump of it.
class ReplayStudy {
 public:
  // Errors: iterations 0, kernel_cycles 0.
  static Result<std::unique_ptr<ReplayStudy>> create(sim::Simulation& sim, const ReplayConfig& cfg);
  ~ReplayStudy();
  ReplayStudy(const ReplayStudy&) = delete;
  ReplayStudy& operator=(const ReplayStudy&) = delete;
  // Runs until the last iteration completes or `limit`; `completed` says which.
  // `run_until(limit)` runs the simulation (the CLI's slices with a progress line); empty:
  // Simulation::run.
  ReplayResult run(sim::Tick limit = sim::kMaxTick, bool* completed = nullptr,
                   const std::function<sim::StopReason(sim::Tick)>& run_until = {});

  // How far a run has got, for a progress line: cycles, iterations completed of those asked.
  struct Progress {
    std::uint64_t cycles = 0;
    std::uint32_t iterations_done = 0;
    std::uint32_t iterations = 0;
  };
  Progress progress() const;

 private:
  struct Model;
  explicit ReplayStudy(std::unique_ptr<Model> m);
  std::unique_ptr<Model> m_;
};

// create + run on a private Simulation.
Result<ReplayResult> run_replay(const ReplayConfig& cfg);

}  // namespace xpusim::cp
