// `xpusim tma copy` and `xpusim tma layout`, registered under the `tma` command (cmd_tma.cc).
#pragma once

#include "cli.h"

namespace xpusim::cli {

void add_tma_copy_command(CLI::App& tma, const GlobalOptions& g, Action& action);
void add_tma_layout_command(CLI::App& tma, const GlobalOptions& g, Action& action);

}  // namespace xpusim::cli
