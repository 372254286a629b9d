#include "config/units.h"

#include <array>
#include <cctype>
#include <numeric>
#include <span>

#include <fmt/format.h>

namespace xpusim::config {
namespace {

[[noreturn]] void unhandled_kind() {
  check_failed("kind", __FILE__, __LINE__, "unhandled UnitKind");
}

struct Unit {
  std::string_view suffix;
  std::uint64_t factor;  // base units per one of this unit
};

constexpr std::uint64_t kKi = 1024;

constexpr std::array<Unit, 4> kFrequencyUnits{{
    {"Hz", 1},
    {"kHz", 1'000},
    {"MHz", 1'000'000},
    {"GHz", 1'000'000'000},
}};

constexpr std::array<Unit, 9> kSizeUnits{{
    {"B", 1},
    {"KB", 1'000},
    {"MB", 1'000'000},
    {"GB", 1'000'000'000},
    {"TB", 1'000'000'000'000},
    {"KiB", kKi},
    {"MiB", kKi* kKi},
    {"GiB", kKi* kKi* kKi},
    {"TiB", kKi* kKi* kKi* kKi},
}};

constexpr std::array<Unit, 9> kBandwidthUnits{{
    {"B/s", 1},
    {"KB/s", 1'000},
    {"MB/s", 1'000'000},
    {"GB/s", 1'000'000'000},
    {"TB/s", 1'000'000'000'000},
    {"KiB/s", kKi},
    {"MiB/s", kKi* kKi},
    {"GiB/s", kKi* kKi* kKi},
    {"TiB/s", kKi* kKi* kKi* kKi},
}};

constexpr std::array<Unit, 5> kTimeUnits{{
    {"ps", 1},
    {"ns", 1'000},
    {"us", 1'000'000},
    {"ms", 1'000'000'000},
    {"s", 1'000'000'000'000},
}};

std::span<const Unit> units_of(UnitKind kind) {
  switch (kind) {
    case UnitKind::kFrequency:
      return kFrequencyUnits;
    case UnitKind::kSize:
      return kSizeUnits;
    case UnitKind::kBandwidth:
      return kBandwidthUnits;
    case UnitKind::kTime:
      return kTimeUnits;
  }
  unhandled_kind();
}

// The noun used in "not a whole number of ...".
std::string_view base_unit_noun(UnitKind kind) {
  switch (kind) {
    case UnitKind::kFrequency:
      return "hertz";
    case UnitKind::kSize:
      return "bytes";
    case UnitKind::kBandwidth:
      return "bytes per second";
    case UnitKind::kTime:
      return "picoseconds";
  }
  unhandled_kind();
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
    s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
    s.remove_suffix(1);
  return s;
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

Error unknown_unit(std::string_view text, std::string_view unit, UnitKind kind) {
  std::string hint;
  for (const Unit& u : units_of(kind)) {
    if (iequals(u.suffix, unit)) hint = fmt::format(" (did you mean \"{}\"?)", u.suffix);
  }
  return Error{fmt::format("unknown {} unit \"{}\" in \"{}\"{}; valid units: {}",
                           unit_kind_name(kind), unit, text, hint, valid_units(kind))};
}

}  // namespace

std::string_view unit_kind_name(UnitKind kind) {
  switch (kind) {
    case UnitKind::kFrequency:
      return "frequency";
    case UnitKind::kSize:
      return "size";
    case UnitKind::kBandwidth:
      return "bandwidth";
    case UnitKind::kTime:
      return "time";
  }
  unhandled_kind();
}

std::string_view base_unit_name(UnitKind kind) {
  switch (kind) {
    case UnitKind::kFrequency:
      return "Hz";
    case UnitKind::kSize:
      return "bytes";
    case UnitKind::kBandwidth:
      return "bytes/s";
    case UnitKind::kTime:
      return "ps";
  }
  unhandled_kind();
}

std::string valid_units(UnitKind kind) {
  std::string out;
  for (const Unit& u : units_of(kind)) {
    if (!out.empty()) out += ", ";
    out += u.suffix;
  }
  return out;
}

Result<std::uint64_t> parse_quantity(std::string_view raw, UnitKind kind) {
  const std::string_view text = trim(raw);
  if (text.empty()) {
    return Error{fmt::format("empty {} value; expected a number and a unit ({})",
                             unit_kind_name(kind), valid_units(kind))};
  }
  if (text.front() == '-') {
    return Error{fmt::format("\"{}\" is negative; a {} must be >= 0", text, unit_kind_name(kind))};
  }

  // NUMBER := DIGITS ['.' DIGITS]
  std::size_t pos = 0;
  auto digits_from = [&](std::size_t start) {
    std::size_t end = start;
    while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end])))
      ++end;
    return end;
  };
  const std::size_t int_end = digits_from(0);
  std::string_view int_digits = text.substr(0, int_end);
  std::string_view frac_digits;
  pos = int_end;
  if (pos < text.size() && text[pos] == '.') {
    const std::size_t frac_end = digits_from(pos + 1);
    frac_digits = text.substr(pos + 1, frac_end - pos - 1);
    pos = frac_end;
  }
  if (int_digits.empty() && frac_digits.empty()) {
    return Error{fmt::format("\"{}\" is not a number followed by a {} unit ({})", text,
                             unit_kind_name(kind), valid_units(kind))};
  }

  const std::string_view unit = trim(text.substr(pos));
  std::uint64_t factor = 0;
  if (unit.empty()) {
    if (kind != UnitKind::kSize) {
      return Error{fmt::format("\"{}\" has no unit; valid {} units: {}", text, unit_kind_name(kind),
                               valid_units(kind))};
    }
    factor = 1;  // a bare size is a byte count
  } else {
    for (const Unit& u : units_of(kind)) {
      if (u.suffix == unit) factor = u.factor;
    }
    if (factor == 0) return unknown_unit(text, unit, kind);
  }

  // Exact arithmetic: value = mantissa * factor / 10^decimals, which must be whole.
  while (!frac_digits.empty() && frac_digits.back() == '0')
    frac_digits.remove_suffix(1);
  while (!int_digits.empty() && int_digits.front() == '0')
    int_digits.remove_prefix(1);
  if (frac_digits.size() > 18) {
    return Error{fmt::format("\"{}\" has more than 18 decimal places", text)};
  }
  const Error overflow{
      fmt::format("\"{}\" does not fit in 64 bits of {}", text, base_unit_noun(kind))};
  std::uint64_t mantissa = 0;
  for (std::string_view part : {int_digits, frac_digits}) {
    for (char c : part) {
      if (__builtin_mul_overflow(mantissa, 10U, &mantissa) ||
          __builtin_add_overflow(mantissa, static_cast<std::uint64_t>(c - '0'), &mantissa)) {
        return overflow;
      }
    }
  }
  std::uint64_t scale = 1;
  for (std::size_t i = 0; i < frac_digits.size(); ++i)
    scale *= 10;
  const std::uint64_t g = std::gcd(factor, scale);
  const std::uint64_t divisor = scale / g;
  if (mantissa % divisor != 0) {
    return Error{fmt::format("\"{}\" is not a whole number of {}", text, base_unit_noun(kind))};
  }
  std::uint64_t value = 0;
  if (__builtin_mul_overflow(mantissa / divisor, factor / g, &value)) return overflow;
  return value;
}

std::string format_quantity(std::uint64_t value, UnitKind kind) {
  const std::span<const Unit> units = units_of(kind);
  if (value == 0) return fmt::format("0 {}", units.front().suffix);

  // Every unit that renders `value` exactly with at most 6 decimals is a candidate; the
  // shortest number wins, ties going to the larger unit ("1.98 GHz" over "1980 MHz").
  constexpr int kMaxDecimals = 6;
  std::string best_number;
  const Unit* best_unit = nullptr;
  for (const Unit& u : units) {
    if (u.factor > value) continue;
    const std::uint64_t whole = value / u.factor;
    std::uint64_t rest = value % u.factor;
    std::string number = fmt::format("{}", whole);
    if (rest != 0) {
      std::string decimals;
      for (int d = 0; d < kMaxDecimals && rest != 0; ++d) {
        rest *= 10;  // rest < 2^40, so rest * 10^6 stays below 2^64
        decimals += static_cast<char>('0' + rest / u.factor);
        rest %= u.factor;
      }
      if (rest != 0) continue;  // not exact within kMaxDecimals
      number += "." + decimals;
    }
    const bool better = best_unit == nullptr || number.size() < best_number.size() ||
                        (number.size() == best_number.size() && u.factor > best_unit->factor);
    if (better) {
      best_number = std::move(number);
      best_unit = &u;
    }
  }
  XPUSIM_CHECK(best_unit != nullptr, "the factor-1 unit always renders exactly");
  return fmt::format("{} {}", best_number, best_unit->suffix);
}

Result<TimeWindow> parse_time_window(std::string_view text) {
  const std::size_t colon = text.find(':');
  if (colon == std::string_view::npos) {
    return Error{fmt::format(
        "\"{}\" is not START:END (e.g. 10us:20us; either side may be empty: from the start, to "
        "the end)",
        text)};
  }
  TimeWindow w;
  const std::string_view sides[2] = {trim(text.substr(0, colon)), trim(text.substr(colon + 1))};
  for (int i = 0; i < 2; ++i) {
    if (sides[i].empty()) continue;
    auto t = parse_time_ps(sides[i]);
    if (!t) {
      return Error{fmt::format("{}: {}", i == 0 ? "START" : "END", t.error().message)};
    }
    (i == 0 ? w.begin : w.end) = *t;
  }
  if (w.begin >= w.end) {
    return Error{fmt::format("START ({}) must be before END ({})", sides[0], sides[1])};
  }
  return w;
}

}  // namespace xpusim::config
