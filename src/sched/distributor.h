// The compute work distributor (CWD, seed1 ¶135) as a timed component: a task table of grids,
// a launch policy deciding which SMs get which CTAs, the per-GPC CGA counters and id pools
// with the completion protocol (cga_tracker.h), and the latencies between them. CTAs run on a
// CtaExecutor (cta_executor.h) that reports exits back through cta_exited().
//
// One decision at a time (seed1 ¶194 base embodiment): the CWD takes the highest-priority grid
// with CTAs left (ties: submission order), asks the policy for a step, spends the step's
// decision cycles, then broadcasts the launches. If that grid cannot launch now it tries the
// next grid, so a blocked high-priority grid does not idle the chip (our choice; the patent
// leaves head-of-line behaviour open, digest §6). With nothing launchable it sleeps until a
// CTA exit, a cga_complete or a newly submitted grid changes the picture; it runs for the
// life of the simulation, so grids may arrive at any time (the command processor's launches).
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "sched/cga_tracker.h"
#include "sched/cta_executor.h"
#include "sched/gpu_state.h"
#include "sched/grid.h"
#include "sched/policy.h"
#include "sched/rasterizer.h"
#include "sched/topology.h"
#include "sched/wave_sampler.h"
#include "sim/clock.h"
#include "sim/component.h"
#include "sim/sync.h"
#include "sim/task.h"

namespace xpusim::sched {

// Latencies in SM-clock cycles. The patent gives none (digest §6); these defaults are ours.
struct DistributorTiming {
  std::uint32_t broadcast_cycles = 8;  // CWD → SMs launch packet (sm_mask broadcast, ¶195)
  // Launch packets the CWD can broadcast per cycle. A packet's sm_mask has one bit per SM, so it
  // launches at most one CTA on each SM (¶194–195): a step that gives an SM k CTAs needs k
  // packets. The prior art sends one CTA per packet.
  std::uint32_t packets_per_cycle = 1;
  std::uint32_t cta_launch_cycles = 16;  // at the SM: packet to the CTA's first instruction
  std::uint32_t completion_cycles = 8;   // SM → CWD cta_complete (¶223)
  std::uint32_t flush_cycles = 32;       // DSMEM flush of a finished CGA's CTAs (¶231)
  // How a plain grid's CTAs learn their ids (¶176–190). kDistributed (the patent): the CWD
  // broadcasts sm_mask packets and each SM's SmRasterizer decodes its own ids from the launches
  // it sees (delta counter raster_delta_bits wide). kCentral (the prior art it replaces): the
  // CWD decodes one id per central_decode_cycles and sends each CTA its id_bytes id over the
  // bus_bytes_per_cycle CWD→SM port, one CTA at a time.
  enum class Rasterization : std::uint8_t { kDistributed, kCentral };
  Rasterization rasterization = Rasterization::kDistributed;
  std::uint32_t raster_delta_bits = 8;      // ¶179 "low precision"
  std::uint32_t central_decode_cycles = 1;  // one incrementing decoder in the CWD
  std::uint32_t id_bytes = 8;               // 32b-16b-16b id tuple (¶175)
  std::uint32_t bus_bytes_per_cycle = 32;   // CWD→SM port
};

// Default tracker for the distributor: the 8-bit id field's full pool (¶226) and a counter that
// never binds before SM resources do (32 CTA slots per SM); tests and studies lower them.
inline CgaTrackerConfig default_tracker_config() {
  return {.ids_per_gpc = 256, .max_cgas_per_gpc = 0, .cgas_per_sm = 32};
}

// A residency change: what runs on the chip from `tick` on.
struct ResidencyPoint {
  sim::Tick tick = 0;
  std::uint32_t busy_sms = 0;  // SMs with at least one running CTA
  std::uint64_t running_ctas = 0;
  std::uint64_t running_clusters = 0;  // GPC_CGAs with a running CTA
};

class WorkDistributor : public sim::Component {
 public:
  WorkDistributor(sim::Component& parent, const Topology& topo, std::unique_ptr<Policy> policy,
                  const sim::Clock& clock, const DistributorTiming& timing = {},
                  const CgaTrackerConfig& tracker = default_tracker_config());

  // When one grid started and ended (ticks): what a launcher reports back. With wave sampling
  // these are on the chip's timeline, which runs ahead of the simulation's by the waves skipped
  // so far (timeline_now()).
  struct GridTimes {
    sim::Tick submitted = 0;
    sim::Tick first_start = 0;  // its first CTA's first instruction
    sim::Tick completed = 0;    // the CWD has heard every CTA's cta_complete
  };
  using GridDone = std::function<void(const GridTimes&)>;

  void set_executor(CtaExecutor* executor) { executor_ = executor; }
  // Wave sampling (wave_sampler.h); set before start. Its skipped CTAs compute nothing, so it is
  // for timing-only runs.
  void set_wave_sampling(const WaveSampling& sampling) { sampling_ = sampling; }
  const WaveSampling& wave_sampling() const { return sampling_; }
  // Adds a grid to the task table (validate it with check_grid first); returns its index.
  // `done` runs once the CWD has heard the last of its CTAs exit (the grid-completed half of
  // the narrow launch interface the command processor uses). `policy`: the grid's own
  // placement policy (a per-launch attribute); null: the distributor's.
  std::uint32_t submit(const GridSpec& grid, GridDone done = {},
                       std::unique_ptr<Policy> policy = nullptr);
  // The policy that places grid g.
  const Policy& policy_of(std::uint32_t g) const {
    return grids_[g].policy ? *grids_[g].policy : *policy_;
  }
  // Spawns the CWD process; call once, after submitting the first grids.
  void start();
  // SM → CWD: the CTA has exited (the narrow completion interface).
  void cta_exited(const CtaLaunch& cta);
  // Stops launching grid g (its kernel faulted): its units not yet launched never are, its
  // launched CTAs run on, and its `done` never runs.
  void cancel(std::uint32_t g);

  bool all_done() const { return ctas_exited_ == ctas_total_; }
  // CTAs of every grid submitted so far, and those exited (or skipped by wave sampling).
  std::uint64_t ctas_total() const { return ctas_total_; }
  std::uint64_t ctas_exited() const { return ctas_exited_; }
  const GridTimes& grid_times(std::uint32_t g) const { return grids_[g].times; }
  const GpuState& state() const { return state_; }
  const Topology& topology() const { return state_.topology(); }
  const CgaTracker& tracker() const { return tracker_; }
  const GridSpec& grid(std::uint32_t g) const { return grids_[g].spec; }
  // The most CTAs and GPC_CGAs of grid g resident at one moment.
  struct GridPeak {
    std::uint64_t ctas = 0;
    std::uint64_t clusters = 0;
  };
  GridPeak grid_peak(std::uint32_t g) const {
    return {.ctas = grids_[g].peak_running, .clusters = grids_[g].peak_clusters};
  }
  std::uint32_t grids() const { return static_cast<std::uint32_t>(grids_.size()); }
  // The residency curve, for plots: at most kMaxResidencyPoints. A longer run thins it (every
  // other point dropped, then points closer than the new spacing merged into the last), so
  // host memory does not grow with the CTAs run; the figures below stay exact.
  static constexpr std::size_t kMaxResidencyPoints = std::size_t{1} << 16;
  const std::vector<ResidencyPoint>& residency() const { return residency_; }
  // SM-cycles with a CTA running, from the first residency point to `until_cycle`, exact.
  std::uint64_t busy_sm_cycles(std::uint64_t until_cycle) const;
  // The most CTAs running at one moment (all grids).
  std::uint64_t max_running_ctas() const { return max_ctas_; }
  // Clusters running per GPC now, and the most seen at once (whole chip and per GPC).
  std::uint64_t max_running_clusters() const { return max_clusters_; }
  const std::vector<std::uint64_t>& max_running_clusters_per_gpc() const { return max_per_gpc_; }
  // The running CTAs (grid, unit, sm) when the chip first held max_running_clusters (or, for
  // plain grids, the most CTAs): the placement map.
  struct Resident {
    std::uint32_t grid;
    std::uint64_t unit;
    std::uint32_t sm;
  };
  const std::vector<Resident>& peak_placement() const { return peak_placement_; }
  // The waves skipped so far, in ticks: the chip's timeline is the simulation's plus these.
  sim::Tick skipped_ticks() const { return skipped_ticks_; }
  std::uint64_t skipped_ctas() const { return ctas_skipped_.value(); }
  sim::Tick timeline_now() const { return now() + skipped_ticks_; }
  sim::Tick first_start() const { return first_start_; }
  sim::Tick last_exit() const { return last_exit_; }
  sim::Tick fill_tick() const { return fill_tick_; }  // when the running CTAs first peaked
  std::uint64_t decision_cycles() const { return decision_cycles_.value(); }
  std::uint64_t steps() const { return steps_.value(); }

 private:
  struct Grid {
    GridSpec spec;
    CtaFootprint footprint;
    std::uint64_t units_left = 0;  // launch units not yet launched
    std::uint64_t next_unit = 0;   // index of the next unit in launch order
    std::uint64_t ctas_left = 0;   // CTAs whose cta_complete has not arrived
    GridTimes times;
    GridDone done;
    std::unique_ptr<Policy> policy;                 // null: the distributor's
    std::uint64_t running = 0, peak_running = 0;    // CTAs resident now, and the most at once
    std::uint64_t clusters = 0, peak_clusters = 0;  // its GPC_CGAs with a CTA resident
    std::uint64_t activity = 0;                     // its CTA starts and exits
    WaveSampler waves;
    sim::StatsSnapshot wave_stats;  // the stats when its last wave ended (wave sampling)
    // kDistributed, plain grids: each SM's rasterizer (made when the SM first takes a CTA of
    // the grid: it is told the offset, digest §3.8) and the launch units it has accounted for.
    std::vector<std::optional<SmRasterizer>> rasterizers;
    std::vector<std::uint64_t> units_seen;
  };
  sim::Task<> run();
  // Tries each grid in priority order; returns true when one launched something.
  sim::Task<bool> try_launch();
  // Which launch packet of a step carries each CTA: the k-th CTA a step sends to an SM rides in
  // packet k (one sm_mask bit per SM, ¶195), or every CTA in its own packet.
  class Packets {
   public:
    Packets(std::uint32_t sms, bool one_cta_each) : per_sm_(sms), one_each_(one_cta_each) {}
    std::uint32_t next(std::uint32_t sm) {
      const std::uint32_t k = one_each_ ? serial_++ : per_sm_[sm]++;
      count_ = std::max(count_, k + 1);
      return k;
    }
    std::uint32_t count() const { return count_; }

   private:
    std::vector<std::uint32_t> per_sm_;
    bool one_each_;
    std::uint32_t serial_ = 0, count_ = 0;
  };
  void launch(std::uint32_t g, const CgaPlacement& p, Packets& packets, std::uint64_t first_cycle);
  // The id of plain grid g's launch unit `unit`, decoded where the rasterization happens.
  CtaId rasterize(std::uint32_t g, std::uint32_t sm, std::uint64_t unit);
  bool central() const {
    return timing_.rasterization == DistributorTiming::Rasterization::kCentral;
  }
  // Bus cycles one CTA's id takes under central rasterization: its decode or its bytes.
  std::uint64_t central_slot_cycles() const {
    return std::max<std::uint64_t>(
        timing_.central_decode_cycles,
        (timing_.id_bytes + timing_.bus_bytes_per_cycle - 1) / timing_.bus_bytes_per_cycle);
  }
  void started(const CtaLaunch& cta);
  void exited(const CtaLaunch& cta);
  void cga_exit(std::uint64_t cga, std::uint32_t ctas);
  // At a CTA exit of grid g: ends a wave, and skips waves once three agree (wave_sampler.h).
  void sample(std::uint32_t g);
  void record();
  void thin_residency();
  void snapshot_peak();
  std::vector<std::uint32_t> budgets() const;

  const sim::Clock& clock_;
  DistributorTiming timing_;
  std::unique_ptr<Policy> policy_;
  GpuState state_;
  CgaTracker tracker_;
  CtaExecutor* executor_ = nullptr;
  std::vector<Grid> grids_;
  sim::Signal changed_;           // a CTA exit or cga_complete freed something
  std::uint64_t generation_ = 0;  // bumped with changed_, so a change during a decision counts
  bool started_ = false;
  std::uint64_t broadcast_free_ = 0;  // first cycle the broadcast bus is free

  std::uint64_t ctas_total_ = 0, ctas_exited_ = 0;
  WaveSampling sampling_;
  sim::Tick skipped_ticks_ = 0;
  std::uint64_t activity_ = 0;                        // CTA starts and exits of every grid
  std::vector<std::vector<Resident>> running_on_sm_;  // what runs on each SM
  std::unordered_map<std::uint64_t, std::uint32_t> unit_running_;  // GPC_CGA → running CTAs
  std::vector<std::uint64_t> clusters_per_gpc_, max_per_gpc_;
  std::uint64_t running_ctas_ = 0, running_clusters_ = 0, busy_sms_ = 0;
  std::uint64_t max_clusters_ = 0, max_ctas_ = 0;
  std::vector<ResidencyPoint> residency_;
  sim::Tick residency_spacing_ = 0;   // a thinned curve's least gap between points
  ResidencyPoint busy_from_{};        // the state since the last change
  std::uint64_t busy_sm_cycles_ = 0;  // integrated up to busy_from_.tick
  std::vector<Resident> peak_placement_;
  sim::Tick first_start_ = sim::kMaxTick, last_exit_ = 0, fill_tick_ = 0;

  sim::Counter& steps_;
  sim::Counter& failed_steps_;
  sim::Counter& decision_cycles_;
  sim::Counter& ctas_launched_;
  sim::Counter& ctas_cancelled_;
  sim::Counter& broadcast_cycles_;
  sim::Counter& raster_decodes_;
  sim::Counter& raster_overflow_decodes_;
  sim::Counter& units_launched_;
  sim::Counter& cga_completions_;
  sim::Counter& slot_stalls_;
  sim::Scalar& slots_peak_;
  sim::Counter& sleeps_;
  sim::Counter& packets_;
  sim::Average& speed_;
  sim::Counter& waves_skipped_;
  sim::Counter& ctas_skipped_;
  sim::Counter& cycles_skipped_;
  sim::Scalar& wave_period_;
  sim::Scalar& wave_check_;
  sim::Scalar& waves_seen_;
  // The residency over simulated time in fixed memory, for the report's plots.
  sim::BoundedSeries& busy_series_;
  sim::BoundedSeries& ctas_series_;
  sim::Tick series_since_ = 0;  // the series hold the levels up to here
};

}  // namespace xpusim::sched
