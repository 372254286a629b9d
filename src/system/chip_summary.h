// The human summary of a chip that `xpusim info CHIP` prints.
#pragma once

#include <string>

#include "config/chip_spec.h"

namespace xpusim::system {

// Plain text, deterministic, aligned columns, no trailing spaces, ends with a newline: name,
// topology with a per-GPC table (SM ids numbered GPC-major), clocks, per-SM resources, L2, HBM
// and derived peaks.
std::string format_chip_summary(const config::ChipSpec& chip);

}  // namespace xpusim::system
