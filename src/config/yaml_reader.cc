#include "config/yaml_reader.h"

#include "config/yaml_node.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <string>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include "sim/one_line.h"

#include "sim/suggest.h"

namespace xpusim::config {
namespace {

std::string join_path(std::string_view section, std::string_view key) {
  return section.empty() ? std::string(key) : fmt::format("{}.{}", section, key);
}

SourcePos pos_of(const YAML::Mark& mark) {
  return yaml_pos(mark);
}

// yaml-cpp places an empty value at the start of the next token; the key is the better spot.
SourcePos value_pos_of(const YAML::Node& value, SourcePos key_pos) {
  return value.IsNull() ? key_pos : pos_of(value.Mark());
}

std::string describe(const YAML::Node& node) {
  return describe_yaml_node(node);
}

std::string expected_text(ValueKind kind) {
  switch (kind) {
    case ValueKind::kInteger:
      return "an integer";
    case ValueKind::kString:
      return "a string";
    case ValueKind::kIntegerList:
      return "a sequence of integers";
    case ValueKind::kFrequency:
      return "a frequency such as \"1.83GHz\"";
    case ValueKind::kSize:
      return "a size such as \"50MiB\"";
    case ValueKind::kBandwidth:
      return "a bandwidth such as \"3.35TB/s\"";
    case ValueKind::kTime:
      return "a time such as \"500ns\"";
  }
  return "a value";
}

std::vector<std::string> split_choices(std::string_view choices) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= choices.size()) {
    const std::size_t bar = std::min(choices.find('|', start), choices.size());
    out.emplace_back(choices.substr(start, bar - start));
    start = bar + 1;
  }
  return out;
}

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c)) != 0;
  });
}

// Reads values and sections of one document, reporting into `diag`.
class SchemaWalker {
 public:
  SchemaWalker(std::span<const FieldDecl> fields, Diagnostics& diag)
      : fields_(fields), diag_(diag) {
    values_.reserve(fields.size());
    for (const FieldDecl& f : fields) {
      FieldValue v;
      v.path = f.path;
      values_.push_back(std::move(v));
    }
  }

  void walk_document(const YAML::Node& root) {
    if (root.IsNull()) {
      diag_.error(SourcePos{1, 1}, "",
                  fmt::format("empty document; expected a mapping with keys {}", key_list("")));
      return;
    }
    if (!root.IsMap()) {
      diag_.error(pos_of(root.Mark()), "",
                  fmt::format("expected a mapping at the top level, got {}", describe(root)));
      return;
    }
    walk_mapping(root, "", pos_of(root.Mark()));
  }

  void apply_defaults() {
    for (std::size_t i = 0; i < fields_.size(); ++i) {
      const FieldDecl& f = fields_[i];
      FieldValue& v = values_[i];
      if (v.state != FieldValue::State::kAbsent || f.required) continue;
      // A default is declared by us, not typed by the user: a bad one is a bug.
      Diagnostics scratch("<default>");
      const YAML::Node node = YAML::Load(std::string(f.default_yaml));
      const SourcePos where = enclosing_section_pos(f.path);
      read_value(f, node, std::string(f.path), where, v, scratch);
      XPUSIM_CHECK(scratch.empty(), "a schema default does not satisfy its own field");
      v.defaulted = true;
    }
  }

  std::vector<FieldValue> take_values() { return std::move(values_); }

 private:
  std::optional<std::size_t> field_index(std::string_view path) const {
    for (std::size_t i = 0; i < fields_.size(); ++i) {
      if (fields_[i].path == path) return i;
    }
    return std::nullopt;
  }

  // "sm.tensor.cores" is inside "sm" and "sm.tensor"; everything is inside "".
  static bool is_inside(std::string_view path, std::string_view section) {
    if (section.empty()) return true;
    return path.size() > section.size() && path.starts_with(section) && path[section.size()] == '.';
  }

  bool is_section(std::string_view path) const {
    return std::any_of(fields_.begin(), fields_.end(),
                       [&](const FieldDecl& f) { return is_inside(f.path, path); });
  }

  bool section_has_required(std::string_view path) const {
    return std::any_of(fields_.begin(), fields_.end(),
                       [&](const FieldDecl& f) { return f.required && is_inside(f.path, path); });
  }

  // Direct child key names of a section ("" is the top level), in declaration order.
  std::vector<std::string> children(std::string_view section) const {
    std::vector<std::string> out;
    for (const FieldDecl& f : fields_) {
      if (!is_inside(f.path, section)) continue;
      std::string_view rest = f.path;
      if (!section.empty()) rest.remove_prefix(section.size() + 1);
      std::string child(rest.substr(0, rest.find('.')));
      if (std::find(out.begin(), out.end(), child) == out.end()) out.push_back(std::move(child));
    }
    return out;
  }

  std::string key_list(std::string_view section) const {
    std::string out;
    for (const std::string& c : children(section))
      out += (out.empty() ? "" : ", ") + c;
    return out;
  }

  SourcePos enclosing_section_pos(std::string_view path) const {
    std::string_view section = path;
    while (true) {
      const std::size_t dot = section.rfind('.');
      section = dot == std::string_view::npos ? std::string_view() : section.substr(0, dot);
      auto it = section_pos_.find(std::string(section));
      if (it != section_pos_.end()) return it->second;
      if (section.empty()) return SourcePos{1, 1};
    }
  }

  void walk_mapping(const YAML::Node& map, const std::string& section, SourcePos map_pos) {
    section_pos_[section] = map_pos;
    const std::vector<std::string> valid = children(section);
    std::map<std::string, SourcePos> seen;
    for (const auto& entry : map) {
      const YAML::Node& key_node = entry.first;
      const YAML::Node& value = entry.second;
      const SourcePos key_pos = pos_of(key_node.Mark());
      if (!key_node.IsScalar()) {
        diag_.error(key_pos, section,
                    fmt::format("keys must be plain strings, got {}", describe(key_node)));
        continue;
      }
      const std::string& key = key_node.Scalar();
      const std::string path = join_path(section, key);
      if (auto [it, inserted] = seen.emplace(key, key_pos); !inserted) {
        diag_.error(key_pos, path,
                    fmt::format("duplicate key; first given at line {}", it->second.line));
        continue;
      }
      if (auto index = field_index(path)) {
        read_value(fields_[*index], value, path, key_pos, values_[*index], diag_);
      } else if (is_section(path)) {
        if (value.IsMap()) {
          walk_mapping(value, path, pos_of(value.Mark()));
        } else {
          diag_.error(value_pos_of(value, key_pos), path,
                      fmt::format("expected a mapping with keys {}, got {}", key_list(path),
                                  describe(value)));
        }
      } else {
        diag_.error(key_pos, path,
                    fmt::format("unknown key '{}'{}; valid keys here: {}", key,
                                sim::did_you_mean(key, valid), key_list(section)));
      }
    }
    for (const std::string& child : valid) {
      if (seen.contains(child)) continue;
      const std::string path = join_path(section, child);
      if (auto index = field_index(path)) {
        const FieldDecl& f = fields_[*index];
        if (f.required) {
          diag_.error(
              map_pos, path,
              fmt::format("missing required key '{}' ({}{}{})", child, value_kind_name(f.kind),
                          f.description.empty() ? "" : ": ", f.description));
        }
      } else if (section_has_required(path)) {
        diag_.error(map_pos, path,
                    fmt::format("missing required section '{}' (keys: {})", child, key_list(path)));
      }
    }
  }

  // Reads one field; returns with `out.state` valid or invalid.
  static void read_value(const FieldDecl& f, const YAML::Node& node, const std::string& path,
                         SourcePos key_pos, FieldValue& out, Diagnostics& diag) {
    out.key_pos = key_pos;
    out.value_pos = value_pos_of(node, key_pos);
    const bool good = f.kind == ValueKind::kIntegerList
                          ? read_list(f, node, path, out, diag)
                          : read_scalar(f, node, path, out.value_pos, out, diag);
    out.state = good ? FieldValue::State::kValid : FieldValue::State::kInvalid;
  }

  static bool read_list(const FieldDecl& f, const YAML::Node& node, const std::string& path,
                        FieldValue& out, Diagnostics& diag) {
    if (!node.IsSequence()) {
      diag.error(out.value_pos, path,
                 fmt::format("expected {}, got {}", expected_text(f.kind), describe(node)));
      return false;
    }
    bool good = true;
    FieldDecl element = f;
    element.kind = ValueKind::kInteger;
    for (std::size_t i = 0; i < node.size(); ++i) {
      FieldValue item;
      const YAML::Node child = node[i];
      const SourcePos pos = value_pos_of(child, out.value_pos);
      if (read_scalar(element, child, fmt::format("{}[{}]", path, i), pos, item, diag)) {
        out.list.push_back(item.number);
      } else {
        good = false;
      }
    }
    return good;
  }

  static bool read_scalar(const FieldDecl& f, const YAML::Node& node, const std::string& path,
                          SourcePos pos, FieldValue& out, Diagnostics& diag) {
    if (!node.IsScalar()) {
      diag.error(pos, path,
                 fmt::format("expected {}, got {}", expected_text(f.kind), describe(node)));
      return false;
    }
    const std::string& text = node.Scalar();
    if (f.kind == ValueKind::kString) {
      if (f.choices.empty()) {
        out.text = text;
        return true;
      }
      const std::vector<std::string> choices = split_choices(f.choices);
      if (std::find(choices.begin(), choices.end(), text) != choices.end()) {
        out.text = text;
        return true;
      }
      diag.error(pos, path,
                 fmt::format("\"{}\" is not one of {}{}", text, fmt::join(choices, ", "),
                             sim::did_you_mean(text, choices)));
      return false;
    }

    std::uint64_t value = 0;
    if (is_quantity(f.kind)) {
      Result<std::uint64_t> parsed = parse_quantity(text, unit_kind_of(f.kind));
      if (!parsed) {
        diag.error(pos, path, parsed.error().message);
        return false;
      }
      value = *parsed;
    } else if (text.starts_with('-') && all_digits(std::string_view(text).substr(1))) {
      diag.error(pos, path, fmt::format("{} is out of range {}", text, range_text(f)));
      return false;
    } else if (!all_digits(text)) {
      diag.error(pos, path,
                 fmt::format("expected {}, got {}", expected_text(f.kind), describe(node)));
      return false;
    } else {
      for (char c : text) {
        if (__builtin_mul_overflow(value, 10U, &value) ||
            __builtin_add_overflow(value, static_cast<std::uint64_t>(c - '0'), &value)) {
          diag.error(pos, path, fmt::format("{} does not fit in 64 bits", text));
          return false;
        }
      }
    }

    const auto shown = [&](std::uint64_t v) {
      return is_quantity(f.kind) ? format_quantity(v, unit_kind_of(f.kind)) : fmt::format("{}", v);
    };
    if (value < f.min || value > f.max) {
      diag.error(pos, path, fmt::format("{} is out of range {}", shown(value), range_text(f)));
      return false;
    }
    if (f.power_of_two && (value & (value - 1)) != 0) {
      diag.error(pos, path, fmt::format("{} is not a power of two", shown(value)));
      return false;
    }
    out.number = value;
    return true;
  }

  std::span<const FieldDecl> fields_;
  Diagnostics& diag_;
  std::vector<FieldValue> values_;
  std::map<std::string, SourcePos> section_pos_;  // sections present in the document
};

}  // namespace

void Diagnostics::error(SourcePos pos, std::string_view key_path, std::string_view message) {
  std::string text = source_;
  if (pos.line > 0) text += fmt::format(":{}:{}", pos.line, pos.column);
  text += ": ";
  if (!key_path.empty()) text += fmt::format("{}: ", key_path);
  text += message;
  // Keys and values are quoted as the user wrote them, line breaks included.
  entries_.push_back(Entry{pos, sim::one_line(text)});
}

std::vector<Error> Diagnostics::take() {
  std::stable_sort(entries_.begin(), entries_.end(), [](const Entry& a, const Entry& b) {
    return std::pair(a.pos.line, a.pos.column) < std::pair(b.pos.line, b.pos.column);
  });
  std::vector<Error> out;
  out.reserve(entries_.size());
  for (Entry& e : entries_)
    out.push_back(Error{std::move(e.text)});
  entries_.clear();
  return out;
}

const FieldValue& FieldValues::at(std::string_view path) const {
  for (const FieldValue& v : values_) {
    if (v.path == path) return v;
  }
  check_failed("path", __FILE__, __LINE__, "FieldValues::at: path is not declared in the schema");
}

FieldValues read_yaml_fields(std::string_view yaml, std::span<const FieldDecl> fields,
                             Diagnostics& diag) {
  SchemaWalker walker(fields, diag);
  YAML::Node root;
  try {
    root = YAML::Load(std::string(yaml));
  } catch (const YAML::Exception& e) {
    diag.error(pos_of(e.mark), "", fmt::format("YAML syntax error: {}", e.msg));
    return FieldValues(walker.take_values());
  }
  walker.walk_document(root);
  walker.apply_defaults();
  return FieldValues(walker.take_values());
}

}  // namespace xpusim::config
