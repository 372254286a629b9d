// The HTML report of one or more runs (docs/report.md): `xpusim report STATS.json... -o FILE`
// and `xpusim run --report FILE`. It reads what `xpusim run` writes into its stats file: the
// header, the headline figures ("figures", computed once by the run) and the time series
// (sm*.issue_series, mem.hbm.*_bytes_series, mem.xbar.response_bytes_series,
// cwd.*_series), and draws self-contained SVG: no network access is needed to view it.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/result.h"

namespace xpusim::report {

// One run's stats, as written by `xpusim run --stats`.
struct RunStats {
  std::string label;    // how the report names the run (the file name, or the run's name)
  nlohmann::json json;  // the whole stats file
};

// The part of a stats file the report reads (header, host, figures, the series and the wave
// sampling count): a run's stats kept for `run --report` cost kilobytes, not the whole file.
nlohmann::json essentials(const nlohmann::json& stats);

// Reads and checks a stats file: bounded, JSON, and written by `xpusim run` (a "header" and
// "figures"); each error one line naming the file and the rule.
Result<RunStats> read_stats(const std::string& path);
// The same for stats already in memory (`run --report`); `what` names them in errors.
Result<RunStats> check_stats(nlohmann::json json, std::string label, const std::string& what);

// The whole page: for each run its header, per-SM and per-GPC activity over time, L2 and HBM
// bandwidth over time and the work distributor's residency; for all runs together the
// comparison table of every headline figure, the roofline and the warp stall breakdown.
// Deterministic: the same stats give the same bytes.
std::string html_report(const std::vector<RunStats>& runs);

}  // namespace xpusim::report
