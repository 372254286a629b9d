// The work-distributor experiments of docs/work-distributor.md (issue "work distributor"):
//   1. max resident clusters on h100-sxm5 by cluster size, 1 and 2 CTAs per SM
//   2. cycles to fill 128 SMs x 8 CTAs: prior art vs water-filling
//   3. makespan and idle SM-cycles of a mixed workload, by policy
//   4. rasterization: CTA ids per cycle and bytes to SMs, centralized vs distributed; then the
//      same on the chip: stream_fill grids through the command processor and the timed CWD,
//      each SM's SmRasterizer decoding its ids (distributed) or the CWD sending each CTA its id
//   5. the CGA levels: clusters split into CPC_CGAs, grouped into µGPU_CGAs or GPU_CGAs
// Each prints one table. Deterministic (fixed seeds); run: build/release/bench/sched_experiments
#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <numeric>

#include "config/chip_spec.h"
#include "sched/launch_run.h"
#include "sched/rasterizer.h"
#include "sim/simulation.h"
#include "system/chip.h"
#include "workloads/kernels.h"

using namespace xpusim;
using namespace xpusim::sched;

namespace {

LaunchReport must(Result<LaunchReport> r) {
  if (!r) {
    std::fprintf(stderr, "error: %s\n", r.error().message.c_str());
    std::exit(1);
  }
  return std::move(r).value();
}

config::ChipSpec h100() {
  auto chip = config::load_chip_file(std::string(XPUSIM_CONFIG_DIR) + "/chips/h100-sxm5.yaml");
  if (!chip) {
    std::fprintf(stderr, "error: %s\n", chip.error().message.c_str());
    std::exit(1);
  }
  return *chip;
}

GridSpec clusters(std::uint32_t count, std::uint32_t size, const CtaShape& shape) {
  GridSpec g;
  g.grid = {.x = count * size, .y = 1, .z = 1};
  g.cluster = {.x = size, .y = 1, .z = 1};
  g.kind = ClusterKind::kGpcCga;
  g.shape = shape;
  return g;
}

void experiment1(const config::ChipSpec& chip) {
  std::printf("\n## 1. Max resident clusters on %s (%u SMs, GPCs of", chip.name.c_str(),
              chip.num_sms());
  for (std::uint32_t g = 0; g < chip.num_gpcs(); ++g)
    std::printf(" %u", chip.sms_in_gpc(g));
  std::printf(" SMs)\n\n");
  std::printf("| cluster size | CTAs/SM | naive 132*k/size | simulated | per GPC |\n");
  std::printf("|---:|---:|---:|---:|---|\n");
  // Shared memory pins the CTAs per SM: 120 KiB -> 1 per SM, 100 KiB -> 2 (228 KiB SM).
  for (const std::uint32_t per_sm : {1u, 2u}) {
    const CtaShape shape{.threads = 128,
                         .registers_per_thread = 32,
                         .shared_bytes = per_sm == 1 ? 120u << 10 : 100u << 10};
    for (const std::uint32_t size : {1u, 2u, 4u, 8u, 16u}) {
      LaunchScenario s;
      s.topology = Topology::from_chip(chip);
      s.max_cluster_size = chip.topology.max_cluster_size;
      s.runtime = {.min_cycles = 100000, .max_cycles = 100000, .slowdown = 0};
      s.grids = {clusters(chip.num_sms() * per_sm * 2 / size + 8, size, shape)};
      const LaunchReport r = must(run_launch(s));
      std::string per_gpc;
      for (const auto n : r.max_clusters_per_gpc)
        per_gpc += fmt::format("{} ", n);
      std::printf("| %u | %u | %.1f | %llu | %s|\n", size, per_sm,
                  static_cast<double>(chip.num_sms() * per_sm) / size,
                  static_cast<unsigned long long>(r.max_clusters), per_gpc.c_str());
    }
  }
}

void experiment2() {
  std::printf("\n## 2. Cycles to fill 128 SMs x 8 CTAs (8 GPCs x 8 TPCs x 2 SMs, 1024 CTAs)\n\n");
  std::printf("| policy | steps | decision cycles | last CTA running at cycle |\n");
  std::printf("|---|---:|---:|---:|\n");
  for (const char* policy : {"prior-art", "round-robin", "first-fit", "waterfill"}) {
    LaunchScenario s;
    s.topology = std::move(Topology::make({8, 8, 8, 8, 8, 8, 8, 8}, 2, SmCapacity{})).value();
    s.policy = policy;
    s.runtime = {.min_cycles = 1000000, .max_cycles = 1000000, .slowdown = 0};
    GridSpec g;
    g.grid = {.x = 1024, .y = 1, .z = 1};
    g.shape = {.threads = 256, .registers_per_thread = 32, .shared_bytes = 0};  // 8 per SM
    s.grids = {g};
    const LaunchReport r = must(run_launch(s));
    std::printf("| %s | %llu | %llu | %llu |\n", policy, static_cast<unsigned long long>(r.steps),
                static_cast<unsigned long long>(r.decision_cycles),
                static_cast<unsigned long long>(r.fill_cycles));
  }
}

// One table row per policy: the mean over seeds 1-5 of makespan, idle SM-cycles, utilization.
void mixed(const config::ChipSpec& chip, std::uint32_t big, std::uint32_t small) {
  std::printf("| policy | makespan (cycles) | idle SM-cycles | utilization |\n");
  std::printf("|---|---:|---:|---:|\n");
  const CtaShape shape{.threads = 256, .registers_per_thread = 64, .shared_bytes = 40u << 10};
  for (const char* policy : {"waterfill", "round-robin", "first-fit", "prior-art"}) {
    double makespan = 0, idle = 0, util = 0;
    for (std::uint64_t seed = 1; seed <= 5; ++seed) {
      LaunchScenario s;
      s.topology = Topology::from_chip(chip);
      s.max_cluster_size = chip.topology.max_cluster_size;
      s.policy = policy;
      s.runtime = {.min_cycles = 20000, .max_cycles = 60000, .slowdown = 0.5};
      GridSpec a = clusters(big, 8, shape), b = clusters(small, 2, shape);
      a.priority = 1;  // the size-8 grid first, the size-2 grid fills in behind it
      s.grids = {a, b};
      const LaunchReport r = must(run_launch(s, seed));
      makespan += static_cast<double>(r.makespan_cycles) / 5;
      idle += static_cast<double>(r.idle_sm_cycles) / 5;
      util += r.utilization / 5;
    }
    std::printf("| %s | %.0f | %.0f | %.1f%% |\n", policy, makespan, idle, 100 * util);
  }
}

void experiment3(const config::ChipSpec& chip) {
  std::printf(
      "\n## 3. Mixed workload on %s: a grid of size-8 clusters, then a grid of size-2 clusters\n"
      "CTA 256 threads, 64 regs, 40 KiB shared (5 per SM); run time uniform 20000-60000 cycles, "
      "slowdown 0.5 at full occupancy; mean of seeds 1-5\n",
      chip.name.c_str());
  std::printf("\n### Heavy: 96 clusters of 8, then 384 clusters of 2 (2.1 chip-fulls)\n\n");
  mixed(chip, 96, 384);
  std::printf("\n### Light: 12 clusters of 8, then 48 clusters of 2 (0.29 chip-fulls)\n\n");
  mixed(chip, 12, 48);
}

void experiment4() {
  std::printf(
      "\n## 4. Rasterization: centralized decode vs distributed delta counting (132 SMs)\n\n");
  std::printf(
      "| grid | CTAs/packet | central ids/cycle | distributed ids/cycle | speed-up | central B/CTA "
      "| distributed B/CTA |\n");
  std::printf("|---|---:|---:|---:|---:|---:|---:|\n");
  constexpr std::uint32_t kSms = 132;
  for (const GridDims grid :
       {GridDims{.x = 1024, .y = 1, .z = 1}, GridDims{.x = 18, .y = 12, .z = 1},
        GridDims{.x = 64, .y = 64, .z = 8}}) {
    for (const std::uint32_t per_packet : {1u, 8u, 36u, 132u}) {
      // Launches dealt to SMs in ascending order, wrapping: a full-chip wave per round.
      std::vector<std::uint32_t> order(grid.count());
      for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = static_cast<std::uint32_t>(i % kSms);
      RasterCostModel m;
      m.ctas_per_packet = per_packet;
      const RasterComparison c = compare_rasterization(grid, kSms, order, m);
      std::printf("| %ux%ux%u | %u | %.2f | %.2f | %.1fx | %.1f | %.2f |\n", grid.x, grid.y, grid.z,
                  per_packet, c.central_ids_per_cycle, c.distributed_ids_per_cycle, c.speedup(),
                  c.central_bytes_per_cta, c.distributed_bytes_per_cta);
    }
  }
}

// Experiment 4 on the modelled H100: a stream_fill grid (256 threads a CTA, 8 CTAs an SM at
// once) in timing-only mode, both rasterizations. ids/bus cycle: CTAs over the cycles the
// CWD->SM bus was busy; the first wave is one water-fill step (8 sm_mask packets, or 1056 ids).
void experiment4_chip(const config::ChipSpec& spec) {
  std::printf("\n### 4b. On the chip (h100-sxm5, stream_fill, 256 threads/CTA, timing-only)\n\n");
  std::printf(
      "| CTAs | rasterization | bus cycles | ids/bus cycle | SM decodes (overflow) | fill cycles "
      "| run cycles |\n");
  std::printf("|---:|---|---:|---:|---:|---:|---:|\n");
  kernel::KernelRegistry kernels;
  if (!workloads::register_kernels(kernels).ok()) std::exit(1);
  const kernel::KernelDef& fill = *kernels.find("stream_fill").value();
  using R = DistributorTiming::Rasterization;
  for (const std::uint32_t ctas : {1056u, 4224u}) {
    for (const R r : {R::kDistributed, R::kCentral}) {
      sim::Simulation sim(1);
      auto chip = system::Chip::create(sim, spec,
                                       {.functional = false, .distributor = {.rasterization = r}});
      if (!chip) std::exit(1);
      const std::uint64_t n = std::uint64_t{ctas} * 256 * 4;
      if (!(*chip)->launch(fill, {.grid = {ctas, 1, 1}, .block = {256, 1, 1}},
                           kernel::KernelArgs().ptr(0x1000'0000).u64(n))) {
        std::exit(1);
      }
      sim.run();
      const auto stat = [&](const char* name) {
        return sim.stats()
            .find(fmt::format("chip0.cwd.{}", name))
            .value()
            ->to_json()["value"]
            .get<double>();
      };
      const WorkDistributor& cwd = (*chip)->distributor();
      const sim::Clock& clock = (*chip)->clock();
      const double bus = stat("broadcast_cycles");
      std::printf("| %u | %s | %.0f | %.1f | %.0f (%.0f) | %llu | %llu |\n", ctas,
                  r == R::kCentral ? "central" : "distributed", bus, ctas / bus,
                  stat("raster_decodes"), stat("raster_overflow_decodes"),
                  static_cast<unsigned long long>(clock.cycle_at(cwd.fill_tick()) -
                                                  clock.cycle_at(cwd.first_start())),
                  static_cast<unsigned long long>(clock.cycle_at(sim.now())));
    }
  }
}

void experiment5(const config::ChipSpec& chip) {
  std::printf(
      "\n## 5. CGA levels on %s (%u CPCs per GPC, %u µGPUs): 264 clusters of 8 CTAs, run time "
      "uniform 20000-60000 cycles, slowdown 0.5, seed 1\n\n",
      chip.name.c_str(), chip.topology.cpcs_per_gpc, chip.topology.ugpus);
  std::printf(
      "| CTAs/SM | grouping | clusters resident at once | decision cycles | makespan (cycles) "
      "| utilization |\n");
  std::printf("|---:|---|---:|---:|---:|---:|\n");
  struct Row {
    const char* name;
    ClusterKind kind;
    std::uint32_t group, cpc;
  };
  const Row rows[] = {{"GPC_CGA (no CPC level)", ClusterKind::kGpcCga, 1, 0},
                      {"2 CPC_CGAs of 4", ClusterKind::kGpcCga, 1, 2},
                      {"4 CPC_CGAs of 2", ClusterKind::kGpcCga, 1, 4},
                      {"µGPU_CGA of 4 clusters", ClusterKind::kUgpuCga, 4, 0},
                      {"GPU_CGA of 4 clusters", ClusterKind::kGpuCga, 4, 0}};
  for (const std::uint32_t per_sm : {1u, 2u}) {
    const CtaShape shape{.threads = 128,
                         .registers_per_thread = 32,
                         .shared_bytes = per_sm == 1 ? 120u << 10 : 100u << 10};
    for (const Row& row : rows) {
      LaunchScenario s;
      s.topology = Topology::from_chip(chip);
      s.max_cluster_size = chip.topology.max_cluster_size;
      s.runtime = {.min_cycles = 20000, .max_cycles = 60000, .slowdown = 0.5};
      GridSpec g = clusters(264, 8, shape);
      g.kind = row.kind;
      g.cpc_cgas_per_gpc_cga = row.cpc;
      if (row.kind == ClusterKind::kUgpuCga) g.gpc_cgas_per_ugpu_cga = row.group;
      if (row.kind == ClusterKind::kGpuCga) g.gpc_cgas_per_gpu_cga = row.group;
      s.grids = {g};
      const LaunchReport r = must(run_launch(s, 1));
      std::printf("| %u | %s | %llu | %llu | %llu | %.1f%% |\n", per_sm, row.name,
                  static_cast<unsigned long long>(r.max_clusters),
                  static_cast<unsigned long long>(r.decision_cycles),
                  static_cast<unsigned long long>(r.makespan_cycles), 100 * r.utilization);
    }
  }
}

}  // namespace

int main() {
  const config::ChipSpec chip = h100();
  std::printf("# xpusim work-distributor experiments\n");
  experiment1(chip);
  experiment2();
  experiment3(chip);
  experiment4();
  experiment4_chip(chip);
  experiment5(chip);
  return 0;
}
