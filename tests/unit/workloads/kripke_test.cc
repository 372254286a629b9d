// The Kripke workload (src/workloads/kripke.h) on the tiny chip, through the command processor:
// its chained kernels compute the host loop's result in both dispatch modes, condensed dispatch
// fetches fewer packets and finishes sooner, and the total equals the seed3 formula it reports.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>

#include "config/chip_spec.h"
#include "sim/simulation.h"
#include "system/chip.h"
#include "workloads/workload.h"

namespace xpusim::workloads {
namespace {

struct Figure {
  double measured = 0;
  double configured = 0;
};

std::map<std::string, Figure> run_kripke(system::DispatchMode mode) {
  sim::Simulation sim{1};
  const config::ChipSpec spec =
      config::load_chip_file(std::filesystem::path(XPUSIM_CONFIG_DIR) / "chips/tiny.yaml").value();
  auto chip =
      system::Chip::create(sim, spec, system::ChipOptions{.queues = {{.dispatch = mode}}}).value();
  kernel::KernelRegistry kernels;
  WorkloadRegistry workloads;
  EXPECT_TRUE(register_all(kernels, workloads).ok());
  Workload* w = workloads.find("kripke").value();
  const auto values =
      resolve_params(*w, {{"iterations", 6}, {"elements", 512}, {"ctas", 2}}).value();
  EXPECT_TRUE(w->setup(*chip, kernels, values).ok());
  sim.run();
  auto report = w->report(*chip);
  EXPECT_TRUE(report.ok()) << (report.ok() ? "" : report.error().message);
  std::map<std::string, Figure> out;
  if (!report.ok()) return out;
  for (const Measurement& m : *report)
    out[m.name] = {.measured = m.measured, .configured = m.configured.value_or(-1)};
  return out;
}

TEST(Kripke, CondensedDispatchIsVerifiedFasterAndOnTheFormula) {
  auto standard = run_kripke(system::DispatchMode::kStandard);
  auto condensed = run_kripke(system::DispatchMode::kCondensed);
  ASSERT_FALSE(standard.empty());
  ASSERT_FALSE(condensed.empty());
  EXPECT_EQ(standard["kernels"].measured, 36);
  EXPECT_EQ(standard["packets fetched"].measured, 36);
  // Six reference packets, then 30 one-slot diffs in one condensed packet.
  EXPECT_EQ(condensed["packets fetched"].measured, 7);
  EXPECT_EQ(standard["total"].measured, standard["total"].configured);
  EXPECT_EQ(condensed["total"].measured, condensed["total"].configured);
  EXPECT_LT(condensed["total"].measured, standard["total"].measured);
  EXPECT_LT(condensed["dispatch overhead per kernel"].measured,
            standard["dispatch overhead per kernel"].measured);
}

}  // namespace
}  // namespace xpusim::workloads
