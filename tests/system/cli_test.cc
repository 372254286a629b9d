// The command-line contract: exit codes (0 ok, 1 simulation failure, 2 bad input), one-line
// `error:` messages, `info` output, and byte-identical stats/traces for the same seed.
#include <algorithm>

#include <nlohmann/json.hpp>

#include "cli_harness.h"

namespace {

using xpusim::test::CliRun;
using xpusim::test::lines;
using xpusim::test::slurp;
using xpusim::test::without_host;
namespace fs = std::filesystem;

class Cli : public xpusim::test::CliTest {
 protected:
  // Bad input: exit 2, nothing on stdout, every stderr line a single `error:` line.
  void expect_bad_input(const CliRun& r, const std::string& needle) {
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_EQ(r.out, "");
    const auto ls = lines(r.err);
    ASSERT_FALSE(ls.empty());
    for (const auto& l : ls)
      EXPECT_EQ(l.rfind("error: ", 0), 0u) << l;
    EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
  }
};

TEST_F(Cli, Version) {
  const CliRun r = run("--version");
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.out, "xpusim 0.1.0\n");
}

TEST_F(Cli, HelpListsTheCommandsAndGlobalFlags) {
  const CliRun r = run("--help");
  EXPECT_EQ(r.code, 0);
  for (const char* word : {"info", "list", "schema", "demo", "--stats", "--trace", "--seed",
                           "--max-time", "--trace-filter"}) {
    EXPECT_NE(r.out.find(word), std::string::npos) << word;
  }
}

TEST_F(Cli, InfoTinyMatchesTheGoldenSummary) {
  const CliRun r = run("info tiny");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, slurp(fs::path(XPUSIM_TEST_DATA_DIR) / "info_tiny.txt"));
  // The facts that matter, independently of layout: 2 GPCs x 2 TPCs x 2 SMs.
  EXPECT_NE(r.out.find("2 GPCs, 4 TPCs, 8 SMs"), std::string::npos);
}

TEST_F(Cli, InfoH100ShowsThePublishedPeak) {
  const CliRun r = run("info h100-sxm5");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("132 SMs"), std::string::npos);
  EXPECT_NE(r.out.find("989.4 TFLOPS"), std::string::npos);
}

TEST_F(Cli, InfoAcceptsAPath) {
  const CliRun r = run(fmt::format("info '{}/chips/tiny.yaml'", XPUSIM_CONFIG_DIR));
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, slurp(fs::path(XPUSIM_TEST_DATA_DIR) / "info_tiny.txt"));
}

TEST_F(Cli, ListChips) {
  const CliRun r = run("list chips");
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.out,
            "h100-pcie          NVIDIA H100 PCIe 80GB\n"
            "h100-sxm5          NVIDIA H100 SXM5 80GB\n"
            "h100-sxm5-silicon  NVIDIA H100 SXM5 80GB, latencies measured on silicon\n"
            "tiny               Test chip: 8 H100-like SMs, 1 GHz\n");
}

// `list KIND`: one `NAME  description` line per entry, names padded to one column.
TEST_F(Cli, ListPoliciesSchedulersAndFabricPoliciesFromTheirRegistries) {
  const CliRun p = run("list policies");
  EXPECT_EQ(p.code, 0) << p.err;
  const auto ps = lines(p.out);
  ASSERT_EQ(ps.size(), 4u) << p.out;
  const std::vector<std::string> names{"waterfill", "prior-art", "round-robin", "first-fit"};
  for (std::size_t i = 0; i < ps.size(); ++i) {
    EXPECT_EQ(ps[i].rfind(names[i], 0), 0u) << ps[i];
    EXPECT_EQ(ps[i].find_first_not_of(' ', 11), 13u) << ps[i];  // "round-robin" + 2 spaces
  }
  EXPECT_NE(ps[0].find("default"), std::string::npos) << ps[0];

  const CliRun s = run("list schedulers");
  EXPECT_EQ(s.code, 0) << s.err;
  const auto ss = lines(s.out);
  ASSERT_EQ(ss.size(), 3u) << s.out;
  EXPECT_EQ(ss[0].rfind("gto     greedy-then-oldest", 0), 0u) << ss[0];
  EXPECT_EQ(ss[1].rfind("lrr     ", 0), 0u) << ss[1];
  EXPECT_EQ(ss[2].rfind("oldest  ", 0), 0u) << ss[2];

  const CliRun f = run("list fabric-policies");
  EXPECT_EQ(f.code, 0) << f.err;
  const auto fs_ = lines(f.out);
  ASSERT_EQ(fs_.size(), 4u) << f.out;
  EXPECT_EQ(fs_[0].rfind("equal  baseline", 0), 0u) << fs_[0];
  EXPECT_EQ(fs_[3].rfind("bdp    ", 0), 0u) << fs_[3];
}

TEST_F(Cli, ListTopologiesKernelsAndWorkloads) {
  const CliRun t = run("list topologies");
  EXPECT_EQ(t.code, 0) << t.err;
  const auto ts = lines(t.out);
  ASSERT_EQ(ts.size(), 5u) << t.out;
  const std::vector<std::string> shapes{"ring", "mesh", "torus", "tpuv4", "explicit"};
  for (std::size_t i = 0; i < ts.size(); ++i) {
    EXPECT_EQ(ts[i].rfind(shapes[i], 0), 0u) << ts[i];
    EXPECT_GT(ts[i].size(), 10u) << ts[i];  // a description follows the padded name
    EXPECT_EQ(ts[i].find_first_not_of(' ', 8), 10u) << ts[i];  // "explicit" + 2 spaces
  }
  const CliRun k = run("list kernels");
  EXPECT_EQ(k.code, 0) << k.err;
  const auto ks = lines(k.out);
  EXPECT_TRUE(std::any_of(ks.begin(), ks.end(), [](const std::string& l) {
    return l.rfind("stream_copy  ", 0) == 0;
  })) << k.out;
  const CliRun w = run("list workloads");
  EXPECT_EQ(w.code, 0) << w.err;
  EXPECT_GE(lines(w.out).size(), 2u) << w.out;
  for (const auto& l : lines(w.out))
    EXPECT_NE(l.find("  "), std::string::npos) << l;  // every workload has a description
}

// The shipped files a user can name: each row is a file under configs/ and its first sentence.
TEST_F(Cli, ListPodsScenariosAndTensorMaps) {
  for (const auto& [kind, first] :
       std::vector<std::pair<std::string, std::string>>{{"pods", "explicit-example.yaml"},
                                                        {"scenarios", "cga-levels.yaml"},
                                                        {"tensor-maps", "tma-conv-im2col.json"}}) {
    const CliRun r = run("list " + kind);
    EXPECT_EQ(r.code, 0) << r.err;
    const auto ls = lines(r.out);
    ASSERT_FALSE(ls.empty()) << kind;
    EXPECT_EQ(ls[0].rfind(first, 0), 0u) << ls[0];
  }
  const auto scenarios = lines(run("list scenarios").out);
  EXPECT_TRUE(std::any_of(scenarios.begin(), scenarios.end(), [](const std::string& l) {
    return l.rfind("gemm-h100.yaml ", 0) == 0 &&
           l.find("The default scenario (`make run`)") != std::string::npos;
  }));
  // The README's example map ships and lints clean.
  const CliRun lint =
      run(fmt::format("tma lint '{}/examples/tma-gemm-tile.yaml'", XPUSIM_CONFIG_DIR));
  EXPECT_EQ(lint.code, 0) << lint.err;
}

TEST_F(Cli, ListUnknownKindIsOneLineWithTheKinds) {
  const CliRun r = run("list polices");
  expect_bad_input(r, "kind 'polices' is unknown (did you mean 'policies'?)");
  EXPECT_EQ(lines(r.err).size(), 1u) << r.err;
  EXPECT_NE(r.err.find("chips, policies, schedulers, fabric-policies, topologies, pods, "
                       "scenarios, tensor-maps, kernels, workloads"),
            std::string::npos)
      << r.err;
}

TEST_F(Cli, UnknownChipListsTheValidOnes) {
  expect_bad_input(run("info nope"), "unknown chip 'nope'");
  EXPECT_NE(run("info nope").err.find("h100-sxm5"), std::string::npos);
}

TEST_F(Cli, BadChipFileGivesOneLinePerMistakeWithPosition) {
  const CliRun r = run(fmt::format("info '{}/bad_chip.yaml'", XPUSIM_TEST_DATA_DIR));
  expect_bad_input(r, "bad_chip.yaml:3:7: clocks.sm: unknown frequency unit");
  EXPECT_NE(r.err.find("bad_chip.yaml:27:3: sm.warp_size: unknown key"), std::string::npos);
  EXPECT_EQ(lines(r.err).size(), 4u) << r.err;
}

TEST_F(Cli, BadFlagsAreBadInput) {
  expect_bad_input(run("--seed abc demo"), "--seed");
  expect_bad_input(run("--seed -1 demo"), "--seed");
  expect_bad_input(run(""), "subcommand is required");
  expect_bad_input(run("frobnicate"), "unknown command 'frobnicate'");
  expect_bad_input(run("demo --no-such-flag"), "--no-such-flag");
  expect_bad_input(run("list widgets"), "widgets");
  expect_bad_input(run("demo --producers 0"), "--producers = 0: must be in [1, 4096]");
  expect_bad_input(run("demo --latency -3"), "--latency: must not be negative");
  expect_bad_input(run("demo --max-time 5parsecs"), "--max-time = 5parsecs");
}

TEST_F(Cli, OutputsTheCommandCannotProduceAreRefused) {
  expect_bad_input(run("info tiny --stats s.json"), "'info' runs no simulation");
}

TEST_F(Cli, UnwritableOutputsFailBeforeSimulating) {
  const CliRun r = run("demo --stats /nonexistent-dir/s.json");
  expect_bad_input(r, "--stats = /nonexistent-dir/s.json: cannot open");
  expect_bad_input(run("demo --trace /nonexistent-dir/t.json"), "--trace");
}

TEST_F(Cli, DemoRunsAndWritesStatsAndTrace) {
  const CliRun r =
      run("--stats s.json --trace t.json demo --chip tiny --producers 3 --messages 20");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("delivered      60 messages"), std::string::npos) << r.out;
  const auto stats = nlohmann::json::parse(slurp(dir_ / "s.json"));
  EXPECT_EQ(stats["demo.p2"]["messages"]["value"], 20);
  EXPECT_EQ(stats["demo.consumer"]["latency_cycles"]["count"], 60);
  const auto trace = nlohmann::json::parse(slurp(dir_ / "t.json"));
  int sends = 0, flow_starts = 0, flow_ends = 0;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] == "X" && e["name"] == "send") ++sends;
    if (e["ph"] == "s") ++flow_starts;
    if (e["ph"] == "f") ++flow_ends;
  }
  EXPECT_EQ(sends, 60);
  EXPECT_EQ(flow_starts, 60);
  EXPECT_EQ(flow_ends, 60);
}

TEST_F(Cli, TimeLimitIsASimulationFailureThatKeepsTheStats) {
  const CliRun r = run("--max-time 100ns --stats s.json demo");
  EXPECT_EQ(r.code, 1);
  ASSERT_EQ(lines(r.err).size(), 1u) << r.err;
  EXPECT_NE(r.err.find("error: --max-time = 100ns: the simulation stopped at 100000 ps"),
            std::string::npos)
      << r.err;
  const auto stats = nlohmann::json::parse(slurp(dir_ / "s.json"));
  EXPECT_GT(stats["demo.consumer"]["bytes"]["value"].get<int>(), 0);
}

// An endless grid once ran forever: without --max-time a simulation stops at 1 s simulated,
// with its report, and says how to lift the guard.
TEST_F(Cli, ADefaultTimeGuardEndsAnEndlessGrid) {
  const CliRun r =
      run("launch --chip tiny --grid 2147483647,65535,65535 --runtime-model fixed:1099511627776");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find("makespan                   1000000000 cycles"), std::string::npos) << r.out;
  EXPECT_EQ(r.err,
            "error: the default --max-time of 1s (a guard against endless runs; --max-time none "
            "lifts it): the simulation stopped at cycle 1000000000 before every CTA finished\n");
}

TEST_F(Cli, SameSeedGivesByteIdenticalStatsAndTraces) {
  ASSERT_EQ(run("--seed 5 --stats a.json --trace ta.json demo").code, 0);
  ASSERT_EQ(run("--seed 5 --stats b.json --trace tb.json demo").code, 0);
  ASSERT_EQ(run("--seed 6 --stats c.json --trace tc.json demo").code, 0);
  EXPECT_EQ(without_host(slurp(dir_ / "a.json")), without_host(slurp(dir_ / "b.json")));
  EXPECT_EQ(slurp(dir_ / "ta.json"), slurp(dir_ / "tb.json"));
  EXPECT_NE(without_host(slurp(dir_ / "a.json")), without_host(slurp(dir_ / "c.json")));
  EXPECT_NE(slurp(dir_ / "ta.json"), slurp(dir_ / "tc.json"));
}

TEST_F(Cli, TraceFilterAndCap) {
  ASSERT_EQ(run("--trace t.json --trace-filter 'demo.p1' --trace-max-events 5 demo").code, 0);
  const auto trace = nlohmann::json::parse(slurp(dir_ / "t.json"));
  int events = 0;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] == "M") {
      if (e["name"] == "thread_name") {
        EXPECT_EQ(e["args"]["name"], "demo.p1");
      }
      continue;
    }
    ++events;
  }
  EXPECT_EQ(events, 5);
  EXPECT_EQ(trace["otherData"]["dropped_events"].get<int>(), 2 * 100 - 5);
}

}  // namespace
