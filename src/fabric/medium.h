// Link media of the chip-to-chip fabric (seed4 ¶39-¶40): PCB traces inside a tray, copper
// cables for short hops, optical cables (through optical circuit switches) for long ones.
#pragma once

#include <cstdint>
#include <string_view>

#include "sim/result.h"

namespace xpusim::fabric {

enum class Medium : std::uint8_t { kPcb, kCopper, kOptical };
inline constexpr int kMediumCount = 3;

// "pcb", "copper", "optical".
std::string_view medium_name(Medium m);
// Accepts exactly the names above; the error names the text and lists them.
Result<Medium> parse_medium(std::string_view text);

}  // namespace xpusim::fabric
