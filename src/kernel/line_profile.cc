#include "kernel/line_profile.h"

#include <fmt/format.h>

#include <algorithm>
#include <string_view>

namespace xpusim::kernel {
namespace {

bool any(const LineCounts& c) {
  return c.warp_instructions > 0 ||
         std::any_of(c.stall.begin(), c.stall.end(), [](std::uint64_t s) { return s > 0; });
}

// A CSV field: quoted when it holds a comma, a quote or leading/trailing blanks.
std::string field(std::string_view s) {
  if (s.find_first_of(",\"") == std::string_view::npos) return std::string(s);
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + '"';
}

// A source line as a row shows it: without indentation, each run of blanks one space.
std::string squeezed(std::string_view s) {
  std::string out;
  bool blank = false;
  for (char c : s) {
    if (c == ' ' || c == '\t' || c == '\r') {
      blank = !out.empty();
      continue;
    }
    if (blank) out += ' ';
    blank = false;
    out += c;
  }
  return out;
}

}  // namespace

void LineProfile::add_source(const char* key, const std::string& name, const std::string& text) {
  for (Source& s : sources_) {
    if (s.name != name) continue;
    s.key = key;  // the same module read again: its counts go on
    last_ = nullptr;
    return;
  }
  Source s{.key = key, .name = name, .text = {""}, .lines = {}};
  std::string_view rest = text;
  while (!rest.empty()) {
    const auto nl = rest.find('\n');
    s.text.push_back(squeezed(rest.substr(0, nl)));
    if (nl == std::string_view::npos) break;
    rest.remove_prefix(nl + 1);
  }
  sources_.push_back(std::move(s));
  last_ = nullptr;
}

LineProfile::Source& LineProfile::find(const char* key) {
  for (Source& s : sources_)
    if (s.key == key) return s;
  // A warp of a source never registered (a caller's bug, but no reason to lose its counts).
  sources_.push_back(Source{.key = key, .name = key, .text = {}, .lines = {}});
  return sources_.back();
}

std::string LineProfile::csv() const {
  std::string out = "file,line,warp_instructions,active_lane_share,predicated_on_share";
  for (const char* n : kStallNames)
    out += fmt::format(",stall_{}", n);
  out += ",source\n";
  for (const Source& s : sources_) {
    for (std::size_t l = 0; l < s.lines.size(); ++l) {
      const LineCounts& c = s.lines[l];
      if (!any(c)) continue;
      const double slots = 32.0 * static_cast<double>(c.warp_instructions);
      const auto share = [&](std::uint64_t lanes) {
        return slots == 0 ? 0.0 : static_cast<double>(lanes) / slots;
      };
      out += fmt::format("{},{},{},{:.4f},{:.4f}", field(s.name), l, c.warp_instructions,
                         share(c.active_lanes), share(c.predicated_on));
      for (std::uint64_t v : c.stall)
        out += fmt::format(",{}", v);
      out += fmt::format(",{}\n", field(l < s.text.size() ? s.text[l] : std::string_view{}));
    }
  }
  return out;
}

std::size_t LineProfile::rows() const {
  std::size_t n = 0;
  for (const Source& s : sources_)
    n += std::count_if(s.lines.begin(), s.lines.end(), any);
  return n;
}

}  // namespace xpusim::kernel
