#pragma once

namespace xpusim {
// Semantic version of the simulator, printed by `xpusim --version` and written into stats/traces.
const char* version();
}  // namespace xpusim
