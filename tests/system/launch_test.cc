// `xpusim launch`: the work distributor from the command line — figures, --explain, --svg,
// determinism, and one-line errors (exit 2, nothing simulated) for bad input.
#include "cli_harness.h"

namespace xpusim::test {
namespace {

class LaunchCli : public CliTest {};

TEST_F(LaunchCli, PairClustersOnH100FillEveryGpcToItsSmCount) {
  const CliRun r =
      run("launch --grid 264,1,1 --cluster 2,1,1 --cta-resources smem=120KiB --runtime-model "
          "fixed:1000");
  ASSERT_EQ(r.code, 0) << r.err;
  // One CTA per SM fits 66 pairs: 9 per 18-SM GPC, 8 per 16-SM GPC.
  EXPECT_NE(r.out.find("clusters resident at once  66 (per GPC, most at once: 9 9 8 8 8 8 8 8)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("makespan"), std::string::npos);
  EXPECT_NE(r.out.find("SM utilization"), std::string::npos);
}

TEST_F(LaunchCli, TimingKnobsMoveTheLaunchLatency) {
  const std::string base = "launch --grid 8 --runtime-model fixed:100 ";
  const CliRun fast = run(base + "--timing broadcast=1,launch=1");
  const CliRun slow = run(base + "--timing broadcast=50,launch=50,step=10");
  ASSERT_EQ(fast.code, 0) << fast.err;
  ASSERT_EQ(slow.code, 0) << slow.err;
  // decision (step + 4 probes of the level search) + broadcast + launch
  EXPECT_NE(fast.out.find("first CTA at cycle 8;"), std::string::npos) << fast.out;  // 2+4+1+1
  EXPECT_NE(slow.out.find("first CTA at cycle 114;"), std::string::npos) << slow.out;
}

TEST_F(LaunchCli, ExplainNamesTheResourceThatRanOutOnEachGpc) {
  const CliRun r =
      run("launch --chip h100-pcie --grid 32 --cluster 16 --cta-resources smem=120KiB --explain "
          "--runtime-model fixed:100");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("GPC 0 (16 SMs): yes"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("GPC 1 (14 SMs): no"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("shared memory"), std::string::npos) << r.out;
}

TEST_F(LaunchCli, SvgHoldsThePlacementMapAndTheCurve) {
  const CliRun r = run("launch --grid 64 --cluster 4 --svg map.svg --runtime-model fixed:500");
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string svg = file("map.svg");
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_NE(svg.find("GPC 7"), std::string::npos);
  EXPECT_NE(svg.find("busy SMs over time"), std::string::npos);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
}

TEST_F(LaunchCli, SameSeedGivesByteIdenticalStats) {
  const std::string args =
      "launch --grid 96,4 --cluster 2,2 --runtime-model uniform:1000-9000,slowdown=0.5";
  ASSERT_EQ(run("--seed 5 --stats a.json " + args).code, 0);
  ASSERT_EQ(run("--seed 5 --stats b.json " + args).code, 0);
  ASSERT_EQ(run("--seed 6 --stats c.json " + args).code, 0);
  EXPECT_EQ(xpusim::test::without_host(file("a.json")), xpusim::test::without_host(file("b.json")));
  EXPECT_NE(xpusim::test::without_host(file("a.json")), xpusim::test::without_host(file("c.json")));
  EXPECT_NE(file("a.json").find("\"chip0.cwd\""), std::string::npos);
  EXPECT_NE(file("a.json").find("\"decision_cycles\""), std::string::npos);
}

// XPUSIM_RUN_SLICE forces the slices of the progress line (docs/run.md): the same output and
// stats as one run.
TEST_F(LaunchCli, RunningInSlicesChangesNothing) {
  const std::string args =
      "launch --grid 96,4 --cluster 2,2 --runtime-model uniform:1000-9000,slowdown=0.5";
  const CliRun whole = run("--stats whole.json " + args);
  ::setenv("XPUSIM_RUN_SLICE", "7ns", 1);
  const CliRun sliced = run("--stats sliced.json " + args);
  ::setenv("XPUSIM_RUN_SLICE", "0ns", 1);
  const CliRun bad = run(args);
  ::unsetenv("XPUSIM_RUN_SLICE");
  ASSERT_EQ(whole.code, 0) << whole.err;
  ASSERT_EQ(sliced.code, 0) << sliced.err;
  EXPECT_EQ(whole.out, sliced.out);
  EXPECT_EQ(sliced.err, "");  // no progress line: stderr is not a terminal
  EXPECT_GT(file("whole.json").size(), 1000u);
  EXPECT_EQ(xpusim::test::without_host(file("whole.json")),
            xpusim::test::without_host(file("sliced.json")));
  EXPECT_EQ(bad.code, 2);
  EXPECT_EQ(bad.err, "error: XPUSIM_RUN_SLICE = 0ns: must be greater than zero\n");
}

TEST_F(LaunchCli, BadInputIsOneLineExitTwoAndNothingRuns) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--grid 10 --cluster 3", "does not divide"},
      {"--grid 0,1,1", "dim x is 0"},
      {"--grid 32 --cluster 32", "maximum cluster size 16"},
      {"--grid 8 --policy fastest", "fastest"},
      {"--grid 8 --cta-resources threads=4096", "4096"},
      {"--grid 8 --cta-resources smem=300KiB", "307200"},
      {"--grid 8 --runtime-model fixed:x", "--runtime-model"},
      {"--grid 8 --cta-resources foo=1", "foo"},
      {"--grid 8,a", "--grid"},
      {"--grid 8 --timing step=x", "step"},
      {"--grid 8 --timing speed=3", "speed"},
      {"--grid 8 --timing packets_per_cycle=0", "packets_per_cycle = 0"},
      {"--grid 144 --cluster 16 --gpu-cga 9 --cta-resources smem=120KiB",
       "does not fit on an empty chip"},
  };
  for (const auto& [args, needle] : cases) {
    const CliRun r = run("--stats s.json launch " + args);
    EXPECT_EQ(r.code, 2) << args << "\n" << r.out << r.err;
    EXPECT_EQ(lines(r.err).size(), 1u) << args << "\n" << r.err;
    EXPECT_EQ(r.err.rfind("error: ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find(needle), std::string::npos) << args << "\n" << r.err;
    EXPECT_FALSE(fs::exists(dir_ / "s.json")) << args;
  }
}

}  // namespace
}  // namespace xpusim::test
