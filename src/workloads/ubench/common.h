// Helpers the microbenchmarks share: where their buffers live in device memory, reading
// results back, which SMs ran, stat lookups, and clock-domain conversions for the configured
// expectations.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kernel/op.h"
#include "sim/result.h"
#include "system/chip.h"
#include "system/workload.h"

namespace xpusim::workloads::ubench {

// A microbenchmark's buffers, from the chip's allocator (so that workloads of one kernel graph
// never share a byte): its results (a few words per launch) and its data, each 1 MiB-aligned,
// so that they never share a line or a page.
struct Buffers {
  kernel::Addr results = 0;
  kernel::Addr data = 0;  // 0 when it asked for no data
};
// Errors: the chip's memory is full (named by the allocator, with `workload`).
Result<Buffers> allocate(system::Chip& chip, std::string_view workload, std::uint64_t results_bytes,
                         std::uint64_t data_bytes = 0);

// The resolved value of a declared parameter (resolve_params fills in every one).
std::uint64_t param(const system::ParamValues& values, std::string_view name);

// Timing-only mode moves no data: an error naming `why` the workload needs it (a pointer chase
// follows loaded values; a clock64 result comes back through memory).
Status require_functional(const system::Chip& chip, std::string_view workload,
                          std::string_view why);
inline constexpr std::string_view kChase = "its addresses are values it loads (a pointer chase)";

Result<std::vector<std::uint64_t>> read_words(system::Chip& chip, kernel::Addr at, std::size_t n);

// SMs that issued at least one instruction, in id order.
std::vector<std::uint32_t> busy_sms(const system::Chip& chip);

// A counter or scalar stat by its full path, as a number. Errors: no such stat.
Result<double> stat_value(system::Chip& chip, const std::string& path);
// The sum of one stat over every SM (e.g. "shared_wavefronts").
Result<double> sum_over_sms(system::Chip& chip, std::string_view stat);
// The whole run's L2 hit rate (hits over hits + misses + merged misses) as a measurement;
// nothing when L2 saw no reads.
std::optional<system::Measurement> l2_hit_rate(system::Chip& chip);

// Configured figures converted to SM cycles.
double l2_to_sm_cycles(const config::ChipSpec& spec, double l2_cycles);
double ps_to_sm_cycles(const config::ChipSpec& spec, double ps);
double sm_cycles_to_ns(const config::ChipSpec& spec, double cycles);

// ceil(bytes / per_cycle): cycles a message holds a port.
inline std::uint64_t serialization(std::uint64_t bytes, std::uint64_t per_cycle) {
  return (bytes + per_cycle - 1) / per_cycle;
}

// An error unless the launch ran to completion without a fault.
Status check_completed(const system::Chip& chip, std::uint32_t launch, std::string_view workload);

}  // namespace xpusim::workloads::ubench
