// mma.sync timing on the h100-sxm5 chip against the model docs/ptx.md states ("Timing"): a
// dependent chain of m16n8k16 costs the measured ~33-cycle latency each, and 16 warps of
// independent mmas keep the four tensor pipes at ~2/3 of H100's 1024 dense f16 FMAs per cycle.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "config/chip_spec.h"
#include "ptx/parser.h"
#include "ptx/ptx_kernel.h"
#include "sim/simulation.h"
#include "system/chip.h"

namespace xpusim::ptx {
namespace {

// `n` loop trips of `per_trip` m16n8k16 mmas per warp; `dependent`: each reads the last one's D,
// else each has its own accumulator.
std::string kernel_text(std::uint32_t per_trip, bool dependent) {
  std::string body;
  for (std::uint32_t k = 0; k < per_trip; ++k) {
    const std::uint32_t c = dependent ? 0 : 4 * k;
    body += fmt::format(
        "  mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {{%c{0}, %c{1}, %c{2}, %c{3}}}, "
        "{{%a0, %a1, %a2, %a3}}, {{%b0, %b1}}, {{%c{0}, %c{1}, %c{2}, %c{3}}};\n",
        c, c + 1, c + 2, c + 3);
  }
  return fmt::format(R"(.version 9.0
.target sm_90a
.address_size 64
.visible .entry k(.param .u32 n)
{{
  .reg .b32 %a<4>, %b<2>, %n, %i;
  .reg .f32 %c<32>;
  .reg .pred %p;
  ld.param.u32 %n, [n];
  mov.b32 %a0, 0; mov.b32 %a1, 0; mov.b32 %a2, 0; mov.b32 %a3, 0;
  mov.b32 %b0, 0; mov.b32 %b1, 0;
  mov.u32 %i, 0;
LOOP:
{}  add.u32 %i, %i, 1;
  setp.lt.u32 %p, %i, %n;
  @%p bra LOOP;
  ret;
}}
)",
                     body);
}

// SM cycles from the kernel's first instruction to its end.
double run_cycles(const std::string& text, std::uint32_t threads, std::uint32_t trips) {
  auto module = parse_module(text, "mma.ptx");
  EXPECT_TRUE(module.ok()) << module.error().message;
  auto def = make_kernel(std::make_shared<const Module>(std::move(module).value()), "k");
  EXPECT_TRUE(def.ok()) << def.error().message;
  const config::ChipSpec spec =
      config::load_chip_file(std::filesystem::path(XPUSIM_CONFIG_DIR) / "chips/h100-sxm5.yaml")
          .value();
  sim::Simulation sim{1};
  auto chip = system::Chip::create(sim, spec, {}).value();
  kernel::KernelArgs args;
  args.u32(trips);
  auto id =
      chip->launch(*def, kernel::LaunchParams{.grid = {1, 1, 1}, .block = {threads, 1, 1}}, args);
  EXPECT_TRUE(id.ok());
  sim.run();
  EXPECT_FALSE(chip->fault());
  const auto& run = chip->run(*id);
  EXPECT_TRUE(run.done);
  return static_cast<double>(run.completed - run.first_start) *
         static_cast<double>(spec.clocks.sm_hz) / 1e12;
}

TEST(MmaSyncTiming, ADependentChainPaysTheLatencyOfEach) {
  constexpr std::uint32_t trips = 50, per_trip = 8;
  const double per_mma = run_cycles(kernel_text(per_trip, true), 32, trips) / (trips * per_trip);
  EXPECT_GT(per_mma, 32.0);
  EXPECT_LT(per_mma, 40.0);  // 33 plus the loop's share
}

TEST(MmaSyncTiming, IndependentMmasReachTwoThirdsOfTheDensePeak) {
  constexpr std::uint32_t trips = 50, per_trip = 8, warps = 16;
  const double cycles = run_cycles(kernel_text(per_trip, false), 32 * warps, trips);
  const double fma_per_cycle = 2048.0 * per_trip * trips * warps / cycles;
  EXPECT_GT(fma_per_cycle, 0.6 * 1024);
  EXPECT_LT(fma_per_cycle, 0.7 * 1024);
}

}  // namespace
}  // namespace xpusim::ptx
