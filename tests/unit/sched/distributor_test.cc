// The timed work distributor: waves, all-or-nothing clusters in time, the completion protocol
// gating relaunch, priorities, CTA ids, slowest-CTA cluster exits, determinism.
#include "sched/distributor.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "sched/launch_run.h"
#include "sched/modelled_sms.h"
#include "sim/clock.h"

namespace xpusim::sched {
namespace {

constexpr std::uint64_t kHz = 1'000'000'000;  // 1 GHz: a cycle is 1000 ps

// Runs each CTA for a fixed time and records what started when.
class RecordingSms : public CtaExecutor {
 public:
  RecordingSms(sim::Simulation& sim, WorkDistributor& cwd, std::uint64_t cycles)
      : sim_(sim), cwd_(cwd), cycles_(cycles) {}
  void start(const CtaLaunch& cta) override {
    starts.push_back({sim_.now(), cta});
    sim_.events().post(sim_.now() + cycles_ * 1000, [this, cta] {
      exits.push_back({sim_.now(), cta});
      cwd_.cta_exited(cta);
    });
  }
  std::vector<std::pair<sim::Tick, CtaLaunch>> starts, exits;

 private:
  sim::Simulation& sim_;
  WorkDistributor& cwd_;
  std::uint64_t cycles_;
};

struct Rig {
  explicit Rig(Topology topo, std::string policy = "waterfill",
               CgaTrackerConfig tracker = default_tracker_config(), std::uint64_t cycles = 1000)
      : clock(sim.events(), kHz),
        chip(sim, "chip0"),
        cwd(chip, topo, std::move(make_policy(policy)).value(), clock, timing, tracker),
        sms(sim, cwd, cycles) {
    cwd.set_executor(&sms);
  }
  sim::Simulation sim;
  sim::Clock clock;
  sim::Component chip;
  DistributorTiming timing;
  WorkDistributor cwd;
  RecordingSms sms;
};

Topology small(std::vector<std::uint32_t> tpcs, SmCapacity cap = {}) {
  return std::move(Topology::make(std::move(tpcs), 2, cap)).value();
}

// 128 threads, 32 regs: warps bind at 64/4 = 16 per SM unless the capacity says otherwise.
GridSpec plain(std::uint32_t ctas) {
  GridSpec g;
  g.grid = {.x = ctas, .y = 1, .z = 1};
  return g;
}

GridSpec clustered(Dim3 grid, Dim3 cluster) {
  GridSpec g;
  g.grid = grid;
  g.cluster = cluster;
  g.kind = ClusterKind::kGpcCga;
  return g;
}

TEST(Distributor, PlainGridRunsInWavesAndEveryCtaExitsOnce) {
  SmCapacity cap;
  cap.cta_slots = 2;  // 2 SMs x 2 slots: 4 CTAs per wave
  Rig r(small({1}, cap));
  r.cwd.submit(plain(10));
  r.cwd.start();
  r.sim.run();
  ASSERT_TRUE(r.cwd.all_done());
  EXPECT_EQ(r.sms.starts.size(), 10u);
  std::set<std::uint64_t> units;
  for (const auto& [t, cta] : r.sms.starts)
    units.insert(cta.unit);
  EXPECT_EQ(units.size(), 10u);
  // Three waves of 1000 cycles, each a little later than the last exit (completion latency).
  const sim::Tick end = r.cwd.last_exit();
  EXPECT_GT(end, 3000u * 1000);
  EXPECT_LT(end, 3200u * 1000);
  std::uint64_t peak = 0;
  for (const auto& p : r.cwd.residency())
    peak = std::max(peak, p.running_ctas);
  EXPECT_EQ(peak, 4u);
}

TEST(Distributor, ACtaStartsOnlyAfterTheSlotItNeedsWasReportedFree) {
  SmCapacity cap;
  cap.cta_slots = 1;
  Rig r(small({1}, cap));
  r.cwd.submit(plain(4));
  r.cwd.start();
  r.sim.run();
  ASSERT_EQ(r.sms.starts.size(), 4u);
  // Wave 2 on an SM starts after wave 1 exits + completion + decision + broadcast + launch.
  const sim::Tick gap =
      (r.timing.completion_cycles + r.timing.broadcast_cycles + r.timing.cta_launch_cycles) * 1000;
  std::map<std::uint32_t, sim::Tick> last_exit;
  for (const auto& [t, cta] : r.sms.exits)
    last_exit.emplace(cta.sm, t);  // first exit per SM
  for (std::size_t i = 2; i < 4; ++i) {
    const auto& [t, cta] = r.sms.starts[i];
    EXPECT_GE(t, last_exit.at(cta.sm) + gap) << "CTA " << i;
  }
}

TEST(Distributor, ClusterCtasStartTogetherAndCoverTheGridWithConsistentIds) {
  Rig r(small({2, 2}));
  const GridSpec g = clustered({.x = 18, .y = 12, .z = 1}, {.x = 3, .y = 2, .z = 1});
  r.cwd.submit(g);
  r.cwd.start();
  r.sim.run();
  ASSERT_TRUE(r.cwd.all_done());
  ASSERT_EQ(r.sms.starts.size(), 216u);
  std::map<std::uint64_t, std::set<sim::Tick>> start_of_unit;
  std::map<std::uint64_t, std::set<std::uint32_t>> gpcs_of_unit;
  std::set<std::tuple<std::uint32_t, std::uint32_t>> seen;
  for (const auto& [t, cta] : r.sms.starts) {
    start_of_unit[cta.unit].insert(t);
    gpcs_of_unit[cta.unit].insert(r.cwd.topology().gpc_of(cta.sm));
    EXPECT_TRUE(seen.insert({cta.id.x, cta.id.y}).second) << "CTA launched twice";
    EXPECT_EQ(cta.rank, cga_cta_id({.x = 3, .y = 2, .z = 1}, cta.id));
    EXPECT_EQ(cta.ctas_in_unit, 6u);
  }
  EXPECT_EQ(start_of_unit.size(), 36u);
  for (const auto& [unit, ticks] : start_of_unit) {
    // One step: an SM taking k CTAs of the cluster gets them in k back-to-back packets (one
    // sm_mask bit per SM), so a cluster of 6 starts within 5 cycles.
    EXPECT_LE(*ticks.rbegin() - *ticks.begin(), 5u * 1000) << "cluster " << unit;
    EXPECT_EQ(gpcs_of_unit[unit].size(), 1u) << "cluster " << unit << " spans GPCs";
  }
}

TEST(Distributor, AnEmptyIdPoolHoldsTheNextClusterUntilTheFlushOfTheLast) {
  CgaTrackerConfig t = default_tracker_config();
  t.ids_per_gpc = 1;
  Rig r(small({4}), "waterfill", t);
  r.cwd.submit(clustered({.x = 4, .y = 1, .z = 1}, {.x = 2, .y = 1, .z = 1}));
  r.cwd.start();
  r.sim.run();
  ASSERT_TRUE(r.cwd.all_done());
  ASSERT_EQ(r.sms.starts.size(), 4u);
  // The chip had room for both clusters; the single id serialises them: the second starts
  // after the first's exit + cta_complete + DSMEM flush (¶232).
  const sim::Tick first_exit = r.sms.exits.front().first;
  const sim::Tick second_start = r.sms.starts[2].first;
  EXPECT_EQ(r.sms.starts[0].first, r.sms.starts[1].first);
  EXPECT_GE(second_start, first_exit + (r.timing.completion_cycles + r.timing.flush_cycles) * 1000);
  EXPECT_GT(r.cwd.tracker().stalls(), 0u);
  EXPECT_EQ(r.cwd.tracker().live_cgas(0), 0u);
  EXPECT_EQ(r.cwd.tracker().free_ids(0), 1u);
}

// A pool of 3 CGA memory slots on a chip with room for 8 clusters: never more than 3 live at
// once, the rest wait for a cga_complete (¶222-223), and every CTA still runs once.
TEST(Distributor, TheCgaMemorySlotPoolCapsLiveClusters) {
  CgaTrackerConfig t = default_tracker_config();
  t.memory_slots = 3;
  Rig r(small({4, 4}), "waterfill", t);
  r.cwd.submit(clustered({.x = 32, .y = 1, .z = 1}, {.x = 2, .y = 1, .z = 1}));
  r.cwd.start();
  r.sim.run();
  ASSERT_TRUE(r.cwd.all_done());
  ASSERT_EQ(r.sms.starts.size(), 32u);
  std::uint64_t most = 0;
  for (const ResidencyPoint& p : r.cwd.residency())
    most = std::max(most, p.running_clusters);
  EXPECT_EQ(most, 3u);
  EXPECT_EQ(r.cwd.tracker().peak_slots(), 3u);
  EXPECT_GT(r.cwd.tracker().slot_stalls(), 0u);
  EXPECT_EQ(r.cwd.tracker().free_slots(), 3u);
  EXPECT_EQ(r.sim.stats().find("chip0.cwd.cga_slots_peak").value()->to_json()["value"], 3.0);
  // Without the pool all 16 clusters fit at once.
  Rig free(small({4, 4}));
  free.cwd.submit(clustered({.x = 32, .y = 1, .z = 1}, {.x = 2, .y = 1, .z = 1}));
  free.cwd.start();
  free.sim.run();
  most = 0;
  for (const ResidencyPoint& p : free.cwd.residency())
    most = std::max(most, p.running_clusters);
  EXPECT_EQ(most, 16u);
}

TEST(Distributor, HigherPriorityGridsLaunchFirst) {
  SmCapacity cap;
  cap.cta_slots = 1;
  Rig r(small({1}, cap));
  GridSpec low = plain(2), high = plain(2);
  high.priority = 5;
  const std::uint32_t lo = r.cwd.submit(low);
  const std::uint32_t hi = r.cwd.submit(high);
  r.cwd.start();
  r.sim.run();
  ASSERT_EQ(r.sms.starts.size(), 4u);
  EXPECT_EQ(r.sms.starts[0].second.grid, hi);
  EXPECT_EQ(r.sms.starts[1].second.grid, hi);
  EXPECT_EQ(r.sms.starts[2].second.grid, lo);
}

TEST(Distributor, ModelledClustersExitTogetherWithTheirSlowestCta) {
  LaunchScenario s;
  s.topology = small({4, 3});
  s.runtime = {.min_cycles = 100, .max_cycles = 5000, .slowdown = 0.5};
  s.grids = {clustered({.x = 64, .y = 1, .z = 1}, {.x = 4, .y = 1, .z = 1})};
  sim::Simulation sim(3);
  auto study = LaunchStudy::create(sim, s);
  ASSERT_TRUE(study.ok());
  const LaunchReport r = (*study)->run();
  ASSERT_TRUE(r.completed);
  for (const ResidencyPoint& p : r.curve)
    EXPECT_EQ(p.running_ctas % 4, 0u) << "at cycle " << p.tick;
}

// A long run's residency curve once grew by a point per CTA start and exit: an endless grid
// grew host memory without bound. The curve is thinned to a cap; utilization and the peak come
// from running totals and stay exact.
TEST(Distributor, ALongRunKeepsABoundedCurveAndExactUtilization) {
  LaunchScenario s;
  s.topology = small({1}, SmCapacity{.cta_slots = 1});  // one CTA per SM at a time
  s.runtime = {.min_cycles = 100, .max_cycles = 100, .slowdown = 0};
  const std::uint64_t ctas = 3 * WorkDistributor::kMaxResidencyPoints;
  s.grids = {plain(ctas)};
  const auto r = run_launch(s);
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(r->completed);
  EXPECT_LE(r->curve.size(), WorkDistributor::kMaxResidencyPoints);
  EXPECT_GT(r->curve.size(), WorkDistributor::kMaxResidencyPoints / 4);
  EXPECT_EQ(r->peak_ctas, r->num_sms);
  // Each CTA holds its SM for exactly its 100 cycles: the busy SM-cycles, independently.
  const std::uint64_t total = std::uint64_t{r->num_sms} * r->makespan_cycles;
  EXPECT_EQ(r->idle_sm_cycles, total - ctas * 100);
  for (std::size_t i = 1; i < r->curve.size(); ++i)
    ASSERT_LE(r->curve[i - 1].tick, r->curve[i].tick);
}

TEST(Distributor, SameSeedSameResultOtherSeedOtherResult) {
  LaunchScenario s;
  s.topology = small({4, 3, 3});
  s.runtime = {.min_cycles = 100, .max_cycles = 5000, .slowdown = 1.0};
  s.grids = {clustered({.x = 96, .y = 2, .z = 1}, {.x = 2, .y = 2, .z = 1}), plain(200)};
  const auto a = run_launch(s, 7), b = run_launch(s, 7), c = run_launch(s, 8);
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  EXPECT_EQ(a->makespan_cycles, b->makespan_cycles);
  EXPECT_EQ(a->idle_sm_cycles, b->idle_sm_cycles);
  ASSERT_EQ(a->curve.size(), b->curve.size());
  for (std::size_t i = 0; i < a->curve.size(); ++i)
    EXPECT_EQ(a->curve[i].running_ctas, b->curve[i].running_ctas);
  EXPECT_NE(a->makespan_cycles, c->makespan_cycles);
}

TEST(Distributor, PriorArtNeedsOverAThousandCyclesToFill128SmsWithEightCtasWaterfillFewer) {
  const auto fill = [](const char* policy) {
    LaunchScenario s;
    s.topology = small({8, 8, 8, 8, 8, 8, 8, 8});
    s.policy = policy;
    s.runtime = {.min_cycles = 100000, .max_cycles = 100000, .slowdown = 0};
    GridSpec g = plain(1024);
    g.shape.threads = 256;  // 8 warps: 8 per SM
    s.grids = {g};
    auto r = run_launch(s);
    EXPECT_TRUE(r.ok());
    EXPECT_EQ(r->peak_ctas, 1024u);
    return r->fill_cycles;
  };
  EXPECT_GT(fill("prior-art"), 1000u);  // seed1 ¶130
  EXPECT_LT(fill("waterfill"), 100u);
}

TEST(Distributor, BadScenariosAreRejectedBeforeAnythingRuns) {
  LaunchScenario s;
  s.topology = small({2});
  s.policy = "fastest";
  s.grids = {clustered({.x = 9, .y = 1, .z = 1}, {.x = 2, .y = 1, .z = 1})};
  sim::Simulation sim;
  auto study = LaunchStudy::create(sim, s);
  ASSERT_FALSE(study.ok());
  EXPECT_EQ(study.errors().size(), 2u);  // the grid and the policy, one line each
  EXPECT_EQ(sim.now(), 0u);

  // A GPU_CGA of 4 GPC_CGAs needs 4 memory slots at once: a pool of 3 would never launch it.
  LaunchScenario gpu;
  gpu.topology = small({4, 4});
  gpu.grids = {clustered({.x = 16, .y = 1, .z = 1}, {.x = 2, .y = 1, .z = 1})};
  gpu.grids[0].kind = ClusterKind::kGpuCga;
  gpu.grids[0].gpc_cgas_per_gpu_cga = 4;
  gpu.tracker.memory_slots = 3;
  auto bad = LaunchStudy::create(sim, gpu);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message,
            "a launch unit of 4 GPC_CGAs needs 4 CGA memory slots at once, but the pool has 3 "
            "(cga_memory_slots; every GPC_CGA holds one, seed1 ¶222)");
  gpu.tracker.memory_slots = 4;
  EXPECT_TRUE(LaunchStudy::create(sim, gpu).ok());
}

TEST(RuntimeModel, ParsesFixedUniformAndSlowdownAndRejectsTheRest) {
  auto f = parse_runtime_model("fixed:500");
  ASSERT_TRUE(f.ok());
  EXPECT_TRUE(f->fixed());
  EXPECT_EQ(f->min_cycles, 500u);
  auto u = parse_runtime_model("uniform:10-20,slowdown=0.25");
  ASSERT_TRUE(u.ok());
  EXPECT_EQ(u->min_cycles, 10u);
  EXPECT_EQ(u->max_cycles, 20u);
  EXPECT_DOUBLE_EQ(u->slowdown, 0.25);
  EXPECT_EQ(u->cycles(100, 1.0), 125u);
  EXPECT_EQ(u->cycles(100, 0.0), 100u);
  for (const char* bad : {"fixed", "fixed:0", "fixed:-3", "uniform:20-10", "uniform:5", "normal:5",
                          "fixed:5,slowdown=-1", "fixed:5,speed=2"}) {
    auto r = parse_runtime_model(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.error().message.find(bad), std::string::npos) << r.error().message;
  }
}

TEST(RuntimeModel, UniformDrawsStayInRangeAndCoverIt) {
  const RuntimeModel m{.min_cycles = 10, .max_cycles = 13, .slowdown = 0};
  sim::Rng rng = sim::Rng::for_stream(1, "runtime");
  std::set<std::uint64_t> seen;
  for (int i = 0; i < 200; ++i) {
    const std::uint64_t c = m.base_cycles(rng);
    ASSERT_GE(c, 10u);
    ASSERT_LE(c, 13u);
    seen.insert(c);
  }
  EXPECT_EQ(seen.size(), 4u);
}

}  // namespace
}  // namespace xpusim::sched

namespace xpusim::sched {
namespace {

// Wave sampling (wave_sampler.h): with CTAs of one fixed length every wave takes the same time,
// so skipping the middle waves and counting each as the last simulated one must give the full
// run's end tick exactly, launch the tail's CTAs (a partial wave of 2) and count every CTA.
TEST(Distributor, WaveSamplingOfLikeCtasEndsWhenTheFullRunDoes) {
  SmCapacity cap;
  cap.cta_slots = 2;  // 2 SMs x 2 slots: waves of 4
  const auto run = [&](double tolerance) {
    auto r = std::make_unique<Rig>(small({1}, cap));
    r->cwd.set_wave_sampling({.tolerance = tolerance});
    r->cwd.submit(plain(102));
    r->cwd.start();
    r->sim.run();
    EXPECT_TRUE(r->cwd.all_done());
    return r;
  };
  const auto full = run(0);
  const auto sampled = run(0.01);
  EXPECT_EQ(full->sms.starts.size(), 102u);
  EXPECT_EQ(full->cwd.skipped_ctas(), 0u);
  const std::uint64_t skipped = sampled->cwd.skipped_ctas();
  EXPECT_GT(skipped, 80u);
  EXPECT_EQ(skipped % 4, 0u);
  EXPECT_EQ(sampled->sms.starts.size() + skipped, 102u);
  EXPECT_EQ(sampled->cwd.grid_times(0).completed, full->cwd.grid_times(0).completed);
  EXPECT_EQ(sampled->cwd.last_exit(), full->cwd.last_exit());
  EXPECT_EQ(sampled->sim.now() + sampled->cwd.skipped_ticks(), full->sim.now());
  // The units launched are the first ones and the last ones: the skipped ones are a run.
  std::vector<std::uint64_t> units;
  for (const auto& [t, cta] : sampled->sms.starts)
    units.push_back(cta.unit);
  std::sort(units.begin(), units.end());
  EXPECT_EQ(std::adjacent_find(units.begin(), units.end()), units.end());
  EXPECT_EQ(units.back(), 101u);
  std::size_t gaps = 0;
  for (std::size_t i = 1; i < units.size(); ++i)
    gaps += units[i] != units[i - 1] + 1 ? 1 : 0;
  EXPECT_EQ(gaps, 1u);
  // The stats count the skipped CTAs as launched: the steady wave's counts, repeated.
  const auto launched = [](Rig& r) {
    return r.sim.stats().find("chip0.cwd.ctas_launched").value()->to_json()["value"];
  };
  EXPECT_EQ(launched(*sampled), 102);
  EXPECT_EQ(launched(*full), 102);
}

// CTAs of random lengths slowed by their SM's occupancy: the waves agree only within a few
// percent, and the sampled makespan stays within 2 % of the full run's.
TEST(Distributor, WaveSamplingOfRandomCtasStaysNearTheFullRun) {
  LaunchScenario s;
  s.topology = small({4, 4});
  s.runtime = {.min_cycles = 8000, .max_cycles = 12000, .slowdown = 0.3};
  s.grids = {clustered({.x = 2000, .y = 2, .z = 1}, {.x = 2, .y = 1, .z = 1})};
  const auto full = run_launch(s, 5);
  s.sampling = {.tolerance = 0.02};
  const auto sampled = run_launch(s, 5);
  ASSERT_TRUE(full.ok() && sampled.ok());
  EXPECT_EQ(full->skipped_ctas, 0u);
  EXPECT_GT(sampled->skipped_ctas, 700u);
  EXPECT_NEAR(
      static_cast<double>(sampled->makespan_cycles) / static_cast<double>(full->makespan_cycles),
      1.0, 0.02)
      << sampled->makespan_cycles << " against " << full->makespan_cycles;
  s.sampling = {.tolerance = 0.6};
  EXPECT_EQ(run_launch(s, 5).error().message, "launch: wave sampling 60%: must be 0 (off) to 50%");
}

// A grid only skips waves while it has the chip to itself: one queued behind it keeps every wave
// simulated; one that ran beside its first waves (and held slots at its first exit, so that its
// waves are counted again once it holds all four) lets it skip once it is done, and end when
// the full run does.
TEST(Distributor, WaveSamplingWaitsForTheChipToItself) {
  SmCapacity cap;
  cap.cta_slots = 2;
  const auto run = [&](std::int32_t second_priority, double tolerance) {
    auto r = std::make_unique<Rig>(small({1}, cap));
    r->cwd.set_wave_sampling({.tolerance = tolerance});
    r->cwd.submit(plain(200));
    GridSpec second = plain(6);
    second.priority = second_priority;
    r->cwd.submit(second);
    r->cwd.start();
    r->sim.run();
    EXPECT_TRUE(r->cwd.all_done());
    return r;
  };
  EXPECT_EQ(run(0, 0.01)->cwd.skipped_ctas(), 0u);  // the second grid waits for slots
  const auto full = run(1, 0);
  const auto sampled = run(1, 0.01);  // the second grid runs first, beside the first waves
  EXPECT_GT(sampled->cwd.skipped_ctas(), 100u);
  EXPECT_EQ(sampled->cwd.grid_times(0).completed, full->cwd.grid_times(0).completed);
}

TEST(Distributor, AGridSubmittedAfterTheChipWentIdleRunsAndReportsItsTimes) {
  Rig r(small({1}));
  std::vector<WorkDistributor::GridTimes> seen;
  const auto record = [&seen](const WorkDistributor::GridTimes& t) { seen.push_back(t); };
  r.cwd.submit(plain(4), record);
  r.cwd.start();
  r.sim.run();
  ASSERT_EQ(seen.size(), 1u);
  const sim::Tick idle_at = r.sim.now();
  // The CWD process sleeps instead of ending, so a later grid still launches.
  r.sim.events().post(idle_at + 5'000'000, [&] { r.cwd.submit(plain(2), record); });
  r.sim.run();
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_TRUE(r.cwd.all_done());
  EXPECT_EQ(seen[1].submitted, idle_at + 5'000'000);
  EXPECT_GT(seen[1].first_start, seen[1].submitted);
  // 1000-cycle CTAs plus the completion message: done no earlier than 1000 cycles after start.
  EXPECT_GE(seen[1].completed, seen[1].first_start + 1000 * 1000);
  EXPECT_EQ(seen[0].completed, r.cwd.grid_times(0).completed);
}

}  // namespace
}  // namespace xpusim::sched
