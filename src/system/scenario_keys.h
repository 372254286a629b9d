// The keys of a scenario file, declared once as data: the reader (scenario.cc) takes each
// mapping's valid keys from this table and `xpusim schema scenario` prints it (docs/run.md).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include <nlohmann/json.hpp>

#include "config/key_schema.h"
#include "core/sm_timing.h"
#include "cp/kernel_agent.h"

namespace xpusim::system {

// Every key, in file order; sm_timing's and cp_timing's fields are the tables below.
std::span<const config::KeyDoc> scenario_keys();

// The SmTiming fields a scenario may override (sm_timing), with the chip schema's ranges.
struct TimingField {
  std::string_view name;
  std::uint32_t core::SmTiming::*member;
  std::uint32_t min;
  std::uint32_t max;
};
std::span<const TimingField> sm_timing_fields();

// The command processor's costs by name (cp_timing; cp::AgentTiming), each 0 to
// kMaxCpCycles, and the flag kSkipUnneededCleanup.
struct CpTimingField {
  std::string_view name;
  std::uint32_t cp::AgentTiming::*member;
};
std::span<const CpTimingField> cp_timing_fields();
inline constexpr std::uint32_t kMaxCpCycles = 1'000'000;
inline constexpr std::string_view kSkipUnneededCleanup = "skip_unneeded_cleanup";

// trace_max_events' largest value.
inline constexpr std::uint64_t kMaxTraceEvents = 1'000'000'000;

// The scenario file as a JSON Schema (config::json_schema), with the registered policies and
// warp schedulers as the choices of their keys.
nlohmann::ordered_json scenario_schema();

}  // namespace xpusim::system
