// The keys a config reader accepts, declared once as data: the reader takes each mapping's valid
// keys from the table (child_keys), and `xpusim schema KIND` prints the same table as a JSON
// Schema (json_schema), so the reference and the reader cannot drift. The chip file's FieldDecl
// table (schema.h) prints through fields_json_schema.
#pragma once

#include <nlohmann/json.hpp>

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "config/schema.h"

namespace xpusim::config {

// Fields are written with designated initializers, so the members stay in this order.
struct KeyDoc {
  // Dotted key path: "launch.grid". A segment "x[]" is list x's items ("runs[].name"); a segment
  // "*" is any key of a mapping whose keys are names ("buffers.*.bytes").
  std::string_view path = {};
  // JSON Schema type, or several joined by '|' ("integer|array": a dimension as 4 or [4, 1, 1]).
  std::string_view type = {};
  std::string_view description = {};
  std::string_view choices = {};       // "a|b|c": the values a string may take; empty: any
  std::string_view default_json = {};  // JSON text of the value used when the key is absent
  bool required = false;
  // The path of an earlier key whose sub-keys this one repeats (kernels[].launch: launch).
  std::string_view same_as = {};
};

// The keys directly under `parent` ("" for the top level, "runs[]", "buffers.*"), in table
// order; a key declared same_as another takes that one's children.
std::vector<std::string> child_keys(std::span<const KeyDoc> keys, std::string_view parent);

// A JSON Schema (draft 2020-12) of the table: nested "properties", "items" for lists,
// "additionalProperties" for "*" and false for every mapping with declared keys (the readers
// refuse unknown keys), "required", "enum", "default" and "description".
nlohmann::ordered_json json_schema(std::string_view title, std::string_view description,
                                   std::span<const KeyDoc> keys);

// The same for a FieldDecl table (the chip file): a quantity is a string with its unit
// ("1.98 GHz"; a size may be a bare byte count) and carries "x-unit" (its base unit) and
// "x-range" (range_text) beside the integer "minimum"/"maximum" of the plain integers.
nlohmann::ordered_json fields_json_schema(std::string_view title, std::string_view description,
                                          std::span<const FieldDecl> fields);

// Markdown table of a schema made by json_schema: one row per key path (Key, Type, Default,
// Description).
std::string json_schema_markdown(const nlohmann::ordered_json& schema);

}  // namespace xpusim::config
