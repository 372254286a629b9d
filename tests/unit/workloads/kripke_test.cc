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
#include "system/run.h"
#include "workloads/register_all.h"

namespace xpusim::workloads {
namespace {

struct Figure {
  double measured = 0;
  double configured = 0;
};

std::map<std::string, Figure> run_kripke(system::DispatchMode mode) {
  const config::ChipSpec spec =
      config::load_chip_file(std::filesystem::path(XPUSIM_CONFIG_DIR) / "chips/tiny.yaml").value();
  system::Scenario s = system::workload_scenario(
      "tiny", "kripke", {{"iterations", 6}, {"elements", 512}, {"ctas", 2}});
  s.queues = {{.dispatch = mode}};
  auto report = system::run(s, spec, register_all);
  EXPECT_TRUE(report.ok()) << (report.ok() ? "" : report.error().message);
  std::map<std::string, Figure> out;
  if (!report.ok()) return out;
  EXPECT_TRUE(report->ok()) << (report->ok() ? "" : report->errors.front().message);
  for (const system::Measurement& m : report->measurements)
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
