#include "config/schema.h"

#include <fmt/format.h>

namespace xpusim::config {
namespace {

std::string bound_text(const FieldDecl& field, std::uint64_t v) {
  if (is_quantity(field.kind)) return format_quantity(v, unit_kind_of(field.kind));
  return fmt::format("{}", v);
}

// Markdown cells may not contain '|'.
std::string cell(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += "\\";
    out += c;
  }
  return out;
}

}  // namespace

bool is_quantity(ValueKind kind) {
  return kind == ValueKind::kFrequency || kind == ValueKind::kSize ||
         kind == ValueKind::kBandwidth || kind == ValueKind::kTime;
}

UnitKind unit_kind_of(ValueKind kind) {
  switch (kind) {
    case ValueKind::kFrequency:
      return UnitKind::kFrequency;
    case ValueKind::kSize:
      return UnitKind::kSize;
    case ValueKind::kBandwidth:
      return UnitKind::kBandwidth;
    case ValueKind::kTime:
      return UnitKind::kTime;
    default:
      break;
  }
  check_failed("is_quantity(kind)", __FILE__, __LINE__, "not a quantity kind");
}

std::string_view value_kind_name(ValueKind kind) {
  switch (kind) {
    case ValueKind::kInteger:
      return "integer";
    case ValueKind::kString:
      return "string";
    case ValueKind::kIntegerList:
      return "list of integers";
    case ValueKind::kFrequency:
      return "frequency";
    case ValueKind::kSize:
      return "size";
    case ValueKind::kBandwidth:
      return "bandwidth";
    case ValueKind::kTime:
      return "time";
  }
  check_failed("kind", __FILE__, __LINE__, "unhandled ValueKind");
}

std::string range_text(const FieldDecl& field) {
  std::string out;
  if (field.kind == ValueKind::kString) {
    if (!field.choices.empty()) {
      out = "one of ";
      for (char c : field.choices)
        out += c == '|' ? std::string(", ") : std::string(1, c);
    }
    return out;
  }
  if (field.max != kNoMax) {
    out = fmt::format("[{}, {}]", bound_text(field, field.min), bound_text(field, field.max));
  } else if (field.min > 0) {
    out = fmt::format(">= {}", bound_text(field, field.min));
  }
  if (field.power_of_two) out += out.empty() ? "power of 2" : ", power of 2";
  return out;
}

std::string schema_markdown(std::span<const FieldDecl> fields) {
  std::string out =
      "| Key | Type | Unit | Range | Default | Description |\n"
      "|---|---|---|---|---|---|\n";
  for (const FieldDecl& f : fields) {
    const std::string unit =
        is_quantity(f.kind) ? std::string(base_unit_name(unit_kind_of(f.kind))) : "";
    const std::string range = range_text(f);
    const std::string def = f.required ? "required" : fmt::format("`{}`", f.default_yaml);
    out += fmt::format("| `{}` | {} | {} | {} | {} | {} |\n", f.path, value_kind_name(f.kind), unit,
                       cell(range), cell(def), cell(f.description));
  }
  return out;
}

}  // namespace xpusim::config
