// `xpusim cp replay`: the condensed-dispatch experiment from the command line.
#include "cli_harness.h"

namespace xpusim::test {
namespace {

class CpCli : public CliTest {};

TEST_F(CpCli, CondensedReplayFetchesFewerPacketsAndMatchesTheFormula) {
  const CliRun s = run("cp replay --iterations 10 --mode standard --kernel-cycles 500");
  const CliRun c = run("cp replay --iterations 10 --mode condensed --kernel-cycles 500");
  ASSERT_EQ(s.code, 0) << s.err;
  ASSERT_EQ(c.code, 0) << c.err;
  EXPECT_NE(s.out.find("packets fetched 60 (6.00 per iteration), 3840 bytes"), std::string::npos)
      << s.out;
  EXPECT_NE(c.out.find("packets fetched 15 (1.50 per iteration), 960 bytes"), std::string::npos)
      << c.out;
  // "total N cycles (...); timing formula N cycles" with the same N.
  for (const CliRun* r : {&s, &c}) {
    const auto at = r->out.find("total");
    ASSERT_NE(at, std::string::npos);
    const std::string line = r->out.substr(at, r->out.find('\n', at) - at);
    const std::string total = line.substr(line.find_first_of("0123456789"));
    const std::string n = total.substr(0, total.find(' '));
    EXPECT_NE(line.find("timing formula " + n + " cycles"), std::string::npos) << line;
  }
}

TEST_F(CpCli, BothLaunchersPrintPerKernelOverheadNextToRunTime) {
  const CliRun chip = run("cp replay --iterations 3 --kernel-cycles 800");
  const CliRun fixed = run("cp replay --iterations 3 --kernel-cycles 800 --launcher fixed");
  ASSERT_EQ(chip.code, 0) << chip.err;
  ASSERT_EQ(fixed.code, 0) << fixed.err;
  EXPECT_NE(chip.out.find("through the work distributor (waterfill), CTAs fixed:800"),
            std::string::npos)
      << chip.out;
  // Fixed launcher: a kernel starts at once and runs exactly --kernel-cycles.
  EXPECT_NE(fixed.out.find("Sweep               3"), std::string::npos) << fixed.out;
  EXPECT_NE(fixed.out.find(" 0.0 cycles   800.0 cycles"), std::string::npos) << fixed.out;
  // Through the distributor a kernel waits for its CTAs to launch: a non-zero latency.
  EXPECT_EQ(chip.out.find(" 0.0 cycles "), std::string::npos) << chip.out;
  for (const char* k : {"LTimes", "Scattering", "Source", "LPlusTimes", "Sweep", "Population"}) {
    EXPECT_NE(chip.out.find(k), std::string::npos) << k;
  }
}

TEST_F(CpCli, AgentCostsComeFromTheChipAndCpTimingOverridesThem) {
  const CliRun base = run("cp replay --iterations 2 --mode standard --launcher fixed");
  const CliRun slow =
      run("cp replay --iterations 2 --mode standard --launcher fixed --cp-timing setup=160");
  ASSERT_EQ(base.code, 0) << base.err;
  ASSERT_EQ(slow.code, 0) << slow.err;
  // 12 kernels x 100 more setup cycles; the formula follows.
  EXPECT_NE(base.out.find("agent 2840 cycles"), std::string::npos) << base.out;
  EXPECT_NE(slow.out.find("agent 4040 cycles"), std::string::npos) << slow.out;
  const CliRun every =
      run("cp replay --iterations 2 --launcher fixed --cleanup every --kernel-cycles 100");
  const CliRun needed = run("cp replay --iterations 2 --launcher fixed --kernel-cycles 100");
  ASSERT_EQ(every.code, 0) << every.err;
  // 2 × doorbell + 6 standard kernels (fetch, decode, setup, cleanup) + one condensed packet
  // (fetch, decode, 6 × (diff + setup), 1 cleanup) = 2026; --cleanup every adds the condensed
  // iteration's 5 intermediate cleanups (seed3 ¶146).
  EXPECT_NE(needed.out.find("agent 2026 cycles"), std::string::npos) << needed.out;
  EXPECT_NE(every.out.find("agent 2626 cycles"), std::string::npos) << every.out;
}

TEST_F(CpCli, BadFlagsAreOneLineErrors) {
  for (const char* args :
       {"cp replay --mode fast", "cp replay --iterations 0", "cp replay --graph lulesh",
        "cp replay --kernel-cycles 0", "cp replay --launcher gpu", "cp replay --cp-timing fetch",
        "cp replay --cp-timing warp=3", "cp replay --cleanup sometimes",
        "cp replay --launcher fixed --runtime-model fixed:10", "cp replay --policy best",
        "cp replay --runtime-model uniform:9-3"}) {
    const CliRun r = run(args);
    EXPECT_EQ(r.code, 2) << args;
    EXPECT_EQ(lines(r.err).size(), 1u) << args << "\n" << r.err;
  }
  // User numbers are range-checked where they enter: 2^64-1 cycles once overflowed the clock
  // conversion (an internal check), a repeated key silently kept the last value.
  for (const auto& [args, want] : std::vector<std::pair<std::string, std::string>>{
           {"cp replay --kernel-cycles 18446744073709551615",
            "error: --kernel-cycles: 18446744073709551615 is above the largest allowed value, "
            "1099511627776"},
           {"cp replay --runtime-model fixed:18446744073709551615",
            "error: --runtime-model = 'fixed:18446744073709551615': '18446744073709551615' is not "
            "a whole number of cycles from 1 to 1099511627776"},
           {"cp replay --runtime-model uniform:1-1099511627777",
            "error: --runtime-model = 'uniform:1-1099511627777': range 1-1099511627777 needs 0 < "
            "MIN <= MAX <= 1099511627776"},
           {"cp replay --cp-timing fetch=1,fetch=2",
            "error: --cp-timing = fetch=1,fetch=2: 'fetch' is given twice"},
           {"--seed 18446744073709551616 cp replay",
            "error: --seed: 18446744073709551616 is above the largest allowed value, "
            "18446744073709551615"},
       }) {
    const CliRun r = run(args);
    EXPECT_EQ(r.code, 2) << args;
    EXPECT_EQ(r.err.rfind(want, 0), 0u) << args << "\n" << r.err;
    EXPECT_EQ(lines(r.err).size(), 1u) << args << "\n" << r.err;
  }
  // The largest allowed duration runs (2^40 cycles at 1.98 GHz: no overflow anywhere), past
  // the default 1 s guard once that is lifted.
  const CliRun big = run(
      "--max-time none cp replay --launcher fixed --kernel-cycles 1099511627776 --iterations 2");
  EXPECT_EQ(big.code, 0) << big.err;
}

// XPUSIM_RUN_SLICE forces the slices of the progress line (docs/run.md): the same output and
// stats as one run, on both launchers.
TEST_F(CpCli, RunningInSlicesChangesNothing) {
  for (const char* launcher : {"chip", "fixed"}) {
    const std::string args =
        fmt::format("cp replay --iterations 3 --kernel-cycles 800 --launcher {}", launcher);
    const CliRun whole = run("--stats whole.json " + args);
    ::setenv("XPUSIM_RUN_SLICE", "7ns", 1);
    const CliRun sliced = run("--stats sliced.json " + args);
    ::unsetenv("XPUSIM_RUN_SLICE");
    ASSERT_EQ(whole.code, 0) << whole.err;
    ASSERT_EQ(sliced.code, 0) << sliced.err;
    EXPECT_EQ(whole.out, sliced.out) << launcher;
    EXPECT_EQ(sliced.err, "");
    EXPECT_GT(file("whole.json").size(), 1000u);
    EXPECT_EQ(xpusim::test::without_host(file("whole.json")),
              xpusim::test::without_host(file("sliced.json")))
        << launcher;
  }
}

}  // namespace
}  // namespace xpusim::test
