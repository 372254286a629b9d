#include "sched/distributor.h"

#include <algorithm>
#include <numeric>

namespace xpusim::sched {

namespace {

GridDims dims(const Dim3& d) {
  return {.x = d.x, .y = d.y, .z = d.z};
}

std::vector<std::uint32_t> sms_per_gpc(const Topology& t) {
  std::vector<std::uint32_t> out(t.num_gpcs());
  for (std::uint32_t g = 0; g < t.num_gpcs(); ++g)
    out[g] = t.sms_in_gpc(g);
  return out;
}

}  // namespace

WorkDistributor::WorkDistributor(sim::Component& parent, const Topology& topo,
                                 std::unique_ptr<Policy> policy, const sim::Clock& clock,
                                 const DistributorTiming& timing, const CgaTrackerConfig& tracker)
    : sim::Component(parent, "cwd"),
      clock_(clock),
      timing_(timing),
      policy_(std::move(policy)),
      state_(topo),
      tracker_(sms_per_gpc(topo), tracker),
      changed_(events()),
      running_on_sm_(topo.num_sms()),
      clusters_per_gpc_(topo.num_gpcs()),
      max_per_gpc_(topo.num_gpcs()),
      steps_(add_counter("steps", "decisions", "policy steps taken (launching or not)")),
      failed_steps_(add_counter("failed_steps", "decisions", "steps that launched nothing")),
      decision_cycles_(add_counter("decision_cycles", "cycles", "cycles spent deciding")),
      ctas_launched_(add_counter("ctas_launched", "CTAs", "CTAs launched")),
      ctas_cancelled_(add_counter("ctas_cancelled", "CTAs",
                                  "CTAs never launched because their kernel faulted")),
      broadcast_cycles_(add_counter("broadcast_cycles", "cycles",
                                    "cycles the CWD->SM launch bus was busy (packets or ids)")),
      raster_decodes_(add_counter("raster_decodes", "decodes",
                                  "CTA-id decodes by the SMs' rasterizers (distributed, ¶179)")),
      raster_overflow_decodes_(add_counter("raster_overflow_decodes", "decodes",
                                           "of which forced by a full delta counter")),
      units_launched_(add_counter("units_launched", "units",
                                  "launch units: CTAs of plain grids, clusters of clustered ones")),
      cga_completions_(add_counter("cga_completions", "CGAs", "cga_complete messages received")),
      slot_stalls_(add_counter("cga_slot_stalls", "attempts",
                               "launch attempts that found no free CGA memory slot (¶222; "
                               "cga_memory_slots)")),
      slots_peak_(add_scalar("cga_slots_peak", "slots",
                             "CGA memory slots in use at once, at most (0: the pool is "
                             "unlimited and not counted)")),
      sleeps_(add_counter("sleeps", "waits", "times the CWD waited for resources to free")),
      packets_(add_counter("launch_packets", "packets", "sm_mask launch packets broadcast")),
      speed_(add_average("speed", "slots", "speed (min free slots left) of each launch, ¶167")),
      waves_skipped_(add_counter("sampling.waves_skipped", "waves",
                                 "wave sampling: waves not simulated, each stood in by the last "
                                 "steady wave")),
      ctas_skipped_(add_counter("sampling.ctas_skipped", "CTAs",
                                "wave sampling: CTAs not simulated (their stats are the steady "
                                "wave's, repeated)")),
      cycles_skipped_(add_counter("sampling.cycles_skipped", "cycles",
                                  "wave sampling: time the skipped waves add to the timeline")),
      wave_period_(add_scalar("sampling.period_cycles", "cycles",
                              "wave sampling: the steady wave's duration each skipped wave took")),
      wave_check_(add_scalar("sampling.check_cycles", "cycles",
                             "wave sampling: the first wave simulated after the skip (a check on "
                             "the period; the tail's own length when it is the last)")),
      waves_seen_(add_scalar("sampling.waves_simulated", "waves",
                             "wave sampling: the most waves of one grid that ended before its "
                             "skip (or at all, when it skipped none)")),
      busy_series_(add_series("busy_sms_series", "SMs",
                              "SMs with a running CTA, time average per interval (simulated "
                              "time: waves skipped by sampling are not in it)",
                              sim::SeriesKind::kLevel)),
      ctas_series_(add_series("running_ctas_series", "CTAs",
                              "running CTAs, time average per interval (simulated time)",
                              sim::SeriesKind::kLevel)) {
  residency_.push_back({});
}

std::uint32_t WorkDistributor::submit(const GridSpec& grid, GridDone done,
                                      std::unique_ptr<Policy> policy) {
  Grid g;
  g.spec = grid;
  g.footprint = footprint(topology().capacity(), grid.shape);
  g.units_left = grid.num_cgas();
  g.ctas_left = grid.grid.count();
  g.times.submitted = timeline_now();
  g.times.first_start = sim::kMaxTick;
  g.done = std::move(done);
  g.policy = std::move(policy);
  ctas_total_ += grid.grid.count();
  grids_.push_back(std::move(g));
  changed_.notify_all();  // a sleeping CWD looks at the new grid
  ++generation_;
  return static_cast<std::uint32_t>(grids_.size() - 1);
}

void WorkDistributor::start() {
  XPUSIM_CHECK(!started_, "WorkDistributor::start called twice");
  XPUSIM_CHECK(executor_ != nullptr, "WorkDistributor needs an executor before start");
  started_ = true;
  sim().spawn(run(), path() + ".process");
}

sim::Task<> WorkDistributor::run() {
  const auto work_left = [this] {
    return std::any_of(grids_.begin(), grids_.end(),
                       [](const Grid& g) { return g.units_left > 0; });
  };
  while (true) {
    if (!work_left()) {
      co_await changed_.wait();  // idle until a grid is submitted
      continue;
    }
    const std::uint64_t seen = generation_;
    const bool launched = co_await try_launch();
    if (!launched && seen == generation_) {
      sleeps_.inc();
      co_await changed_.wait();
    }
  }
}

std::vector<std::uint32_t> WorkDistributor::budgets() const {
  std::vector<std::uint32_t> b(topology().num_gpcs());
  for (std::uint32_t g = 0; g < b.size(); ++g)
    b[g] = tracker_.budget(g);
  return b;
}

sim::Task<bool> WorkDistributor::try_launch() {
  std::vector<std::uint32_t> order(grids_.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [this](std::uint32_t a, std::uint32_t b) {
    return grids_[a].spec.priority > grids_[b].spec.priority;
  });
  for (const std::uint32_t g : order) {
    if (grids_[g].units_left == 0) continue;
    const GridSpec& spec = grids_[g].spec;
    const bool clustered = spec.kind != ClusterKind::kNone;
    // Every GPC_CGA needs a CGA memory slot (¶222); a unit takes one per GPC_CGA in it.
    const std::uint64_t units =
        clustered ? std::min<std::uint64_t>(grids_[g].units_left,
                                            tracker_.free_slots() / spec.gpc_cgas_per_unit())
                  : grids_[g].units_left;
    if (units == 0) {
      tracker_.note_slot_stall();
      slot_stalls_.inc();
      continue;
    }
    const std::vector<std::uint32_t> budget = clustered ? budgets() : std::vector<std::uint32_t>{};
    Policy& policy = grids_[g].policy ? *grids_[g].policy : *policy_;
    LaunchStep step = policy.step(state_, spec, units, budget);
    steps_.inc();
    decision_cycles_.inc(step.decision_cycles);
    // The decision is made against the CWD's model at once; its cost delays the broadcast.
    co_await clock_.cycles(step.decision_cycles);
    if (step.cgas.empty()) {
      failed_steps_.inc();
      for (std::uint32_t gpc = 0; gpc < budget.size(); ++gpc) {
        if (budget[gpc] == 0) tracker_.note_stall(gpc);
      }
      continue;
    }
    // The step's packets go out back to back once the broadcast bus is free.
    const std::uint64_t first = std::max<std::uint64_t>(clock_.now_cycle(), broadcast_free_);
    // Central rasterization sends every CTA its own id: one CTA a slot (the prior art's way).
    Packets packets_of_step(topology().num_sms(), central() || policy.one_cta_per_packet());
    for (const CgaPlacement& p : step.cgas)
      launch(g, p, packets_of_step, first);
    const std::uint32_t packets = packets_of_step.count();
    packets_.inc(packets);
    const std::uint64_t busy =
        central() ? std::uint64_t{packets} * central_slot_cycles()
                  : (packets + timing_.packets_per_cycle - 1) / timing_.packets_per_cycle;
    broadcast_cycles_.inc(busy);
    broadcast_free_ = first + busy;
    co_return true;
  }
  co_return false;
}

void WorkDistributor::launch(std::uint32_t g, const CgaPlacement& p, Packets& packets,
                             std::uint64_t first_cycle) {
  Grid& grid = grids_[g];
  const GridSpec& spec = grid.spec;
  const auto post = [&](const CtaLaunch& cta) {
    const std::uint32_t packet = packets.next(cta.sm);
    const std::uint64_t slot = central() ? std::uint64_t{packet} * central_slot_cycles()
                                         : packet / timing_.packets_per_cycle;
    const sim::Tick at =
        clock_.edge(first_cycle + slot + timing_.broadcast_cycles + timing_.cta_launch_cycles);
    ctas_launched_.inc();
    events().post(at, [this, cta] {
      started(cta);
      executor_->start(cta);
    });
  };
  speed_.sample(p.speed);
  if (spec.kind == ClusterKind::kNone) {
    // Each CTA of a plain grid is its own launch unit, in x-fastest order (¶177).
    for (const std::uint32_t sm : p.sm_of_cta) {
      const std::uint64_t unit = grid.next_unit++;
      post({.grid = g,
            .unit = unit,
            .ctas_in_unit = 1,
            .cga = 0,
            .sm = sm,
            .gpc = topology().gpc_of(sm),
            .id = rasterize(g, sm, unit),
            .rank = 0});
      units_launched_.inc();
      --grid.units_left;
    }
    if (grid.units_left == 0) {  // the grid's last CTA: its rasterizers are done
      grid.rasterizers = {};
      grid.units_seen = {};
    }
    return;
  }
  const std::uint64_t unit = grid.next_unit++;
  --grid.units_left;
  units_launched_.inc();
  const std::uint32_t per_cga = spec.ctas_per_cga();
  const GridDims clusters{.x = spec.grid.x / spec.cluster.x,
                          .y = spec.grid.y / spec.cluster.y,
                          .z = spec.grid.z / spec.cluster.z};
  const std::uint32_t parts = spec.gpc_cgas_per_unit();
  for (std::uint32_t j = 0; j < parts; ++j) {
    const std::uint32_t gpc = p.gpcs.empty() ? p.gpc : p.gpcs[j];
    const std::uint64_t cga = tracker_.on_launch(gpc, per_cga);
    slots_peak_.set(static_cast<double>(tracker_.peak_slots()));
    const CtaId corner = decode_linear(clusters, unit * parts + j);
    for (std::uint32_t r = 0; r < per_cga; ++r) {
      const CtaId local = decode_linear(dims(spec.cluster), r);
      post({.grid = g,
            .unit = unit,
            .ctas_in_unit = per_cga * parts,
            .cga = cga,
            .sm = p.sm_of_cta[j * per_cga + r],
            .gpc = gpc,
            .id = {.x = corner.x * spec.cluster.x + local.x,
                   .y = corner.y * spec.cluster.y + local.y,
                   .z = corner.z * spec.cluster.z + local.z},
            .rank = r});
    }
  }
}

void WorkDistributor::started(const CtaLaunch& cta) {
  first_start_ = std::min(first_start_, timeline_now());
  Grid& grid = grids_[cta.grid];
  GridTimes& times = grid.times;
  times.first_start = std::min(times.first_start, timeline_now());
  grid.peak_running = std::max(grid.peak_running, ++grid.running);
  ++grid.activity;
  ++activity_;
  grid.waves.started(now(), activity_ - grid.activity);
  auto& on_sm = running_on_sm_[cta.sm];
  if (on_sm.empty()) ++busy_sms_;
  on_sm.push_back({.grid = cta.grid, .unit = cta.unit, .sm = cta.sm});
  ++running_ctas_;
  // Clusters are counted per GPC_CGA (a GPU_CGA is several), by their tracker handle.
  if (cta.cga != 0 && unit_running_[cta.cga]++ == 0) {
    ++running_clusters_;
    grid.peak_clusters = std::max(grid.peak_clusters, ++grid.clusters);
    ++clusters_per_gpc_[cta.gpc];
    max_per_gpc_[cta.gpc] = std::max(max_per_gpc_[cta.gpc], clusters_per_gpc_[cta.gpc]);
  }
  record();
}

CtaId WorkDistributor::rasterize(std::uint32_t g, std::uint32_t sm, std::uint64_t unit) {
  Grid& grid = grids_[g];
  const GridDims d = dims(grid.spec.grid);
  if (central()) return decode_linear(d, unit);  // the CWD's one decoder
  if (grid.rasterizers.empty()) {
    grid.rasterizers.resize(topology().num_sms());
    grid.units_seen.assign(topology().num_sms(), 0);
  }
  std::optional<SmRasterizer>& r = grid.rasterizers[sm];
  const std::uint64_t before = r ? r->decodes() : 0, overflow = r ? r->overflow_decodes() : 0;
  if (!r) {
    // An SM that joins the grid is told the offset (digest §3.8): the next id in global order.
    r.emplace(d, decode_linear(d, unit), timing_.raster_delta_bits);
  } else {
    // Every launch since this SM's last one went elsewhere (or was skipped by wave sampling):
    // its delta counter saw them go by; the lazy catch-up decodes as the counter would have.
    r->observe(static_cast<std::uint32_t>(unit - grid.units_seen[sm]));
  }
  const CtaId id = r->launch_own();
  grid.units_seen[sm] = unit + 1;
  raster_decodes_.inc(r->decodes() - before);
  raster_overflow_decodes_.inc(r->overflow_decodes() - overflow);
  // The SM's id is the one the centralized decode gives (¶180): the two schemes differ in
  // cost, not in result.
  XPUSIM_CHECK(id == decode_linear(d, unit), "the SM rasterizer agrees with the central decode");
  return id;
}

void WorkDistributor::cancel(std::uint32_t g) {
  Grid& grid = grids_[g];
  ctas_cancelled_.inc(grid.units_left * (grid.spec.grid.count() / grid.spec.num_cgas()));
  grid.units_left = 0;
  grid.rasterizers = {};
  grid.units_seen = {};
}

void WorkDistributor::cta_exited(const CtaLaunch& cta) {
  last_exit_ = std::max(last_exit_, timeline_now());
  Grid& grid = grids_[cta.grid];
  --grid.running;
  ++grid.activity;
  ++activity_;
  auto& on_sm = running_on_sm_[cta.sm];
  const auto it = std::find_if(on_sm.begin(), on_sm.end(), [&](const Resident& r) {
    return r.grid == cta.grid && r.unit == cta.unit;
  });
  XPUSIM_CHECK(it != on_sm.end(), "an exiting CTA was not running on its SM");
  on_sm.erase(it);
  if (on_sm.empty()) --busy_sms_;
  --running_ctas_;
  if (cta.cga != 0) {
    if (--unit_running_[cta.cga] == 0) {
      unit_running_.erase(cta.cga);
      --running_clusters_;
      --grid.clusters;
      --clusters_per_gpc_[cta.gpc];
    }
  }
  record();
  // The CWD hears of the exit later (cta_complete, ¶223); only then are the slots free.
  const sim::Tick at = clock_.edge(clock_.cycle_at(now()) + timing_.completion_cycles);
  events().post(at, [this, cta] { exited(cta); });
}

void WorkDistributor::exited(const CtaLaunch& cta) {
  Grid& grid = grids_[cta.grid];
  state_.retire(cta.sm, grid.footprint);
  ++ctas_exited_;
  ++generation_;
  changed_.notify_all();
  if (sampling_.on()) sample(cta.grid);
  const bool grid_done = --grid.ctas_left == 0;
  if (grid_done) grid.times.completed = timeline_now();
  if (cta.cga != 0) cga_exit(cta.cga, grid.spec.ctas_per_cga());
  // Last: the callback may submit a grid, which can move grids_ under `grid`.
  if (grid_done && grids_[cta.grid].done) {
    const GridDone done = std::move(grids_[cta.grid].done);
    done(grids_[cta.grid].times);
  }
}

void WorkDistributor::sample(std::uint32_t g) {
  Grid& grid = grids_[g];
  WaveSampler& waves = grid.waves;
  if (!waves.exited(now(), grid.peak_running, activity_ - grid.activity)) return;
  if (waves.has_skipped()) {
    if (waves.check() && wave_check_.value() == 0) {
      wave_check_.set(static_cast<double>(clock_.cycle_at(*waves.check())));
    }
    return;
  }
  waves_seen_.set(std::max(waves_seen_.value(), static_cast<double>(waves.waves())));
  sim::StatsSnapshot stats = sim().stats().snapshot();
  const std::uint64_t per_unit = grid.spec.grid.count() / grid.spec.num_cgas();
  const std::uint64_t wave = waves.size();
  // Skip whole waves only, so the tail keeps the partial wave the full run ends with; the
  // other grids must be done, so the skipped time delays nothing else.
  const bool others_done = std::all_of(grids_.begin(), grids_.end(), [&](const Grid& o) {
    return &o == &grid || (o.units_left == 0 && o.running == 0);
  });
  if (waves.steady(sampling_.tolerance) && others_done && wave % per_unit == 0) {
    const std::uint64_t skip = grid.units_left * per_unit / wave;
    if (skip > 0) {
      const std::uint64_t units = skip * wave / per_unit;
      grid.next_unit += units;  // the skipped units' ids are never launched
      grid.units_left -= units;
      grid.ctas_left -= units * per_unit;
      ctas_exited_ += units * per_unit;
      const sim::Tick ticks = skip * waves.period();
      // The steady wave's stats, once per skipped wave (the counters below changed in none).
      sim().stats().repeat_interval(grid.wave_stats, stats, skip);
      skipped_ticks_ += ticks;
      waves_skipped_.inc(skip);
      ctas_skipped_.inc(units * per_unit);
      cycles_skipped_.inc(clock_.cycle_at(ticks));
      wave_period_.set(static_cast<double>(clock_.cycle_at(waves.period())));
      waves.skipped();
    }
  }
  grid.wave_stats = std::move(stats);
}

void WorkDistributor::cga_exit(std::uint64_t cga, std::uint32_t ctas) {
  const std::vector<CgaEvent> ev = tracker_.on_cta_exit(cga);
  if (std::find(ev.begin(), ev.end(), CgaEvent::kCgaActiveZero) == ev.end()) return;
  // Every CTA's DSMEM is flushed in parallel; the id and counter return after the last ack.
  const sim::Tick at = clock_.edge(clock_.cycle_at(now()) + timing_.flush_cycles);
  events().post(at, [this, cga, ctas] {
    for (std::uint32_t i = 0; i < ctas; ++i) {
      const std::vector<CgaEvent> done = tracker_.on_flush_done(cga);
      if (std::find(done.begin(), done.end(), CgaEvent::kCgaComplete) != done.end()) {
        cga_completions_.inc();
      }
    }
    ++generation_;
    changed_.notify_all();
  });
}

void WorkDistributor::thin_residency() {
  std::size_t kept = 0;
  for (std::size_t i = 0; i < residency_.size(); i += 2)
    residency_[kept++] = residency_[i];
  residency_.resize(kept);
  residency_spacing_ = (residency_.back().tick - residency_.front().tick) / kept;
}

std::uint64_t WorkDistributor::busy_sm_cycles(std::uint64_t until_cycle) const {
  const std::uint64_t from = std::min(clock_.cycle_at(busy_from_.tick), until_cycle);
  return busy_sm_cycles_ + std::uint64_t{busy_from_.busy_sms} * (until_cycle - from);
}

void WorkDistributor::record() {
  const ResidencyPoint p{.tick = timeline_now(),
                         .busy_sms = static_cast<std::uint32_t>(busy_sms_),
                         .running_ctas = running_ctas_,
                         .running_clusters = running_clusters_};
  busy_sm_cycles_ += std::uint64_t{busy_from_.busy_sms} *
                     (clock_.cycle_at(p.tick) - clock_.cycle_at(busy_from_.tick));
  busy_series_.add_level(series_since_, now(), static_cast<double>(busy_from_.busy_sms));
  ctas_series_.add_level(series_since_, now(), static_cast<double>(busy_from_.running_ctas));
  series_since_ = now();
  busy_from_ = p;
  ResidencyPoint& last = residency_.back();
  if (last.tick == p.tick) {
    last = p;
  } else if (p.tick - last.tick < residency_spacing_) {
    // A thinned curve: the last point stands for the spacing after it, in its latest state.
    last = ResidencyPoint{.tick = last.tick,
                          .busy_sms = p.busy_sms,
                          .running_ctas = p.running_ctas,
                          .running_clusters = p.running_clusters};
  } else {
    if (residency_.size() == kMaxResidencyPoints) thin_residency();
    residency_.push_back(p);
  }
  const bool clustered_peak = running_clusters_ > max_clusters_;
  const bool cta_peak = running_clusters_ == 0 && max_clusters_ == 0 && running_ctas_ > max_ctas_;
  if (running_ctas_ > max_ctas_) {
    max_ctas_ = running_ctas_;
    fill_tick_ = timeline_now();
  }
  if (clustered_peak || cta_peak) {
    max_clusters_ = std::max(max_clusters_, running_clusters_);
    snapshot_peak();
  }
}

void WorkDistributor::snapshot_peak() {
  peak_placement_.clear();
  for (const auto& on_sm : running_on_sm_)
    peak_placement_.insert(peak_placement_.end(), on_sm.begin(), on_sm.end());
}

}  // namespace xpusim::sched
