// A config schema declared as data: one FieldDecl per key. The same declaration drives
// validation (yaml_reader.h) and the reference table in the docs (schema_markdown).
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>

#include "config/units.h"

namespace xpusim::config {

enum class ValueKind {
  kInteger,      // plain decimal integer
  kString,       // any scalar; `choices` may restrict it
  kIntegerList,  // sequence of integers; the range applies to each element
  kFrequency,    // quantity string -> Hz
  kSize,         // quantity string or plain integer -> bytes
  kBandwidth,    // quantity string -> bytes/s
  kTime,         // quantity string -> ps
};

inline constexpr std::uint64_t kNoMax = std::numeric_limits<std::uint64_t>::max();

// Fields are written with designated initializers, so the members stay in this order.
struct FieldDecl {
  std::string_view path = {};  // dotted key path, "sm.tensor.cores"; each prefix is a section
  ValueKind kind = ValueKind::kInteger;
  std::uint64_t min = 0;          // in base units (Hz, bytes, ...); ignored for strings
  std::uint64_t max = kNoMax;     // inclusive
  bool power_of_two = false;      // integers only: hardware indexes it with bit fields
  std::string_view choices = {};  // strings only: "A|B|C"; empty means any text
  bool required = true;
  std::string_view default_yaml = {};  // YAML text of the value used when an optional key is absent
  std::string_view description = {};   // one line, for the reference table
};

// True for the kinds that carry a unit (frequency, size, bandwidth, time).
bool is_quantity(ValueKind kind);
UnitKind unit_kind_of(ValueKind kind);  // requires is_quantity(kind)

// "integer", "string", "size", ...
std::string_view value_kind_name(ValueKind kind);
// "[1, 16]", "[1 MHz, 10 GHz]", ">= 1", or "" when any value is allowed.
std::string range_text(const FieldDecl& field);

// Markdown table with one row per field: key, type, unit, range, default, description.
std::string schema_markdown(std::span<const FieldDecl> fields);

}  // namespace xpusim::config
