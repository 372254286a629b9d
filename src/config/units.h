// Quantity strings ("1.98GHz", "228 KiB", "3.35TB/s", "500ns") parsed once, at load, into
// integers in base units with exact decimal arithmetic, and formatted back for humans.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "sim/result.h"

namespace xpusim::config {

// Base units: Hz, bytes, bytes per second, picoseconds.
enum class UnitKind { kFrequency, kSize, kBandwidth, kTime };

// "frequency", "size", ...
std::string_view unit_kind_name(UnitKind kind);
// "Hz", "bytes", "bytes/s", "ps".
std::string_view base_unit_name(UnitKind kind);
// Comma-separated list of the unit suffixes `parse_quantity` accepts for `kind`.
std::string valid_units(UnitKind kind);

// Parses NUMBER [space] UNIT. The number is a non-negative decimal ("1.98"); the result must be
// a whole number of base units that fits in 64 bits. A size may omit the unit (bytes).
// Error messages name the text and the rule; they carry no file position.
Result<std::uint64_t> parse_quantity(std::string_view text, UnitKind kind);

inline Result<std::uint64_t> parse_frequency_hz(std::string_view text) {
  return parse_quantity(text, UnitKind::kFrequency);
}
inline Result<std::uint64_t> parse_size_bytes(std::string_view text) {
  return parse_quantity(text, UnitKind::kSize);
}
inline Result<std::uint64_t> parse_bandwidth_bytes_per_s(std::string_view text) {
  return parse_quantity(text, UnitKind::kBandwidth);
}
inline Result<std::uint64_t> parse_time_ps(std::string_view text) {
  return parse_quantity(text, UnitKind::kTime);
}

// "START:END" in simulated time ("10us:20us"), each side as parse_time_ps reads it; an empty
// side means from the start (0) / to the end (end = kNoEnd). START must be before END. Errors
// name the text and the rule, without a flag or a file position.
struct TimeWindow {
  static constexpr std::uint64_t kNoEnd = ~std::uint64_t{0};
  std::uint64_t begin = 0;
  std::uint64_t end = kNoEnd;
};
Result<TimeWindow> parse_time_window(std::string_view text);

// Shortest exact rendering ("1.98 GHz", "50 MiB", "80 GB", "3.35 TB/s", "1.5 ns"); a value with
// no exact short form is rounded to 3 decimals in the largest unit that fits.
std::string format_quantity(std::uint64_t value, UnitKind kind);

inline std::string format_frequency(std::uint64_t hz) {
  return format_quantity(hz, UnitKind::kFrequency);
}
inline std::string format_size(std::uint64_t bytes) {
  return format_quantity(bytes, UnitKind::kSize);
}
inline std::string format_bandwidth(std::uint64_t bytes_per_s) {
  return format_quantity(bytes_per_s, UnitKind::kBandwidth);
}
inline std::string format_time(std::uint64_t ps) {
  return format_quantity(ps, UnitKind::kTime);
}

}  // namespace xpusim::config
