#pragma once

namespace xpusim {
// Semantic version of the simulator, printed by `xpusim --version` and written into stats/traces.
const char* version();
// `git describe --always --dirty` of the source tree when the build was configured ("unknown"
// outside a git checkout).
const char* git_describe();
}  // namespace xpusim
