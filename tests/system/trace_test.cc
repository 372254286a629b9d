// Traces from the command line (docs/stats-and-traces.md): --trace-window and a scenario's
// trace_window keep only the events in a stretch of simulated time, bad windows are one-line
// errors (exit 2), and a trace that does not cover its run (a fault, --max-time, the event cap)
// still parses and says why in its trailer; bad input found after the trace opened leaves no
// trace file.
#include <nlohmann/json.hpp>

#include <cmath>

#include "cli_harness.h"

namespace xpusim::test {
namespace {

class TraceCli : public CliTest {
 protected:
  void write(const std::string& name, const std::string& text) const {
    std::ofstream(dir_ / name) << text;
  }
  nlohmann::json trace(const std::string& name) const {
    return nlohmann::json::parse(file(name));  // throws (fails the test) on invalid JSON
  }
};

// A small GEMM on the tiny chip: a few microseconds of SM, memory and flow events.
constexpr const char* kGemm =
    "chip: tiny\nworkload: gemm.mm\nmode: timing-only\nparams: {m: 128, n: 64, k: 64, tile_n: "
    "64}\n";

// Picoseconds from a trace's microsecond text (six exact decimals).
std::uint64_t ps(const nlohmann::json& us) {
  return static_cast<std::uint64_t>(std::llround(us.get<double>() * 1e6));
}

TEST_F(TraceCli, BadWindowsAreOneLineErrorsThatNameTheFlag) {
  write("gemm.yaml", kGemm);
  const std::pair<std::string, std::string> cases[] = {
      {"20us:10us", "START (20us) must be before END (10us)"},
      {"5us:5us", "START (5us) must be before END (5us)"},
      {"10us",
       "\"10us\" is not START:END (e.g. 10us:20us; either side may be empty: from the "
       "start, to the end)"},
      {"1parsec:",
       "START: unknown time unit \"parsec\" in \"1parsec\"; valid units: ps, ns, us, "
       "ms, s"},
      {":-3us", "END: \"-3us\" is negative; a time must be >= 0"},
  };
  for (const auto& [value, rule] : cases) {
    for (const std::string cmd : {"demo", "run gemm.yaml", "launch --grid 8"}) {
      const CliRun r = run(fmt::format("--trace t.json --trace-window '{}' {}", value, cmd));
      EXPECT_EQ(r.code, 2) << cmd << " " << value;
      EXPECT_EQ(r.err, fmt::format("error: --trace-window = {}: {}\n", value, rule)) << cmd;
      EXPECT_FALSE(fs::exists(dir_ / "t.json")) << cmd << " " << value;
    }
  }
  // A window with nothing to window.
  const CliRun none = run("--trace-window 1us:2us demo");
  EXPECT_EQ(none.code, 2);
  EXPECT_EQ(none.err,
            "error: --trace-window = 1us:2us: no trace is written to window (add --trace FILE)\n");
  const CliRun file = run("--trace-window 1us:2us run gemm.yaml");
  EXPECT_EQ(file.code, 2);
  EXPECT_EQ(file.err,
            "error: --trace-window = 1us:2us: the scenario writes no trace to window (add "
            "--trace FILE)\n");
  const CliRun info = run("--trace-window 1us:2us info tiny");
  EXPECT_EQ(info.code, 2);
  EXPECT_EQ(info.err,
            "error: --trace-window = 1us:2us: 'info' runs no simulation, so it writes no trace "
            "to window\n");
}

TEST_F(TraceCli, AWindowKeepsOnlyTheEventsThatOverlapIt) {
  write("gemm.yaml", kGemm);
  ASSERT_EQ(run("run gemm.yaml --trace whole.json").code, 0);
  const nlohmann::json whole = trace("whole.json");
  std::uint64_t end = 0;
  std::size_t all = 0;
  for (const auto& e : whole["traceEvents"]) {
    if (e["ph"] == "M") continue;
    ++all;
    end = std::max(end, ps(e["ts"]) + (e.contains("dur") ? ps(e["dur"]) : 0));
  }
  ASSERT_GT(end, 3'000'000u) << "the run is too short for a window in its middle";
  EXPECT_EQ(whole["otherData"]["complete"], true);
  EXPECT_FALSE(whole["otherData"].contains("window"));

  const CliRun r = run("run gemm.yaml --trace win.json --trace-window 1us:2us");
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json win = trace("win.json");
  std::size_t kept = 0;
  for (const auto& e : win["traceEvents"]) {
    if (e["ph"] == "M") continue;
    ++kept;
    const std::uint64_t ts = ps(e["ts"]);
    if (e["ph"] == "X" && ps(e["dur"]) > 0) {  // kept whole when any part is inside
      EXPECT_LT(ts, 2'000'000u) << e;
      EXPECT_GT(ts + ps(e["dur"]), 1'000'000u) << e;
    } else {
      EXPECT_GE(ts, 1'000'000u) << e;
      EXPECT_LT(ts, 2'000'000u) << e;
    }
  }
  EXPECT_GT(kept, 10u);
  EXPECT_LT(kept, all);
  const auto& other = win["otherData"];
  EXPECT_EQ(other["complete"], true);
  EXPECT_EQ(other["window"]["begin_ps"], 1'000'000);
  EXPECT_EQ(other["window"]["end_ps"], 2'000'000);
  EXPECT_EQ(other["window"]["events_outside"].get<std::size_t>(), all - kept);

  // The scenario's trace_window does the same; an open end runs to the end of the run.
  write("wingemm.yaml", std::string(kGemm) + "trace: file.json\ntrace_window: \"2us:\"\n");
  ASSERT_EQ(run("run wingemm.yaml").code, 0);
  const nlohmann::json from_file = trace("file.json");
  EXPECT_EQ(from_file["otherData"]["window"]["begin_ps"], 2'000'000);
  EXPECT_EQ(from_file["otherData"]["window"]["end_ps"], nullptr);
  for (const auto& e : from_file["traceEvents"]) {
    if (e["ph"] != "M" && e["ph"] != "X") {
      EXPECT_GE(ps(e["ts"]), 2'000'000u) << e;
    }
  }
  // The flag overrides the file's window for its (last) run.
  ASSERT_EQ(run("run wingemm.yaml --trace-window :1us").code, 0);
  EXPECT_EQ(trace("file.json")["otherData"]["window"]["begin_ps"], 0);
  EXPECT_EQ(trace("file.json")["otherData"]["window"]["end_ps"], 1'000'000);
}

TEST_F(TraceCli, OtherCommandsWindowTheirTracesToo) {
  ASSERT_EQ(run("--trace d.json --trace-window 10ns:20ns demo").code, 0);
  EXPECT_EQ(trace("d.json")["otherData"]["window"]["end_ps"], 20'000);
  ASSERT_EQ(run("--trace l.json --trace-window 1us: launch --grid 8").code, 0);
  EXPECT_EQ(trace("l.json")["otherData"]["window"]["begin_ps"], 1'000'000);
  ASSERT_EQ(run("--trace c.json --trace-window :1us cp replay --iterations 2").code, 0);
  EXPECT_EQ(trace("c.json")["otherData"]["window"]["end_ps"], 1'000'000);
}

TEST_F(TraceCli, ATraceCutShortStillParsesAndSaysWhy) {
  write("gemm.yaml", kGemm);
  // --max-time ends the run before the GEMM is done.
  const CliRun timed = run("run gemm.yaml --trace t.json --max-time 1us");
  EXPECT_EQ(timed.code, 1);
  const auto t = trace("t.json")["otherData"];
  EXPECT_EQ(t["complete"], false);
  EXPECT_EQ(t["reason"].get<std::string>().find("--max-time = 1us: the simulation stopped at "), 0u)
      << t;

  // A fault ends the run.
  write("fault.yaml", "chip: tiny\nkernel: fault_demo\nlaunch: {grid: 1, block: 32}\n");
  const CliRun fault = run("run fault.yaml --trace f.json");
  EXPECT_EQ(fault.code, 1);
  const auto f = trace("f.json")["otherData"];
  EXPECT_EQ(f["complete"], false);
  EXPECT_EQ(f["reason"].get<std::string>().find("fault: fault_demo: "), 0u) << f;

  // The event cap.
  ASSERT_EQ(run("run gemm.yaml --trace c.json --trace-max-events 7").code, 0);
  const auto c = trace("c.json")["otherData"];
  EXPECT_EQ(c["complete"], false);
  EXPECT_EQ(c["max_events"], 7);
  EXPECT_EQ(c["reason"].get<std::string>().find("the cap of 7 events was reached at "), 0u) << c;

  // launch and cp replay under --max-time.
  EXPECT_EQ(run("--trace l.json --max-time 100ns launch --grid 64").code, 1);
  EXPECT_EQ(trace("l.json")["otherData"]["complete"], false);
  EXPECT_EQ(run("--trace r.json --max-time 100ns cp replay --iterations 5").code, 1);
  const auto r = trace("r.json")["otherData"];
  EXPECT_EQ(r["complete"], false);
  EXPECT_EQ(r["reason"], "--max-time = 100ns: stopped before the last iteration completed");
}

// A top-level trace_window is the default of every run; a run without a trace ignores it.
TEST_F(TraceCli, AFilesWindowIsTheDefaultOfItsRuns) {
  write("runs.yaml", std::string(kGemm) +
                         "trace_window: \"1us:2us\"\nruns:\n  - {name: plain}\n  - {name: "
                         "traced, trace: t.json}\n");
  const CliRun r = run("run runs.yaml");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(trace("t.json")["otherData"]["window"]["end_ps"], 2'000'000);
}

TEST_F(TraceCli, TheFlagsCapOverridesTheScenarios) {
  write("gemm.yaml", std::string(kGemm) + "trace: t.json\ntrace_max_events: 100\n");
  ASSERT_EQ(run("run gemm.yaml").code, 0);
  EXPECT_EQ(trace("t.json")["otherData"]["max_events"], 100);
  ASSERT_EQ(run("run gemm.yaml --trace-max-events 9").code, 0);
  EXPECT_EQ(trace("t.json")["otherData"]["max_events"], 9);
}

TEST_F(TraceCli, BadInputAfterTheTraceOpenedLeavesNoTraceFile) {
  // The policy is checked when the study is made, after the session opened its trace.
  const CliRun r = run("--trace t.json launch --grid 8 --policy nope");
  EXPECT_EQ(r.code, 2);
  EXPECT_FALSE(fs::exists(dir_ / "t.json"));
  // A run whose setup fails (its buffer is beyond the tiny chip's memory).
  write("big.yaml",
        "chip: tiny\nkernel: stream_fill\nlaunch: {grid: 1, block: 32}\nbuffers:\n  a: {bytes: "
        "4GiB}\nargs: [{ptr: a}, {u64: 1}]\n");
  const CliRun b = run("run big.yaml --trace t.json");
  EXPECT_EQ(b.code, 2) << b.err;
  EXPECT_FALSE(fs::exists(dir_ / "t.json"));
}

}  // namespace
}  // namespace xpusim::test
