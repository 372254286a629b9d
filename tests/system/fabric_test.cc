// `xpusim fabric`: the report, the outputs (--stats, --svg), and one-line bad-input errors.
#include <nlohmann/json.hpp>

#include <fstream>

#include "cli_harness.h"

namespace xpusim::test {
namespace {

class FabricCli : public CliTest {};

TEST_F(FabricCli, FunctionalAllReduceReportsTimeBandwidthAndVerifies) {
  const fs::path stats = dir_ / "s.json", svg = dir_ / "u.svg";
  const CliRun r = run(
      fmt::format("--stats {} fabric --pod ring-8 --traffic allreduce --algo bidir --bytes 64KiB "
                  "--functional --svg {}",
                  stats.string(), svg.string()));
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* key : {"time ", "bus bw", "links ", "stalls ", "queues ", "verify     ok"}) {
    EXPECT_NE(r.out.find(key), std::string::npos) << key << "\n" << r.out;
  }
  const auto j = nlohmann::json::parse(slurp(stats));
  const auto& net = j.at("fabric").at("network").at("value");
  EXPECT_EQ(net.at("links").size(), 16u);  // 8 chips x 2 used ports
  EXPECT_FALSE(net.at("series").at("t_ns").empty());
  EXPECT_NE(slurp(svg).find("<svg"), std::string::npos);
}

TEST_F(FabricCli, TraceCarriesPerPortCounters) {
  const fs::path trace = dir_ / "t.json";
  const CliRun r = run(
      fmt::format("--trace {} fabric --pod ring-8 --traffic uniform --bytes 64KiB --sample 200ns",
                  trace.string()));
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string t = slurp(trace);
  EXPECT_NE(t.find("fabric.chip0"), std::string::npos);
  EXPECT_NE(t.find("port0.util"), std::string::npos);
  EXPECT_NE(t.find("port1.vc0.bytes"), std::string::npos);
}

TEST_F(FabricCli, SameSeedSameReport) {
  const std::string args = "fabric --pod mesh-4x4 --traffic uniform --bytes 32KiB";
  const CliRun a = run("--seed 3 " + args), b = run("--seed 3 " + args);
  ASSERT_EQ(a.code, 0) << a.err;
  EXPECT_EQ(a.out, b.out);
}

TEST_F(FabricCli, BadInputIsOneLineExit2) {
  for (const std::string args :
       {"fabric --policy fifo", "fabric --traffic allreduce --bytes 6", "fabric --traffic bogus",
        "fabric --pod no-such-pod", "fabric --buffer 1KiB", "fabric --rtt psychic",
        "fabric --traffic allgather --algo torus",
        // Zero is not "the default" (issue 44), and numbers that would overflow are refused.
        "fabric --buffer 0", "fabric --sample 0ns", "fabric --sample 1ps",
        "fabric --realloc-every 0ns", "fabric --realloc-retry 0s", "fabric --realloc-timeout 0s",
        "fabric --profile-bytes 0", "fabric --bytes 2048TiB", "fabric --realloc-at 100000s"}) {
    const CliRun r = run(args);
    EXPECT_EQ(r.code, 2) << args << "\n" << r.out << r.err;
    EXPECT_EQ(lines(r.err).size(), 1u) << args << "\n" << r.err;
    EXPECT_NE(r.err.find("error:"), std::string::npos) << args;
  }
}

TEST_F(FabricCli, ZeroBufferNamesTheFlagAndTheRule) {
  const CliRun r = run("fabric --pod ring-8 --buffer 0");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "error: --buffer = 0: must be > 0 (omit --buffer for the pod's buffer.bytes)\n");
}

TEST_F(FabricCli, ABitErrorRateNoPacketSurvivesIsALoadErrorNotAHang) {
  std::ofstream(dir_ / "ber.yaml") << "name: ber\nshape: ring\ndims: [8]\nports_per_chip: 2\n"
                                      "media: {copper: {bit_error_rate: 1e-2}}\n";
  const CliRun r = run("fabric --pod ber.yaml --max-time 10us");
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_EQ(lines(r.err).size(), 1u) << r.err;
  EXPECT_NE(r.err.find("media.copper.bit_error_rate: 0.01"), std::string::npos) << r.err;
}

TEST_F(FabricCli, ALinkThatRunsOutOfReplaysEndsTheRunWithAReportAndTheStats) {
  std::ofstream(dir_ / "fragile.yaml")
      << "name: fragile\nshape: ring\ndims: [8]\nports_per_chip: 2\n"
         "media: {copper: {bit_error_rate: 1e-4}}\nrouter: {max_replays: 0}\n";
  const fs::path stats = dir_ / "s.json";
  const CliRun r =
      run(fmt::format("--stats {} fabric --pod fragile.yaml --bytes 256KiB", stats.string()));
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("result     a link failed: the run stopped at "), std::string::npos)
      << r.out;
  EXPECT_EQ(lines(r.err).size(), 1u) << r.err;
  EXPECT_NE(r.err.find("(router.max_replays)"), std::string::npos) << r.err;
  EXPECT_TRUE(fs::exists(stats));
}

TEST_F(FabricCli, A65536ChipAllToAllIsRefusedBeforeAllocating) {
  std::ofstream(dir_ / "big.yaml") << "name: big\nshape: torus\ndims: [64, 32, 32]\n";
  const CliRun r = run("fabric --pod big.yaml --traffic alltoall --bytes 64KiB");
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_EQ(lines(r.err).size(), 1u) << r.err;
  EXPECT_NE(r.err.find("host memory: the run needs about"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("(--traffic alltoall)"), std::string::npos) << r.err;
}

// XPUSIM_RUN_SLICE forces the slices of the progress line (docs/run.md): the same output and
// stats as one run.
TEST_F(FabricCli, RunningInSlicesChangesNothing) {
  const std::string args = "fabric --pod ring-8 --bytes 64KiB";
  const CliRun whole = run("--stats whole.json " + args);
  ::setenv("XPUSIM_RUN_SLICE", "50ns", 1);
  const CliRun sliced = run("--stats sliced.json " + args);
  ::unsetenv("XPUSIM_RUN_SLICE");
  ASSERT_EQ(whole.code, 0) << whole.err;
  ASSERT_EQ(sliced.code, 0) << sliced.err;
  EXPECT_EQ(whole.out, sliced.out);
  EXPECT_EQ(sliced.err, "");
  EXPECT_GT(file("whole.json").size(), 1000u);
  EXPECT_EQ(without_host(file("whole.json")), without_host(file("sliced.json")));
}

}  // namespace
}  // namespace xpusim::test
