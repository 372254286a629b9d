// Module variables (.global / .const: __device__ / __constant__) on the chip: one region per
// module and chip, shared by the module's kernels, so what one launch leaves in a __device__
// variable the next launch of another entry reads.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>

#include "config/chip_spec.h"
#include "kernel/kernel_args.h"
#include "kernel/registry.h"
#include "ptx/parser.h"
#include "ptx/ptx_kernel.h"
#include "sim/simulation.h"
#include "system/chip.h"

namespace xpusim::ptx {
namespace {

// bump: counter += 1 per thread (atom.global on [counter]); read: out[0] = counter + scale[1].
constexpr const char* kModule = R"(.version 9.0
.target sm_90a
.address_size 64

.visible .global .align 4 .u32 counter = 5;
.const .align 4 .u32 scale[2] = {0, 1000};

.visible .entry bump()
{
	.reg .b32 	%r<2>;
	atom.global.add.u32 	%r1, [counter], 1;
	ret;
}

.visible .entry read(
	.param .u64 read_param_0
)
{
	.reg .b32 	%r<4>;
	.reg .b64 	%rd<3>;
	ld.param.u64 	%rd1, [read_param_0];
	cvta.to.global.u64 	%rd2, %rd1;
	ld.global.u32 	%r1, [counter];
	ld.const.u32 	%r2, [scale+4];
	add.s32 	%r3, %r1, %r2;
	st.global.u32 	[%rd2], %r3;
	ret;
}
)";

config::ChipSpec h100() {
  return config::load_chip_file(std::filesystem::path(XPUSIM_CONFIG_DIR) / "chips/h100-sxm5.yaml")
      .value();
}

TEST(PtxModuleVariables, EntriesOfOneModuleShareThemAcrossLaunches) {
  auto parsed = parse_module(kModule, "m.ptx");
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  auto module = std::make_shared<const Module>(std::move(parsed).value());
  kernel::KernelRegistry registry;
  ASSERT_TRUE(register_module(module, registry).ok());
  auto found_bump = registry.find("bump");
  auto found_read = registry.find("read");
  ASSERT_TRUE(found_bump.ok() && found_read.ok());
  const kernel::KernelDef* bump = *found_bump;
  const kernel::KernelDef* read = *found_read;
  EXPECT_EQ(bump->globals, read->globals);  // one region for the module

  sim::Simulation sim{1};
  auto chip = system::Chip::create(sim, h100(), {}).value();
  auto out = chip->allocate("out", 4);
  ASSERT_TRUE(out.ok());
  const kernel::LaunchParams one{.grid = {1, 1, 1}, .block = {64, 1, 1}};
  auto first = chip->launch(*bump, one, kernel::KernelArgs{});
  ASSERT_TRUE(first.ok()) << first.error().message;
  kernel::KernelArgs args;
  args.ptr(*out);
  auto second =
      chip->launch(*read, {.grid = {1, 1, 1}, .block = {32, 1, 1}}, args, {}, {.after = {*first}});
  ASSERT_TRUE(second.ok()) << second.error().message;
  sim.run();
  ASSERT_FALSE(chip->fault()) << chip->fault()->message;
  std::uint32_t got = 0;
  ASSERT_TRUE(chip->memory().read(*out, std::as_writable_bytes(std::span(&got, 1))).ok());
  EXPECT_EQ(got, 5u + 64u + 1000u);
}

}  // namespace
}  // namespace xpusim::ptx
