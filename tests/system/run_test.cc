// `xpusim run SCENARIO.yaml` end to end: a generic stream_copy launch verifies and prints the
// summary in both modes, bad scenario files are one-line errors (exit 2), a hang ends in the
// hang report (exit 1) with the stats still written, --stats is deterministic, --trace has
// the SM warp tracks, a tensor-unit run ends with the headline, a file with runs: prints a
// block per run and writes each run's outputs (bad input in any run: exit 2 before simulating;
// a failed run: exit 1), running in slices changes nothing, and every shipped scenario in
// configs/scenarios is valid input. Small
// grids on the tiny chip keep each run fast under the sanitizers.
#include <sys/resource.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <set>

#include "cli_harness.h"

namespace xpusim::test {
namespace {

class RunCli : public CliTest {
 protected:
  void write(const std::string& name, const std::string& text) const {
    std::ofstream(dir_ / name) << text;
  }
  // stream_copy of n u32 elements on the tiny chip, 4 CTAs of 64 threads.
  void write_copy(const std::string& name, std::uint64_t n = 4096,
                  const std::string& extra = "") const {
    write(name, fmt::format(R"(# stream copy, small
chip: tiny
kernel: stream_copy
launch: {{grid: [4, 1, 1], block: [64, 1, 1]}}
buffers:
  src: {{bytes: {0}, fill: random32}}
  dst: {{bytes: {0}}}
args: [{{ptr: src}}, {{ptr: dst}}, {{u64: {1}}}]
{2})",
                            4 * n, n, extra));
  }
};

TEST_F(RunCli, StreamCopyVerifiesAndPrintsTheSummary) {
  write_copy("copy.yaml");
  const CliRun r = run("run copy.yaml");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out.find("run copy.yaml: kernel stream_copy on tiny (functional, waterfill policy, "
                       "gto warp scheduler)"),
            0u)
      << r.out;
  for (const char* line :
       {"\n  simulated ",
        "\n  launch 0            stream_copy grid 4x1x1 block 64x1x1: launch "
        "latency ",
        " cycles, ran ", "\n  warp instructions   ", "; issue utilization ",
        " SMs used x 4 sub-partitions)", "\n  stalls              issue ", ", memory ",
        "\n  store queue         ", " of 128 posted stores waited for an entry (",
        "\n  L1 hit rate ", "\n  L2 hit rate ", "\n  HBM                 read ", "\n  L2 -> SM ",
        "\n  DSMEM               0 bytes",
        "\n  result              verified: dst == src over 4096 u32 elements\n"}) {
    EXPECT_NE(r.out.find(line), std::string::npos) << line << "\n" << r.out;
  }
}

TEST_F(RunCli, TimingOnlyGivesTheSameTimingAndChecksNothing) {
  write_copy("copy.yaml");
  const CliRun f = run("run copy.yaml");
  const CliRun t = run("run copy.yaml --mode timing-only");
  ASSERT_EQ(f.code, 0) << f.err;
  ASSERT_EQ(t.code, 0) << t.err;
  EXPECT_NE(t.out.find("(timing-only, waterfill policy, gto warp scheduler)"), std::string::npos)
      << t.out;
  EXPECT_NE(t.out.find("result              not checked (timing-only)"), std::string::npos)
      << t.out;
  const auto simulated = [](const std::string& out) {
    const auto at = out.find("simulated");
    return out.substr(at, out.find('\n', at) - at);
  };
  EXPECT_EQ(simulated(f.out), simulated(t.out));
}

TEST_F(RunCli, TransactionLevelMemoryIsNamedAndKeepsTheCopyCorrect) {
  write_copy("copy.yaml", 65536);
  const CliRun e = run("run copy.yaml");
  const CliRun t = run("run copy.yaml --memory-timing transactions");
  ASSERT_EQ(e.code, 0) << e.err;
  ASSERT_EQ(t.code, 0) << t.err;
  EXPECT_EQ(e.out.find("transaction-level memory"), std::string::npos) << e.out;
  EXPECT_NE(t.out.find("(functional, waterfill policy, gto warp scheduler, transaction-level "
                       "memory)"),
            std::string::npos)
      << t.out;
  EXPECT_NE(t.out.find("result              verified"), std::string::npos) << t.out;
  // Approximate, but close: within 5 % of the reference's cycles (2.2 % on H100's 16 MiB copy).
  const auto cycles = [](const std::string& out) {
    return std::stod(out.substr(out.find("simulated") + 9));
  };
  EXPECT_NEAR(cycles(t.out), cycles(e.out), 0.05 * cycles(e.out)) << e.out << t.out;
  const CliRun bad = run("run copy.yaml --memory-timing fast");
  EXPECT_EQ(bad.code, 2);
  EXPECT_EQ(bad.err.find("error: --memory-timing: 'fast' is not a memory timing"), 0u) << bad.err;
}

TEST_F(RunCli, SetSamplingIsNamedAndNeedsTheTransactionTiming) {
  write_copy("copy.yaml", 65536);
  const CliRun s = run("run copy.yaml --memory-timing transactions --set-sampling 8");
  ASSERT_EQ(s.code, 0) << s.err;
  EXPECT_NE(s.out.find("transaction-level memory, TMA loads set-sampled 1 in 8)"),
            std::string::npos)
      << s.out;
  const CliRun events = run("run copy.yaml --set-sampling 8");
  EXPECT_NE(events.code, 0);
  EXPECT_NE(
      events.err.find("set_sampling 8: needs memory_timing transactions (events times every line)"),
      std::string::npos)
      << events.err;
  const CliRun zero = run("run copy.yaml --memory-timing transactions --set-sampling 0");
  EXPECT_NE(zero.code, 0);
  EXPECT_NE(zero.err.find("--set-sampling"), std::string::npos) << zero.err;
}

// --wave-sampling (docs/work-distributor.md): 1024 CTAs of 256 threads are 16 waves of 64 on
// the tiny chip; the middle ones are skipped and the run still takes the full run's time
// within 3 %. Functional runs ignore the flag (their results need every CTA); the scenario key
// in a functional run, and a value out of range, are one-line errors.
TEST_F(RunCli, WaveSamplingSkipsTheMiddleWavesOfTimingOnlyRuns) {
  write("copy.yaml", R"(chip: tiny
kernel: stream_copy
launch: {grid: [1024, 1, 1], block: [256, 1, 1]}
buffers:
  src: {bytes: 1048576, fill: random32}
  dst: {bytes: 1048576}
args: [{ptr: src}, {ptr: dst}, {u64: 262144}]
)");
  const CliRun full = run("run copy.yaml --mode timing-only");
  const CliRun sampled =
      run("run copy.yaml --mode timing-only --wave-sampling 2 --stats a.json --trace a.trace");
  const CliRun again =
      run("run copy.yaml --mode timing-only --wave-sampling 2 --stats b.json --trace b.trace");
  ASSERT_EQ(full.code, 0) << full.err;
  ASSERT_EQ(sampled.code, 0) << sampled.err;
  ASSERT_EQ(again.code, 0) << again.err;
  // Deterministic: the same skip, the same repeated stats, the same trace.
  EXPECT_EQ(without_host(file("a.json")), without_host(file("b.json")));
  EXPECT_EQ(file("a.trace"), file("b.trace"));
  const auto stats = nlohmann::json::parse(file("a.json"));
  EXPECT_EQ(stats["chip0.cwd"]["sampling.ctas_skipped"]["value"].get<int>() % 64, 0);
  EXPECT_EQ(stats["chip0.cwd"]["ctas_launched"]["value"], 1024);  // the skipped counted too
  EXPECT_EQ(full.out.find("wave"), std::string::npos) << full.out;
  EXPECT_NE(sampled.out.find("gto warp scheduler, waves sampled within 2%)"), std::string::npos)
      << sampled.out;
  EXPECT_NE(sampled.out.find("\n  wave sampling       "), std::string::npos) << sampled.out;
  EXPECT_NE(sampled.out.find(" CTAs, "), std::string::npos) << sampled.out;
  const auto cycles = [](const std::string& out) {
    return std::stod(out.substr(out.find("simulated") + 9));
  };
  EXPECT_NEAR(cycles(sampled.out), cycles(full.out), 0.03 * cycles(full.out));
  write_copy("small.yaml");  // 4 CTAs: one wave, nothing to skip, and the summary says why
  const CliRun small = run("run small.yaml --mode timing-only --wave-sampling 2");
  ASSERT_EQ(small.code, 0) << small.err;
  EXPECT_NE(small.out.find("\n  wave sampling       nothing skipped: no grid had three waves "
                           "within 2% with a whole wave still to launch after them (at most 1 "
                           "wave of a grid ended)\n"),
            std::string::npos)
      << small.out;
  const CliRun functional = run("run copy.yaml --wave-sampling 2");
  ASSERT_EQ(functional.code, 0) << functional.err;
  EXPECT_EQ(functional.out.find("wave"), std::string::npos) << functional.out;
  EXPECT_NE(functional.out.find("result              verified"), std::string::npos);
  const CliRun bad = run("run copy.yaml --mode timing-only --wave-sampling 60");
  EXPECT_EQ(bad.code, 2);
  EXPECT_EQ(bad.err.find("error: --wave-sampling: 60: must be a percentage from 0 (off) to 50"), 0u)
      << bad.err;
  std::ofstream(dir_ / "copy.yaml", std::ios::app) << "wave_sampling: 2\n";
  const CliRun key = run("run copy.yaml");
  EXPECT_EQ(key.code, 2);
  EXPECT_NE(key.err.find("wave_sampling 2%: needs timing-only mode"), std::string::npos) << key.err;
}

TEST_F(RunCli, BadScenarioFilesAreOneLineErrorsBeforeSimulating) {
  const std::pair<const char*, const char*> cases[] = {
      {"chip: tiny\nworklaod: ubench.l2_latency\n",
       "error: bad.yaml:2:1: worklaod: unknown key 'worklaod' (did you mean 'workload'?)"},
      {"chip: tiny\nmode: fast\nkernel: hang_demo\nlaunch: {grid: 1, block: 32}\n",
       "error: bad.yaml:2:7: mode: 'fast' is not a mode"},
      {"chip: tiny\nworkload: ubench.nope\n",
       "error: bad.yaml:2:11: workload: workload 'ubench.nope' is unknown"},
      {"chip: tiny\nkernel: stream_cpy\nlaunch: {grid: 1, block: 32}\n",
       "error: bad.yaml:2:9: kernel: kernel 'stream_cpy' is unknown (did you mean "
       "'stream_copy'?)"},
      {"chip: tiny\nkernel: stream_copy\nlaunch: {grid: 1, block: 32}\nargs: [{u64: 1}]\n",
       "error: bad.yaml:4:1: args: kernel stream_copy: 1 arguments given, it takes 3"},
      {"chip: tiny\nkernel: stream_copy\nlaunch: {grid: 1, block: 32}\n"
       "buffers: {src: {bytes: 64}}\nargs: [{ptr: src}, {ptr: dst}, {u64: 1}]\n",
       "error: bad.yaml:5:26: args[1].ptr: 'dst' is not a buffer; buffers: src"},
      {"chip: tiny\nkernel: hang_demo\nlaunch: {grid: 1, block: [32, 64]}\n",
       "error: bad.yaml:3:1: launch: hang_demo: CTA threads = 2048 is outside 1..1024"},
      {"chip: tiny\nkernel: hang_demo\nlaunch: {grid: 1, block: 32, cluster: 16}\n",
       "error: bad.yaml:3:1: launch: hang_demo: "},
      {"chip: tinny\nkernel: hang_demo\nlaunch: {grid: 1, block: 32}\n",
       "error: bad.yaml:1:7: chip: "},
      {"chip: tiny\nkernel: hang_demo\nlaunch: {grid: 1, block: 32}\npolicy: best\n",
       "error: bad.yaml:4:9: policy: policy 'best' is unknown"},
      {"chip: tiny\nkernel: hang_demo\nlaunch: {grid: 1, block: 32}\nmemory_timing: tlm\n",
       "error: bad.yaml:4:16: memory_timing: 'tlm' is not a memory timing"},
      {"chip: tiny\nkernel: stream_copy\nlaunch: {grid: 1, block: 32}\nargs: [{u8: 300}]\n",
       "error: bad.yaml:4:13: args[0].u8: 300 is outside [0, 255]\n"},
      {"chip: tiny\nkernel: stream_copy\nlaunch: {grid: 1, block: 32}\n"
       "buffers: {src: {file: none.bin}}\n",
       "error: bad.yaml:4:23: buffers.src.file: none.bin: cannot open the buffer file: No such "
       "file or directory\n"},
      {"chip: tiny\nkernel: stream_copy\nlaunch: {grid: 1, block: 32}\n"
       "buffers: {src: {bytes: 64}}\noutputs: {dts: d.bin}\n",
       "error: bad.yaml:5:11: outputs.dts: 'dts' is not a buffer; buffers: src\n"},
  };
  for (const auto& [text, want] : cases) {
    write("bad.yaml", text);
    const CliRun r = run("run bad.yaml --stats stats.json");
    EXPECT_EQ(r.code, 2) << text << r.err;
    EXPECT_EQ(lines(r.err).size(), 1u) << text << r.err;
    EXPECT_EQ(r.err.find(want), 0u) << text << r.err;
    EXPECT_EQ(r.out, "") << text;
    EXPECT_FALSE(fs::exists(dir_ / "stats.json")) << text;
  }
  const CliRun missing = run("run nothere.yaml");
  EXPECT_EQ(missing.code, 2);
  EXPECT_EQ(missing.err,
            "error: nothere.yaml: cannot open the scenario file: No such file or directory\n");
  const CliRun endless = run("run /dev/zero");
  EXPECT_EQ(endless.code, 2);
  EXPECT_EQ(endless.err,
            "error: /dev/zero: the scenario file: longer than 16 MiB, the limit on this input\n");
}

// A buffer read from a file beside the scenario, copied by stream_copy and written by
// outputs: (relative to the current directory): the output file is the input file.
TEST_F(RunCli, ABufferFileCopiedByTheKernelIsWrittenBackByOutputs) {
  fs::create_directories(dir_ / "data");
  std::string in(16384, '\0');
  for (std::size_t i = 0; i < in.size(); ++i)
    in[i] = static_cast<char>((i * 7919 + i / 256) % 256);
  std::ofstream(dir_ / "data/in.bin", std::ios::binary) << in;
  write("data/copy.yaml",
        "chip: tiny\nkernel: stream_copy\nlaunch: {grid: [4, 1, 1], block: [64, 1, 1]}\n"
        "buffers:\n  src: {file: in.bin}\n  dst: {bytes: 16384}\n"
        "args: [{ptr: src}, {ptr: dst}, {u64: 4096}]\noutputs: {dst: out.bin}\n");
  const CliRun r = run("run data/copy.yaml");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("\n  result              verified: dst == src over 4096 u32 elements\n"
                       "  output              out.bin: buffer dst, 16384 bytes\n"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(file("out.bin"), in);
  EXPECT_FALSE(fs::exists(dir_ / "out.bin.tmp"));
  EXPECT_FALSE(fs::exists(dir_ / "data/out.bin"));
  // A timing-only run has no bytes to write: exit 2 before anything runs, nothing written.
  fs::remove(dir_ / "out.bin");
  const CliRun t = run("run data/copy.yaml --mode timing-only");
  EXPECT_EQ(t.code, 2);
  EXPECT_EQ(t.err,
            "error: --mode timing-only: the scenario writes outputs (out.bin), but a timing-only "
            "run moves no data, so it has no buffer bytes to write\n");
  EXPECT_EQ(t.out, "");
  EXPECT_FALSE(fs::exists(dir_ / "out.bin"));
  // An output folder that does not exist: exit 2 before anything runs.
  write("data/copy.yaml",
        "chip: tiny\nkernel: stream_copy\nlaunch: {grid: [4, 1, 1], block: [64, 1, 1]}\n"
        "buffers:\n  src: {file: in.bin}\n  dst: {bytes: 16384}\n"
        "args: [{ptr: src}, {ptr: dst}, {u64: 4096}]\noutputs: {dst: no/out.bin}\n");
  const CliRun n = run("run data/copy.yaml");
  EXPECT_EQ(n.code, 2);
  EXPECT_EQ(n.err,
            "error: data/copy.yaml:8:16: outputs.dst: cannot create no/out.bin.tmp: No such file "
            "or directory\n");
  EXPECT_EQ(n.out, "");
}

// A run that faults writes no output and says so; the file of an earlier run stays.
TEST_F(RunCli, AFailedRunWritesNoOutputs) {
  write("out.bin", "earlier");
  write("over.yaml",
        "chip: tiny\nkernel: stream_copy\nlaunch: {grid: [4, 1, 1], block: [64, 1, 1]}\n"
        "buffers:\n  src: {bytes: 16KiB, fill: iota32}\n  dst: {bytes: 16KiB}\n"
        "args: [{ptr: src}, {ptr: dst}, {u64: 8192}]\noutputs: {dst: out.bin}\n");
  const CliRun r = run("run over.yaml");
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_EQ(r.err.find("error: fault: stream_copy: "), 0u) << r.err;
  EXPECT_NE(r.out.find("\n  output              out.bin: not written (the run failed)\n"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(file("out.bin"), "earlier");
  EXPECT_FALSE(fs::exists(dir_ / "out.bin.tmp"));
}

// A kernel graph's buffers are the file's: outputs write them after the whole graph.
TEST_F(RunCli, AKernelGraphWritesItsBuffers) {
  write("graph.yaml",
        "chip: tiny\nbuffers: {a: {bytes: 4096}, b: {bytes: 4096}}\noutputs: {b: b.bin}\n"
        "kernels:\n"
        "  - {name: fill, kernel: stream_fill, launch: {grid: 2, block: 64}, args: [{ptr: a}, "
        "{u64: 1024}]}\n"
        "  - {name: copy, kernel: stream_copy, after: [fill], launch: {grid: 2, block: 64}, "
        "args: [{ptr: a}, {ptr: b}, {u64: 1024}]}\n");
  const CliRun r = run("run graph.yaml");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("\n  output              b.bin: buffer b, 4096 bytes\n"), std::string::npos)
      << r.out;
  std::string want;
  for (std::uint32_t i = 0; i < 1024; ++i)
    want.append(reinterpret_cast<const char*>(&i), 4);
  EXPECT_EQ(file("b.bin"), want);
}

TEST_F(RunCli, BadFlagsAreOneLineErrors) {
  write_copy("copy.yaml");
  for (const char* args : {"run copy.yaml --mode fast", "run copy.yaml --policy best",
                           "run copy.yaml --param n=3", "run copy.yaml --scheduler greedy", "run",
                           "run copy.yaml --max-time 0", "run copy.yaml --max-time 3parsecs"}) {
    const CliRun r = run(args);
    EXPECT_EQ(r.code, 2) << args;
    EXPECT_EQ(lines(r.err).size(), 1u) << args << "\n" << r.err;
  }
}

TEST_F(RunCli, AHangPrintsTheHangReportAndStillWritesStats) {
  write("hang.yaml",
        "# hang_demo: an mbarrier expecting two arrivals gets one\nchip: tiny\nkernel: "
        "hang_demo\nlaunch: {grid: [2, 1, 1], block: [64, 1, 1]}\n");
  const CliRun r = run("run hang.yaml --stats stats.json");
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.out.find("hang_demo grid 2x1x1 block 64x1x1: launch latency "), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("did not complete"), std::string::npos) << r.out;
  const std::vector<std::string> err = lines(r.err);
  ASSERT_EQ(err.size(), 6u) << r.err;
  EXPECT_EQ(err[0].find("error: hang: nothing left to simulate at cycle "), 0u) << err[0];
  EXPECT_NE(err[0].find("4 warps wait forever"), std::string::npos) << err[0];
  EXPECT_EQ(err[1], "hang report:");
  for (std::size_t i = 2; i < err.size(); ++i) {
    EXPECT_EQ(err[i].find("  chip0.sm"), 0u) << err[i];
    EXPECT_NE(err[i].find("hang_demo block ("), std::string::npos) << err[i];
    EXPECT_NE(err[i].find("mbarrier at 0x0 waiting for parity 0"), std::string::npos) << err[i];
  }
  const auto stats = nlohmann::json::parse(file("stats.json"));
  EXPECT_GT(stats["chip0.sm0"]["warp_instructions"]["value"].get<std::uint64_t>(), 0u);
}

// n beyond the buffers once wrote past them (and past the end of HBM) and still said
// "verified": an access outside every buffer is a fault naming kernel, block, warp, lane and
// address, in both modes.
TEST_F(RunCli, AnAccessOutsideEveryBufferIsAFault) {
  for (const char* mode : {"functional", "timing-only"}) {
    write("over.yaml", fmt::format("chip: tiny\nmode: {}\nkernel: stream_copy\n"
                                   "launch: {{grid: [4, 1, 1], block: [64, 1, 1]}}\n"
                                   "buffers:\n  src: {{bytes: 16KiB, fill: iota32}}\n"
                                   "  dst: {{bytes: 16KiB}}\n"
                                   "args: [{{ptr: src}}, {{ptr: dst}}, {{u64: 8192}}]\n",
                                   mode));
    const CliRun r = run("run over.yaml");
    EXPECT_EQ(r.code, 1) << mode << r.err;
    const auto err = lines(r.err);
    ASSERT_EQ(err.size(), 1u) << r.err;
    // Thread 4096 (block 0, warp 0 of the 17th stride step) is the first to read past src,
    // at its end: 0x10000000 + 16 KiB.
    EXPECT_EQ(err[0],
              "error: fault: stream_copy: block (0,0,0) warp 0: lane 0: load of 4 bytes at "
              "0x10004000 is outside every buffer (0 bytes past the end of 'src' [0x10000000, "
              "0x10004000)) (queue 0 is in the HSA error state)")
        << mode;
    EXPECT_EQ(r.out.find("verified"), std::string::npos) << r.out;
  }
}

// A fault on one queue: exit 1 with the fault line naming the queue's error state, and the
// other queue's kernel still completes and is verified.
TEST_F(RunCli, AFaultEndsItsQueueAndTheOtherQueueStillVerifies) {
  write("fault.yaml",
        "chip: tiny\nqueues: [{dispatch: standard}, {dispatch: standard}]\n"
        "buffers: {b: {bytes: 16KiB}}\nkernels:\n"
        "  - {name: bad, kernel: fault_demo, launch: {grid: 2, block: 32}}\n"
        "  - {name: fill, kernel: stream_fill, launch: {grid: 2, block: 64, queue: 1}, args: "
        "[{ptr: b}, {u64: 4096}]}\n");
  const CliRun r = run("run fault.yaml --stats stats.json");
  EXPECT_EQ(r.code, 1) << r.err;
  const std::vector<std::string> err = lines(r.err);
  ASSERT_EQ(err.size(), 1u) << r.err;
  EXPECT_EQ(err[0].find("error: fault: fault_demo: block (0,0,0) warp 0: "), 0u) << err[0];
  EXPECT_NE(err[0].find("(queue 0 is in the HSA error state)"), std::string::npos) << err[0];
  EXPECT_NE(r.out.find("result              fill (stream_fill): verified: dst[i] == i over 4096"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("result              bad (fault_demo): not checked (it faulted)"),
            std::string::npos)
      << r.out;
  const auto stats = nlohmann::json::parse(file("stats.json"));
  EXPECT_EQ(stats["chip0.cp.q0"]["queue_errors"]["value"].get<std::uint64_t>(), 1u);
  EXPECT_EQ(stats["chip0.cp.q1"]["queue_errors"]["value"].get<std::uint64_t>(), 0u);
  EXPECT_NE(r.out.find("fault_demo grid 2x1x1 block 32x1x1: launch latency "), std::string::npos);
  EXPECT_NE(r.out.find("faulted (its queue stopped)"), std::string::npos) << r.out;
}

TEST_F(RunCli, MaxTimeStopsTheRunAsAFailure) {
  write_copy("copy.yaml");
  const CliRun r = run("run copy.yaml --max-time 100ns");
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_EQ(r.err.find("error: --max-time = 100ns: the simulation stopped at cycle "), 0u) << r.err;
  EXPECT_NE(r.out.find("did not complete"), std::string::npos) << r.out;
}

TEST_F(RunCli, SameScenarioAndSeedGiveByteIdenticalStats) {
  write_copy("copy.yaml");
  const CliRun a = run("run copy.yaml --seed 5 --stats a.json");
  const CliRun b = run("run copy.yaml --seed 5 --stats b.json");
  ASSERT_EQ(a.code, 0) << a.err;
  ASSERT_EQ(b.code, 0) << b.err;
  const std::string sa = file("a.json");
  EXPECT_GT(sa.size(), 1000u);
  EXPECT_EQ(without_host(sa), without_host(file("b.json")));
  EXPECT_EQ(a.out, b.out);
  const auto stats = nlohmann::json::parse(sa);
  EXPECT_EQ(stats["chip0.mem.dsmem"]["bytes"]["value"].get<std::uint64_t>(), 0u);
  // The file describes its run: the header (deterministic) and the host section.
  const nlohmann::json& h = stats["header"];
  EXPECT_EQ(h["command"], "run");
  EXPECT_EQ(h["seed"], 5);
  EXPECT_EQ(h["scenario"], "copy.yaml");
  EXPECT_EQ(h["mode"], "functional");
  EXPECT_EQ(h["chip"], "tiny");
  EXPECT_EQ(h["chip_config"]["clocks"]["sm"], 1'000'000'000u);  // tiny.yaml: 1 GHz
  EXPECT_EQ(h["chip_config"]["l2"]["size"], 2u << 20);
  EXPECT_EQ(h["max_time_ps"], 1'000'000'000'000u);  // the default guard
  // The summary's simulated cycles, and the ticks behind them (1 GHz: 1000 ps a cycle).
  const auto cycles = h["sim_cycles"].get<std::uint64_t>();
  EXPECT_NE(a.out.find(fmt::format("simulated           {} cycles", cycles)), std::string::npos)
      << a.out;
  EXPECT_GE(h["sim_ticks"].get<std::uint64_t>(), (cycles - 1) * 1000);
  EXPECT_LE(h["sim_ticks"].get<std::uint64_t>(), cycles * 1000);
  const std::vector<std::string> argv = stats["host"]["command_line"];
  EXPECT_EQ(std::vector<std::string>(argv.begin() + 1, argv.end()),
            (std::vector<std::string>{"run", "copy.yaml", "--seed", "5", "--stats", "a.json"}));
  EXPECT_GE(stats["host"]["host_seconds"].get<double>(), 0.0);
}

TEST_F(RunCli, TheKernelGraphScenarioVerifiesEveryKernelAndIsDeterministic) {
  const std::string graph = (fs::path(XPUSIM_CONFIG_DIR) / "scenarios/kernel-graph.yaml").string();
  const CliRun a = run("run " + graph + " --stats a.json");
  const CliRun b = run("run " + graph + " --stats b.json");
  ASSERT_EQ(a.code, 0) << a.err;
  ASSERT_EQ(b.code, 0) << b.err;
  EXPECT_EQ(without_host(file("a.json")), without_host(file("b.json")));
  EXPECT_EQ(a.out, b.out);
  for (const char* node : {"fill_a", "fill_c", "copy_ab", "sum_b", "sum_c"})
    EXPECT_NE(a.out.find(fmt::format("result              {} (", node)), std::string::npos)
        << a.out;
  EXPECT_EQ(a.out.find("failed"), std::string::npos);
  // The per-launch table names each launch's queue and how it was dispatched.
  EXPECT_NE(a.out.find("q1 condensed 12 B"), std::string::npos) << a.out;
  const auto stats = nlohmann::json::parse(file("a.json"));
  EXPECT_EQ(stats["chip0.cp"]["barrier_packets"]["value"].get<std::uint64_t>(), 2u);
  EXPECT_EQ(stats["chip0.cp"]["condensed_packets"]["value"].get<std::uint64_t>(), 1u);
  EXPECT_EQ(stats["chip0.cp.q1"]["rst_kernels"]["value"].get<std::uint64_t>(), 1u);
}

TEST_F(RunCli, TraceHasAWarpTrackPerSlotOfEachSm) {
  write_copy("copy.yaml", 1024);
  const CliRun r = run("run copy.yaml --trace trace.json");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto trace = nlohmann::json::parse(file("trace.json"));
  std::set<std::string> tracks;
  std::size_t slices = 0;
  for (const auto& e : trace["traceEvents"]) {
    if (e.value("ph", "") == "M" && e.value("name", "") == "thread_name") {
      tracks.insert(e["args"]["name"].get<std::string>());
    }
    if (e.value("ph", "") == "X" && e.value("name", "") == "ld.global") ++slices;
  }
  EXPECT_TRUE(tracks.contains("chip0.sm0.w00")) << trace.dump().substr(0, 2000);
  EXPECT_TRUE(tracks.contains("chip0.sm0.w01"));
  EXPECT_GT(slices, 0u);
  // Memory requests: a slice on the SM's L1 track and on the L2 slice's track, joined by a
  // flow arrow each way (begin "s" and end "f" paired by id).
  EXPECT_TRUE(tracks.contains("chip0.mem.l1.sm0"));
  EXPECT_TRUE(std::any_of(tracks.begin(), tracks.end(), [](const std::string& t) {
    return t.starts_with("chip0.mem.l2.slice");
  }));
  std::map<std::uint64_t, int> flows;
  for (const auto& e : trace["traceEvents"]) {
    if (e.value("cat", "") != "flow") continue;
    flows[e["id"].get<std::uint64_t>()] += e.value("ph", "") == "s" ? 1 : 10;
  }
  ASSERT_FALSE(flows.empty());
  for (const auto& [id, sum] : flows)
    EXPECT_EQ(sum, 11) << "flow " << id << " needs one begin and one end";
}

TEST_F(RunCli, PolicyAndSmTimingOverridesChangeTheRun) {
  write_copy("copy.yaml");
  write_copy("slow.yaml", 4096,
             "sm_timing: {lsu_issue_cycles: 40}\npolicy: first-fit\nsm_scheduler: lrr\n");
  const CliRun a = run("run copy.yaml");
  const CliRun b = run("run slow.yaml");
  const CliRun c = run("run slow.yaml --policy round-robin --scheduler oldest");
  ASSERT_EQ(a.code, 0) << a.err;
  ASSERT_EQ(b.code, 0) << b.err;
  ASSERT_EQ(c.code, 0) << c.err;
  EXPECT_NE(b.out.find("(functional, first-fit policy, lrr warp scheduler)"), std::string::npos)
      << b.out;
  EXPECT_NE(c.out.find("(functional, round-robin policy, oldest warp scheduler)"),
            std::string::npos)
      << c.out;
  const auto cycles = [](const std::string& out) {
    const auto at = out.find("simulated") + 9;
    return std::stoull(out.substr(out.find_first_not_of(' ', at)));
  };
  EXPECT_GT(cycles(b.out), cycles(a.out)) << a.out << b.out;
}

TEST_F(RunCli, AnMmWorkloadPrintsTheTensorUnitLine) {
  write("gemm.yaml", "chip: tiny\nworkload: gemm.mm\nparams: {m: 128, n: 64, k: 64, tile_n: 64}\n");
  const CliRun r = run("run gemm.yaml");
  ASSERT_EQ(r.code, 0) << r.err << r.out;
  // 4 warps x 2 K steps of 32: 8 mm, 64 math issues each, 128 x 64 x 64 MACs.
  EXPECT_NE(r.out.find("\n  tensor unit         8 mm (512 math issues), 524288 MACs; busy "),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("lane utilization 100.0%"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("result              verified"), std::string::npos) << r.out;
  write_copy("copy.yaml");
  const CliRun c = run("run copy.yaml");
  EXPECT_EQ(c.out.find("tensor unit"), std::string::npos) << c.out;  // no mm, no line
}

// Two gemm.mm runs on the tiny chip: a functional check and a timing-only one that writes its
// stats and trace.
constexpr const char* kTwoRuns = R"(chip: tiny
workload: gemm.mm
params: {m: 128, n: 64, k: 64, tile_n: 64}
runs:
  - name: check
    mode: functional
  - name: timing
    mode: timing-only
    params: {k: 128}
    stats: timing.stats.json
    trace: timing.trace.json
    trace_max_events: 50
)";

TEST_F(RunCli, MultiRunFilePrintsABlockPerRunAndWritesEachRunsOutputs) {
  write("two.yaml", kTwoRuns);
  const CliRun r = run("run two.yaml");
  ASSERT_EQ(r.code, 0) << r.err << r.out;
  EXPECT_EQ(r.err, "");  // no progress line: stderr is not a terminal
  const auto first = r.out.find(
      "run two.yaml: check (1 of 2): workload gemm.mm on tiny (functional, waterfill policy, gto "
      "warp scheduler)\n");
  const auto second = r.out.find(
      "\n\nrun two.yaml: timing (2 of 2): workload gemm.mm on tiny (timing-only, waterfill "
      "policy, gto warp scheduler)\n");
  EXPECT_EQ(first, 0u) << r.out;
  ASSERT_NE(second, std::string::npos) << r.out;
  const std::string a = r.out.substr(0, second), b = r.out.substr(second);
  EXPECT_NE(a.find("\n  result              verified\n"), std::string::npos) << a;
  EXPECT_NE(b.find("\n  result              not checked (timing-only)\n"), std::string::npos) << b;
  // 128 x 64 x 64 and 128 x 64 x 128 MACs: each run has its own chip.
  EXPECT_NE(a.find(" 524288 MACs; "), std::string::npos) << a;
  EXPECT_NE(b.find(" 1048576 MACs; "), std::string::npos) << b;
  EXPECT_EQ(a.find("\n  outputs "), std::string::npos) << a;
  EXPECT_NE(b.find("\n  outputs             stats timing.stats.json, trace timing.trace.json (50 "
                   "events; "),
            std::string::npos)
      << b;
  const auto stats = nlohmann::json::parse(file("timing.stats.json"));
  EXPECT_EQ(stats["chip0.sm0"]["mm.macs"]["value"].get<std::uint64_t>() > 0, true);
  const auto trace = nlohmann::json::parse(file("timing.trace.json"));
  std::size_t events = 0;
  for (const auto& e : trace["traceEvents"])
    events += e.value("ph", "") != "M" ? 1 : 0;
  EXPECT_EQ(events, 50u);  // the run's trace_max_events
}

// Reads that joined a miss in flight are printed beside the hit rate, from the same stats:
// the two memory timings split the reads that need no HBM read of their own differently
// between hits and merged misses.
TEST_F(RunCli, TheL2HitRateComesWithTheShareMergedIntoMissesInFlight) {
  write("gemm.yaml",
        "chip: tiny\nworkload: gemm.mm\nparams: {m: 256, n: 128, k: 128, tile_n: 64}\n");
  const CliRun r = run("run gemm.yaml --stats stats.json");
  ASSERT_EQ(r.code, 0) << r.err << r.out;
  const auto l2 = nlohmann::json::parse(file("stats.json"))["chip0.mem.l2"];
  const auto hits = l2["hits"]["value"].get<double>();
  const auto merged = l2["merged_misses"]["value"].get<double>();
  const double reads = hits + l2["misses"]["value"].get<double>() + merged;
  ASSERT_GT(hits, 0) << "the run should have hits";
  ASSERT_GT(merged, 0) << "the run should have merged misses";
  const std::string shares = fmt::format("{:.1f}%", 100 * hits / reads);
  const std::string merged_share =
      fmt::format("(+ {:.1f}% merged into misses in flight)\n", 100 * merged / reads);
  EXPECT_NE(r.out.find(fmt::format("\n  L2 hit rate         {} of {:.0f} reads {}", shares, reads,
                                   merged_share)),
            std::string::npos)
      << r.out;
  const auto headline = r.out.find("\n  headline\n");
  ASSERT_NE(headline, std::string::npos) << r.out;
  EXPECT_NE(
      r.out.find(fmt::format("\n  L2 hit rate         {} {}", shares, merged_share), headline),
      std::string::npos)
      << r.out;
}

TEST_F(RunCli, ATensorUnitRunEndsWithTheHeadline) {
  write("gemm.yaml", "chip: tiny\nworkload: gemm.mm\nparams: {m: 128, n: 64, k: 64, tile_n: 64}\n");
  const CliRun r = run("run gemm.yaml");
  ASSERT_EQ(r.code, 0) << r.err << r.out;
  const auto at = r.out.find("\n  result              verified\n\n  headline\n  time  ");
  ASSERT_NE(at, std::string::npos) << r.out;
  for (const char* line :
       {"\n  throughput          ", " TFLOP/s = ", "% of the dense bf16 peak ", " FMA/cycle x 2 x ",
        "; the workload's TFLOP/s: ", "\n  SM issue            ", "\n  tensor unit busy    ",
        "\n  L2 hit rate         ", "\n  HBM                 "}) {
    EXPECT_NE(r.out.find(line, at), std::string::npos) << line << "\n" << r.out;
  }
  write("s8.yaml",
        "chip: tiny\nworkload: gemm.mm\nparams: {m: 128, n: 64, k: 128, tile_n: 64, type: 1}\n");
  const CliRun s8 = run("run s8.yaml");
  ASSERT_EQ(s8.code, 0) << s8.err << s8.out;
  EXPECT_NE(s8.out.find(" TOPS = "), std::string::npos) << s8.out;
  EXPECT_NE(s8.out.find("% of the dense int8 peak "), std::string::npos) << s8.out;
  write_copy("copy.yaml");
  const CliRun c = run("run copy.yaml");
  EXPECT_EQ(c.out.find("headline"), std::string::npos) << c.out;  // no tensor unit, no headline
}

// One set of figures: a headline figure the workload also measures is the workload's value, in
// the headline, the summary, the measurement table and the stats file's "figures" alike.
TEST_F(RunCli, TheHeadlineAndTheMeasurementTableShowOneSetOfFigures) {
  write("gemm.yaml",
        "chip: tiny\nworkload: gemm.mm\nparams: {m: 256, n: 128, k: 128, tile_n: 64}\n");
  const CliRun r = run("run gemm.yaml --stats stats.json");
  ASSERT_EQ(r.code, 0) << r.err << r.out;
  const auto stats = nlohmann::json::parse(file("stats.json"));
  std::map<std::string, double> headline;
  for (const auto& f : stats["figures"]["headline"])
    headline[f["name"].get<std::string>()] = f["value"].get<double>();
  // The measurement table's rows: "  NAME   measured  configured  unit  note".
  const auto table_value = [&](const std::string& name) {
    const auto at = r.out.find("\n  " + name + " ");
    EXPECT_NE(at, std::string::npos) << name << "\n" << r.out;
    return at == std::string::npos ? -1.0 : std::stod(r.out.substr(at + 3 + name.size()));
  };
  const std::pair<const char*, const char*> same[] = {{"TFLOP/s", "throughput"},
                                                      {"tensor-unit busy", "tensor unit busy"},
                                                      {"L2 hit rate", "L2 hit rate"}};
  for (const auto& [row, figure] : same) {
    ASSERT_TRUE(headline.contains(figure)) << figure;
    EXPECT_EQ(fmt::format("{:.1f}", table_value(row)), fmt::format("{:.1f}", headline[figure]))
        << row;
    EXPECT_NE(r.out.find(fmt::format("\n  {:<20}{:.1f}", figure, headline[figure])),
              std::string::npos)
        << figure << "\n"
        << r.out;
  }
  EXPECT_NE(r.out.find(fmt::format("MACs; busy {:.1f}%", headline["tensor unit busy"])),
            std::string::npos)
      << r.out;
  // The roofline's inputs agree with the headline: rate = throughput, bytes = the HBM's.
  const auto& roof = stats["figures"]["roofline"];
  EXPECT_DOUBLE_EQ(roof["work_per_s"].get<double>() / 1e12, headline["throughput"]);
  EXPECT_DOUBLE_EQ(roof["hbm_bytes"].get<double>() / roof["seconds"].get<double>() / 1e9,
                   headline["HBM"]);
}

TEST_F(RunCli, BadInputInAnyRunIsExit2BeforeAnythingIsSimulated) {
  const std::pair<std::string, const char*> cases[] = {
      // The second run's parameter, against the workload.
      {std::string(kTwoRuns) + "  - {name: third, params: {tile_n: 7}}\n",
       "error: two.yaml:13:36: params.tile_n: gemm.mm: parameter tile_n = 7 is outside "},
      // The second run's setup: the workload rejects the combination, located at the run.
      {"chip: tiny\nworkload: gemm.mm\nruns:\n  - {name: a}\n  - {name: b, params: {m: 100}}\n",
       "error: two.yaml:5:12: runs[1]: gemm.mm: "},
      {"chip: tiny\nworkload: gemm.mm\nruns:\n  - {name: a}\n  - {name: a}\n",
       "error: two.yaml:5:12: runs[1].name: 'a' names run 1 too; run names must differ"},
      {"chip: tiny\nworkload: gemm.mm\nruns:\n  - {name: a, workload: gemm.nope}\n",
       "error: two.yaml:4:25: workload: workload 'gemm.nope' is unknown"},
  };
  for (const auto& [text, want] : cases) {
    write("two.yaml", text);
    const CliRun r = run("run two.yaml --stats stats.json");
    EXPECT_EQ(r.code, 2) << text << r.err;
    EXPECT_EQ(lines(r.err).size(), 1u) << text << r.err;
    EXPECT_EQ(r.err.find(want), 0u) << text << r.err;
    EXPECT_EQ(r.out, "") << text;
    EXPECT_FALSE(fs::exists(dir_ / "stats.json")) << text;
    EXPECT_FALSE(fs::exists(dir_ / "timing.stats.json")) << text;
  }
  // A --param error is the same for every run: said once.
  write("two.yaml", kTwoRuns);
  const CliRun p = run("run two.yaml --param tile_n=7");
  EXPECT_EQ(p.code, 2);
  EXPECT_EQ(p.err, "error: --param: gemm.mm: parameter tile_n = 7 is outside [16, 256]\n") << p.err;
  // --stats names the last run's file; another run writing it is an error.
  const CliRun clash = run("run two.yaml --trace timing.stats.json");
  EXPECT_EQ(clash.code, 2);
  EXPECT_EQ(clash.err,
            "error: --trace = timing.stats.json: run timing writes that file too (its stats); "
            "--stats and --trace name the last run's files\n");
}

// A file of many runs once built every run's chip (about 14 MB each for an H100) before the
// first ran, and a list of 700 exhausted the host: one chip is alive at a time now.
TEST_F(RunCli, ManyRunsHoldOneChipAtATime) {
  std::string runs;
  for (int i = 0; i < 150; ++i)
    runs += fmt::format("  - {{name: r{}}}\n", i);
  write("many.yaml",
        "chip: h100-sxm5\nmode: timing-only\nkernel: stream_fill\n"
        "launch: {grid: [4, 1, 1], block: [64, 1, 1]}\nbuffers:\n  dst: {bytes: 4KiB}\n"
        "args: [{ptr: dst}, {u64: 1024}]\nruns:\n" +
            runs);
  const CliRun r = run("run many.yaml");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("r149 (150 of 150)"), std::string::npos);
  // ctest runs each test in a process of its own: its children are this command.
  rusage usage{};
  ASSERT_EQ(::getrusage(RUSAGE_CHILDREN, &usage), 0);
#ifndef __SANITIZE_ADDRESS__  // ASan's quarantine keeps freed chips resident a while
  EXPECT_LT(usage.ru_maxrss, 300 * 1024) << "KiB";  // 150 chips at once: about 2 GB
#endif
}

TEST_F(RunCli, AFailedRunFailsTheCommandAndTheOtherRunsStillRun) {
  write("hang.yaml",
        "chip: tiny\nkernel: hang_demo\nlaunch: {grid: 1, block: 64}\n"
        "runs: [{name: first}, {name: second, mode: timing-only}]\n");
  const CliRun r = run("run hang.yaml");
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.out.find("run hang.yaml: first (1 of 2): kernel hang_demo on tiny (functional"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("\n\nrun hang.yaml: second (2 of 2): kernel hang_demo on tiny "
                       "(timing-only"),
            std::string::npos)
      << r.out;
  const std::vector<std::string> err = lines(r.err);
  ASSERT_EQ(err.size(), 8u) << r.err;
  EXPECT_EQ(err[0].find("error: run first: hang: nothing left to simulate at cycle "), 0u)
      << err[0];
  EXPECT_EQ(err[1], "hang report:");
  EXPECT_EQ(err[4].find("error: run second: hang: "), 0u) << err[4];
}

TEST_F(RunCli, FlagsApplyToEveryRunAndStatsTraceNameTheLastRunsFiles) {
  write("two.yaml", kTwoRuns);
  const CliRun r = run("run two.yaml --mode timing-only --stats last.json --trace last.trace.json");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("check (1 of 2): workload gemm.mm on tiny (timing-only"), std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("\n  outputs "), std::string::npos) << r.out;  // the flags' files
  EXPECT_FALSE(fs::exists(dir_ / "timing.stats.json"));
  EXPECT_FALSE(fs::exists(dir_ / "timing.trace.json"));
  const auto stats = nlohmann::json::parse(file("last.json"));
  // The last run's K = 128: 128 x 64 x 128 MACs.
  std::uint64_t macs = 0;
  for (const auto& [path, group] : stats.items()) {
    if (group.contains("mm.macs")) macs += group["mm.macs"]["value"].get<std::uint64_t>();
  }
  EXPECT_EQ(macs, 1048576u);
  EXPECT_FALSE(nlohmann::json::parse(file("last.trace.json"))["traceEvents"].empty());
}

TEST_F(RunCli, RunningInSlicesChangesNothing) {
  // XPUSIM_RUN_SLICE forces the slices a progress line uses (docs/run.md): a few ns each.
  write("gemm.yaml", "chip: tiny\nworkload: gemm.mm\nparams: {m: 128, n: 64, k: 64, tile_n: 64}\n");
  write_copy("copy.yaml");
  for (const char* name : {"gemm.yaml", "copy.yaml"}) {
    const CliRun whole = run(fmt::format("run {} --stats whole.json", name));
    ::setenv("XPUSIM_RUN_SLICE", "7ns", 1);
    const CliRun sliced = run(fmt::format("run {} --stats sliced.json", name));
    ::unsetenv("XPUSIM_RUN_SLICE");
    ASSERT_EQ(whole.code, 0) << whole.err;
    ASSERT_EQ(sliced.code, 0) << sliced.err;
    EXPECT_EQ(whole.out, sliced.out) << name;
    const std::string a = file("whole.json");
    EXPECT_GT(a.size(), 1000u);
    EXPECT_EQ(without_host(a), without_host(file("sliced.json"))) << name;
  }
  ::setenv("XPUSIM_RUN_SLICE", "0ns", 1);
  const CliRun bad = run("run copy.yaml");
  ::unsetenv("XPUSIM_RUN_SLICE");
  EXPECT_EQ(bad.code, 2);
  EXPECT_EQ(bad.err, "error: XPUSIM_RUN_SLICE = 0ns: must be greater than zero\n");
}

// --memory-thread (docs/memory-hierarchy.md, "A second host thread"): the same output and
// stats, whole and in slices; it needs the transaction-level timing and no trace.
TEST_F(RunCli, AMemoryThreadChangesNothingButTheHostTime) {
  write_copy("copy.yaml", 65536);
  write("gemm.yaml",
        "chip: tiny\nworkload: gemm.tma\nmode: timing-only\nmemory_timing: transactions\n"
        "params: {m: 256, n: 256, k: 128}\n");
  for (const char* name : {"copy.yaml", "gemm.yaml"}) {
    const CliRun one =
        run(fmt::format("run {} --memory-timing transactions --stats one.json", name));
    const CliRun two = run(
        fmt::format("run {} --memory-timing transactions --memory-thread --stats two.json", name));
    ::setenv("XPUSIM_RUN_SLICE", "7ns", 1);
    const CliRun sliced = run(fmt::format(
        "run {} --memory-timing transactions --memory-thread --stats sliced.json", name));
    ::unsetenv("XPUSIM_RUN_SLICE");
    ASSERT_EQ(one.code, 0) << one.err;
    ASSERT_EQ(two.code, 0) << two.err;
    ASSERT_EQ(sliced.code, 0) << sliced.err;
    EXPECT_EQ(one.out, two.out) << name;
    EXPECT_EQ(one.out, sliced.out) << name;
    const std::string a = file("one.json");
    EXPECT_GT(a.size(), 1000u);
    EXPECT_EQ(without_host(a), without_host(file("two.json"))) << name;
    EXPECT_EQ(without_host(a), without_host(file("sliced.json"))) << name;
  }
  const CliRun events = run("run copy.yaml --memory-thread");
  EXPECT_EQ(events.code, 2);
  EXPECT_EQ(events.err,
            "error: --memory-thread: has memory_timing events (add --memory-timing "
            "transactions): the second thread times the warp accesses of the transaction-level "
            "timing, without a trace\n");
  const CliRun traced =
      run("run copy.yaml --memory-timing transactions --memory-thread --trace t.json");
  EXPECT_EQ(traced.code, 2);
  EXPECT_NE(traced.err.find("error: --memory-thread: writes a trace:"), std::string::npos)
      << traced.err;
}

TEST_F(RunCli, ShippedScenariosAreValidInput) {
  // Each shipped scenario loads, resolves and sets up in its own mode (some workloads need
  // functional mode); --max-time keeps the run short. The runs go in parallel (one shell, one
  // background job each), so the test stays fast as scenarios are added.
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(fs::path(XPUSIM_CONFIG_DIR) / "scenarios")) {
    if (e.path().extension() == ".yaml") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  ASSERT_GE(files.size(), 1u);
  std::string script =
      fmt::format("cd '{}' && export XPUSIM_CONFIG_DIR='{}'; ", dir_.string(), XPUSIM_CONFIG_DIR);
  for (std::size_t i = 0; i < files.size(); ++i) {
    script += fmt::format("('{}' run '{}' --max-time 200ns >out{} 2>err{}; echo $? >rc{}) & ",
                          XPUSIM_BIN, files[i].string(), i, i, i);
  }
  script += "wait";
  ASSERT_EQ(std::system(script.c_str()), 0);
  for (std::size_t i = 0; i < files.size(); ++i) {
    const int code = std::stoi(file(fmt::format("rc{}", i)));
    const std::string err = file(fmt::format("err{}", i));
    EXPECT_TRUE(code == 0 || (code == 1 && err.find("--max-time") != std::string::npos))
        << files[i] << " exit " << code << "\n"
        << err;
    EXPECT_EQ(file(fmt::format("out{}", i)).find("run "), 0u) << files[i];
  }
}

}  // namespace
}  // namespace xpusim::test
