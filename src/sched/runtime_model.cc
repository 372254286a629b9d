#include "sched/runtime_model.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>

#include "sim/clock.h"

namespace xpusim::sched {

namespace {

template <class T>
bool parse_number(std::string_view s, T& out) {
  const auto r = std::from_chars(s.data(), s.data() + s.size(), out);
  return r.ec == std::errc{} && r.ptr == s.data() + s.size();
}

Error bad(std::string_view text, std::string_view why) {
  return Error{fmt::format(
      "--runtime-model = '{}': {} (expected fixed:CYCLES or uniform:MIN-MAX, optionally "
      "followed by ,slowdown=S with S >= 0)",
      text, why)};
}

}  // namespace

std::uint64_t RuntimeModel::base_cycles(sim::Rng& rng) const {
  if (fixed()) return min_cycles;
  return min_cycles + rng.uniform(max_cycles - min_cycles + 1);
}

std::uint64_t RuntimeModel::cycles(std::uint64_t base, double occupancy) const {
  const double stretched = static_cast<double>(base) * (1.0 + slowdown * occupancy);
  return std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::llround(stretched)));
}

std::string RuntimeModel::describe() const {
  const std::string base = fixed() ? fmt::format("fixed {} cycles", min_cycles)
                                   : fmt::format("uniform {}-{} cycles", min_cycles, max_cycles);
  return slowdown == 0.0 ? base : fmt::format("{}, slowdown {} at full occupancy", base, slowdown);
}

Result<RuntimeModel> parse_runtime_model(std::string_view text) {
  RuntimeModel m;
  std::string_view rest = text;
  std::string_view options;
  if (const auto comma = rest.find(','); comma != std::string_view::npos) {
    options = rest.substr(comma + 1);
    rest = rest.substr(0, comma);
  }
  const auto colon = rest.find(':');
  if (colon == std::string_view::npos) return bad(text, "no ':' after the kind");
  const std::string_view kind = rest.substr(0, colon), value = rest.substr(colon + 1);
  if (kind == "fixed") {
    if (!parse_number(value, m.min_cycles) || m.min_cycles == 0 ||
        m.min_cycles > sim::kMaxUserCycles) {
      return bad(text, fmt::format("'{}' is not a whole number of cycles from 1 to {}", value,
                                   sim::kMaxUserCycles));
    }
    m.max_cycles = m.min_cycles;
  } else if (kind == "uniform") {
    const auto dash = value.find('-');
    if (dash == std::string_view::npos || !parse_number(value.substr(0, dash), m.min_cycles) ||
        !parse_number(value.substr(dash + 1), m.max_cycles)) {
      return bad(text, fmt::format("'{}' is not MIN-MAX in whole cycles", value));
    }
    if (m.min_cycles == 0 || m.min_cycles > m.max_cycles || m.max_cycles > sim::kMaxUserCycles) {
      return bad(text, fmt::format("range {}-{} needs 0 < MIN <= MAX <= {}", m.min_cycles,
                                   m.max_cycles, sim::kMaxUserCycles));
    }
  } else {
    return bad(text, fmt::format("unknown kind '{}'", kind));
  }
  if (!options.empty()) {
    constexpr std::string_view key = "slowdown=";
    if (!options.starts_with(key) || !parse_number(options.substr(key.size()), m.slowdown) ||
        !std::isfinite(m.slowdown) || m.slowdown < 0) {
      return bad(text, fmt::format("option '{}' is not slowdown=S with S >= 0", options));
    }
  }
  return m;
}

}  // namespace xpusim::sched
