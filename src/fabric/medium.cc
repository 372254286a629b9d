#include "fabric/medium.h"

#include <array>
#include <string>

#include <fmt/format.h>

#include "sim/suggest.h"

namespace xpusim::fabric {

std::string_view medium_name(Medium m) {
  switch (m) {
    case Medium::kPcb:
      return "pcb";
    case Medium::kCopper:
      return "copper";
    case Medium::kOptical:
      return "optical";
  }
  return "unknown";
}

Result<Medium> parse_medium(std::string_view text) {
  static constexpr std::array<Medium, kMediumCount> kAll{Medium::kPcb, Medium::kCopper,
                                                         Medium::kOptical};
  for (Medium m : kAll) {
    if (text == medium_name(m)) return m;
  }
  const std::array<std::string, kMediumCount> names{"pcb", "copper", "optical"};
  return Error{fmt::format("unknown medium \"{}\"{}; valid media: pcb, copper, optical", text,
                           sim::did_you_mean(text, names))};
}

}  // namespace xpusim::fabric
