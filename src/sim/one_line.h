// one_line(): user text made safe to put in an error message, which is one line (result.h).
// Readers quote what the user wrote (a key, a scalar, a parser's "unknown escape character"),
// and a YAML or JSON string may hold any control character, a line break included.
#pragma once

#include <string>
#include <string_view>

namespace xpusim::sim {

// Control characters as C escapes: \n, \r, \t, other bytes below 0x20 and 0x7F as \xNN.
// Everything else (UTF-8 included) is kept as it is.
inline std::string one_line(std::string_view text) {
  constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u != 0x7F) {
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else {
      out += "\\x";
      out += kHex[u >> 4];
      out += kHex[u & 0xF];
    }
  }
  return out;
}

}  // namespace xpusim::sim
