#include "sim/registry.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sim/suggest.h"

namespace xpusim::sim {

Error unknown_name_error(std::string_view kind, std::string_view plural, std::string_view name,
                         std::span<const std::string> known) {
  return Error{fmt::format(
      "{} '{}' is unknown{}; known {}: {}", kind, name, did_you_mean(name, known), plural,
      known.empty() ? std::string("(none)") : fmt::format("{}", fmt::join(known, ", ")))};
}

void check_builtin(const Status& registered) {
  if (!registered)
    check_failed("registered", __FILE__, __LINE__, registered.error().message.c_str());
}

}  // namespace xpusim::sim
