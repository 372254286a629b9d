#include "system/scenario_keys.h"

#include <fmt/format.h>

#include "core/warp_scheduler.h"
#include "sched/policy.h"

namespace xpusim::system {
namespace {

using config::KeyDoc;

// Top-level keys are listed in the order the reader's messages name them; nested keys follow
// their parent.
constexpr KeyDoc kScenarioKeys[] = {
    {.path = "chip",
     .type = "string",
     .description = "A chip in configs/chips (xpusim list chips) or a path to a chip file; a "
                    "relative path starts at the scenario's folder",
     .required = true},
    {.path = "mode",
     .type = "string",
     .description = "functional: data moves and results are checked; timing-only: no data moves, "
                    "same timing",
     .choices = "functional|timing-only",
     .default_json = "\"functional\""},
    {.path = "memory_timing",
     .type = "string",
     .description = "events: every step of a request at its tick (the reference); transactions: "
                    "each request timed whole when issued (faster, approximate)",
     .choices = "events|transactions",
     .default_json = "\"events\""},
    {.path = "set_sampling",
     .type = "integer",
     .description = "1 to 64. With memory_timing transactions: TMA loads look up one L2 set in N",
     .default_json = "1"},
    {.path = "wave_sampling",
     .type = "number",
     .description = "A percentage from 0 (off) to 50, timing-only runs: once three consecutive "
                    "waves of a grid agree within it, its middle waves are not simulated",
     .default_json = "0"},
    {.path = "workload",
     .type = "string",
     .description = "A registered workload (xpusim list workloads); exclusive with kernel and "
                    "kernels"},
    {.path = "params",
     .type = "object",
     .description = "The workload's parameters by name (each within its bounds)"},
    {.path = "params.*",
     .type = "integer|string",
     .description = "A whole number or a size such as 4MiB"},
    {.path = "policy",
     .type = "string",
     .description = "The work distributor's policy (xpusim list policies)",
     .default_json = "\"waterfill\""},
    {.path = "sm_scheduler",
     .type = "string",
     .description = "The SMs' warp scheduler (xpusim list schedulers)",
     .default_json = "\"gto\""},
    {.path = "sm_timing",
     .type = "object",
     .description = "SM latency classes in SM cycles over the chip's sm_latency section"},
    {.path = "kernel",
     .type = "string",
     .description = "A registered kernel (xpusim list kernels), or an .entry of the ptx/cuda "
                    "module, for one generic launch, with launch, buffers and args"},
    {.path = "ptx",
     .type = "string",
     .description = "A PTX module (nvcc -ptx -arch=sm_90a) whose .entry functions are the run's "
                    "kernels; relative to the scenario (docs/ptx.md)"},
    {.path = "cuda",
     .type = "string",
     .description = "A .cu file compiled with nvcc -ptx -arch=sm_90a -O3 when nvcc is found; "
                    "its .entry functions are the run's kernels (docs/ptx.md)"},
    {.path = "launch",
     .type = "object",
     .description = "The kernel's launch (required with kernel)"},
    {.path = "launch.grid",
     .type = "integer|array",
     .description = "CTAs per dimension: x, [x], [x, y] or [x, y, z], each at least 1",
     .required = true},
    {.path = "launch.block",
     .type = "integer|array",
     .description = "Threads per CTA and dimension, as grid",
     .required = true},
    {.path = "launch.cluster",
     .type = "integer|array",
     .description = "CTAs per cluster and dimension, as grid",
     .default_json = "[1, 1, 1]"},
    {.path = "launch.dynamic_shared_bytes",
     .type = "integer|string",
     .description = "Dynamic shared memory per CTA: bytes or a size such as 48KiB",
     .default_json = "0"},
    {.path = "launch.registers_per_thread",
     .type = "integer",
     .description = "Registers per thread",
     .default_json = "32"},
    {.path = "launch.queue",
     .type = "integer",
     .description = "The index of the queue (queues) the launch is dispatched on",
     .default_json = "0"},
    {.path = "launch.priority",
     .type = "integer",
     .description = "Higher launches first in the task table",
     .default_json = "0"},
    {.path = "launch.multicast",
     .type = "boolean",
     .description = "At most one CTA of a cluster per SM; needs a cluster",
     .default_json = "false"},
    {.path = "launch.gpu_cga",
     .type = "integer",
     .description = "GPC_CGAs grouped into one GPU_CGA (1 to 65535)",
     .default_json = "1"},
    {.path = "launch.ugpu_cga",
     .type = "integer",
     .description = "GPC_CGAs grouped into one µGPU_CGA, placed in one µGPU (1 to 65535; "
                    "default: none; not with gpu_cga)"},
    {.path = "launch.cpc_cga",
     .type = "integer",
     .description = "CPC_CGAs each cluster is split into, each placed in one CPC (1 to 255; "
                    "default: none)"},
    {.path = "launch.policy",
     .type = "string",
     .description = "This launch's placement policy (default: the scenario's policy)"},
    {.path = "buffers",
     .type = "object",
     .description = "Device buffers by name, placed in listed order from 0x10000000 at 1 MiB "
                    "boundaries"},
    {.path = "buffers.*", .type = "object", .description = "One buffer"},
    {.path = "buffers.*.bytes",
     .type = "integer|string",
     .description = "Its size: bytes or a size such as 16MiB (required without file; with it, "
                    "the file's size)"},
    {.path = "buffers.*.fill",
     .type = "string",
     .description = "zero: untouched; iota32: u32 element i = i; random32: seeded by --seed",
     .choices = "zero|iota32|random32",
     .default_json = "\"zero\""},
    {.path = "buffers.*.file",
     .type = "string",
     .description = "A raw file of exactly the buffer's initial bytes, relative to the scenario's "
                    "folder (read in functional runs); exclusive with fill"},
    {.path = "args",
     .type = "array",
     .description = "The kernel's arguments in order, each a mapping of one key"},
    {.path = "args[].u32",
     .type = "integer|string",
     .description = "A 32-bit whole number, decimal or 0x hex"},
    {.path = "args[].u64",
     .type = "integer|string",
     .description = "A 64-bit whole number, decimal or 0x hex"},
    {.path = "args[].f32", .type = "number", .description = "A 32-bit float"},
    {.path = "args[].u8",
     .type = "integer|string",
     .description = "An 8-bit whole number (0 to 255), decimal or 0x hex"},
    {.path = "args[].u16",
     .type = "integer|string",
     .description = "A 16-bit whole number (0 to 65535), decimal or 0x hex"},
    {.path = "args[].s32",
     .type = "integer|string",
     .description = "A signed 32-bit whole number, decimal or 0x hex with an optional sign"},
    {.path = "args[].s64",
     .type = "integer|string",
     .description = "A signed 64-bit whole number, decimal or 0x hex with an optional sign"},
    {.path = "args[].f64",
     .type = "number|string",
     .description = "A 64-bit float (YAML's .inf, -.inf and .nan too)"},
    {.path = "args[].ptr", .type = "string", .description = "A buffer's name: its address"},
    {.path = "args[].tensor_map",
     .type = "object",
     .description = "A CUtensorMap passed by value (a PTX .param .b8 [128]): the keys `xpusim "
                    "tma` reads, with globalAddress naming a buffer"},
    {.path = "stats",
     .type = "string",
     .description = "A file to write the run's stats to (relative to the current directory)"},
    {.path = "trace",
     .type = "string",
     .description = "A file to write the run's Perfetto trace to (relative to the current "
                    "directory)"},
    {.path = "outputs",
     .type = "object",
     .description = "Buffers whose final bytes a functional run writes to files when it ends "
                    "without an error (kernel and kernels only)"},
    {.path = "outputs.*",
     .type = "string",
     .description = "The buffer's file (relative to the current directory), written whole or "
                    "not at all"},
    {.path = "trace_max_events",
     .type = "integer",
     .description = "The trace's event cap, 1 to 10^9; later events are counted and the trace "
                    "says it is incomplete",
     .default_json = "1000000"},
    {.path = "trace_window",
     .type = "string",
     .description = "START:END in simulated time (10us:20us; either side may be empty): the "
                    "trace keeps only the events that overlap it"},
    {.path = "runs",
     .type = "array",
     .description = "Several runs, each the top-level scenario with its own keys on top"},
    {.path = "runs[].name",
     .type = "string",
     .description = "The run's name: letters, digits, '_', '.' and '-' (default runN)"},
    {.path = "runs[].mode", .type = "string", .description = "As mode"},
    {.path = "runs[].memory_timing", .type = "string", .description = "As memory_timing"},
    {.path = "runs[].set_sampling", .type = "integer", .description = "As set_sampling"},
    {.path = "runs[].wave_sampling", .type = "number", .description = "As wave_sampling"},
    {.path = "runs[].workload",
     .type = "string",
     .description = "This run's workload (not in a kernel launch's runs)"},
    {.path = "runs[].params",
     .type = "object",
     .description = "Merged key by key over the top-level params",
     .same_as = "params"},
    {.path = "runs[].stats", .type = "string", .description = "This run's stats file"},
    {.path = "runs[].trace", .type = "string", .description = "This run's trace file"},
    {.path = "runs[].outputs",
     .type = "object",
     .description = "This run's buffer outputs (a kernel launch's runs)",
     .same_as = "outputs"},
    {.path = "runs[].trace_max_events", .type = "integer", .description = "As trace_max_events"},
    {.path = "runs[].trace_window", .type = "string", .description = "As trace_window"},
    {.path = "runs[].queues", .type = "array", .description = "As queues", .same_as = "queues"},
    {.path = "queues",
     .type = "array",
     .description = "The host's AQL queues, 1 to 64 (default: one standard queue of 64)"},
    {.path = "queues[].dispatch",
     .type = "string",
     .description = "standard: a dispatch packet per launch; condensed: a reference packet, then "
                    "diffs",
     .choices = "standard|condensed",
     .default_json = "\"standard\""},
    {.path = "queues[].size",
     .type = "integer",
     .description = "Packet slots: a power of two up to 1048576",
     .default_json = "64"},
    {.path = "cp_timing",
     .type = "object",
     .description = "The kernel agents' costs in SM cycles over the chip's command_processor "
                    "section"},
    {.path = "kernels",
     .type = "array",
     .description = "A graph of kernel launches and workloads over the file's buffers; "
                    "exclusive with workload and kernel"},
    {.path = "kernels[].name",
     .type = "string",
     .description = "The entry's name for after, after_any and messages (default kN)"},
    {.path = "kernels[].kernel", .type = "string", .description = "A registered kernel"},
    {.path = "kernels[].launch",
     .type = "object",
     .description = "The kernel's launch, as launch",
     .same_as = "launch"},
    {.path = "kernels[].args",
     .type = "array",
     .description = "The kernel's arguments, as args",
     .same_as = "args"},
    {.path = "kernels[].workload",
     .type = "string",
     .description = "A registered workload (instead of kernel)"},
    {.path = "kernels[].params",
     .type = "object",
     .description = "The workload's parameters, as params",
     .same_as = "params"},
    {.path = "kernels[].queue",
     .type = "integer",
     .description = "A workload entry's queue",
     .default_json = "0"},
    {.path = "kernels[].after",
     .type = "string|array",
     .description = "Entries this one waits for (all of them)"},
    {.path = "kernels[].after_any",
     .type = "string|array",
     .description = "Up to five entries of which the first to finish releases this one"},
    {.path = "rasterization",
     .type = "string",
     .description = "Who decodes a plain grid's CTA ids: each SM (distributed) or the CWD "
                    "(central)",
     .choices = "distributed|central",
     .default_json = "\"distributed\""},
    {.path = "cga_memory_slots",
     .type = "integer",
     .description = "The CWD's pool of CGA memory slots: every GPC_CGA holds one from launch to "
                    "cga_complete (seed1 ¶222); 0 to 65536, 0 = unlimited",
     .default_json = "0"},
};

constexpr TimingField kTimingFields[] = {
    {"sub_partitions", &core::SmTiming::sub_partitions, 1, 16},
    {"alu_latency", &core::SmTiming::alu_latency, 0, 100'000},
    {"sfu_latency", &core::SmTiming::sfu_latency, 0, 100'000},
    {"sfu_issue_cycles", &core::SmTiming::sfu_issue_cycles, 1, 100'000},
    {"mma_issue_cycles", &core::SmTiming::mma_issue_cycles, 1, 100'000},
    {"mma_latency", &core::SmTiming::mma_latency, 0, 100'000},
    {"shared_latency", &core::SmTiming::shared_latency, 0, 100'000},
    {"lsu_issue_cycles", &core::SmTiming::lsu_issue_cycles, 1, 100'000},
    {"barrier_latency", &core::SmTiming::barrier_latency, 0, 100'000},
    {"mbarrier_latency", &core::SmTiming::mbarrier_latency, 0, 100'000},
    {"cluster_barrier_latency", &core::SmTiming::cluster_barrier_latency, 0, 100'000},
    {"store_queue", &core::SmTiming::store_queue, 0, 1 << 20},
};

constexpr CpTimingField kCpTimingFields[] = {
    {"doorbell", &cp::AgentTiming::doorbell_cycles}, {"fetch", &cp::AgentTiming::fetch_cycles},
    {"decode", &cp::AgentTiming::decode_cycles},     {"setup", &cp::AgentTiming::setup_cycles},
    {"diff", &cp::AgentTiming::diff_cycles},         {"cleanup", &cp::AgentTiming::cleanup_cycles},
};

nlohmann::ordered_json names(const std::vector<std::string>& v) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const std::string& s : v)
    out.push_back(s);
  return out;
}

}  // namespace

std::span<const config::KeyDoc> scenario_keys() {
  return kScenarioKeys;
}

std::span<const TimingField> sm_timing_fields() {
  return kTimingFields;
}

std::span<const CpTimingField> cp_timing_fields() {
  return kCpTimingFields;
}

nlohmann::ordered_json scenario_schema() {
  nlohmann::ordered_json s = config::json_schema(
      "xpusim scenario", "A file xpusim run reads (docs/run.md)", kScenarioKeys);
  auto& props = s["properties"];
  props["policy"]["enum"] = names(sched::policy_names());
  props["launch"]["properties"]["policy"]["enum"] = names(sched::policy_names());
  props["kernels"]["items"]["properties"]["launch"]["properties"]["policy"]["enum"] =
      names(sched::policy_names());
  props["sm_scheduler"]["enum"] = names(core::warp_scheduler_names());
  auto& sm = props["sm_timing"];
  for (const TimingField& f : kTimingFields) {
    sm["properties"][std::string(f.name)] = {
        {"type", "integer"}, {"minimum", f.min}, {"maximum", f.max}, {"description", "SM cycles"}};
  }
  sm["additionalProperties"] = false;
  auto& cp = props["cp_timing"];
  for (const CpTimingField& f : kCpTimingFields) {
    cp["properties"][std::string(f.name)] = {{"type", "integer"},
                                             {"minimum", 0},
                                             {"maximum", kMaxCpCycles},
                                             {"description", "SM cycles"}};
  }
  cp["properties"][std::string(kSkipUnneededCleanup)] = {
      {"type", "boolean"},
      {"description",
       "Intermediate kernels of a condensed packet that need no cleanup skip it (seed3 ¶146)"}};
  cp["additionalProperties"] = false;
  return s;
}

}  // namespace xpusim::system
