// The launch path host → queue → kernel agent → work distributor → (modelled) SMs: how an AQL
// dispatch becomes a grid, bad dispatches as queue errors, and kernels that arrive one after
// another (each submitted when the previous completed) all running.
#include "system/chip_launcher.h"

#include <gtest/gtest.h>

#include "cp/host.h"
#include "cp/kernel_agent.h"

namespace xpusim::system {
namespace {

const config::ChipSpec& h100() {
  static const config::ChipSpec chip = [] {
    auto c =
        config::load_chip_file(std::filesystem::path(XPUSIM_CONFIG_DIR) / "chips/h100-sxm5.yaml");
    XPUSIM_CHECK(c.ok(), "the H100 config loads");
    return *c;
  }();
  return chip;
}

cp::DispatchPacket dispatch(std::uint16_t wg, std::uint32_t grid, std::uint32_t smem = 0) {
  cp::DispatchPacket p;
  p.header = {.type = cp::PacketType::kKernelDispatch,
              .barrier = true,
              .acquire = cp::FenceScope::kAgent,
              .release = cp::FenceScope::kSystem};
  p.setup = 1;
  p.workgroup_size = {wg, 1, 1};
  p.grid_size = {grid, 1, 1};
  p.group_segment_size = smem;
  p.kernel_object = 0xC0DE;
  p.completion_signal = 0x5;
  return p;
}

struct Rig {
  explicit Rig(std::uint64_t cta_cycles = 1000)
      : clock(sim.events(), h100().clocks.sm_hz), root(sim, "host0"), host(memory) {
    ChipLauncherConfig cfg;
    cfg.runtime = {.min_cycles = cta_cycles, .max_cycles = cta_cycles, .slowdown = 0};
    launcher = std::move(ChipLauncher::create(sim, "chip0", clock, h100(), cfg)).value();
    queue = std::make_unique<cp::AqlQueue>(std::move(host.create_queue(16)).value());
    agent = std::make_unique<cp::KernelAgent>(root, "cp", clock, *queue, *launcher);
    agent->register_kernel(0xC0DE, "k");
    agent->register_signal(0x5, done);
  }
  sim::Simulation sim;
  sim::Clock clock;
  sim::Component root;
  mem::GlobalMemory memory;
  cp::Host host;
  std::unique_ptr<ChipLauncher> launcher;
  std::unique_ptr<cp::AqlQueue> queue;
  cp::Signal done{1};
  std::unique_ptr<cp::KernelAgent> agent;
};

TEST(ChipLauncher, ADispatchBecomesAGridOfWholeWorkgroups) {
  Rig r;
  cp::DispatchPacket p = dispatch(256, 1000, 48 * 1024);
  p.workgroup_size = {16, 16, 1};
  p.grid_size = {100, 33, 1};  // partial workgroups in x and y: 7 x 3 CTAs
  r.launcher->set_kernel(0xC0DE, {.registers_per_thread = 64, .cluster = {1, 1, 1}});
  auto g = r.launcher->grid_of(p);
  ASSERT_TRUE(g.ok()) << g.error().message;
  EXPECT_EQ(g->grid.x, 7u);
  EXPECT_EQ(g->grid.y, 3u);
  EXPECT_EQ(g->grid.z, 1u);
  EXPECT_EQ(g->shape.threads, 256u);
  EXPECT_EQ(g->shape.registers_per_thread, 64u);
  EXPECT_EQ(g->shape.shared_bytes, 48u * 1024);
  EXPECT_EQ(g->kind, sched::ClusterKind::kNone);
}

TEST(ChipLauncher, TheCodeObjectsClusterDimsMakeAClusteredGrid) {
  Rig r;
  r.launcher->set_kernel(0xC0DE, {.registers_per_thread = 32, .cluster = {2, 1, 1}});
  auto g = r.launcher->grid_of(dispatch(128, 128 * 64));
  ASSERT_TRUE(g.ok()) << g.error().message;
  EXPECT_EQ(g->kind, sched::ClusterKind::kGpcCga);
  EXPECT_EQ(g->ctas_per_cga(), 2u);
  r.launcher->set_kernel(0xC0DE, {.registers_per_thread = 32, .cluster = {3, 1, 1}});
  auto odd = r.launcher->grid_of(dispatch(128, 128 * 64));  // 64 CTAs: 3 does not divide
  ASSERT_FALSE(odd.ok());
}

TEST(ChipLauncher, BadDispatchesAreErrorsNamingTheRule) {
  Rig r;
  cp::DispatchPacket zero = dispatch(128, 1024);
  zero.workgroup_size[1] = 0;
  auto z = r.launcher->grid_of(zero);
  ASSERT_FALSE(z.ok());
  EXPECT_NE(z.error().message.find("dimension y: workgroup_size 0"), std::string::npos)
      << z.error().message;
  auto big = r.launcher->grid_of(dispatch(128, 1024, 300 * 1024));  // 300 KiB > 227 KiB per block
  ASSERT_FALSE(big.ok());
}

TEST(ChipLauncher, AWorkgroupNoSmHoldsPutsTheQueueInErrorAndSignalsIt) {
  Rig r;
  ASSERT_TRUE(r.host.submit(*r.queue, dispatch(128, 1024, 300 * 1024)).ok());
  r.sim.run();
  ASSERT_FALSE(r.queue->active());
  EXPECT_NE(r.queue->error()->message.find("kernel k (0xc0de)"), std::string::npos)
      << r.queue->error()->message;
  EXPECT_EQ(r.done.load_acquire(), cp::kErrorSignalValue);
}

TEST(ChipLauncher, KernelsArrivingOneAfterAnotherAllRunOnTheDistributor) {
  Rig r(1000);
  // 132 SMs x 8 CTAs of 256 threads: 1056 slots, so 1024 CTAs are one wave.
  const std::vector<cp::PacketBytes> packets(3, cp::encode(dispatch(256, 256 * 1024)));
  r.done.store_release(3);
  ASSERT_TRUE(r.host.submit_all(*r.queue, packets).ok());
  r.sim.run();
  ASSERT_TRUE(r.queue->active()) << r.queue->error()->message;
  EXPECT_EQ(r.done.load_acquire(), 0);  // all three completed (the CWD waited for each grid)
  EXPECT_TRUE(r.launcher->distributor().all_done());
  const auto k = r.agent->kernel_summaries();
  ASSERT_EQ(k.size(), 1u);
  EXPECT_EQ(k[0].launches, 3u);
  // One wave: each kernel runs its CTAs' 1000 cycles plus the launch packets and completion.
  EXPECT_GE(k[0].run_cycles, 3 * 1000u);
  EXPECT_LT(k[0].run_cycles, 3 * 1100u);
  EXPECT_GT(k[0].latency_cycles, 0u);  // the CWD's decision, broadcast and CTA launch
  for (std::uint32_t g = 0; g < 3; ++g) {
    const auto& t = r.launcher->distributor().grid_times(g);
    EXPECT_LT(t.submitted, t.first_start);
    EXPECT_LT(t.first_start, t.completed);
    if (g > 0) {
      EXPECT_GT(t.submitted, r.launcher->distributor().grid_times(g - 1).completed);
    }
  }
}

}  // namespace
}  // namespace xpusim::system
