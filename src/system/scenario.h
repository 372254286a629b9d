// Scenario: what `xpusim run SCENARIO.yaml` runs (docs/run.md) — a chip, a mode, and either a
// registered workload with parameter overrides or one generic kernel launch with its device
// buffers and arguments:
//
//   chip: h100-sxm5              # a name in configs/chips, or a path (relative: to this file)
//   mode: functional             # functional (default) | timing-only
//   memory_timing: transactions  # events (default) | transactions
//   set_sampling: 8              # transactions: TMA loads time one L2 set in 8
//   wave_sampling: 1             # timing-only: skip a grid's middle waves once three agree to 1 %
//   workload: ubench.l2_latency  # or kernel: + launch: + buffers: + args:, or kernels: (a graph)
//   params: {footprint: 4MiB}    # whole numbers; sizes may carry KiB/MiB/GiB
//   policy: waterfill            # the work distributor's policy
//   sm_scheduler: gto            # the SMs' warp scheduler (xpusim list schedulers)
//   rasterization: distributed   # who decodes CTA ids: distributed (SMs) | central (the CWD)
//   cga_memory_slots: 64         # the CWD's CGA memory-slot pool (default 0: unlimited)
//   sm_timing: {alu_latency: 6}  # core::SmTiming fields by name
//   stats: out.stats.json        # optional outputs, relative to the current directory
//   trace: out.trace.json
//   trace_max_events: 1000000    # the trace's event cap
//   trace_window: "10us:20us"    # only the trace events in this stretch of simulated time
//   outputs: {dst: dst.bin}      # kernel launches: buffers' final bytes, written after the run
//   queues:                      # the host's AQL queues (default: one standard queue of 64)
//     - {dispatch: standard, size: 64}
//     - {dispatch: condensed}    # seed3: reference packets, then condensed diffs
//   cp_timing: {fetch: 30}       # the command processor's costs (cp::AgentTiming) by name
//   kernels:                     # a graph of launches instead of kernel: (buffers: as there)
//     - {name: fill, kernel: stream_fill, launch: {grid: 4, block: 64, queue: 0}, args: [...]}
//     - {name: copy, kernel: stream_copy, after: [fill], launch: {...}, args: [...]}
//   runs:                        # optional: several runs, each a fresh chip (below)
//     - {name: small, mode: functional, params: {footprint: 1MiB}}
//     - {name: big, mode: timing-only, stats: big.json}
//
// Loading needs no chip and no registries (it only looks at the size of each buffer's `file:`):
// every problem of the file comes back at once, one line each, "FILE:LINE:COL: KEY: message".
// Resolving names against the registries and setting up the chip (buffers filled, the launch
// queued) come after, with errors located the same way.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/yaml_reader.h"
#include "core/sm_timing.h"
#include "kernel/kernel_args.h"
#include "kernel/launch.h"
#include "kernel/registry.h"
#include "sim/result.h"
#include "sim/trace.h"
#include "system/chip.h"
#include "system/workload.h"

namespace xpusim::system {

enum class RunMode { kFunctional, kTimingOnly };
std::string_view to_string(RunMode m);
// "functional" | "timing-only"; the error names the value and the choices.
Result<RunMode> parse_run_mode(std::string_view text);
// "events" | "transactions" (mem::MemoryTiming); the error names the value and the choices.
Result<mem::MemoryTiming> parse_memory_timing_key(std::string_view text);

// How a buffer starts out. zero: untouched memory (reads return zeros, no host memory used);
// iota32: u32 element i = i; random32: u32 elements from a generator seeded by the run's seed.
enum class BufferFill { kZero, kIota32, kRandom32 };
std::string_view to_string(BufferFill f);

// Buffers are placed in listed order, each at the next multiple of kBufferAlign from
// kBufferBase: the first at 0x10000000.
inline constexpr std::uint64_t kBufferBase = 0x1000'0000;
inline constexpr std::uint64_t kBufferAlign = std::uint64_t{1} << 20;

struct ScenarioBuffer {
  std::string name;
  std::uint64_t bytes = 0;
  BufferFill fill = BufferFill::kZero;
  std::uint64_t address = 0;  // assigned at load
  config::SourcePos pos;      // the buffer's key
  // `file:`: the buffer's initial bytes, exactly `bytes` of them (checked at load, read at setup
  // in functional mode). As written, and as opened: relative to the scenario's folder.
  std::string file;
  std::filesystem::path file_path;
  config::SourcePos file_pos;
};

// `outputs:` entry: after a run that completed without errors, the buffer's final bytes go to
// `path` (relative to the current directory), written whole or not at all.
struct ScenarioOutput {
  std::string buffer;
  std::string path;
  std::string key;  // "outputs.BUFFER" or "runs[N].outputs.BUFFER", for messages
  config::SourcePos pos;
};

struct ScenarioArg {
  kernel::ArgKind kind = kernel::ArgKind::kU32;
  // As in a kernarg segment (KernelArgs::from_bits): unsigned values; s32/s64 in two's complement
  // of their width; f32/f64 as their bit patterns; ptr: the buffer's address.
  std::uint64_t bits = 0;
  std::string buffer;  // ptr, tensor_map: the buffer's name (a tensor map's globalAddress)
  config::SourcePos pos;
  std::vector<std::byte> blob{};  // tensor_map: the encoded 128-byte map
};

struct ScenarioParam {
  std::uint64_t value = 0;
  config::SourcePos pos;
  std::string flag;  // set by a command-line flag (e.g. "--param") rather than the file
};

// One node of a kernel graph (`kernels:`): a kernel launch, or a registered workload (its
// setup's launches, on `queue`). `after` names other entries: on the same queue the barrier
// bit, on another a barrier-AND on the producer's completion signal; `after_any` names up to
// five, of which the first to complete releases the node (a barrier-OR packet).
struct ScenarioKernel {
  std::string name;
  config::SourcePos name_pos;  // the entry
  std::string kernel;          // exactly one of kernel / workload is set
  config::SourcePos kernel_pos;
  std::string workload;
  config::SourcePos workload_pos;
  std::map<std::string, ScenarioParam, std::less<>> params;  // a workload's overrides
  kernel::LaunchParams launch{};
  config::SourcePos launch_pos;
  std::uint32_t queue = 0;
  config::SourcePos queue_pos;
  std::vector<ScenarioArg> args;
  config::SourcePos args_pos;
  std::vector<std::string> after;
  std::vector<config::SourcePos> after_pos;
  std::vector<std::string> after_any;
  std::vector<config::SourcePos> after_any_pos;
  bool is_workload() const { return !workload.empty(); }
};

struct TimingOverride {
  std::string field;  // a core::SmTiming (sm_timing) or cp::AgentTiming (cp_timing) field
  std::uint32_t value = 0;
  config::SourcePos pos;
};

// wave_sampling's largest value, in percent (sched::kMaxWaveSamplingTolerance).
inline constexpr double kMaxWaveSamplingPercent = 50;

struct Scenario {
  std::string source;         // the file name used in messages ("": none, a scenario in code)
  std::filesystem::path dir;  // the file's folder: relative chip paths start here

  std::string chip;
  config::SourcePos chip_pos;
  RunMode mode = RunMode::kFunctional;
  mem::MemoryTiming memory_timing = mem::MemoryTiming::kEvents;
  std::uint32_t set_sampling = 1;  // TMA loads' L2 set sampling (transactions only)
  double wave_sampling = 0;        // percent; 0: off (sched/wave_sampler.h; timing-only)
  std::string policy = "waterfill";
  config::SourcePos policy_pos;      // line 0: not in the file
  std::string sm_scheduler = "gto";  // the SMs' warp scheduler (core/warp_scheduler.h)
  // Who decodes CTA ids (sched::DistributorTiming): each SM (the default) or the CWD.
  sched::DistributorTiming::Rasterization rasterization =
      sched::DistributorTiming::Rasterization::kDistributed;
  std::uint32_t cga_memory_slots = 0;  // sched::CgaTrackerConfig::memory_slots; 0: unlimited
  std::vector<TimingOverride> sm_timing;

  // Exactly one of workload / kernel is set.
  std::string workload;
  config::SourcePos workload_pos;
  std::map<std::string, ScenarioParam, std::less<>> params;

  std::string kernel;
  config::SourcePos kernel_pos;
  // A PTX module whose entries are this run's kernels (relative to `dir`): `ptx:` names the
  // .ptx, `cuda:` a .cu compiled by nvcc. At most one; "": the registered C++ kernels.
  std::string ptx;
  config::SourcePos ptx_pos;
  std::string cuda;
  config::SourcePos cuda_pos;
  kernel::LaunchParams launch{};
  config::SourcePos launch_pos;
  std::uint32_t launch_queue = 0;  // launch: {queue: N}
  config::SourcePos launch_queue_pos;
  std::vector<ScenarioBuffer> buffers;
  std::vector<ScenarioArg> args;
  config::SourcePos args_pos;

  // A kernel graph (`kernels:`), in launch order: every entry after those it depends on, else
  // in file order. Exclusive with workload and kernel.
  std::vector<ScenarioKernel> graph;

  // The command processor: the host's queues, and the agents' costs over the chip config's
  // (cp_timing: fields by name: doorbell, fetch, decode, setup, diff, cleanup,
  // skip_unneeded_cleanup).
  std::vector<system::QueueSpec> queues{system::QueueSpec{}};
  config::SourcePos queues_pos;
  std::vector<TimingOverride> cp_timing;

  // Outputs of the run, relative to the current directory (empty: none).
  std::string stats_path;
  config::SourcePos stats_pos;
  std::string trace_path;
  config::SourcePos trace_pos;
  std::vector<ScenarioOutput> outputs;  // functional runs of a kernel or a graph only
  config::SourcePos outputs_pos;
  std::uint64_t trace_max_events = sim::kDefaultTraceMaxEvents;
  std::string trace_window;  // "START:END" as written (checked at load); "": the whole run

  // A file with `runs:` holds several runs, each a whole scenario here: the file's top-level
  // keys, then the entry's name, mode, workload, params (merged key by key over the top-level
  // ones), stats, trace, outputs, trace_max_events and trace_window. A run's own `runs` is empty;
  // so is a file's without `runs:`.
  std::vector<Scenario> runs;
  std::string name;            // a run's name (`run1`, `run2`, ... when unnamed); "" for a file
  config::SourcePos name_pos;  // the run's entry in the file
  std::size_t index = 0;       // a run's position in runs

  bool is_workload() const { return !workload.empty(); }
  bool is_graph() const { return !graph.empty(); }
  // "workload NAME", "kernel NAME" or "kernel graph (N kernels)".
  std::string what() const;
  // "SOURCE:LINE:COL: KEY: message" (without the position when pos.line is 0).
  Error error_at(config::SourcePos pos, std::string_view key, std::string_view message) const;
};

// Parses and checks a scenario. Errors (all of them, sorted by position): YAML syntax, unknown
// or duplicate keys (with the closest valid one), missing chip, both or neither of
// workload/kernel, keys of the other kind (params with a kernel; launch, buffers, args, outputs
// with a workload), a bad mode, policy, fill, size, dimension, SmTiming field or value, an
// argument that is not one of {u8|u16|u32|u64|s32|s64|f32|f64|ptr: VALUE} or out of its kind's
// range, a ptr naming no buffer; a buffer `file:` that cannot be opened, is not a regular file,
// is empty without `bytes:`, or whose size is not the buffer's, or that comes with `fill:`;
// `outputs:` naming no buffer, or in a timing-only run; in `runs:`, a list that is empty or not
// of mappings, a run without a workload, a run name that is repeated or not [A-Za-z0-9_.-], and
// one output file written twice. `dir`: where relative buffer files are ("": the current
// directory).
Result<Scenario> load_scenario_string(std::string_view yaml, std::string_view source_name,
                                      const std::filesystem::path& dir = {});
// Same from a file (its name in messages, its folder for relative chip and buffer paths).
Result<Scenario> load_scenario_file(const std::filesystem::path& path);

// A scenario in code, for tests and benchmarks: what a file with `chip:`, `workload:`,
// `params:` and `mode:` says (no source name: its errors start at the key).
Scenario workload_scenario(std::string_view chip, std::string_view workload,
                           const ParamValues& params, RunMode mode = RunMode::kFunctional);

// What a loaded scenario runs, in order: its `runs`, or the scenario itself when it has none.
std::vector<Scenario> scenario_runs(const Scenario& s);

// The chip file a scenario names: a name in config_dir/chips, or a path (a relative one is
// taken from the scenario's folder). Errors are located at the chip key.
Result<std::filesystem::path> resolve_scenario_chip(const Scenario& s,
                                                    const std::filesystem::path& config_dir);

// "key=value,key=value" (the CLI's --param) on top of the scenario's params; values as in the
// file (whole numbers, sizes with a unit). Errors name `flag`, the key and the value.
Status apply_param_overrides(Scenario& s, std::string_view flag, std::string_view text);

// `base` (the chip's, system::sm_timing_of) with the scenario's sm_timing overrides.
core::SmTiming scenario_sm_timing(const Scenario& s, core::SmTiming base);
// `base` (the chip's, system::agent_timing_of) with the scenario's cp_timing overrides.
cp::AgentTiming scenario_cp_timing(const Scenario& s, cp::AgentTiming base);

// What a scenario resolved to in the registries.
struct ResolvedScenario {
  Workload* workload = nullptr;               // for a workload scenario
  ParamValues params;                         // every declared parameter
  const kernel::KernelDef* kernel = nullptr;  // for a kernel scenario
  kernel::KernelArgs args;
  struct Node {
    const kernel::KernelDef* kernel = nullptr;  // a kernel node
    kernel::KernelArgs args;
    Workload* workload = nullptr;  // a workload node: the registry's (Run gives each node its own)
    ParamValues params;
  };
  std::vector<Node> graph;  // for a graph, as Scenario::graph
};

// Looks the workload or kernel up and checks the parameters or the arguments against it.
// Errors, located: an unknown name (with the closest registered one), an unknown parameter or
// one out of range, arguments that do not match the kernel's signature.
Result<ResolvedScenario> resolve_scenario(const Scenario& s, const kernel::KernelRegistry& kernels,
                                          const WorkloadRegistry& workloads);

// Host setup before the simulation: a workload's setup(), or the buffers filled or read from
// their files (functional mode only: timing-only moves no data) and the kernel launched (a
// graph's entries are issued by system::GraphHost after this). Errors, located: buffers that do
// not fit the chip's memory, a buffer file that changed size since the load or cannot be read,
// outputs on a timing-only chip, a launch the chip rejects (resources, cluster shape), a
// workload's setup error. `seed` seeds random32 fills. Returns the chip's launch ids: the kernel's,
// or the workload's launches (none for a graph).
Result<std::vector<std::uint32_t>> setup_scenario(const Scenario& s, const ResolvedScenario& r,
                                                  system::Chip& chip,
                                                  const kernel::KernelRegistry& kernels,
                                                  std::uint64_t seed);

// Checks that each output's file can be created (its NAME.tmp is made and removed again), so
// that a bad folder is bad input before anything is simulated. Errors located at the entry.
Status probe_scenario_outputs(const Scenario& s);

// Writes each `outputs:` buffer from `memory` to its file: all of them to NAME.tmp first, then
// each renamed over NAME, so a failed write leaves no partial file and the old files in place.
// Returns one line per file ("FILE: buffer NAME, N bytes"). Errors located at the entry.
Result<std::vector<std::string>> write_scenario_outputs(const Scenario& s,
                                                        const mem::GlobalMemory& memory);

}  // namespace xpusim::system
