#include "config/key_schema.h"

#include <fmt/format.h>

#include <algorithm>

#include "config/units.h"

namespace xpusim::config {
namespace {

using Json = nlohmann::ordered_json;

constexpr std::string_view kDraft = "https://json-schema.org/draft/2020-12/schema";

std::vector<std::string_view> split(std::string_view text, char sep) {
  std::vector<std::string_view> out;
  for (std::size_t start = 0;;) {
    const std::size_t end = text.find(sep, start);
    out.push_back(text.substr(start, end == std::string_view::npos ? end : end - start));
    if (end == std::string_view::npos) return out;
    start = end + 1;
  }
}

// The node of one path segment below `node`, made on first use.
Json& step(Json& node, std::string_view seg) {
  if (seg == "*") {
    Json& any = node["additionalProperties"];
    if (!any.is_object()) any = Json::object();
    return any;
  }
  if (seg.ends_with("[]")) {
    Json& list = node["properties"][std::string(seg.substr(0, seg.size() - 2))];
    return list["items"];
  }
  return node["properties"][std::string(seg)];
}

Json& node_at(Json& root, std::string_view path) {
  Json* node = &root;
  for (std::string_view seg : split(path, '.'))
    node = &step(*node, seg);
  return *node;
}

void add_required(Json& root, std::string_view path) {
  const std::size_t dot = path.rfind('.');
  Json& parent = dot == std::string_view::npos ? root : node_at(root, path.substr(0, dot));
  parent["required"].push_back(std::string(path.substr(dot + 1)));
}

Json type_of(std::string_view type) {
  const auto parts = split(type, '|');
  if (parts.size() == 1) return std::string(type);
  Json out = Json::array();
  for (std::string_view p : parts)
    out.push_back(std::string(p));
  return out;
}

Json default_of(std::string_view text) {
  try {
    return Json::parse(text);
  } catch (const Json::exception&) {
    return std::string(text);  // plain YAML text such as 1us or hash
  }
}

// Every mapping with declared keys refuses others, as the readers do.
void close_mappings(Json& node) {
  if (!node.is_object()) return;
  if (node.contains("properties")) {
    if (!node.contains("type")) node["type"] = "object";
    if (!node.contains("additionalProperties")) node["additionalProperties"] = false;
    for (auto& [name, child] : node["properties"].items())
      close_mappings(child);
  }
  if (node.contains("items")) close_mappings(node["items"]);
  if (node.contains("additionalProperties")) close_mappings(node["additionalProperties"]);
}

std::string type_text(const Json& node) {
  if (!node.contains("type")) return "";
  if (node["type"].is_string()) return node["type"].get<std::string>();
  std::string out;
  for (const Json& t : node["type"])
    out += (out.empty() ? "" : " or ") + t.get<std::string>();
  return out;
}

std::string cell(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

void markdown_rows(const Json& node, const std::string& path, bool required, std::string& out) {
  if (!path.empty()) {
    std::string type = type_text(node);
    if (node.contains("enum")) {
      std::string values;
      for (const Json& v : node["enum"])
        values += (values.empty() ? "" : ", ") + v.get<std::string>();
      type += fmt::format(": {}", values);
    }
    const std::string def = required                   ? std::string("required")
                            : node.contains("default") ? "`" + node["default"].dump() + "`"
                                                       : std::string();
    out += fmt::format("| `{}` | {} | {} | {} |\n", path, cell(type), cell(def),
                       cell(node.value("description", "")));
  }
  if (node.contains("properties")) {
    const Json none = Json::array();
    const Json& names = node.contains("required") ? node["required"] : none;
    for (const auto& [name, child] : node["properties"].items()) {
      const bool req = std::find(names.begin(), names.end(), Json(name)) != names.end();
      markdown_rows(child, path.empty() ? name : path + "." + name, req, out);
    }
  }
  if (node.contains("items") && node["items"].is_object()) {
    markdown_rows(node["items"], path + "[]", false, out);
  }
  if (node.contains("additionalProperties") && node["additionalProperties"].is_object()) {
    markdown_rows(node["additionalProperties"], path + ".*", false, out);
  }
}

}  // namespace

std::vector<std::string> child_keys(std::span<const KeyDoc> keys, std::string_view parent) {
  for (const KeyDoc& k : keys) {
    if (k.path == parent && !k.same_as.empty()) return child_keys(keys, k.same_as);
  }
  std::vector<std::string> out;
  for (const KeyDoc& k : keys) {
    std::string_view rest = k.path;
    if (!parent.empty()) {
      if (!rest.starts_with(parent) || rest.size() <= parent.size() || rest[parent.size()] != '.') {
        continue;
      }
      rest.remove_prefix(parent.size() + 1);
    }
    if (rest.find('.') == std::string_view::npos && rest != "*") out.emplace_back(rest);
  }
  return out;
}

Json json_schema(std::string_view title, std::string_view description,
                 std::span<const KeyDoc> keys) {
  Json root = {
      {"$schema", kDraft}, {"title", title}, {"description", description}, {"type", "object"}};
  for (const KeyDoc& k : keys)
    node_at(root, k.path);  // keys appear in table order, whatever they copy
  for (const bool copies : {false, true}) {
    for (const KeyDoc& k : keys) {
      if (k.same_as.empty() == copies) continue;
      // A copy, taken before `node`: a reference into an ordered_json dies when its siblings grow.
      const Json from = copies ? node_at(root, k.same_as) : Json();
      Json& node = node_at(root, k.path);
      for (const char* part : {"properties", "items", "additionalProperties", "required"}) {
        if (from.contains(part)) node[part] = from[part];
      }
      if (!k.type.empty()) node["type"] = type_of(k.type);
      if (!k.description.empty()) node["description"] = k.description;
      if (!k.choices.empty()) {
        Json values = Json::array();
        for (std::string_view c : split(k.choices, '|'))
          values.push_back(std::string(c));
        node["enum"] = std::move(values);
      }
      if (!k.default_json.empty()) node["default"] = default_of(k.default_json);
      if (k.required) add_required(root, k.path);
    }
  }
  close_mappings(root);
  return root;
}

Json fields_json_schema(std::string_view title, std::string_view description,
                        std::span<const FieldDecl> fields) {
  Json root = {
      {"$schema", kDraft}, {"title", title}, {"description", description}, {"type", "object"}};
  for (const FieldDecl& f : fields) {
    Json& node = node_at(root, f.path);
    Json bounds = Json::object();  // of the value, or of a list's items
    if (!is_quantity(f.kind) && f.kind != ValueKind::kString) {
      bounds["minimum"] = f.min;
      if (f.max != kNoMax) bounds["maximum"] = f.max;
      if (f.power_of_two) bounds["x-power-of-two"] = true;
    }
    switch (f.kind) {
      case ValueKind::kInteger:
        node["type"] = "integer";
        node.update(bounds);
        break;
      case ValueKind::kString:
        node["type"] = "string";
        break;
      case ValueKind::kIntegerList:
        node["type"] = "array";
        bounds["type"] = "integer";
        node["items"] = std::move(bounds);
        break;
      case ValueKind::kSize:
        node["type"] = Json::array({"string", "integer"});  // a bare size is a byte count
        break;
      case ValueKind::kFrequency:
      case ValueKind::kBandwidth:
      case ValueKind::kTime:
        node["type"] = "string";
        break;
    }
    node["description"] = f.description;
    if (is_quantity(f.kind)) {
      node["x-unit"] = base_unit_name(unit_kind_of(f.kind));
      if (const std::string range = range_text(f); !range.empty()) node["x-range"] = range;
    }
    if (!f.choices.empty()) {
      Json values = Json::array();
      for (std::string_view c : split(f.choices, '|'))
        values.push_back(std::string(c));
      node["enum"] = std::move(values);
    }
    if (f.required) {
      add_required(root, f.path);
    } else if (!f.default_yaml.empty()) {
      node["default"] = default_of(f.default_yaml);
    }
  }
  close_mappings(root);
  return root;
}

std::string json_schema_markdown(const Json& schema) {
  std::string out =
      "| Key | Type | Default | Description |\n"
      "|---|---|---|---|\n";
  markdown_rows(schema, "", false, out);
  return out;
}

}  // namespace xpusim::config
