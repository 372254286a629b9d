// The cross-field rules of a chip file, declared as data: each names the key it is reported at,
// the other keys it reads, the rule and its hardware reason (for messages and docs/config.md).
#include <algorithm>
#include <array>
#include <limits>
#include <optional>

#include <fmt/format.h>

#include "config/chip_schema.h"

namespace xpusim::config {
namespace {

// A cross-field rule, reported at `key` as "<check's text> (<why>)" when `check` returns text.
struct CrossFieldRule {
  std::string_view key;
  std::array<std::string_view, 3> others;  // other keys it reads ("" = unused)
  std::string_view rule;                   // the rule as an expression, for the docs
  std::string_view why;                    // the hardware reason, in message and docs
  std::optional<std::string> (*check)(const ChipSpec&);
};

std::string size(std::uint64_t bytes) {
  return format_size(bytes);
}

std::uint32_t largest_gpc_sms(const ChipSpec& c) {
  std::uint32_t most = 0;
  for (std::uint32_t tpcs : c.topology.tpcs_per_gpc)
    most = std::max(most, tpcs);
  return most * c.topology.sms_per_tpc;
}

using Message = std::optional<std::string>;

// hbm.loaded_latency: each curve has 9 points, unless all three are empty.
constexpr std::string_view kCurveWhy =
    "one extra latency per tenth of a channel's bandwidth (10 % to 90 %) for each traffic mix; "
    "all three empty: none";
Message curve_rule(const ChipSpec& c, const std::vector<std::uint32_t>& curve) {
  const HbmSpec& h = c.hbm;
  if (h.loaded_reads_ns.empty() && h.loaded_mixed_ns.empty() && h.loaded_writes_ns.empty()) {
    return {};
  }
  if (curve.size() == 9) return {};
  return fmt::format("has {} entries, not 9", curve.size());
}

// sm.tensor.*_fma_per_cycle: the peak figures (SMs x per cycle x 2 x clocks.sm, in op/s) are
// 64-bit counts; a schema-valid chip at every maximum is about 7e20 op/s.
constexpr std::string_view kPeakWhy = "the peak op/s figure is a 64-bit count";
Message peak_rule(const ChipSpec& c, std::uint32_t per_cycle) {
  if (c.num_sms() == 0) return {};  // an empty topology.tpcs_per_gpc is reported at its key
  // Exact: x <= floor(floor(M / a) / b) iff x * a * b <= M.
  const std::uint64_t limit =
      std::numeric_limits<std::uint64_t>::max() / (2 * c.clocks.sm_hz) / c.num_sms();
  if (per_cycle <= limit) return {};
  return fmt::format(
      "{} x {} SMs x 2 x clocks.sm = {:.3g} op/s does not fit in 64 bits (at most {} with these "
      "SMs and clock)",
      per_cycle, c.num_sms(),
      static_cast<double>(per_cycle) * c.num_sms() * 2 * static_cast<double>(c.clocks.sm_hz),
      limit);
}

constexpr std::array kChipRules{
    CrossFieldRule{"topology.tpcs_per_gpc",
                   {"topology.gpcs", "", ""},
                   "length of `topology.tpcs_per_gpc` == `topology.gpcs`",
                   "one TPC count per GPC",
                   [](const ChipSpec& c) -> Message {
                     if (c.topology.tpcs_per_gpc.size() == c.topology.gpcs) return {};
                     return fmt::format("has {} entries but topology.gpcs = {}",
                                        c.topology.tpcs_per_gpc.size(), c.topology.gpcs);
                   }},
    CrossFieldRule{"topology.cpcs_per_gpc",
                   {"topology.tpcs_per_gpc", "", ""},
                   "`topology.cpcs_per_gpc` <= min(`topology.tpcs_per_gpc`)",
                   "every CPC needs at least one TPC",
                   [](const ChipSpec& c) -> Message {
                     for (std::size_t g = 0; g < c.topology.tpcs_per_gpc.size(); ++g) {
                       if (c.topology.tpcs_per_gpc[g] < c.topology.cpcs_per_gpc) {
                         return fmt::format("{} exceeds the {} TPCs of GPC {}",
                                            c.topology.cpcs_per_gpc, c.topology.tpcs_per_gpc[g], g);
                       }
                     }
                     return {};
                   }},
    CrossFieldRule{"topology.ugpus",
                   {"topology.gpcs", "", ""},
                   "`topology.ugpus` <= `topology.gpcs`",
                   "every µGPU needs at least one GPC",
                   [](const ChipSpec& c) -> Message {
                     if (c.topology.ugpus <= c.topology.gpcs) return {};
                     return fmt::format("{} exceeds topology.gpcs = {}", c.topology.ugpus,
                                        c.topology.gpcs);
                   }},
    CrossFieldRule{"topology.max_cluster_size",
                   {"topology.tpcs_per_gpc", "topology.sms_per_tpc", ""},
                   "`topology.max_cluster_size` <= max(`topology.tpcs_per_gpc`) x "
                   "`topology.sms_per_tpc`",
                   "a cluster runs within one GPC",
                   [](const ChipSpec& c) -> Message {
                     if (c.topology.max_cluster_size <= largest_gpc_sms(c)) return {};
                     return fmt::format(
                         "{} exceeds the SMs of the largest GPC, max(topology.tpcs_per_gpc) x "
                         "topology.sms_per_tpc = {}",
                         c.topology.max_cluster_size, largest_gpc_sms(c));
                   }},
    CrossFieldRule{"sm.max_threads",
                   {"sm.max_warps", "", ""},
                   "`sm.max_threads` <= `sm.max_warps` x 32",
                   "a warp is 32 threads",
                   [](const ChipSpec& c) -> Message {
                     const std::uint64_t limit = std::uint64_t{c.sm.max_warps} * 32;
                     if (c.sm.max_threads <= limit) return {};
                     return fmt::format("{} exceeds sm.max_warps x 32 = {}", c.sm.max_threads,
                                        limit);
                   }},
    CrossFieldRule{"sm.max_threads_per_block",
                   {"sm.max_threads", "", ""},
                   "`sm.max_threads_per_block` <= `sm.max_threads`",
                   "a thread block runs on one SM",
                   [](const ChipSpec& c) -> Message {
                     if (c.sm.max_threads_per_block <= c.sm.max_threads) return {};
                     return fmt::format("{} exceeds sm.max_threads = {}",
                                        c.sm.max_threads_per_block, c.sm.max_threads);
                   }},
    CrossFieldRule{"sm.registers",
                   {"sm.sub_partitions", "", ""},
                   "`sm.registers` divisible by `sm.sub_partitions`",
                   "each sub-partition has an equal slice of the register file",
                   [](const ChipSpec& c) -> Message {
                     if (c.sm.registers % c.sm.sub_partitions == 0) return {};
                     return fmt::format("{} is not divisible by sm.sub_partitions = {}",
                                        c.sm.registers, c.sm.sub_partitions);
                   }},
    CrossFieldRule{"sm.max_registers_per_thread",
                   {"sm.registers", "sm.sub_partitions", ""},
                   "`sm.max_registers_per_thread` x 32 <= `sm.registers` / `sm.sub_partitions`",
                   "one warp's registers live in one sub-partition",
                   [](const ChipSpec& c) -> Message {
                     const std::uint64_t slice = c.sm.registers / c.sm.sub_partitions;
                     if (std::uint64_t{c.sm.max_registers_per_thread} * 32 <= slice) return {};
                     return fmt::format("{} x 32 exceeds sm.registers / sm.sub_partitions = {}",
                                        c.sm.max_registers_per_thread, slice);
                   }},
    CrossFieldRule{"sm.shared_memory_bytes",
                   {"sm.l1_shared_bytes", "", ""},
                   "`sm.shared_memory_bytes` <= `sm.l1_shared_bytes`",
                   "shared memory is carved out of the L1/shared array",
                   [](const ChipSpec& c) -> Message {
                     if (c.sm.shared_memory_bytes <= c.sm.l1_shared_bytes) return {};
                     return fmt::format("{} exceeds sm.l1_shared_bytes = {}",
                                        size(c.sm.shared_memory_bytes), size(c.sm.l1_shared_bytes));
                   }},
    CrossFieldRule{"sm.shared_memory_per_block_bytes",
                   {"sm.shared_memory_bytes", "", ""},
                   "`sm.shared_memory_per_block_bytes` <= `sm.shared_memory_bytes`",
                   "a thread block's shared memory lives on one SM",
                   [](const ChipSpec& c) -> Message {
                     if (c.sm.shared_memory_per_block_bytes <= c.sm.shared_memory_bytes) return {};
                     return fmt::format("{} exceeds sm.shared_memory_bytes = {}",
                                        size(c.sm.shared_memory_per_block_bytes),
                                        size(c.sm.shared_memory_bytes));
                   }},
    CrossFieldRule{"sm.tensor.cores",
                   {"sm.sub_partitions", "", ""},
                   "`sm.tensor.cores` a multiple of `sm.sub_partitions`",
                   "each sub-partition owns an equal number of tensor cores",
                   [](const ChipSpec& c) -> Message {
                     if (c.sm.tensor.cores % c.sm.sub_partitions == 0) return {};
                     return fmt::format("{} is not a multiple of sm.sub_partitions = {}",
                                        c.sm.tensor.cores, c.sm.sub_partitions);
                   }},
    CrossFieldRule{"tma.sms_per_unit",
                   {"topology.sms_per_tpc", "", ""},
                   "`topology.sms_per_tpc` divisible by `tma.sms_per_unit`",
                   "a shared TMA unit serves SMs of one TPC",
                   [](const ChipSpec& c) -> Message {
                     if (c.topology.sms_per_tpc % c.tma.sms_per_unit == 0) return {};
                     return fmt::format("{} does not divide topology.sms_per_tpc = {}",
                                        c.tma.sms_per_unit, c.topology.sms_per_tpc);
                   }},
    CrossFieldRule{"sm.tensor.bf16_fma_per_cycle",
                   {"sm.tensor.cores", "", ""},
                   "`sm.tensor.bf16_fma_per_cycle` divisible by `sm.tensor.cores`",
                   "every tensor core has the same throughput",
                   [](const ChipSpec& c) -> Message {
                     if (c.sm.tensor.bf16_fma_per_cycle % c.sm.tensor.cores == 0) return {};
                     return fmt::format("{} is not divisible by sm.tensor.cores = {}",
                                        c.sm.tensor.bf16_fma_per_cycle, c.sm.tensor.cores);
                   }},
    CrossFieldRule{"sm.tensor.int8_fma_per_cycle",
                   {"sm.tensor.cores", "", ""},
                   "`sm.tensor.int8_fma_per_cycle` divisible by `sm.tensor.cores`",
                   "every tensor core has the same throughput",
                   [](const ChipSpec& c) -> Message {
                     if (c.sm.tensor.int8_fma_per_cycle % c.sm.tensor.cores == 0) return {};
                     return fmt::format("{} is not divisible by sm.tensor.cores = {}",
                                        c.sm.tensor.int8_fma_per_cycle, c.sm.tensor.cores);
                   }},
    CrossFieldRule{"sm.tensor.tf32_fma_per_cycle",
                   {"sm.tensor.cores", "", ""},
                   "`sm.tensor.tf32_fma_per_cycle` divisible by `sm.tensor.cores`",
                   "every tensor core has the same throughput",
                   [](const ChipSpec& c) -> Message {
                     if (c.sm.tensor.tf32_fma_per_cycle % c.sm.tensor.cores == 0) return {};
                     return fmt::format("{} is not divisible by sm.tensor.cores = {}",
                                        c.sm.tensor.tf32_fma_per_cycle, c.sm.tensor.cores);
                   }},
    CrossFieldRule{"sm.tensor.f32_fma_per_cycle",
                   {"sm.tensor.cores", "", ""},
                   "`sm.tensor.f32_fma_per_cycle` divisible by `sm.tensor.cores`",
                   "FP32 mm work is split equally over the tensor-core slots",
                   [](const ChipSpec& c) -> Message {
                     if (c.sm.tensor.f32_fma_per_cycle % c.sm.tensor.cores == 0) return {};
                     return fmt::format("{} is not divisible by sm.tensor.cores = {}",
                                        c.sm.tensor.f32_fma_per_cycle, c.sm.tensor.cores);
                   }},
    CrossFieldRule{"sm.tensor.bf16_fma_per_cycle",
                   {"topology.tpcs_per_gpc", "topology.sms_per_tpc", "clocks.sm"},
                   "SMs x `sm.tensor.bf16_fma_per_cycle` x 2 x `clocks.sm` < 2^64",
                   kPeakWhy,
                   [](const ChipSpec& c) { return peak_rule(c, c.sm.tensor.bf16_fma_per_cycle); }},
    CrossFieldRule{"sm.tensor.int8_fma_per_cycle",
                   {"topology.tpcs_per_gpc", "topology.sms_per_tpc", "clocks.sm"},
                   "SMs x `sm.tensor.int8_fma_per_cycle` x 2 x `clocks.sm` < 2^64",
                   kPeakWhy,
                   [](const ChipSpec& c) { return peak_rule(c, c.sm.tensor.int8_fma_per_cycle); }},
    CrossFieldRule{"l2.line_bytes",
                   {"l2.sector_bytes", "", ""},
                   "`l2.line_bytes` a multiple of `l2.sector_bytes`",
                   "a line is a whole number of sectors",
                   [](const ChipSpec& c) -> Message {
                     if (c.l2.line_bytes % c.l2.sector_bytes == 0) return {};
                     return fmt::format("{} is not a multiple of l2.sector_bytes = {}",
                                        c.l2.line_bytes, c.l2.sector_bytes);
                   }},
    CrossFieldRule{"l2.slices",
                   {"l2.partitions", "", ""},
                   "`l2.slices` a multiple of `l2.partitions`",
                   "every partition has the same number of slices",
                   [](const ChipSpec& c) -> Message {
                     if (c.l2.slices % c.l2.partitions == 0) return {};
                     return fmt::format("{} is not a multiple of l2.partitions = {}", c.l2.slices,
                                        c.l2.partitions);
                   }},
    CrossFieldRule{"l2.size",
                   {"l2.slices", "l2.ways", "l2.line_bytes"},
                   "`l2.size` divisible by `l2.slices` x `l2.ways` x `l2.line_bytes`",
                   "every slice holds whole sets",
                   [](const ChipSpec& c) -> Message {
                     // Uneven partitions are reported at l2.slices; one mistake, one line.
                     if (c.l2.partitions != 0 && c.l2.slices % c.l2.partitions != 0) return {};
                     const std::uint64_t set_bytes =
                         std::uint64_t{c.l2.slices} * c.l2.ways * c.l2.line_bytes;
                     if (c.l2.size_bytes % set_bytes == 0) return {};
                     return fmt::format(
                         "{} is not divisible by l2.slices x l2.ways x l2.line_bytes = {} x {} x "
                         "{}",
                         size(c.l2.size_bytes), c.l2.slices, c.l2.ways, c.l2.line_bytes);
                   }},
    CrossFieldRule{"hbm.capacity",
                   {"hbm.stacks", "", ""},
                   "`hbm.capacity` divisible by `hbm.stacks`",
                   "every stack has the same capacity",
                   [](const ChipSpec& c) -> Message {
                     if (c.hbm.capacity_bytes % c.hbm.stacks == 0) return {};
                     return fmt::format("{} is not divisible by hbm.stacks = {}",
                                        size(c.hbm.capacity_bytes), c.hbm.stacks);
                   }},
    CrossFieldRule{"hbm.interleave_bytes",
                   {"l2.sector_bytes", "", ""},
                   "`hbm.interleave_bytes` a multiple of `l2.sector_bytes`",
                   "a sector lives in one HBM channel",
                   [](const ChipSpec& c) -> Message {
                     if (c.hbm.interleave_bytes % c.l2.sector_bytes == 0) return {};
                     return fmt::format("{} is not a multiple of l2.sector_bytes = {}",
                                        c.hbm.interleave_bytes, c.l2.sector_bytes);
                   }},
    CrossFieldRule{"hbm.loaded_latency.reads",
                   {"hbm.loaded_latency.mixed", "hbm.loaded_latency.writes", ""},
                   "each of `hbm.loaded_latency.{reads, mixed, writes}` has 9 entries, or all "
                   "three are empty",
                   kCurveWhy,
                   [](const ChipSpec& c) { return curve_rule(c, c.hbm.loaded_reads_ns); }},
    CrossFieldRule{"hbm.loaded_latency.mixed",
                   {"hbm.loaded_latency.reads", "hbm.loaded_latency.writes", ""},
                   "as `hbm.loaded_latency.reads`",
                   kCurveWhy,
                   [](const ChipSpec& c) { return curve_rule(c, c.hbm.loaded_mixed_ns); }},
    CrossFieldRule{"hbm.loaded_latency.writes",
                   {"hbm.loaded_latency.reads", "hbm.loaded_latency.mixed", ""},
                   "as `hbm.loaded_latency.reads`",
                   kCurveWhy,
                   [](const ChipSpec& c) { return curve_rule(c, c.hbm.loaded_writes_ns); }},
};

}  // namespace

void check_chip_rules(const ChipSpec& spec, const FieldValues& values, Diagnostics& diag) {
  for (const CrossFieldRule& r : kChipRules) {
    bool inputs_ok = values.at(r.key).ok();
    for (std::string_view other : r.others) {
      if (!other.empty()) inputs_ok = inputs_ok && values.at(other).ok();
    }
    if (!inputs_ok) continue;  // already reported as a field error
    if (std::optional<std::string> message = r.check(spec)) {
      diag.error(values.at(r.key).key_pos, r.key, fmt::format("{} ({})", *message, r.why));
    }
  }
}

std::string chip_rules_markdown() {
  std::string out = "Cross-field rules (each reported at the key in the first column):\n\n";
  out += "| Key | Rule | Why |\n|---|---|---|\n";
  for (const CrossFieldRule& r : kChipRules) {
    out += fmt::format("| `{}` | {} | {} |\n", r.key, r.rule, r.why);
  }
  return out;
}

}  // namespace xpusim::config
