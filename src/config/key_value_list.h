// "key=value,key=value,...": the form of every list-valued flag (--cp-timing, --timing,
// --cta-resources, --param). One splitter, so every such flag refuses a key given twice
// instead of silently keeping the last.
#pragma once

#include <fmt/format.h>

#include <set>
#include <string_view>

#include "sim/result.h"

namespace xpusim::config {

// Calls fn(item, key, value) for each comma-separated item, in order (an item without '='
// has key = item and value ""; fn decides whether that is an error). Stops at fn's first
// error. A key given twice is an error: "FLAG = TEXT: 'key' is given twice".
template <class F>
Status for_each_key_value(std::string_view flag, std::string_view text, F&& fn) {
  std::set<std::string_view> seen;
  std::string_view rest = text;
  while (!rest.empty()) {
    const auto comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    const auto eq = item.find('=');
    const std::string_view key = item.substr(0, eq);
    const std::string_view value = eq == std::string_view::npos ? "" : item.substr(eq + 1);
    if (!key.empty() && !seen.insert(key).second) {
      return Error{fmt::format("{} = {}: '{}' is given twice", flag, text, key)};
    }
    if (auto st = fn(item, key, value); !st) return st;
  }
  return Ok{};
}

}  // namespace xpusim::config
