// What the schema tests share: a reader's schema (`xpusim schema KIND`) held against the reader
// and the shipped files, so the two cannot drift.
//  - undeclared_keys: the keys of a document the schema does not declare (the shipped files
//    must have none);
//  - probe_doc / valid_keys_in: a document with an unknown key `zzz_probe` in one mapping; the
//    reader's unknown-key error lists that mapping's valid keys, which must be the schema's.
#pragma once

#include <yaml-cpp/yaml.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace xpusim::test {

using Schema = nlohmann::ordered_json;

inline constexpr std::string_view kProbeKey = "zzz_probe";

// The key paths of `doc` (a mapping) that `schema` does not declare, such as "runs[1].nmae".
inline void undeclared_keys(const YAML::Node& doc, const Schema& node, const std::string& path,
                            std::vector<std::string>& out) {
  if (doc.IsMap()) {
    for (const auto& kv : doc) {
      const std::string key = kv.first.Scalar();
      const std::string at = path.empty() ? key : path + "." + key;
      if (node.contains("properties") && node["properties"].contains(key)) {
        undeclared_keys(kv.second, node["properties"][key], at, out);
      } else if (node.contains("additionalProperties") &&
                 node["additionalProperties"].is_object()) {
        undeclared_keys(kv.second, node["additionalProperties"], at, out);
      } else {
        out.push_back(at);
      }
    }
  } else if (doc.IsSequence() && node.contains("items") && node["items"].is_object()) {
    for (std::size_t i = 0; i < doc.size(); ++i)
      undeclared_keys(doc[i], node["items"], path + "[" + std::to_string(i) + "]", out);
  }
}

inline std::vector<std::string> undeclared_keys(const YAML::Node& doc, const Schema& schema) {
  std::vector<std::string> out;
  undeclared_keys(doc, schema, "", out);
  return out;
}

// Every mapping of the schema with declared keys: its path ("", "runs[]", "buffers.*") and
// those keys.
struct Mapping {
  std::string path;
  std::vector<std::string> keys;
};

inline void mappings(const Schema& node, const std::string& path, std::vector<Mapping>& out) {
  if (node.contains("properties")) {
    Mapping m{path, {}};
    for (const auto& [key, child] : node["properties"].items()) {
      m.keys.push_back(key);
      mappings(child, path.empty() ? key : path + "." + key, out);
    }
    out.push_back(std::move(m));
  }
  if (node.contains("items") && node["items"].is_object()) {
    mappings(node["items"], path + "[]", out);
  }
  if (node.contains("additionalProperties") && node["additionalProperties"].is_object()) {
    mappings(node["additionalProperties"], path + ".*", out);
  }
}

inline std::vector<Mapping> mappings(const Schema& schema) {
  std::vector<Mapping> out;
  mappings(schema, "", out);
  return out;
}

// `base` with kProbeKey added in the mapping at `path`, made on the way as needed: "x[]" is the
// first item of list x, "*" the key "x".
inline std::string probe_doc(std::string_view base, std::string_view path) {
  YAML::Node doc = YAML::Load(std::string(base));
  YAML::Node cur = doc;
  std::string_view rest = path;
  while (!rest.empty()) {
    const std::size_t dot = rest.find('.');
    std::string seg(rest.substr(0, dot));
    rest = dot == std::string_view::npos ? std::string_view() : rest.substr(dot + 1);
    if (seg == "*") seg = "x";
    if (seg.ends_with("[]")) {
      seg.resize(seg.size() - 2);
      if (!cur[seg].IsSequence()) cur[seg] = YAML::Load("[{}]");
      YAML::Node list = cur[seg];
      YAML::Node first = list[0];
      cur.reset(first);
    } else {
      if (!cur[seg].IsMap()) cur[seg] = YAML::Load("{}");
      YAML::Node next = cur[seg];
      cur.reset(next);
    }
  }
  cur[std::string(kProbeKey)] = 1;
  YAML::Emitter out;
  out << doc;
  return out.c_str();
}

// The valid keys named by the first error about kProbeKey ("... unknown key 'zzz_probe'...;
// valid keys ...: a, b, c"); empty when no error names it.
inline std::vector<std::string> valid_keys_in(const std::vector<std::string>& errors) {
  for (const std::string& e : errors) {
    if (e.find("unknown key '" + std::string(kProbeKey) + "'") == std::string::npos) continue;
    const std::size_t valid = e.find("valid keys");
    if (valid == std::string::npos) return {};
    const std::size_t colon = e.find(": ", valid);
    std::vector<std::string> keys;
    std::string_view list = std::string_view(e).substr(colon + 2);
    while (!list.empty()) {
      const std::size_t comma = list.find(", ");
      keys.emplace_back(list.substr(0, comma));
      list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 2);
    }
    return keys;
  }
  return {};
}

inline std::vector<std::filesystem::path> files_in(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> out;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    const std::string ext = e.path().extension().string();
    if (ext == ".yaml" || ext == ".yml" || ext == ".json") out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace xpusim::test
