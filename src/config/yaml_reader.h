// Strict YAML reading against a declared schema (schema.h). Every problem becomes one line
// "FILE:LINE:COL: KEY.PATH: message", and all problems are collected, not just the first.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "config/schema.h"
#include "sim/result.h"

namespace xpusim::config {

// 1-based position in the source; line 0 means "no position" (e.g. the file cannot be read).
struct SourcePos {
  int line = 0;
  int column = 0;
};

// Collects errors for one source; take() returns them sorted by position.
class Diagnostics {
 public:
  explicit Diagnostics(std::string source_name) : source_(std::move(source_name)) {}

  const std::string& source() const { return source_; }
  // An empty key path is left out: "FILE:LINE:COL: message".
  void error(SourcePos pos, std::string_view key_path, std::string_view message);
  bool empty() const { return entries_.empty(); }
  std::size_t size() const { return entries_.size(); }
  std::vector<Error> take();

 private:
  struct Entry {
    SourcePos pos;
    std::string text;
  };
  std::string source_;
  std::vector<Entry> entries_;
};

// The value read for one declared field.
struct FieldValue {
  enum class State { kAbsent, kValid, kInvalid };

  std::string_view path;  // the FieldDecl's path
  State state = State::kAbsent;
  bool defaulted = false;
  std::uint64_t number = 0;         // integer and quantity kinds, in base units
  std::string text;                 // kString
  std::vector<std::uint64_t> list;  // kIntegerList
  SourcePos key_pos;                // the key; for a default, the enclosing mapping
  SourcePos value_pos;              // the value; for a default, the enclosing mapping

  bool ok() const { return state == State::kValid; }
};

// One FieldValue per declared field, in declaration order.
class FieldValues {
 public:
  explicit FieldValues(std::vector<FieldValue> values) : values_(std::move(values)) {}
  const std::vector<FieldValue>& all() const { return values_; }
  // Aborts on a path that is not declared: that is a bug in the caller, not bad input.
  const FieldValue& at(std::string_view path) const;

 private:
  std::vector<FieldValue> values_;
};

// Parses `yaml` and checks it against `fields`: unknown keys, missing required keys, wrong
// types, bad units, ranges, power-of-two and choices. Absent optional keys take their default.
// Syntax errors are reported too (then every field is absent).
FieldValues read_yaml_fields(std::string_view yaml, std::span<const FieldDecl> fields,
                             Diagnostics& diag);

}  // namespace xpusim::config
