// The scenario loader (system/scenario.h): good files of both kinds, every class of bad
// input as one located line with its exact text, name resolution against the registries (a
// test workload here, so that these tests do not depend on the microbenchmarks), and the host
// setup on the tiny chip (buffers placed and filled, launches the chip rejects).
#include "system/scenario.h"
#include "tma/tensor_map_io.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <numeric>
#include <optional>

#include "config/chip_spec.h"
#include "sim/simulation.h"
#include "system/run.h"
#include "workloads/kernels.h"
#include "workloads/register_all.h"

namespace xpusim::system {
namespace {

namespace fs = std::filesystem;

Scenario load(std::string_view yaml) {
  auto s = load_scenario_string(yaml, "s.yaml");
  EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().message);
  return s.ok() ? std::move(s).value() : Scenario{};
}

// Every error of a file, one per line.
std::string errors_of(std::string_view yaml) {
  auto s = load_scenario_string(yaml, "s.yaml");
  if (s) return "(loaded)";
  std::string out;
  for (const Error& e : s.errors())
    out += (out.empty() ? "" : "\n") + e.message;
  return out;
}

// A stand-in workload: one parameter with bounds, setup launches stream_copy over it.
class TestWorkload : public Workload {
 public:
  std::string_view name() const override { return "test.copy"; }
  std::string_view description() const override { return "stream_copy over `bytes`"; }
  std::vector<ParamDecl> params() const override {
    return {{.name = "bytes",
             .description = "bytes copied",
             .default_value = 4096,
             .min = 4,
             .max = 1 << 20},
            {.name = "ctas", .description = "grid size", .default_value = 2, .min = 1, .max = 64}};
  }
  Status setup(Chip& chip, const kernel::KernelRegistry& kernels,
               const ParamValues& values) override {
    if (values.at("bytes") % 4 != 0) {
      return Error{fmt::format("bytes = {} is not a multiple of 4", values.at("bytes"))};
    }
    auto k = kernels.find("stream_copy");
    if (!k) return k.errors();
    const kernel::LaunchParams p{.grid = {static_cast<std::uint32_t>(values.at("ctas")), 1, 1},
                                 .block = {64, 1, 1}};
    auto id = chip.launch(
        **k, p, kernel::KernelArgs().ptr(0x1000).ptr(0x200000).u64(values.at("bytes") / 4));
    if (!id) return id.errors();
    return Ok{};
  }
  Result<std::vector<Measurement>> report(Chip&) override { return std::vector<Measurement>{}; }
};

// The registrar of these tests: the generic kernels and the stand-in workload.
Status register_for_tests(kernel::KernelRegistry& kernels, WorkloadRegistry& workloads) {
  if (auto st = workloads::register_kernels(kernels); !st) return st;
  return workloads.add(std::make_unique<TestWorkload>());
}

struct Registries {
  Registries() {
    EXPECT_TRUE(workloads::register_kernels(kernels).ok());
    EXPECT_TRUE(workloads.add(std::make_unique<TestWorkload>()).ok());
  }
  kernel::KernelRegistry kernels;
  WorkloadRegistry workloads;
};

std::string resolve_errors(const Scenario& s) {
  Registries r;
  auto resolved = resolve_scenario(s, r.kernels, r.workloads);
  return resolved ? "(resolved)" : resolved.error().message;
}

constexpr std::string_view kCopy = R"(# a comment
chip: tiny
kernel: stream_copy
launch: {grid: [2, 1, 1], block: [64], cluster: 1, dynamic_shared_bytes: 1KiB, registers_per_thread: 40}
buffers:
  src: {bytes: 3MiB, fill: iota32}
  dst: {bytes: 4096}
  rnd: {bytes: 64, fill: random32}
args: [{ptr: src}, {ptr: dst}, {u64: 0x400}]
)";

TEST(Scenario, WorkloadFileWithEveryOptionalKey) {
  const Scenario s = load(R"(
chip: h100-sxm5            # a name
mode: timing-only
workload: ubench.l2_latency
params:
  footprint: 4MiB
  hops: 100
policy: first-fit
sm_scheduler: lrr
memory_timing: transactions
set_sampling: 8
sm_timing:
  alu_latency: 6
  sub_partitions: 2
  store_queue: 0
)");
  EXPECT_EQ(s.chip, "h100-sxm5");
  EXPECT_EQ(s.memory_timing, mem::MemoryTiming::kTransactions);
  EXPECT_EQ(s.set_sampling, 8u);
  EXPECT_EQ(s.chip_pos.line, 2);
  EXPECT_EQ(s.mode, RunMode::kTimingOnly);
  EXPECT_TRUE(s.is_workload());
  EXPECT_EQ(s.workload, "ubench.l2_latency");
  ASSERT_EQ(s.params.size(), 2u);
  EXPECT_EQ(s.params.at("footprint").value, 4u << 20);
  EXPECT_EQ(s.params.at("footprint").pos.line, 6);
  EXPECT_EQ(s.params.at("hops").value, 100u);
  EXPECT_EQ(s.policy, "first-fit");
  EXPECT_EQ(s.sm_scheduler, "lrr");
  const core::SmTiming t = scenario_sm_timing(s, core::SmTiming{});
  EXPECT_EQ(t.alu_latency, 6u);
  EXPECT_EQ(t.sub_partitions, 2u);
  EXPECT_EQ(t.store_queue, 0u);
  EXPECT_EQ(t.sfu_latency, core::SmTiming{}.sfu_latency);
}

TEST(Scenario, DefaultsAreFunctionalAndWaterfill) {
  const Scenario s = load("chip: tiny\nworkload: w\n");
  EXPECT_EQ(s.mode, RunMode::kFunctional);
  EXPECT_EQ(s.memory_timing, mem::MemoryTiming::kEvents);
  EXPECT_EQ(s.set_sampling, 1u);
  EXPECT_EQ(s.policy, "waterfill");
  EXPECT_EQ(s.sm_scheduler, "gto");
  EXPECT_TRUE(s.params.empty());
  EXPECT_TRUE(s.sm_timing.empty());
}

TEST(Scenario, KernelFilePlacesBuffersOneMiBAlignedInListedOrder) {
  const Scenario s = load(kCopy);
  EXPECT_FALSE(s.is_workload());
  EXPECT_EQ(s.kernel, "stream_copy");
  EXPECT_EQ(s.launch.grid, (kernel::Dim3{2, 1, 1}));
  EXPECT_EQ(s.launch.block, (kernel::Dim3{64, 1, 1}));
  EXPECT_EQ(s.launch.cluster, (kernel::Dim3{1, 1, 1}));
  EXPECT_EQ(s.launch.dynamic_shared_bytes, 1024u);
  EXPECT_EQ(s.launch.registers_per_thread, 40u);
  ASSERT_EQ(s.buffers.size(), 3u);
  EXPECT_EQ(s.buffers[0].name, "src");
  EXPECT_EQ(s.buffers[0].address, 0x1000'0000u);
  EXPECT_EQ(s.buffers[0].fill, BufferFill::kIota32);
  EXPECT_EQ(s.buffers[1].name, "dst");
  EXPECT_EQ(s.buffers[1].address, 0x1030'0000u);  // 3 MiB later
  EXPECT_EQ(s.buffers[1].fill, BufferFill::kZero);
  EXPECT_EQ(s.buffers[2].address, 0x1040'0000u);  // 4 KiB rounds up to 1 MiB
  EXPECT_EQ(s.buffers[2].fill, BufferFill::kRandom32);
  ASSERT_EQ(s.args.size(), 3u);
  EXPECT_EQ(s.args[0].kind, kernel::ArgKind::kPtr);
  EXPECT_EQ(s.args[0].bits, 0x1000'0000u);
  EXPECT_EQ(s.args[1].buffer, "dst");
  EXPECT_EQ(s.args[1].bits, 0x1030'0000u);
  EXPECT_EQ(s.args[2].kind, kernel::ArgKind::kU64);
  EXPECT_EQ(s.args[2].bits, 0x400u);
}

TEST(Scenario, ArgsMayComeBeforeTheBuffersTheyName) {
  const Scenario s = load(
      "chip: tiny\nkernel: k\nargs: [{ptr: b}, {u32: 7}, {f32: 1.5}]\nlaunch: {grid: 1, block: "
      "32}\n"
      "buffers: {b: {bytes: 4}}\n");
  ASSERT_EQ(s.args.size(), 3u);
  EXPECT_EQ(s.args[0].bits, 0x1000'0000u);
  EXPECT_EQ(s.args[1].kind, kernel::ArgKind::kU32);
  EXPECT_EQ(s.args[2].kind, kernel::ArgKind::kF32);
  EXPECT_EQ(s.args[2].bits, std::bit_cast<std::uint32_t>(1.5f));
}

TEST(Scenario, SetSamplingIsAWholeNumberFrom1To64) {
  const std::string zero = errors_of("chip: tiny\nworkload: w\nset_sampling: 0\n");
  EXPECT_NE(zero.find("s.yaml:3:"), std::string::npos) << zero;
  EXPECT_NE(zero.find("set_sampling"), std::string::npos) << zero;
  EXPECT_NE(errors_of("chip: tiny\nworkload: w\nset_sampling: 65\n").find("64"), std::string::npos);
  const Scenario s =
      load("chip: tiny\nworkload: w\nruns: [{name: a, set_sampling: 4}, {name: b}]\n");
  ASSERT_EQ(s.runs.size(), 2u);
  EXPECT_EQ(s.runs[0].set_sampling, 4u);
  EXPECT_EQ(s.runs[1].set_sampling, 1u);
}

TEST(Scenario, WaveSamplingIsAPercentageFrom0To50) {
  const std::string high = errors_of("chip: tiny\nworkload: w\nwave_sampling: 51\n");
  EXPECT_EQ(high, "s.yaml:3:16: wave_sampling: 51 is outside [0, 50]");
  EXPECT_EQ(errors_of("chip: tiny\nworkload: w\nwave_sampling: 2%\n"),
            "s.yaml:3:16: wave_sampling: \"2%\" is not a percentage (a number such as 2 or 0.5)");
  EXPECT_EQ(errors_of("chip: tiny\nworkload: w\nwave_sampling: [2]\n"),
            "s.yaml:3:16: wave_sampling: expected a percentage (a number), got a sequence");
  const Scenario s = load(
      "chip: tiny\nworkload: w\nwave_sampling: 0.5\nruns: [{name: a, wave_sampling: 2}, {name: "
      "b}]\n");
  ASSERT_EQ(s.runs.size(), 2u);
  EXPECT_EQ(s.runs[0].wave_sampling, 2.0);
  EXPECT_EQ(s.runs[1].wave_sampling, 0.5);
}

TEST(Scenario, StructureErrors) {
  EXPECT_EQ(errors_of(""),
            "s.yaml:1:1: empty scenario; expected a mapping with keys chip, mode, memory_timing, "
            "set_sampling, wave_sampling, workload, params, policy, sm_scheduler, sm_timing, "
            "kernel, ptx, cuda, launch, buffers, args, stats, trace, outputs, trace_max_events, "
            "trace_window, runs, "
            "queues, cp_timing, kernels, rasterization, cga_memory_slots");
  EXPECT_EQ(errors_of("chip: [tiny"),
            "s.yaml:1:1: YAML syntax error: end of sequence flow not found");
  EXPECT_EQ(errors_of("- chip"), "s.yaml:1:1: expected a mapping at the top level, got a sequence");
  EXPECT_EQ(errors_of("workload: w\n"),
            "s.yaml:1:1: chip: missing required key 'chip' (a name in configs/chips such as "
            "h100-sxm5, or a path)");
  EXPECT_EQ(errors_of("chip: tiny\n"),
            "s.yaml:1:1: missing key 'workload', 'kernel' or 'kernels': a scenario runs a "
            "registered workload (workload: NAME), one kernel launch (kernel: NAME with launch, "
            "buffers, args) or a graph of launches (kernels: [...])");
  EXPECT_EQ(errors_of("chip: tiny\nworkload: w\nkernel: k\n"),
            "s.yaml:3:1: workload and kernel are exclusive: a scenario runs a workload or one "
            "kernel launch, not both");
  EXPECT_EQ(errors_of("chip: tiny\nworkload: w\nchip: h100-sxm5\n"),
            "s.yaml:3:1: chip: duplicate key; first given at line 1");
}

TEST(Scenario, UnknownKeysSuggestTheClosestAndAreNotAlsoMissing) {
  EXPECT_EQ(
      errors_of("chip: tiny\nworklaod: w\n"),
      "s.yaml:2:1: worklaod: unknown key 'worklaod' (did you mean 'workload'?); valid "
      "keys: chip, mode, memory_timing, set_sampling, wave_sampling, workload, params, "
      "policy, sm_scheduler, sm_timing, kernel, ptx, cuda, launch, buffers, args, stats, trace, "
      "outputs, trace_max_events, trace_window, runs, queues, cp_timing, kernels, rasterization, "
      "cga_memory_slots");
  EXPECT_EQ(errors_of("chip: tiny\nworkload: w\nsm_timing: {alu_latncy: 3}\n"),
            "s.yaml:3:13: sm_timing.alu_latncy: unknown key 'alu_latncy' (did you mean "
            "'alu_latency'?); valid keys in sm_timing: sub_partitions, alu_latency, sfu_latency, "
            "sfu_issue_cycles, mma_issue_cycles, mma_latency, shared_latency, "
            "lsu_issue_cycles, barrier_latency, mbarrier_latency, cluster_barrier_latency, "
            "store_queue");
  EXPECT_EQ(errors_of("chip: tiny\nkernel: k\nlaunch: {grid: 1, block: 1, clustr: 2}\n"),
            "s.yaml:3:29: launch.clustr: unknown key 'clustr' (did you mean 'cluster'?); valid "
            "keys in launch: grid, block, cluster, dynamic_shared_bytes, registers_per_thread, "
            "queue, priority, multicast, gpu_cga, ugpu_cga, cpc_cga, policy");
}

TEST(Scenario, CgaMemorySlotsKey) {
  EXPECT_EQ(load("chip: tiny\nworkload: w\n").cga_memory_slots, 0u);
  EXPECT_EQ(load("chip: tiny\nworkload: w\ncga_memory_slots: 12\n").cga_memory_slots, 12u);
  EXPECT_EQ(errors_of("chip: tiny\nworkload: w\ncga_memory_slots: 70000\n"),
            "s.yaml:3:19: cga_memory_slots: 70000 is outside [0, 65536]");
}

TEST(Scenario, LaunchKeysReachTheCgaLevels) {
  const Scenario s = load(
      "chip: tiny\nkernel: k\nlaunch: {grid: 8, block: 32, cluster: 2, ugpu_cga: 2, cpc_cga: 2}\n");
  EXPECT_EQ(s.launch.gpc_cgas_per_ugpu_cga, 2u);
  EXPECT_EQ(s.launch.cpc_cgas_per_gpc_cga, 2u);
  EXPECT_EQ(s.launch.gpc_cgas_per_gpu_cga, 1u);
  EXPECT_EQ(errors_of("chip: tiny\nkernel: k\nlaunch: {grid: 8, block: 32, cpc_cga: 256}\n"),
            "s.yaml:3:39: launch.cpc_cga: 256 is outside [1, 255]");
  EXPECT_EQ(errors_of("chip: tiny\nkernel: k\nlaunch: {grid: 8, block: 32, ugpu_cga: 0}\n"),
            "s.yaml:3:40: launch.ugpu_cga: 0 is outside [1, 65535]");
}

TEST(Scenario, ValueErrorsNameTheKeyTheValueAndTheRule) {
  EXPECT_EQ(errors_of("chip: tiny\nmemory_timing: fast\nworkload: w\n"),
            "s.yaml:2:16: memory_timing: 'fast' is not a memory timing; memory timings: events "
            "(every step at its tick, the reference), transactions (each request timed whole "
            "when issued: faster, approximate)");
  EXPECT_EQ(errors_of("chip: tiny\nmode: fast\nworkload: w\n"),
            "s.yaml:2:7: mode: 'fast' is not a mode; modes: functional (data moves, results "
            "checked), timing-only (no data, same timing)");
  EXPECT_EQ(errors_of("chip: tiny\nworkload: w\npolicy: waterfil\n"),
            "s.yaml:3:9: policy: policy 'waterfil' is unknown (did you mean 'waterfill'?); "
            "known policies: waterfill, prior-art, round-robin, first-fit");
  EXPECT_EQ(errors_of("chip: tiny\nworkload: w\nsm_scheduler: gtoo\n"),
            "s.yaml:3:15: sm_scheduler: warp scheduler 'gtoo' is unknown (did you mean 'gto'?); "
            "known warp schedulers: gto, lrr, oldest");
  EXPECT_EQ(errors_of("chip: tiny\nworkload: w\nparams: {footprint: 4MiBs}\n"),
            "s.yaml:3:21: params.footprint: unknown size unit \"MiBs\" in \"4MiBs\"; valid "
            "units: B, KB, MB, GB, TB, KiB, MiB, GiB, TiB");
  EXPECT_EQ(errors_of("chip: tiny\nworkload: w\nparams: {footprint: -1}\n"),
            "s.yaml:3:21: params.footprint: \"-1\" is negative; a size must be >= 0");
  EXPECT_EQ(errors_of("chip: tiny\nworkload: w\nsm_timing: {sub_partitions: 0}\n"),
            "s.yaml:3:29: sm_timing.sub_partitions: 0 is outside [1, 16]");
  EXPECT_EQ(errors_of("chip: tiny\nworkload: w\nsm_timing: {store_queue: 2000000}\n"),
            "s.yaml:3:26: sm_timing.store_queue: 2000000 is outside [0, 1048576]");
  EXPECT_EQ(errors_of("chip: tiny\nworkload: w\nsm_timing: {alu_latency: fast}\n"),
            "s.yaml:3:26: sm_timing.alu_latency: \"fast\" is not a whole number");
  EXPECT_EQ(errors_of("chip: tiny\nkernel: k\nlaunch: {grid: [2, 0], block: 32}\n"),
            "s.yaml:3:20: launch.grid.y: 0 is outside [1, 4294967295]");
  EXPECT_EQ(errors_of("chip: tiny\nkernel: k\nlaunch: {grid: [1, 1, 1, 1], block: 32}\n"),
            "s.yaml:3:16: launch.grid: expected [x, y, z] with 1 to 3 whole numbers, got a "
            "sequence of 4");
  EXPECT_EQ(errors_of("chip: tiny\nkernel: k\nlaunch: {grid: 1}\n"),
            "s.yaml:3:1: launch.block: missing required key 'block'");
  EXPECT_EQ(errors_of("chip: tiny\nkernel: k\n"),
            "s.yaml:1:1: launch: missing required key 'launch' (kernel: needs launch: {grid: "
            "[x, y, z], block: [x, y, z]})");
  EXPECT_EQ(
      errors_of(
          "chip: tiny\nkernel: k\nlaunch: {grid: 1, block: 1}\nbuffers: {a: {fill: iota32}}\n"),
      "s.yaml:4:11: buffers.a.bytes: missing required key 'bytes' (or 'file:', whose size it "
      "then is)");
  EXPECT_EQ(errors_of("chip: tiny\nkernel: k\nlaunch: {grid: 1, block: 1}\n"
                      "buffers: {a: {bytes: 8, fill: iota}}\n"),
            "s.yaml:4:31: buffers.a.fill: 'iota' is not a fill (did you mean 'iota32'?); fills: "
            "zero (untouched), iota32 (u32 element i = i), random32 (seeded)");
  EXPECT_EQ(errors_of("chip: tiny\nkernel: k\nlaunch: {grid: 1, block: 1}\n"
                      "buffers: {a: {bytes: 6, fill: iota32}}\n"),
            "s.yaml:4:11: buffers.a.bytes: 6 is not a multiple of 4 (fill iota32 writes u32 "
            "elements)");
  EXPECT_EQ(errors_of("chip: tiny\nkernel: k\nlaunch: {grid: 1, block: 1}\n"
                      "buffers: {a: {bytes: 0}}\n"),
            "s.yaml:4:22: buffers.a.bytes: 0 is less than 1, the smallest allowed");
  // A ptr to a buffer whose declaration failed gets no second error.
  EXPECT_EQ(errors_of("chip: tiny\nkernel: k\nlaunch: {grid: 1, block: 1}\n"
                      "buffers: {a: {bytes: 0}}\nargs: [{ptr: a}]\n"),
            "s.yaml:4:22: buffers.a.bytes: 0 is less than 1, the smallest allowed");
}

TEST(Scenario, ArgumentErrors) {
  const std::string head =
      "chip: tiny\nkernel: k\nlaunch: {grid: 1, block: 1}\n"
      "buffers: {src: {bytes: 4}, dst: {bytes: 4}}\n";
  EXPECT_EQ(errors_of(head + "args: [{ptr: dts}]\n"),
            "s.yaml:5:14: args[0].ptr: 'dts' is not a buffer (did you mean 'dst'?); buffers: "
            "src, dst");
  EXPECT_EQ(errors_of(head + "args: [{u32: 4294967296}]\n"),
            "s.yaml:5:14: args[0].u32: 4294967296 is outside [0, 4294967295]");
  EXPECT_EQ(errors_of(head + "args: [{u31: 1}]\n"),
            "s.yaml:5:9: args[0].u31: unknown key 'u31' (did you mean 'u32'?); valid keys in "
            "args[0]: u32, u64, f32, u8, u16, s32, s64, f64, ptr, tensor_map");
  EXPECT_EQ(errors_of(head + "args: [{f32: one}]\n"),
            "s.yaml:5:14: args[0].f32: \"one\" is not a 32-bit float");
  EXPECT_EQ(errors_of(head + "args: [{u32: 1, u64: 2}]\n"),
            "s.yaml:5:8: args[0]: expected one of {u8|u16|u32|u64: N}, {s32|s64: N}, {f32|f64: X}, "
            "{ptr: BUFFER}, {tensor_map: {...}}, "
            "got a mapping with 2 keys");
  EXPECT_EQ(errors_of(head + "args: {ptr: src}\n"),
            "s.yaml:5:7: args: expected a sequence such as [{ptr: src}, {u64: 1024}], got a "
            "mapping");
}

TEST(Scenario, KeysOfTheOtherKindAreErrors) {
  EXPECT_EQ(errors_of("chip: tiny\nworkload: w\nargs: []\n"),
            "s.yaml:3:1: args: only with 'kernel:' (a generic launch); a workload sets up its "
            "own launches and takes 'params:'");
  EXPECT_EQ(errors_of("chip: tiny\nkernel: k\nlaunch: {grid: 1, block: 1}\nparams: {n: 1}\n"),
            "s.yaml:4:1: params: only with 'workload:'; a kernel launch takes its inputs as "
            "'args:'");
}

TEST(Scenario, AllErrorsOfAFileComeBackSortedByLine) {
  const std::string e = errors_of("chip: tiny\nmode: fast\nworkload: w\npolicy: best\n");
  EXPECT_EQ(std::count(e.begin(), e.end(), '\n'), 1) << e;
  EXPECT_EQ(e.find("s.yaml:2:7: mode"), 0u) << e;
  EXPECT_NE(e.find("\ns.yaml:4:9: policy"), std::string::npos) << e;
}

TEST(Scenario, ResolvingNamesAgainstTheRegistries) {
  EXPECT_EQ(resolve_errors(load("chip: tiny\nworkload: test.cpy\n")),
            "s.yaml:2:11: workload: workload 'test.cpy' is unknown (did you mean "
            "'test.copy'?); known workloads: test.copy");
  EXPECT_EQ(resolve_errors(load("chip: tiny\nworkload: test.copy\nparams:\n  bites: 4\n")),
            "s.yaml:4:10: params.bites: test.copy: unknown parameter 'bites' (did you mean "
            "'bytes'?); parameters: bytes, ctas");
  EXPECT_EQ(resolve_errors(load("chip: tiny\nworkload: test.copy\nparams:\n  bytes: 2MiB\n")),
            "s.yaml:4:10: params.bytes: test.copy: parameter bytes = 2097152 is outside [4, "
            "1048576]");
  EXPECT_EQ(resolve_errors(load("chip: tiny\nkernel: stream_cpy\nlaunch: {grid: 1, block: 1}\n")),
            "s.yaml:2:9: kernel: kernel 'stream_cpy' is unknown (did you mean "
            "'stream_copy'?); known kernels: stream_copy, stream_sum, stream_fill, hang_demo, "
            "fault_demo");
  EXPECT_EQ(resolve_errors(load("chip: tiny\nkernel: stream_copy\nlaunch: {grid: 1, block: 1}\n"
                                "buffers: {a: {bytes: 4}}\nargs: [{ptr: a}]\n")),
            "s.yaml:5:1: args: kernel stream_copy: 1 arguments given, it takes 3 (ptr src, ptr "
            "dst, u64 n)");
  EXPECT_EQ(
      resolve_errors(load("chip: tiny\nkernel: stream_copy\nlaunch: {grid: 1, block: 1}\n"
                          "buffers: {a: {bytes: 4}}\nargs: [{ptr: a}, {ptr: a}, {u32: 1}]\n")),
      "s.yaml:5:29: args[2]: kernel stream_copy: argument 2 (n) is a u32, it must be a u64");
  EXPECT_EQ(resolve_errors(load("chip: tiny\nkernel: hang_demo\nlaunch: {grid: 1, block: 32}\n")),
            "(resolved)");
}

TEST(Scenario, ParamFlagOverridesTheFileAndItsErrorsNameTheFlag) {
  Scenario s = load("chip: tiny\nworkload: test.copy\nparams: {bytes: 64, ctas: 3}\n");
  ASSERT_TRUE(apply_param_overrides(s, "--param", "bytes=1KiB").ok());
  Registries r;
  auto resolved = resolve_scenario(s, r.kernels, r.workloads);
  ASSERT_TRUE(resolved.ok()) << resolved.error().message;
  EXPECT_EQ(resolved->params.at("bytes"), 1024u);
  EXPECT_EQ(resolved->params.at("ctas"), 3u);

  EXPECT_EQ(apply_param_overrides(s, "--param", "bytes").error().message,
            "--param: item 'bytes' is not key=value");
  EXPECT_EQ(apply_param_overrides(s, "--param", "bytes=4x").error().message,
            "--param: bytes = '4x': unknown size unit \"x\" in \"4x\"; valid units: B, KB, MB, "
            "GB, TB, KiB, MiB, GiB, TiB");
  ASSERT_TRUE(apply_param_overrides(s, "--param", "ctas=99").ok());
  EXPECT_EQ(resolve_errors(s), "--param: test.copy: parameter ctas = 99 is outside [1, 64]");

  Scenario k = load(kCopy);
  EXPECT_EQ(apply_param_overrides(k, "--param", "n=1").error().message,
            "--param: the scenario launches kernel stream_copy, which takes no parameters (its "
            "inputs are args: in the scenario file)");
}

TEST(Scenario, ChipPathsAreRelativeToTheScenarioFile) {
  const fs::path dir = fs::temp_directory_path() / fmt::format("scenario_test_{}", ::getpid());
  fs::create_directories(dir / "sub");
  fs::copy_file(fs::path(XPUSIM_CONFIG_DIR) / "chips/tiny.yaml", dir / "sub/my.yaml",
                fs::copy_options::overwrite_existing);
  std::ofstream(dir / "s.yaml") << "chip: sub/my.yaml\nworkload: w\n";
  auto s = load_scenario_file(dir / "s.yaml");
  ASSERT_TRUE(s.ok()) << s.error().message;
  auto p = resolve_scenario_chip(*s, XPUSIM_CONFIG_DIR);
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(*p, dir / "sub/my.yaml");
  s->chip = "tiny";
  EXPECT_TRUE(resolve_scenario_chip(*s, XPUSIM_CONFIG_DIR).ok());
  s->chip = "tinny";
  const auto bad = resolve_scenario_chip(*s, XPUSIM_CONFIG_DIR);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message.find((dir / "s.yaml").string() + ":1:7: chip: "), 0u)
      << bad.error().message;
  EXPECT_FALSE(load_scenario_file(dir / "missing.yaml").ok());
  fs::remove_all(dir);
}

// The tiny chip, functional unless asked.
struct TinyChip {
  // `store_queue`: sm.store_queue over tiny's.
  explicit TinyChip(bool functional = true, std::optional<std::uint32_t> store_queue = {}) {
    spec = config::load_chip_file(fs::path(XPUSIM_CONFIG_DIR) / "chips/tiny.yaml").value();
    if (store_queue) spec.sm.store_queue = *store_queue;
    chip = Chip::create(sim, spec,
                        ChipOptions{.functional = functional,
                                    .policy = "waterfill",
                                    .timing = sm_timing_of(spec),
                                    .distributor = {},
                                    .max_touched_bytes = 1 << 30})
               .value();
  }
  sim::Simulation sim{1};
  config::ChipSpec spec;
  std::unique_ptr<Chip> chip;
};

TEST(Scenario, SetupFillsTheBuffersAndTheCopyVerifies) {
  const Scenario s = load(kCopy);
  Registries r;
  auto resolved = resolve_scenario(s, r.kernels, r.workloads);
  ASSERT_TRUE(resolved.ok()) << resolved.error().message;
  TinyChip t;
  ASSERT_TRUE(setup_scenario(s, *resolved, *t.chip, r.kernels, 7).ok());
  std::uint32_t head[4];
  ASSERT_TRUE(
      t.chip->memory().read(0x1000'0000 + 4 * 1000, std::as_writable_bytes(std::span(head))).ok());
  EXPECT_EQ(head[0], 1000u);
  EXPECT_EQ(head[3], 1003u);
  t.sim.run();
  ASSERT_TRUE(t.chip->all_done());
  const auto v = resolved->kernel->check(t.chip->memory(), resolved->args, s.launch);
  ASSERT_TRUE(v.ok()) << v.error().message;
  EXPECT_EQ(*v, "dst == src over 1024 u32 elements");
  // A wrong element is named.
  const std::uint32_t bad = 5;
  ASSERT_TRUE(t.chip->memory().write(0x1030'0000 + 4 * 17, std::as_bytes(std::span(&bad, 1))).ok());
  const auto w = resolved->kernel->check(t.chip->memory(), resolved->args, s.launch);
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.error().message,
            "stream_copy: dst[17] = 0x5 at 0x10300044, expected src[17] = 0x11 (at 0x10000044)");
}

// stream_sum and stream_fill (kernels.h): 1000 elements over 2 CTAs of 96 threads (a partial
// last warp, threads with 5 or 6 elements) checked by the kernels' own references, whose
// messages name a planted wrong value.
// One warp filling 100 rows of 32 elements: posted, its stores leave the loop's own
// instructions as its pace (12 dependent ALU latencies and the store's issue slot an
// iteration, as an H100 runs it: docs/fidelity.md, "Whole kernels"), and the run ends with
// the last store's acknowledgement. Stores that hold their warp (sm.store_queue 0) pay a
// round trip to the L2 each.
TEST(Scenario, AFillAtOneWarpRunsAtItsLoopRate) {
  const Scenario fill = load(R"(
chip: tiny
kernel: stream_fill
launch: {grid: [1, 1, 1], block: [32], cluster: 1, dynamic_shared_bytes: 0, registers_per_thread: 32}
buffers:
  dst: {bytes: 12800}
args: [{ptr: dst}, {u64: 3200}]
)");
  Registries r;
  const auto resolved = resolve_scenario(fill, r.kernels, r.workloads);
  ASSERT_TRUE(resolved.ok()) << resolved.error().message;
  const auto cycles = [&](std::uint32_t store_queue) {
    TinyChip t(true, store_queue);
    XPUSIM_CHECK(setup_scenario(fill, *resolved, *t.chip, r.kernels, 7).ok(), "fill set up");
    t.sim.run();
    XPUSIM_CHECK(t.chip->all_done(), "fill done");
    return t.chip->clock().cycle_at(t.sim.now());
  };
  const core::SmTiming tm =
      sm_timing_of(config::load_chip_file(fs::path(XPUSIM_CONFIG_DIR) / "chips/tiny.yaml").value());
  const std::uint64_t loop = 100 * (tm.lsu_issue_cycles + 12 * tm.alu_latency);
  const std::uint64_t posted = cycles(32);
  EXPECT_GT(posted, loop);
  EXPECT_LT(posted, loop + 1000);  // launch, the first CTA's start and the last acknowledgement
  EXPECT_GT(cycles(0), posted + 100 * 200);  // an L2 write round trip is over 200 cycles
}

TEST(Scenario, TheSumAndFillKernelsVerify) {
  const Scenario sum = load(R"(
chip: tiny
kernel: stream_sum
launch: {grid: [2, 1, 1], block: [96], cluster: 1, dynamic_shared_bytes: 0, registers_per_thread: 32}
buffers:
  src: {bytes: 4096, fill: iota32}
  out: {bytes: 1024}
args: [{ptr: src}, {u64: 1000}, {ptr: out}]
)");
  Registries r;
  auto resolved = resolve_scenario(sum, r.kernels, r.workloads);
  ASSERT_TRUE(resolved.ok()) << resolved.error().message;
  {
    TinyChip t;
    ASSERT_TRUE(setup_scenario(sum, *resolved, *t.chip, r.kernels, 7).ok());
    t.sim.run();
    ASSERT_TRUE(t.chip->all_done());
    // Thread 5 of 192 sums 5 + 197 + 389 + 581 + 773 + 965 (an independent count).
    std::uint32_t out5 = 0;
    ASSERT_TRUE(t.chip->memory()
                    .read(0x1010'0000 + 4 * 5, std::as_writable_bytes(std::span(&out5, 1)))
                    .ok());
    EXPECT_EQ(out5, 5u + 197 + 389 + 581 + 773 + 965);
    const auto v = resolved->kernel->check(t.chip->memory(), resolved->args, sum.launch);
    ASSERT_TRUE(v.ok()) << v.error().message;
    EXPECT_EQ(*v, "out == per-thread sums over 1000 u32 elements");
    const std::uint32_t bad = 1;
    ASSERT_TRUE(
        t.chip->memory().write(0x1010'0000 + 4 * 191, std::as_bytes(std::span(&bad, 1))).ok());
    const auto w = resolved->kernel->check(t.chip->memory(), resolved->args, sum.launch);
    ASSERT_FALSE(w.ok());
    EXPECT_EQ(w.error().message, "stream_sum: out[191] = 0x1 at 0x101002fc, expected 0xb3b");
  }
  const Scenario fill = load(R"(
chip: tiny
kernel: stream_fill
launch: {grid: [2, 1, 1], block: [96], cluster: 1, dynamic_shared_bytes: 0, registers_per_thread: 32}
buffers:
  dst: {bytes: 4096}
args: [{ptr: dst}, {u64: 1000}]
)");
  resolved = resolve_scenario(fill, r.kernels, r.workloads);
  ASSERT_TRUE(resolved.ok()) << resolved.error().message;
  TinyChip t;
  ASSERT_TRUE(setup_scenario(fill, *resolved, *t.chip, r.kernels, 7).ok());
  t.sim.run();
  ASSERT_TRUE(t.chip->all_done());
  const auto v = resolved->kernel->check(t.chip->memory(), resolved->args, fill.launch);
  ASSERT_TRUE(v.ok()) << v.error().message;
  EXPECT_EQ(*v, "dst[i] == i over 1000 u32 elements");
  // Nothing past n is written.
  std::uint32_t past = 7;
  ASSERT_TRUE(t.chip->memory()
                  .read(0x1000'0000 + 4 * 1000, std::as_writable_bytes(std::span(&past, 1)))
                  .ok());
  EXPECT_EQ(past, 0u);
  const std::uint32_t bad = 3;
  ASSERT_TRUE(
      t.chip->memory().write(0x1000'0000 + 4 * 999, std::as_bytes(std::span(&bad, 1))).ok());
  const auto w = resolved->kernel->check(t.chip->memory(), resolved->args, fill.launch);
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.error().message, "stream_fill: dst[999] = 0x3 at 0x10000f9c, expected 0x3e7");
}

TEST(Scenario, RandomFillFollowsTheSeedAndTimingOnlyWritesNothing) {
  const Scenario s = load(kCopy);
  Registries r;
  auto resolved = resolve_scenario(s, r.kernels, r.workloads).value();
  std::uint32_t v[3][16];
  for (int i = 0; i < 3; ++i) {
    TinyChip t;
    ASSERT_TRUE(setup_scenario(s, resolved, *t.chip, r.kernels, i == 2 ? 8 : 7).ok());
    ASSERT_TRUE(t.chip->memory().read(0x1040'0000, std::as_writable_bytes(std::span(v[i]))).ok());
  }
  EXPECT_EQ(std::memcmp(v[0], v[1], sizeof v[0]), 0);
  EXPECT_NE(std::memcmp(v[0], v[2], sizeof v[0]), 0);
  EXPECT_NE(v[0][0], v[0][1]);
  TinyChip timing(false);
  ASSERT_TRUE(setup_scenario(s, resolved, *timing.chip, r.kernels, 7).ok());
  // Only the command processor's pages (its ring, the launch's kernarg segment): no buffer.
  EXPECT_EQ(timing.chip->memory().pages_allocated(), 2u);
}

TEST(Scenario, SetupErrorsAreLocated) {
  Registries r;
  TinyChip t;
  // More threads than a CTA may have: the chip's error, at the launch key.
  const Scenario big = load("chip: tiny\nkernel: hang_demo\nlaunch: {grid: 1, block: [2048]}\n");
  auto rb = resolve_scenario(big, r.kernels, r.workloads).value();
  EXPECT_EQ(setup_scenario(big, rb, *t.chip, r.kernels, 1).error().message,
            "s.yaml:3:1: launch: hang_demo: CTA threads = 2048 is outside 1..1024 (max threads "
            "per block)");
  // Buffers beyond the tiny chip's 1 GiB.
  const Scenario huge = load(
      "chip: tiny\nkernel: hang_demo\nlaunch: {grid: 1, block: 32}\n"
      "buffers:\n  a: {bytes: 1000MiB}\n  b: {bytes: 100MiB}\n");
  auto rh = resolve_scenario(huge, r.kernels, r.workloads).value();
  EXPECT_EQ(setup_scenario(huge, rh, *t.chip, r.kernels, 1).error().message,
            "s.yaml:6:3: buffers.b: 100 MiB at 0x4e800000: the buffers would span 1100 MiB from "
            "0x10000000, more than the chip's 1 GiB of memory (hbm.capacity)");
  // A workload's own setup error, at the workload key.
  const Scenario odd = load("chip: tiny\nworkload: test.copy\nparams: {bytes: 6}\n");
  auto ro = resolve_scenario(odd, r.kernels, r.workloads).value();
  EXPECT_EQ(setup_scenario(odd, ro, *t.chip, r.kernels, 1).error().message,
            "s.yaml:2:11: workload: bytes = 6 is not a multiple of 4");
}

TEST(Scenario, OutputKeysOfASingleRunFile) {
  const Scenario s = load("chip: tiny\nworkload: w\nstats: s.json\ntrace: t.json\n");
  EXPECT_EQ(s.stats_path, "s.json");
  EXPECT_EQ(s.stats_pos.line, 3);
  EXPECT_EQ(s.trace_path, "t.json");
  EXPECT_EQ(s.trace_max_events, sim::kDefaultTraceMaxEvents);
  EXPECT_TRUE(s.runs.empty());
  EXPECT_EQ(scenario_runs(s).size(), 1u);
  EXPECT_EQ(load("chip: tiny\nworkload: w\ntrace_max_events: 50\n").trace_max_events, 50u);
  EXPECT_EQ(errors_of("chip: tiny\nworkload: w\ntrace_max_events: 0\n"),
            "s.yaml:3:19: trace_max_events: 0 is outside [1, 1000000000]");
  EXPECT_EQ(errors_of("chip: tiny\nworkload: w\nstats: [a]\n"),
            "s.yaml:3:8: stats: expected a file name (FILE.json), got a sequence");
}

TEST(Scenario, TraceWindowIsCheckedAtLoadAndRunsInheritIt) {
  EXPECT_EQ(load("chip: tiny\nworkload: w\ntrace_window: \"10us:20us\"\n").trace_window,
            "10us:20us");
  EXPECT_EQ(load("chip: tiny\nworkload: w\ntrace_window: \"5ns:\"\n").trace_window, "5ns:");
  EXPECT_EQ(load("chip: tiny\nworkload: w\n").trace_window, "");
  EXPECT_EQ(errors_of("chip: tiny\nworkload: w\ntrace_window: \"20us:10us\"\n"),
            "s.yaml:3:15: trace_window: 20us:10us: START (20us) must be before END (10us)");
  EXPECT_EQ(errors_of("chip: tiny\nworkload: w\ntrace_window: 10us\n"),
            "s.yaml:3:15: trace_window: 10us: \"10us\" is not START:END (e.g. 10us:20us; either "
            "side may be empty: from the start, to the end)");
  EXPECT_EQ(errors_of("chip: tiny\nworkload: w\ntrace_window: \"1parsec:\"\n"),
            "s.yaml:3:15: trace_window: 1parsec:: START: unknown time unit \"parsec\" in "
            "\"1parsec\"; valid units: ps, ns, us, ms, s");
  const Scenario runs = load(
      "chip: tiny\nworkload: w\ntrace_window: \":1us\"\nruns:\n  - {name: a}\n"
      "  - {name: b, trace_window: \"2us:3us\"}\n");
  ASSERT_EQ(runs.runs.size(), 2u);
  EXPECT_EQ(runs.runs[0].trace_window, ":1us");
  EXPECT_EQ(runs.runs[1].trace_window, "2us:3us");
}

constexpr std::string_view kRuns = R"(chip: tiny
mode: functional
workload: test.copy
params: {bytes: 64, ctas: 3}
policy: first-fit
trace_max_events: 1000
runs:
  - name: small
    params: {bytes: 128}
    stats: small.json
  - mode: timing-only
    trace: big.trace.json
    trace_max_events: 20
  - {name: other, workload: w2, params: {ctas: 1}}
)";

TEST(Scenario, RunsStartFromTheTopLevelAndMergeParams) {
  const Scenario s = load(kRuns);
  ASSERT_EQ(s.runs.size(), 3u);
  const std::vector<Scenario> runs = scenario_runs(s);
  ASSERT_EQ(runs.size(), 3u);
  const Scenario& a = runs[0];
  EXPECT_EQ(a.name, "small");
  EXPECT_EQ(a.index, 0u);
  EXPECT_EQ(a.name_pos.line, 8);
  EXPECT_EQ(a.mode, RunMode::kFunctional);
  EXPECT_EQ(a.workload, "test.copy");
  EXPECT_EQ(a.policy, "first-fit");
  EXPECT_EQ(a.params.at("bytes").value, 128u);
  EXPECT_EQ(a.params.at("bytes").pos.line, 9);
  EXPECT_EQ(a.params.at("ctas").value, 3u);
  EXPECT_EQ(a.params.at("ctas").pos.line, 4);
  EXPECT_EQ(a.stats_path, "small.json");
  EXPECT_EQ(a.trace_path, "");
  EXPECT_EQ(a.trace_max_events, 1000u);
  EXPECT_TRUE(a.runs.empty());
  const Scenario& b = runs[1];
  EXPECT_EQ(b.name, "run2");  // unnamed: its position
  EXPECT_EQ(b.mode, RunMode::kTimingOnly);
  EXPECT_EQ(b.params.at("bytes").value, 64u);
  EXPECT_EQ(b.trace_path, "big.trace.json");
  EXPECT_EQ(b.trace_max_events, 20u);
  EXPECT_EQ(b.stats_path, "");
  const Scenario& c = runs[2];
  EXPECT_EQ(c.name, "other");
  EXPECT_EQ(c.workload, "w2");
  EXPECT_EQ(c.workload_pos.line, 14);
  EXPECT_EQ(c.params.at("ctas").value, 1u);

  // A file may leave the workload to its runs; a kernel launch may have runs too.
  const Scenario w = load("chip: tiny\nruns:\n  - {workload: a}\n  - {workload: b}\n");
  ASSERT_EQ(w.runs.size(), 2u);
  EXPECT_EQ(w.runs[1].workload, "b");
  const Scenario k = load(
      "chip: tiny\nkernel: hang_demo\nlaunch: {grid: 1, block: 32}\n"
      "runs: [{name: f}, {name: t, mode: timing-only, memory_timing: transactions}]\n");
  ASSERT_EQ(k.runs.size(), 2u);
  EXPECT_EQ(k.runs[1].kernel, "hang_demo");
  EXPECT_EQ(k.runs[1].mode, RunMode::kTimingOnly);
  EXPECT_EQ(k.runs[0].memory_timing, mem::MemoryTiming::kEvents);
  EXPECT_EQ(k.runs[1].memory_timing, mem::MemoryTiming::kTransactions);
}

TEST(Scenario, RunErrorsAreLocated) {
  const std::string head = "chip: tiny\nworkload: w\n";
  EXPECT_EQ(errors_of(head + "runs: []\n"),
            "s.yaml:3:7: runs: expected a non-empty list of runs such as [{name: small, params: "
            "{...}}, {name: big, mode: timing-only}], got a sequence with no entries");
  EXPECT_EQ(errors_of(head + "runs: {name: a}\n"),
            "s.yaml:3:7: runs: expected a non-empty list of runs such as [{name: small, params: "
            "{...}}, {name: big, mode: timing-only}], got a mapping");
  EXPECT_EQ(errors_of(head + "runs: [small]\n"),
            "s.yaml:3:8: runs[0]: expected a mapping with keys name, mode, memory_timing, "
            "set_sampling, wave_sampling, workload, params, stats, trace, outputs, "
            "trace_max_events, trace_window, queues, got "
            "\"small\"");
  EXPECT_EQ(errors_of(head + "runs: [{nmae: a}]\n"),
            "s.yaml:3:9: runs[0].nmae: unknown key 'nmae' (did you mean 'name'?); valid keys in "
            "runs[0]: name, mode, memory_timing, set_sampling, wave_sampling, workload, params, "
            "stats, trace, outputs, trace_max_events, trace_window, queues");
  EXPECT_EQ(errors_of(head + "runs: [{policy: first-fit}]\n"),
            "s.yaml:3:9: runs[0].policy: unknown key 'policy'; valid keys in runs[0]: name, "
            "mode, memory_timing, set_sampling, wave_sampling, workload, params, stats, trace, "
            "outputs, trace_max_events, trace_window, queues");
  EXPECT_EQ(errors_of(head + "runs: [{memory_timing: transaction}]\n"),
            "s.yaml:3:24: runs[0].memory_timing: 'transaction' is not a memory timing (did you "
            "mean 'transactions'?); memory timings: events (every step at its tick, the "
            "reference), transactions (each request timed whole when issued: faster, "
            "approximate)");
  EXPECT_EQ(errors_of(head + "runs: [{mode: fast}]\n"),
            "s.yaml:3:15: runs[0].mode: 'fast' is not a mode; modes: functional (data moves, "
            "results checked), timing-only (no data, same timing)");
  EXPECT_EQ(errors_of(head + "runs: [{name: a b}]\n"),
            "s.yaml:3:15: runs[0].name: 'a b' is not a run name: use letters, digits, '_', '.' "
            "and '-'");
  EXPECT_EQ(errors_of(head + "runs:\n  - {name: a}\n  - {name: a}\n"),
            "s.yaml:5:12: runs[1].name: 'a' names run 1 too; run names must differ");
  EXPECT_EQ(errors_of(head + "runs:\n  - {name: run2}\n  - {}\n"),
            "s.yaml:5:5: runs[1].name: 'run2' names another run too; run names must differ");
  EXPECT_EQ(errors_of(head + "runs:\n  - {stats: x.json}\n  - {trace: x.json}\n"),
            "s.yaml:5:13: runs[1].trace: 'x.json' is written by run run1 already (its stats); "
            "each output file must belong to one run");
  EXPECT_EQ(errors_of(head + "stats: s.json\nruns: [{}]\n"),
            "s.yaml:3:1: stats: with 'runs:', each run names its own stats file (runs: - {name: "
            "..., stats: FILE}), so that two runs never write one file");
  EXPECT_EQ(errors_of("chip: tiny\nruns: [{name: a}]\n"),
            "s.yaml:2:8: runs[0]: no workload: name one in this run (workload: NAME) or at the top "
            "level of the file");
  EXPECT_EQ(errors_of("chip: tiny\nkernel: hang_demo\nlaunch: {grid: 1, block: 32}\n"
                      "runs: [{workload: w, params: {a: 1}}]\n"),
            "s.yaml:4:9: runs[0].workload: the file launches kernel hang_demo; a run of a kernel "
            "launch takes no workload\n"
            "s.yaml:4:22: runs[0].params: only with 'workload:'; a kernel launch takes its inputs "
            "as 'args:'");
  EXPECT_EQ(errors_of("chip: tiny\nruns: [{workload: w}]\nargs: []\n"),
            "s.yaml:3:1: args: only with 'kernel:' (a generic launch); a workload sets up its "
            "own launches and takes 'params:'");
}

TEST(Scenario, EachRunResolvesAgainstItsWorkload) {
  const Scenario s = load(
      "chip: tiny\nworkload: test.copy\nparams: {bytes: 64}\nruns:\n  - {name: ok}\n"
      "  - {name: big, params: {ctas: 99}}\n");
  const std::vector<Scenario> runs = scenario_runs(s);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(resolve_errors(runs[0]), "(resolved)");
  EXPECT_EQ(resolve_errors(runs[1]),
            "s.yaml:6:32: params.ctas: test.copy: parameter ctas = 99 is outside [1, 64]");
  // A run's setup error points at the run.
  const Scenario odd = load(
      "chip: tiny\nworkload: test.copy\nruns:\n  - {name: a}\n  - {name: b, params: {bytes: "
      "6}}\n");
  Registries r;
  TinyChip t;
  auto ro = resolve_scenario(odd.runs[1], r.kernels, r.workloads).value();
  EXPECT_EQ(setup_scenario(odd.runs[1], ro, *t.chip, r.kernels, 1).error().message,
            "s.yaml:5:12: runs[1]: bytes = 6 is not a multiple of 4");
}

}  // namespace
}  // namespace xpusim::system

namespace xpusim::system {
namespace {

constexpr std::string_view kGraph =
    "chip: tiny\n"
    "queues: [{dispatch: standard}, {dispatch: condensed, size: 16}]\n"
    "cp_timing: {fetch: 12, skip_unneeded_cleanup: false}\n"
    "buffers: {a: {bytes: 4KiB}, b: {bytes: 4KiB}}\n"
    "kernels:\n"
    "  - {name: copy, kernel: stream_copy, after: [fill], launch: {grid: 1, block: 64, queue: "
    "1}, args: [{ptr: a}, {ptr: b}, {u64: 1024}]}\n"
    "  - {name: fill, kernel: stream_fill, launch: {grid: 2, block: 64, cluster: 2, priority: 2, "
    "multicast: true}, args: [{ptr: a}, {u64: 1024}]}\n";

TEST(ScenarioGraph, LoadsQueuesCpTimingAndLaunchesInDependencyOrder) {
  const Scenario s = load_scenario_string(kGraph, "g.yaml").value();
  ASSERT_EQ(s.queues.size(), 2u);
  EXPECT_EQ(s.queues[1].dispatch, DispatchMode::kCondensed);
  EXPECT_EQ(s.queues[1].size, 16u);
  const cp::AgentTiming t = scenario_cp_timing(s, cp::AgentTiming{.decode_cycles = 7});
  EXPECT_EQ(t.fetch_cycles, 12u);
  EXPECT_EQ(t.decode_cycles, 7u);  // the chip's, not overridden
  EXPECT_FALSE(t.skip_unneeded_cleanup);
  ASSERT_EQ(s.graph.size(), 2u);
  EXPECT_EQ(s.graph[0].name, "fill");  // before copy, which waits for it
  EXPECT_EQ(s.graph[0].launch.priority, 2u);
  EXPECT_TRUE(s.graph[0].launch.multicast);
  EXPECT_EQ(s.graph[1].name, "copy");
  EXPECT_EQ(s.graph[1].queue, 1u);
  EXPECT_EQ(s.what(), "kernel graph (2 kernels)");
}

// Through system::Run, the one builder: the graph's queues, costs and dependency on the chip,
// and every node checked by its kernel's reference.
TEST(ScenarioGraph, RunsOnTheChipWithTheDependencyHonoured) {
  const Scenario s = load_scenario_string(kGraph, "g.yaml").value();
  sim::Simulation sim{1};
  const auto spec = config::load_chip_file(fs::path(XPUSIM_CONFIG_DIR) / "chips/tiny.yaml").value();
  auto run = Run::create(sim, s, spec, register_for_tests);
  ASSERT_TRUE(run.ok()) << run.error().message;
  Chip& chip = (*run)->chip();
  EXPECT_EQ(chip.cp_timing().fetch_cycles, 12u);  // cp_timing over the chip config's
  EXPECT_EQ(chip.command_processor().queues(), 2u);
  const RunReport report = (*run)->report((*run)->simulate());
  ASSERT_TRUE(report.ok()) << report.errors.front().message;
  EXPECT_TRUE(report.completed);
  const KernelRun &fill = chip.run(0), &copy = chip.run(1);
  EXPECT_EQ(copy.queue, 1u);
  EXPECT_GE(copy.first_start, fill.completed);
  EXPECT_NE(fill.signal, 0u);  // another queue waits for it
  EXPECT_EQ(report.results,
            (std::vector<std::string>{
                "fill (stream_fill): verified: dst[i] == i over 1024 u32 elements",
                "copy (stream_copy): verified: dst == src over 1024 u32 elements"}));
}

// A kernel that faults ends its own queue (HSA error state: the kernel after it there never
// runs) and fails a barrier on another queue that waits for it; the other queue's independent
// kernel still runs to completion after the fault and is checked.
TEST(ScenarioGraph, AFaultEndsItsQueueAndTheOtherQueuesComplete) {
  const Scenario s = load_scenario_string(
                         "chip: tiny\n"
                         "queues: [{dispatch: standard}, {dispatch: standard}]\n"
                         "buffers: {a: {bytes: 4KiB}, b: {bytes: 64KiB}}\n"
                         "kernels:\n"
                         "  - {name: bad, kernel: fault_demo, launch: {grid: 4, block: 32}}\n"
                         "  - {name: next, kernel: stream_fill, after: [bad], launch: {grid: 1, "
                         "block: 32}, args: [{ptr: a}, {u64: 64}]}\n"
                         "  - {name: fill, kernel: stream_fill, launch: {grid: 2, block: 64, "
                         "queue: 1}, args: [{ptr: b}, {u64: 16384}]}\n"
                         "  - {name: waits, kernel: stream_fill, after: [bad], launch: {grid: 1, "
                         "block: 32, queue: 1}, args: [{ptr: a}, {u64: 64}]}\n",
                         "f.yaml")
                         .value();
  const auto spec = config::load_chip_file(fs::path(XPUSIM_CONFIG_DIR) / "chips/tiny.yaml").value();
  sim::Simulation sim{1};
  auto run = Run::create(sim, s, spec, register_for_tests);
  ASSERT_TRUE(run.ok()) << run.error().message;
  const RunReport r = (*run)->report((*run)->simulate());
  Chip& chip = (*run)->chip();
  EXPECT_FALSE(r.completed);
  EXPECT_TRUE(r.hang.empty());
  ASSERT_EQ(chip.faulted().size(), 1u);
  const KernelRun& bad = chip.run(chip.faulted().front());
  EXPECT_EQ(bad.kernel->name, "fault_demo");
  EXPECT_FALSE(bad.done);
  EXPECT_EQ(chip.distributor().grid_peak(bad.grid).ctas, 4u);  // all four resident
  const KernelRun& fill = chip.run(2);
  ASSERT_TRUE(fill.done);
  EXPECT_GT(fill.completed, bad.dispatched);   // it ran on after the fault
  EXPECT_FALSE(chip.run(1).on_distributor());  // behind the fault on its queue
  EXPECT_FALSE(chip.run(3).on_distributor());  // its barrier failed
  ASSERT_EQ(r.errors.size(), 2u);
  EXPECT_EQ(r.errors[0].message,
            "fault: fault_demo: block (0,0,0) warp 0: DSMEM lane 0 address 0x100000000: rank 1 is "
            "outside its CGA (cluster (0,0,0) of 1 CTA(s)) (queue 0 is in the HSA error state)");
  EXPECT_NE(r.errors[1].message.find("queue error: queue 1: packet "), std::string::npos)
      << r.errors[1].message;
  EXPECT_NE(r.errors[1].message.find(": barrier-AND: dep_signal 0x"), std::string::npos)
      << r.errors[1].message;
  EXPECT_NE(r.errors[1].message.find(" is -1: the packet it waits for failed"), std::string::npos)
      << r.errors[1].message;
  EXPECT_EQ(r.results, (std::vector<std::string>{
                           "bad (fault_demo): not checked (it faulted)",
                           "next (stream_fill): not checked (it did not complete)",
                           "fill (stream_fill): verified: dst[i] == i over 16384 u32 elements",
                           "waits (stream_fill): not checked (it did not complete)"}));
  // The queue's error and the kernel's completion signal as HSA has them.
  ASSERT_TRUE(chip.command_processor().queue(0).error().has_value());
  EXPECT_NE(chip.command_processor().queue(0).error()->message.find("queue 0: fault: fault_demo"),
            std::string::npos);
}

// A launch's own policy travels in its kernarg attributes to the distributor: first-fit packs
// the first kernel's four CTAs onto SM 0, the chip's waterfill spreads the second's.
TEST(ScenarioGraph, EachLaunchMayNameItsOwnPolicy) {
  const Scenario s =
      load_scenario_string(
          "chip: tiny\nbuffers: {a: {bytes: 16KiB}, b: {bytes: 16KiB}}\n"
          "kernels:\n"
          "  - {name: ff, kernel: stream_fill, launch: {grid: 4, block: 32, policy: "
          "first-fit}, args: [{ptr: a}, {u64: 1024}]}\n"
          "  - {name: wf, kernel: stream_fill, after: [ff], launch: {grid: 4, block: "
          "32}, args: [{ptr: b}, {u64: 1024}]}\n",
          "p.yaml")
          .value();
  EXPECT_EQ(s.graph[0].launch.policy, "first-fit");
  EXPECT_EQ(s.graph[1].launch.policy, "");
  const auto spec = config::load_chip_file(fs::path(XPUSIM_CONFIG_DIR) / "chips/tiny.yaml").value();
  sim::Simulation sim{1};
  auto run = Run::create(sim, s, spec, register_for_tests);
  ASSERT_TRUE(run.ok()) << run.error().message;
  const RunReport r = (*run)->report((*run)->simulate());
  ASSERT_TRUE(r.ok()) << r.errors.front().message;
  Chip& chip = (*run)->chip();
  EXPECT_EQ(chip.run(0).params.policy, "first-fit");  // as decoded from the kernarg segment
  EXPECT_EQ(chip.distributor().policy_of(chip.run(0).grid).name(), "first-fit");
  EXPECT_EQ(chip.distributor().policy_of(chip.run(1).grid).name(), "waterfill");
  const auto ctas = [&](int sm) {
    return sim.stats().find(fmt::format("chip0.sm{}.ctas", sm)).value()->to_json()["value"];
  };
  EXPECT_EQ(ctas(0), 5);  // ff's four, then one of wf's
  EXPECT_EQ(ctas(1), 1);
  EXPECT_EQ(ctas(3), 1);
  EXPECT_EQ(errors_of("chip: tiny\nkernel: stream_fill\nlaunch: {grid: 1, block: 32, policy: "
                      "waterfil}\n"),
            "s.yaml:3:38: launch.policy: policy 'waterfil' is unknown (did you mean 'waterfill'?); "
            "known policies: waterfill, prior-art, round-robin, first-fit");
}

// Rasterization (seed1 ¶176-190) on the timed path: with `distributed` each SM's rasterizer
// decodes its CTAs' ids and the CWD sends one sm_mask packet per CTA an SM gets in a step; with
// `central` the CWD sends every CTA its id, one bus slot each. The kernel's results are the same
// (each SM's id is checked against the central decode as it launches), the first wave's launch
// takes one slot per CTA instead of one per packet.
TEST(Scenario, RasterizationIsDistributedOrCentralOnTheChip) {
  const auto spec = config::load_chip_file(fs::path(XPUSIM_CONFIG_DIR) / "chips/tiny.yaml").value();
  std::map<std::string, std::map<std::string, std::uint64_t>> got;
  for (const char* r : {"distributed", "central"}) {
    const Scenario s = load(fmt::format(
        "chip: tiny\nrasterization: {}\nkernel: stream_fill\nlaunch: {{grid: 64, block: 64}}\n"
        "buffers: {{a: {{bytes: 64KiB}}}}\nargs: [{{ptr: a}}, {{u64: 16384}}]\n",
        r));
    sim::Simulation sim{1};
    auto run = Run::create(sim, s, spec, register_for_tests);
    ASSERT_TRUE(run.ok()) << run.error().message;
    const RunReport report = (*run)->report((*run)->simulate());
    ASSERT_TRUE(report.ok()) << report.errors.front().message;
    EXPECT_EQ(report.results,
              std::vector<std::string>{"verified: dst[i] == i over 16384 u32 elements"});
    for (const char* stat : {"broadcast_cycles", "launch_packets", "ctas_launched",
                             "raster_decodes", "raster_overflow_decodes"}) {
      got[r][stat] = sim.stats()
                         .find(fmt::format("chip0.cwd.{}", stat))
                         .value()
                         ->to_json()["value"]
                         .get<std::uint64_t>();
    }
  }
  auto& d = got["distributed"];
  auto& c = got["central"];
  EXPECT_EQ(c["broadcast_cycles"], 64u);  // one id a cycle
  EXPECT_EQ(c["raster_decodes"], 0u);
  EXPECT_EQ(d["broadcast_cycles"], d["launch_packets"]);
  EXPECT_LT(d["broadcast_cycles"], 64u / 2);
  EXPECT_GE(d["raster_decodes"], 64u);  // every own launch decodes, plus the overflow ones
  EXPECT_EQ(d["raster_decodes"] - d["raster_overflow_decodes"], 64u);
  EXPECT_EQ(errors_of("chip: tiny\nrasterization: centrl\nkernel: k\nlaunch: {grid: 1, block: "
                      "1}\n"),
            "s.yaml:2:16: rasterization: 'centrl' is not a rasterization (did you mean "
            "'central'?); rasterizations: distributed (each SM decodes its CTA ids, seed1), "
            "central (the CWD sends each CTA its id)");
}

TEST(ScenarioGraph, BadGraphsAndQueuesAreLocatedErrors) {
  const std::string head = "chip: tiny\nbuffers: {a: {bytes: 4KiB}}\n";
  const std::string k =
      "kernel: stream_fill, launch: {grid: 1, block: 32}, args: [{ptr: a}, "
      "{u64: 8}]";
  EXPECT_EQ(errors_of(head + "kernels:\n  - {name: x, " + k + ", after: [y]}\n  - {name: y, " + k +
                      ", after: [x]}\n"),
            "s.yaml:4:12: kernels[0].after: the graph has a cycle: x -> y -> x");
  EXPECT_EQ(errors_of(head + "kernels:\n  - {name: x, " + k + ", after: [xx]}\n"),
            "s.yaml:4:102: kernels[0].after: 'xx' is not an entry of this graph (did you mean "
            "'x'?); entries: x");
  EXPECT_EQ(errors_of(head + "kernels:\n  - {name: x, " + k + ", after_any: [x]}\n"),
            "s.yaml:4:106: kernels[0].after_any: 'x' cannot wait for itself");
  const std::string six =
      errors_of(head + "kernels:\n  - {name: x, " + k + ", after_any: [a, b, c, d, e, f]}\n");
  EXPECT_EQ(six.substr(0, six.find('\n')),
            "s.yaml:4:94: kernels[0].after_any: 6 entries: a barrier-OR packet waits for at most 5 "
            "(HSA)");
  EXPECT_EQ(
      errors_of(head + "kernels:\n  - {name: w, workload: kripke, " + k.substr(0, 19) + "}\n"),
      "s.yaml:4:25: kernels[0].workload: kernel and workload are exclusive: an entry "
      "launches one kernel or runs one workload");
  EXPECT_EQ(errors_of(head + "kernels:\n  - {name: w, workload: kripke, launch: {grid: 1, block: "
                             "32}}\n"),
            "s.yaml:4:5: kernels[0].launch: not with 'workload:': a workload makes its own "
            "launches (its entry takes params: and queue:)");
  EXPECT_EQ(errors_of(head + "kernels:\n  - {name: x, " + k + ", queue: 0}\n"),
            "s.yaml:4:5: kernels[0].queue: a kernel entry names its queue in launch: {queue: N}");
  EXPECT_EQ(errors_of(head + "kernels:\n  - {name: x, " + k + ", params: {n: 1}}\n"),
            "s.yaml:4:5: kernels[0].params: not with 'kernel:': params belong to a workload entry");
  EXPECT_EQ(errors_of(head + "kernels:\n  - {name: w, workload: kripke, queue: 3}\n"),
            "s.yaml:4:40: kernels[0].queue: queue 3: the scenario has 1 queue (queues: lists "
            "them; 0 is the first)");
  EXPECT_EQ(errors_of(head + "kernels:\n  - {name: x, kernel: stream_fill, launch: {grid: 1, "
                             "block: 32, queue: 1}, args: [{ptr: a}, {u64: 8}]}\n"),
            "s.yaml:4:72: kernels[0].launch.queue: queue 1: the scenario has 1 queue (queues: "
            "lists them; 0 is the first)");
  EXPECT_EQ(errors_of(head + "kernel: stream_fill\nlaunch: {grid: 1, block: 32}\nqueues: [{size: "
                             "48}]\n"),
            "s.yaml:5:17: queues[0].size: 48 is not a power of two (HSA queue sizes are)");
  EXPECT_EQ(errors_of(head + "kernel: stream_fill\nlaunch: {grid: 1, block: 32}\nqueues: "
                             "[{dispatch: compressed}]\n"),
            "s.yaml:5:21: queues[0].dispatch: dispatch mode 'compressed': must be standard or "
            "condensed");
  EXPECT_EQ(errors_of(head + "kernels:\n  - {name: x, " + k + "}\n  - {name: x, " + k + "}\n"),
            "s.yaml:5:12: kernels[1].name: 'x' names kernels[0] too; names in a graph must differ");
  EXPECT_EQ(errors_of(head + "kernel: hang_demo\nlaunch: {grid: 1, block: 32}\ncp_timing: "
                             "{fetchh: 3, decode: -2}\n"),
            "s.yaml:5:13: cp_timing.fetchh: unknown key 'fetchh' (did you mean 'fetch'?); valid "
            "keys in cp_timing: doorbell, fetch, decode, setup, diff, cleanup, "
            "skip_unneeded_cleanup\n"
            "s.yaml:5:32: cp_timing.decode: \"-2\" is not a whole number");
  EXPECT_EQ(errors_of(head + "kernel: stream_fill\nkernels: []\n"),
            "s.yaml:3:1: kernel: not with 'kernels:' (a graph): each of its entries names its "
            "kernel, launch and args");
}

// A graph scenario run to completion on the tiny chip.
struct TinyRun {
  sim::Simulation sim{1};
  std::unique_ptr<Run> run;
  RunReport report;
  Chip& chip() { return run->chip(); }
};
std::unique_ptr<TinyRun> run_on_tiny(const std::string& yaml, Registrar registrar) {
  auto t = std::make_unique<TinyRun>();
  const Scenario s = load_scenario_string(yaml, "g.yaml").value();
  const auto spec = config::load_chip_file(fs::path(XPUSIM_CONFIG_DIR) / "chips/tiny.yaml").value();
  auto run = Run::create(t->sim, s, spec, registrar);
  EXPECT_TRUE(run.ok()) << run.error().message;
  if (!run.ok()) return nullptr;
  t->run = std::move(run).value();
  t->report = t->run->report(t->run->simulate());
  return t;
}

// Workloads as graph entries: each entry has a workload instance and buffers of its own
// (two Kripke sweeps on one queue both verify), a workload holds its queue until it has
// finished, a kernel on another queue that waits for one starts after its last launch (the
// marker packet), and each entry's measurements carry its name.
TEST(ScenarioGraph, WorkloadEntriesRunOnTheirQueueWithBuffersOfTheirOwn) {
  const auto t = run_on_tiny(
      "chip: tiny\n"
      "queues: [{dispatch: standard}, {dispatch: condensed}]\n"
      "buffers: {a: {bytes: 64KiB}}\n"
      "kernels:\n"
      "  - {name: sweep1, workload: kripke, params: {iterations: 2, elements: 1024, ctas: 2}, "
      "queue: 1}\n"
      "  - {name: sweep2, workload: kripke, params: {iterations: 3, elements: 2048, ctas: 2}, "
      "queue: 1}\n"
      "  - {name: fill, kernel: stream_fill, after: [sweep1], launch: {grid: 2, block: 64}, "
      "args: [{ptr: a}, {u64: 16384}]}\n",
      workloads::register_all);
  ASSERT_TRUE(t);
  const RunReport& r = t->report;
  ASSERT_TRUE(r.ok()) << r.errors.front().message;
  EXPECT_EQ(r.results,
            (std::vector<std::string>{"sweep1 (kripke): verified", "sweep2 (kripke): verified",
                                      "fill (stream_fill): verified: dst[i] == i over "
                                      "16384 u32 elements"}));
  Chip& chip = t->chip();
  ASSERT_EQ(chip.launches(), 1u + 12u + 18u);
  // Graph order per queue: queue 0's fill, then sweep1; sweep2 only once sweep1 has finished.
  const KernelRun& fill = chip.run(0);
  const KernelRun& sweep1_last = chip.run(12);
  const KernelRun& sweep2_first = chip.run(13);
  for (std::uint32_t id = 1; id < chip.launches(); ++id)
    EXPECT_EQ(chip.run(id).queue, 1u) << id;
  EXPECT_GE(fill.first_start, sweep1_last.completed) << "after sweep1's marker";
  EXPECT_GE(sweep2_first.submitted, sweep1_last.completed) << "the host held queue 1";
  const auto kernels =
      std::find_if(r.measurements.begin(), r.measurements.end(),
                   [](const Measurement& m) { return m.name == "sweep2: kernels"; });
  ASSERT_NE(kernels, r.measurements.end());
  EXPECT_EQ(kernels->measured, 18.0);
}

// after_any from a scenario: a barrier-OR packet; the waiting kernel starts after the short
// producer and before the long one has finished.
TEST(ScenarioGraph, AfterAnyStartsWithTheFirstProducerToComplete) {
  const auto t = run_on_tiny(
      "chip: tiny\n"
      "queues: [{dispatch: standard}, {dispatch: standard}, {dispatch: standard}]\n"
      "buffers: {a: {bytes: 4MiB}, b: {bytes: 4KiB}, c: {bytes: 4KiB}}\n"
      "kernels:\n"
      "  - {name: long, kernel: stream_fill, launch: {grid: 1, block: 32}, args: [{ptr: a}, "
      "{u64: 1048576}]}\n"
      "  - {name: short, kernel: stream_fill, launch: {grid: 1, block: 32, queue: 1}, "
      "args: [{ptr: b}, {u64: 64}]}\n"
      "  - {name: first, kernel: stream_fill, after_any: [long, short], launch: {grid: 1, "
      "block: 32, queue: 2}, args: [{ptr: c}, {u64: 64}]}\n",
      register_for_tests);
  ASSERT_TRUE(t);
  const RunReport& r = t->report;
  ASSERT_TRUE(r.ok()) << r.errors.front().message;
  Chip& chip = t->chip();
  const KernelRun &lng = chip.run(0), &shrt = chip.run(1), &first = chip.run(2);
  EXPECT_GE(first.first_start, shrt.completed);
  EXPECT_LT(first.completed, lng.completed);
  EXPECT_EQ(chip.command_processor().barrier_packets(), 1u);
}

// A workload entry issued during the run (after another on its queue) whose setup fails: the
// error names the entry and the rule, its queue issues nothing more, and a kernel on another
// queue that waits for it fails (a queue error) instead of hanging.
TEST(ScenarioGraph, AnEntryThatFailsToStartFailsWhatWaitsForIt) {
  const auto t = run_on_tiny(
      "chip: tiny\n"
      "mode: timing-only\n"
      "queues: [{dispatch: standard}, {dispatch: standard}]\n"
      "buffers: {a: {bytes: 4KiB}}\n"
      "kernels:\n"
      "  - {name: sweep, workload: kripke, params: {iterations: 1, elements: 1024, ctas: 1}}\n"
      "  - {name: big, workload: gemm.tma, params: {m: 16384, n: 16384, k: 16384}}\n"
      "  - {name: waits, kernel: stream_fill, after: [big], launch: {grid: 1, block: 32, queue: "
      "1}, args: [{ptr: a}, {u64: 64}]}\n",
      workloads::register_all);
  ASSERT_TRUE(t);
  const RunReport& r = t->report;
  EXPECT_TRUE(r.hang.empty());
  EXPECT_EQ(r.results, (std::vector<std::string>{
                           "sweep (kripke): not checked (timing-only)",
                           "big (gemm.tma): not checked (it failed to start: see its error)",
                           "waits (stream_fill): not checked (it did not complete)"}));
  ASSERT_EQ(r.errors.size(), 2u);
  EXPECT_NE(r.errors[0].message.find("queue 1: packet 0: barrier-AND"), std::string::npos)
      << r.errors[0].message;
  EXPECT_EQ(r.errors[1].message,
            "g.yaml:7:27: kernels.big: gemm.tma: B: 512 MiB at 0x30300000: the buffers would span "
            "1027 MiB from 0x10000000, more than the chip's 1 GiB of memory (hbm.capacity)");
}

// ---- Argument kinds, buffer files and outputs (the scenario contract of generic launches) ----

// Lane 0 of block 0's warp 0 stores each scalar argument, widened to 64 bits (signed ones
// sign-extended, f32 as the f64 of its value), to out[0..7]: what reached the kernel through the
// kernarg segment.
sim::Task<> arg_echo(kernel::Warp& w) {
  if (w.warp_id() != 0 || w.block_id().x != 0) co_return;
  const kernel::KernelArgs& a = w.args();
  const std::uint64_t v[] = {a.get_u8(1),
                             static_cast<std::uint64_t>(std::int64_t{a.get_s32(2)}),
                             a.get_u16(3),
                             static_cast<std::uint64_t>(a.get_s64(4)),
                             std::bit_cast<std::uint64_t>(a.get_f64(5)),
                             a.get_u8(6),
                             std::bit_cast<std::uint64_t>(double{a.get_f32(7)}),
                             a.get_u64(8)};
  for (std::size_t i = 0; i < std::size(v); ++i) {
    co_await w.store_global<std::uint64_t>(kernel::Lanes<kernel::Addr>{a.get_ptr(0) + 8 * i},
                                           kernel::Lanes<std::uint64_t>{v[i]}, 1);
  }
}

kernel::KernelDef arg_echo_kernel() {
  using kernel::ArgKind;
  return {.name = "arg_echo",
          .description = "stores its scalar arguments",
          .args = {{"out", ArgKind::kPtr},
                   {"a", ArgKind::kU8},
                   {"b", ArgKind::kS32},
                   {"c", ArgKind::kU16},
                   {"d", ArgKind::kS64},
                   {"e", ArgKind::kF64},
                   {"f", ArgKind::kU8},
                   {"g", ArgKind::kF32},
                   {"h", ArgKind::kU64}},
          .body = arg_echo,
          .static_shared_bytes = 0,
          .check = nullptr};
}

Status register_with_arg_echo(kernel::KernelRegistry& kernels, WorkloadRegistry& workloads) {
  if (auto st = register_for_tests(kernels, workloads); !st) return st;
  return kernels.add(arg_echo_kernel());
}

constexpr std::string_view kEcho =
    "chip: tiny\nkernel: arg_echo\nlaunch: {grid: 1, block: 32}\nbuffers: {out: {bytes: 64}}\n"
    "args: [{ptr: out}, {u8: 255}, {s32: -2147483648}, {u16: 0xBEEF}, {s64: -5}, "
    "{f64: -1.25e-300}, {u8: 7}, {f32: -.inf}, {u64: 0xFFFFFFFFFFFFFFFF}]\n";

TEST(ScenarioArgs, EveryKindLoadsAsItsKernargBits) {
  const Scenario s = load(kEcho);
  using kernel::ArgKind;
  ASSERT_EQ(s.args.size(), 9u);
  const std::pair<ArgKind, std::uint64_t> want[] = {
      {ArgKind::kPtr, 0x1000'0000},
      {ArgKind::kU8, 255},
      {ArgKind::kS32, 0x8000'0000},  // two's complement in 32 bits, not sign-extended
      {ArgKind::kU16, 0xBEEF},
      {ArgKind::kS64, 0xFFFF'FFFF'FFFF'FFFB},
      {ArgKind::kF64, std::bit_cast<std::uint64_t>(-1.25e-300)},
      {ArgKind::kU8, 7},
      {ArgKind::kF32, std::bit_cast<std::uint32_t>(-std::numeric_limits<float>::infinity())},
      {ArgKind::kU64, ~0ull}};
  for (std::size_t i = 0; i < s.args.size(); ++i) {
    EXPECT_EQ(s.args[i].kind, want[i].first) << i;
    EXPECT_EQ(s.args[i].bits, want[i].second) << i;
  }
  // YAML's other float spellings, and the widest values of each kind.
  const Scenario more = load(
      "chip: tiny\nkernel: k\nlaunch: {grid: 1, block: 1}\nargs: [{f64: .nan}, {f64: +.Inf}, "
      "{f64: 2}, {f64: +1.5}, {s32: 2147483647}, {s64: -9223372036854775808}, {s64: "
      "+0x7FFFFFFFFFFFFFFF}, {u16: 65535}, {s32: -0x10}]\n");
  ASSERT_EQ(more.args.size(), 9u);
  EXPECT_TRUE(std::isnan(std::bit_cast<double>(more.args[0].bits)));
  EXPECT_EQ(std::bit_cast<double>(more.args[1].bits), std::numeric_limits<double>::infinity());
  EXPECT_EQ(std::bit_cast<double>(more.args[2].bits), 2.0);
  EXPECT_EQ(std::bit_cast<double>(more.args[3].bits), 1.5);
  EXPECT_EQ(more.args[4].bits, 0x7FFF'FFFFu);
  EXPECT_EQ(more.args[5].bits, 0x8000'0000'0000'0000u);
  EXPECT_EQ(more.args[6].bits, 0x7FFF'FFFF'FFFF'FFFFu);
  EXPECT_EQ(more.args[7].bits, 0xFFFFu);
  EXPECT_EQ(more.args[8].bits, 0xFFFF'FFF0u);
}

TEST(ScenarioArgs, ValuesOutsideTheirKindAreOneLineErrors) {
  const std::string head = "chip: tiny\nkernel: k\nlaunch: {grid: 1, block: 1}\n";
  const std::pair<const char*, const char*> cases[] = {
      {"args: [{u8: 300}]", "s.yaml:4:13: args[0].u8: 300 is outside [0, 255]"},
      {"args: [{u16: 65536}]", "s.yaml:4:14: args[0].u16: 65536 is outside [0, 65535]"},
      {"args: [{u8: -1}]", "s.yaml:4:13: args[0].u8: \"-1\" is not a whole number"},
      {"args: [{s32: 2147483648}]",
       "s.yaml:4:14: args[0].s32: 2147483648 is outside [-2147483648, 2147483647]"},
      {"args: [{s32: -2147483649}]",
       "s.yaml:4:14: args[0].s32: -2147483649 is outside [-2147483648, 2147483647]"},
      {"args: [{s32: 0xFFFFFFFF}]",
       "s.yaml:4:14: args[0].s32: 0xFFFFFFFF is outside [-2147483648, 2147483647]"},
      {"args: [{s64: -9223372036854775809}]",
       "s.yaml:4:14: args[0].s64: -9223372036854775809 is outside [-9223372036854775808, "
       "9223372036854775807]"},
      {"args: [{s32: 1.5}]", "s.yaml:4:14: args[0].s32: \"1.5\" is not a whole number"},
      {"args: [{u32: 1}, {f64: one}]", "s.yaml:4:24: args[1].f64: \"one\" is not a 64-bit float"},
      {"args: [{f64: inf}]", "s.yaml:4:14: args[0].f64: \"inf\" is not a 64-bit float"},
      {"args: [{f64: -.nan}]", "s.yaml:4:14: args[0].f64: \"-.nan\" is not a 64-bit float"},
      {"args: [{f32: 1e39}]", "s.yaml:4:14: args[0].f32: \"1e39\" is not a 32-bit float"},
      {"args: [{i32: 1}]",
       "s.yaml:4:9: args[0].i32: unknown key 'i32' (did you mean 'u32'?); valid keys in "
       "args[0]: u32, u64, f32, u8, u16, s32, s64, f64, ptr, tensor_map"},
  };
  for (const auto& [args, want] : cases)
    EXPECT_EQ(errors_of(head + args + "\n"), want) << args;
}

// Scenario → KernelArgs → the kernarg segment in simulated memory (each kind at its natural
// size and alignment) → the command processor's decode → the kernel's typed reads.
TEST(ScenarioArgs, EveryKindReachesTheKernelThroughTheKernargSegment) {
  const Scenario s = load(kEcho);
  sim::Simulation sim{1};
  const auto spec = config::load_chip_file(fs::path(XPUSIM_CONFIG_DIR) / "chips/tiny.yaml").value();
  auto run = Run::create(sim, s, spec, register_with_arg_echo);
  ASSERT_TRUE(run.ok()) << run.error().message;
  const RunReport report = (*run)->report((*run)->simulate());
  ASSERT_TRUE(report.ok()) << report.errors.front().message;
  Chip& chip = (*run)->chip();
  std::uint64_t out[8] = {};
  ASSERT_TRUE(chip.memory().read(0x1000'0000, std::as_writable_bytes(std::span(out))).ok());
  EXPECT_EQ(out[0], 255u);
  EXPECT_EQ(static_cast<std::int64_t>(out[1]), std::numeric_limits<std::int32_t>::min());
  EXPECT_EQ(out[2], 0xBEEFu);
  EXPECT_EQ(static_cast<std::int64_t>(out[3]), -5);
  EXPECT_EQ(std::bit_cast<double>(out[4]), -1.25e-300);
  EXPECT_EQ(out[5], 7u);
  EXPECT_EQ(std::bit_cast<double>(out[6]), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(out[7], ~0ull);
  // The segment: ptr at 0, u8 at 8, s32 at 12, u16 at 16, s64 at 24, f64 at 32, u8 at 40, f32
  // at 44, u64 at 48; the launch attributes at 56.
  std::uint8_t seg[80] = {};
  ASSERT_TRUE(
      chip.memory().read(chip.run(0).kernarg_address, std::as_writable_bytes(std::span(seg))).ok());
  const std::vector<std::pair<std::size_t, std::vector<std::uint8_t>>> at = {
      {0, {0x00, 0x00, 0x00, 0x10, 0, 0, 0, 0}},
      {8, {0xFF, 0, 0, 0}},  // u8, then padding to the s32
      {12, {0x00, 0x00, 0x00, 0x80}},
      {16, {0xEF, 0xBE}},
      {24, {0xFB, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}},
      {40, {0x07, 0, 0, 0}},
      {44, {0x00, 0x00, 0x80, 0xFF}},
      {48, {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}},
      {56, {0x58, 0x50, 0x55, 0x4C}}};  // the attributes' magic, "XPUL"
  for (const auto& [offset, bytes] : at) {
    for (std::size_t i = 0; i < bytes.size(); ++i)
      EXPECT_EQ(seg[offset + i], bytes[i]) << "byte " << offset + i;
  }
  std::uint64_t f64_bits = 0;
  std::memcpy(&f64_bits, seg + 32, 8);
  EXPECT_EQ(std::bit_cast<double>(f64_bits), -1.25e-300);
}

TEST(ScenarioArgs, AKindThatIsNotTheSignaturesIsNamed) {
  auto s = load(
      "chip: tiny\nkernel: stream_copy\nlaunch: {grid: 1, block: 32}\n"
      "buffers: {a: {bytes: 64}}\nargs: [{ptr: a}, {ptr: a}, {s64: 16}]\n");
  EXPECT_EQ(resolve_errors(s),
            "s.yaml:5:29: args[2]: kernel stream_copy: argument 2 (n) is a s64, it must be a u64");
}

// A scenario in a temporary folder of its own.
class ScenarioFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           fmt::format("scenario_files_{}_{}",
                       ::testing::UnitTest::GetInstance()->current_test_info()->name(), ::getpid());
    fs::create_directories(dir_ / "sub");
  }
  void TearDown() override { fs::remove_all(dir_); }
  void write(const std::string& name, std::string_view bytes) const {
    std::ofstream(dir_ / name, std::ios::binary) << bytes;
  }
  std::string read(const std::string& name) const {
    std::ifstream in(dir_ / name, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }
  // The scenario sub/s.yaml: its buffer files are relative to sub/.
  Result<Scenario> load_sub(const std::string& yaml) const {
    std::ofstream(dir_ / "sub/s.yaml") << yaml;
    return load_scenario_file(dir_ / "sub/s.yaml");
  }
  std::string errors_sub(const std::string& yaml) const {
    auto s = load_sub(yaml);
    if (s) return "(loaded)";
    std::string out;
    for (const Error& e : s.errors())
      out += (out.empty() ? "" : "\n") + e.message;
    // Without the folder, which differs from run to run.
    for (std::size_t at; (at = out.find(dir_.string())) != std::string::npos;)
      out.replace(at, dir_.string().size(), "DIR");
    return out;
  }
  // n bytes, none of them zero chunks.
  static std::string pattern(std::size_t n) {
    std::string b(n, '\0');
    for (std::size_t i = 0; i < n; ++i)
      b[i] = static_cast<char>((i * 131 + 7) % 251 + 1);
    return b;
  }
  fs::path dir_;
};

constexpr std::string_view kHead =
    "chip: tiny\nkernel: stream_copy\nlaunch: {grid: 2, block: 64}\n";

TEST_F(ScenarioFiles, ABufferFileIsRelativeToTheScenarioAndGivesItsSize) {
  write("sub/in.bin", pattern(3000));
  auto s = load_sub(std::string(kHead) +
                    "buffers:\n  x: {file: in.bin}\n  y: {bytes: 3000, file: in.bin}\n"
                    "  z: {bytes: 8}\nargs: [{ptr: x}, {ptr: y}, {u64: 750}]\n");
  ASSERT_TRUE(s.ok()) << s.error().message;
  ASSERT_EQ(s->buffers.size(), 3u);
  EXPECT_EQ(s->buffers[0].bytes, 3000u);  // the file's size
  EXPECT_EQ(s->buffers[0].file, "in.bin");
  EXPECT_EQ(s->buffers[0].file_path, dir_ / "sub/in.bin");
  EXPECT_EQ(s->buffers[0].file_pos.line, 5);
  EXPECT_EQ(s->buffers[1].address, 0x1010'0000u);
  EXPECT_EQ(s->buffers[2].address, 0x1020'0000u);
  // Functional setup copies the bytes; timing-only reads nothing.
  Registries r;
  const auto resolved = resolve_scenario(*s, r.kernels, r.workloads);
  ASSERT_TRUE(resolved.ok()) << resolved.error().message;
  TinyChip t;
  ASSERT_TRUE(setup_scenario(*s, *resolved, *t.chip, r.kernels, 1).ok());
  std::string got(3000, '\0');
  ASSERT_TRUE(
      t.chip->memory().read(0x1010'0000, std::as_writable_bytes(std::span(got.data(), 3000))).ok());
  EXPECT_EQ(got, pattern(3000));
  TinyChip timing(false);
  ASSERT_TRUE(setup_scenario(*s, *resolved, *timing.chip, r.kernels, 1).ok());
  EXPECT_EQ(timing.chip->memory().pages_allocated(), 2u);  // the command processor's only
  // A file that changed size since the load is a located setup error.
  write("sub/in.bin", pattern(10));
  TinyChip again;
  EXPECT_EQ(setup_scenario(*s, *resolved, *again.chip, r.kernels, 1).error().message,
            (dir_ / "sub/s.yaml").string() + ":5:13: buffers.x.file: " +
                (dir_ / "sub/in.bin").string() + " holds 10 bytes now, not the buffer's 3000");
}

TEST_F(ScenarioFiles, BadBufferFilesAreOneLineErrors) {
  write("sub/in.bin", pattern(100));
  write("sub/empty.bin", "");
  const std::string head = std::string(kHead) + "buffers:\n";
  const std::string at = "DIR/sub/s.yaml:5:";
  EXPECT_EQ(errors_sub(head + "  x: {file: nothere.bin}\n"),
            at + "13: buffers.x.file: DIR/sub/nothere.bin: cannot open the buffer file: No such "
                 "file or directory");
  EXPECT_EQ(errors_sub(head + "  x: {bytes: 64, file: in.bin}\n"),
            at + "24: buffers.x.file: DIR/sub/in.bin holds 100 bytes, more than the buffer's 64 "
                 "(bytes:); the file gives all of the buffer's initial bytes (leave bytes: out "
                 "to take its size)");
  EXPECT_EQ(errors_sub(head + "  x: {bytes: 200, file: in.bin}\n"),
            at + "25: buffers.x.file: DIR/sub/in.bin holds 100 bytes, fewer than the buffer's "
                 "200 (bytes:); the file gives all of the buffer's initial bytes (leave bytes: "
                 "out to take its size)");
  EXPECT_EQ(errors_sub(head + "  x: {file: empty.bin}\n"),
            at + "13: buffers.x.file: DIR/sub/empty.bin is empty: a buffer needs at least 1 "
                 "byte (give bytes: for a buffer of zeros)");
  EXPECT_EQ(errors_sub(head + "  x: {file: in.bin, fill: iota32}\n"),
            at + "13: buffers.x.file: file and fill are exclusive: the file gives all of the "
                 "buffer's initial bytes");
  EXPECT_EQ(errors_sub(head + "  x: {fill: zero, file: in.bin}\n"),
            at + "25: buffers.x.file: file and fill are exclusive: the file gives all of the "
                 "buffer's initial bytes");
  EXPECT_EQ(errors_sub(head + "  x: {file: ..}\n"),
            at + "13: buffers.x.file: DIR/sub/..: is a folder, not a buffer file");
  EXPECT_EQ(errors_sub(head + "  x: {fill: iota32}\n"),
            at + "3: buffers.x.bytes: missing required key 'bytes' (or 'file:', whose size it "
                 "then is)");
  // An absolute path is taken as it is.
  EXPECT_EQ(errors_sub(head + "  x: {file: " + (dir_ / "in.bin").string() + "}\n"),
            at + "13: buffers.x.file: DIR/in.bin: cannot open the buffer file: No such file or "
                 "directory");
  // A scenario from a string: relative to the current directory.
  EXPECT_NE(errors_of(std::string(kHead) + "buffers: {x: {file: no-such-file.bin}}\n")
                .find("s.yaml:4:21: buffers.x.file: no-such-file.bin: cannot open"),
            std::string::npos);
}

TEST_F(ScenarioFiles, OutputsNameBuffersOfFunctionalKernelRuns) {
  const std::string copy = std::string(kHead) +
                           "buffers: {src: {bytes: 64}, dst: {bytes: 64}}\n"
                           "args: [{ptr: src}, {ptr: dst}, {u64: 16}]\n";
  auto s = load_sub(copy + "outputs: {dst: out/dst.bin, src: src.bin}\n");
  ASSERT_TRUE(s.ok()) << s.error().message;
  ASSERT_EQ(s->outputs.size(), 2u);
  EXPECT_EQ(s->outputs[0].buffer, "dst");
  EXPECT_EQ(s->outputs[0].path, "out/dst.bin");  // relative to the current directory, as is
  EXPECT_EQ(s->outputs[0].key, "outputs.dst");
  EXPECT_EQ(s->outputs[1].pos.line, 6);
  const std::string at = "DIR/sub/s.yaml:6:";
  EXPECT_EQ(errors_sub(copy + "outputs: {dts: d.bin}\n"),
            at + "11: outputs.dts: 'dts' is not a buffer (did you mean 'dst'?); buffers: src, dst");
  EXPECT_EQ(errors_sub(copy + "outputs: {dst: d.bin, src: d.bin}\n"),
            at + "28: outputs.src: 'd.bin' is buffer dst's output already; each output file "
                 "holds one buffer");
  EXPECT_EQ(errors_sub(copy + "outputs: [dst]\n"),
            at + "10: outputs: expected a mapping of buffer: file such as {dst: dst.bin}, got a "
                 "sequence");
  EXPECT_EQ(errors_sub(copy + "mode: timing-only\noutputs: {dst: d.bin}\n"),
            "DIR/sub/s.yaml:7:1: outputs: a timing-only run moves no data, so it has no buffer "
            "bytes to write; run it functional (mode: functional) or drop outputs:");
  EXPECT_EQ(errors_sub(copy + "stats: d.json\noutputs: {dst: d.json}\n"),
            "DIR/sub/s.yaml:7:16: outputs.dst: 'd.json' is the run's stats file too; an output "
            "needs a file of its own");
  EXPECT_EQ(errors_sub("chip: tiny\nworkload: w\noutputs: {a: a.bin}\n"),
            "DIR/sub/s.yaml:3:1: outputs: only with 'kernel:' (a generic launch); a workload "
            "sets up its own launches and takes 'params:'");
  // Each run names its own; the top level names none then.
  auto runs = load_sub(copy +
                       "runs:\n  - {name: a, outputs: {dst: a.bin}}\n"
                       "  - {name: b, outputs: {dst: b.bin}}\n  - {name: c}\n");
  ASSERT_TRUE(runs.ok()) << runs.error().message;
  EXPECT_EQ(runs->runs[0].outputs.front().path, "a.bin");
  EXPECT_EQ(runs->runs[1].outputs.front().key, "runs[1].outputs.dst");
  EXPECT_TRUE(runs->runs[2].outputs.empty());
  EXPECT_EQ(errors_sub(copy + "outputs: {dst: d.bin}\nruns: [{name: a}]\n"),
            "DIR/sub/s.yaml:6:1: outputs: with 'runs:', each run names its own outputs (runs: - "
            "{name: ..., outputs: {BUFFER: FILE}}), so that two runs never write one file");
  EXPECT_EQ(errors_sub(copy + "runs: [{name: a, outputs: {dst: d.bin}}, {name: b, outputs: "
                              "{src: d.bin}}]\n"),
            "DIR/sub/s.yaml:6:67: runs[1].outputs.src: 'd.bin' is written by run a already "
            "(its outputs.dst); each output file must belong to one run");
  EXPECT_EQ(errors_sub(copy + "runs: [{mode: timing-only, outputs: {dst: d.bin}}]\n"),
            "DIR/sub/s.yaml:6:28: runs[0].outputs: a timing-only run moves no data, so it has no "
            "buffer bytes to write; run it functional (mode: functional) or drop outputs:");
  // A graph's buffers are the file's: its outputs name them.
  auto graph = load_sub(
      "chip: tiny\nbuffers: {b: {bytes: 64}}\noutputs: {b: b.bin}\nkernels:\n"
      "  - {kernel: stream_fill, launch: {grid: 1, block: 32}, args: [{ptr: b}, {u64: 16}]}\n");
  ASSERT_TRUE(graph.ok()) << graph.error().message;
  EXPECT_EQ(graph->outputs.size(), 1u);
}

// stream_copy of a file's bytes, written back by outputs: the output file is the input file.
TEST_F(ScenarioFiles, AFileCopiedByTheKernelIsWrittenBackByteForByte) {
  write("sub/in.bin", pattern(4096));
  auto s = load_sub(std::string(kHead) +
                    "buffers: {src: {file: in.bin}, dst: {bytes: 4096}}\n"
                    "args: [{ptr: src}, {ptr: dst}, {u64: 1024}]\n"
                    "outputs: {dst: " +
                    (dir_ / "out.bin").string() + "}\n");
  ASSERT_TRUE(s.ok()) << s.error().message;
  const auto spec = config::load_chip_file(fs::path(XPUSIM_CONFIG_DIR) / "chips/tiny.yaml").value();
  auto report = run(*s, spec, register_for_tests);
  ASSERT_TRUE(report.ok()) << report.error().message;
  ASSERT_TRUE(report->ok()) << report->errors.front().message;
  EXPECT_EQ(report->results.front(), "verified: dst == src over 1024 u32 elements");
  EXPECT_EQ(report->outputs,
            (std::vector<std::string>{(dir_ / "out.bin").string() + ": buffer dst, 4096 bytes"}));
  EXPECT_EQ(read("out.bin"), read("sub/in.bin"));
  EXPECT_FALSE(fs::exists(dir_ / "out.bin.tmp"));
}

// A run that fails writes no output: an earlier file stays as it was, and no .tmp is left.
TEST_F(ScenarioFiles, AFailedRunWritesNoOutput) {
  write("sub/in.bin", pattern(4096));
  write("out.bin", "earlier");
  // n beyond the buffers: the copy faults.
  auto s = load_sub(std::string(kHead) +
                    "buffers: {src: {file: in.bin}, dst: {bytes: 4096}}\n"
                    "args: [{ptr: src}, {ptr: dst}, {u64: 4096}]\n"
                    "outputs: {dst: " +
                    (dir_ / "out.bin").string() + "}\n");
  ASSERT_TRUE(s.ok()) << s.error().message;
  const auto spec = config::load_chip_file(fs::path(XPUSIM_CONFIG_DIR) / "chips/tiny.yaml").value();
  auto report = run(*s, spec, register_for_tests);
  ASSERT_TRUE(report.ok()) << report.error().message;
  ASSERT_FALSE(report->ok());
  EXPECT_NE(report->errors.front().message.find("is outside every buffer"), std::string::npos);
  EXPECT_EQ(report->outputs, (std::vector<std::string>{(dir_ / "out.bin").string() +
                                                       ": not written (the run failed)"}));
  EXPECT_EQ(read("out.bin"), "earlier");
  EXPECT_FALSE(fs::exists(dir_ / "out.bin.tmp"));
}

// Outputs are all written or none: a write that fails after the run (its folder gone) leaves
// every earlier file, the other output's too, as it was.
TEST_F(ScenarioFiles, AFailedWriteLeavesEveryOutputAsItWas) {
  write("a.bin", "earlier a");
  fs::create_directories(dir_ / "gone");
  auto s = load_sub(std::string(kHead) +
                    "buffers: {src: {bytes: 4096, fill: iota32}, dst: {bytes: 4096}}\n"
                    "args: [{ptr: src}, {ptr: dst}, {u64: 1024}]\n"
                    "outputs: {dst: " +
                    (dir_ / "a.bin").string() + ", src: " + (dir_ / "gone/b.bin").string() + "}\n");
  ASSERT_TRUE(s.ok()) << s.error().message;
  const auto spec = config::load_chip_file(fs::path(XPUSIM_CONFIG_DIR) / "chips/tiny.yaml").value();
  sim::Simulation sim{1};
  auto r = Run::create(sim, *s, spec, register_for_tests);
  ASSERT_TRUE(r.ok()) << r.error().message;
  fs::remove_all(dir_ / "gone");
  const RunReport report = (*r)->report((*r)->simulate());
  ASSERT_EQ(report.errors.size(), 1u);
  EXPECT_EQ(report.errors.front().message,
            (dir_ / "sub/s.yaml").string() +
                ":6:" + std::to_string(23 + (dir_ / "a.bin").string().size()) +
                ": outputs.src: cannot create " + (dir_ / "gone/b.bin.tmp").string() +
                ": No such file or directory");
  EXPECT_EQ(read("a.bin"), "earlier a");
  EXPECT_FALSE(fs::exists(dir_ / "a.bin.tmp"));
  // A folder that is not there at setup is bad input before anything runs.
  sim::Simulation sim2{1};
  auto bad = Run::create(sim2, *s, spec, register_for_tests);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("outputs.src: cannot create"), std::string::npos)
      << bad.error().message;
  // The same run with its folder back writes both.
  fs::create_directories(dir_ / "gone");
  sim::Simulation sim3{1};
  auto good = Run::create(sim3, *s, spec, register_for_tests);
  ASSERT_TRUE(good.ok()) << good.error().message;
  ASSERT_TRUE((*good)->report((*good)->simulate()).ok());
  std::vector<std::uint32_t> iota(1024);
  std::iota(iota.begin(), iota.end(), 0u);
  const std::string want(reinterpret_cast<const char*>(iota.data()), 4096);
  EXPECT_EQ(read("a.bin"), want);
  EXPECT_EQ(read("gone/b.bin"), want);
}

}  // namespace
}  // namespace xpusim::system

namespace xpusim::system {
namespace {

// A tensor_map argument: encoded by our encoder at load, with globalAddress the named buffer's
// address; a bad map or buffer is a located error.
TEST(ScenarioArgs, ATensorMapArgumentIsEncodedWithItsBuffersAddress) {
  const std::string head =
      "chip: tiny\nkernel: k\nlaunch: {grid: 1, block: 32}\nbuffers: {t: {bytes: 64KiB}}\n";
  auto s = load_scenario_string(
      head +
          "args: [{tensor_map: {dataType: UINT32, rank: 2, globalAddress: t, globalDim: [64, 64], "
          "globalStrides: [256], boxDim: [32, 8], elementStrides: [1, 1]}}]\n",
      "s.yaml");
  ASSERT_TRUE(s.ok()) << s.error().message;
  ASSERT_EQ(s->args.size(), 1u);
  const ScenarioArg& a = s->args[0];
  EXPECT_EQ(a.kind, kernel::ArgKind::kTensorMap);
  ASSERT_EQ(a.blob.size(), 128u);
  auto map = tma::from_blob(a.blob);
  ASSERT_TRUE(map.ok()) << map.error().message;
  EXPECT_EQ(map->global_address, s->buffers[0].address);
  EXPECT_EQ(map->box_dim[0], 32u);
  EXPECT_EQ(map->global_strides[0], 256u);
  EXPECT_EQ(errors_of(head + "args: [{tensor_map: {dataType: UINT32, rank: 1, globalAddress: u, "
                             "globalDim: [64], boxDim: [32], elementStrides: [1]}}]\n"),
            "s.yaml:5:64: args[0].tensor_map.globalAddress: 'u' is not a buffer");
  const std::string bad =
      errors_of(head +
                "args: [{tensor_map: {dataType: UINT32, rank: 1, globalAddress: t, "
                "globalDim: [64], boxDim: [300], elementStrides: [1]}}]\n");
  EXPECT_EQ(bad,
            "s.yaml:5:21: args[0].tensor_map: boxDim[0] = 300: must be in [1, 256] (nearest: 256)");
}

}  // namespace
}  // namespace xpusim::system
