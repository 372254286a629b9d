// `xpusim fabric`: the report, the outputs (--stats, --svg), and one-line bad-input errors.
#include <nlohmann/json.hpp>

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
        "fabric --traffic allgather --algo torus"}) {
    const CliRun r = run(args);
    EXPECT_EQ(r.code, 2) << args << "\n" << r.out << r.err;
    EXPECT_EQ(lines(r.err).size(), 1u) << args << "\n" << r.err;
    EXPECT_NE(r.err.find("error:"), std::string::npos) << args;
  }
}

}  // namespace
}  // namespace xpusim::test
