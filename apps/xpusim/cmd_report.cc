// `report STATS.json... -o FILE.html`: the HTML report of one or more runs (src/report,
// docs/report.md), from the stats files `xpusim run --stats` writes.
#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "cli.h"
#include "report/report.h"

namespace xpusim::cli {

Status write_text_file(const std::string& path, std::string_view text, std::string_view what) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) {
    return Error{fmt::format("{}: cannot write the {}: {}", path, what, std::strerror(errno))};
  }
  const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  const int err = errno;
  if (std::fclose(f) != 0 || !ok) {
    return Error{
        fmt::format("{}: cannot write the {}: {}", path, what, std::strerror(ok ? errno : err))};
  }
  return Ok{};
}

Status write_report(const std::string& path, const std::vector<report::RunStats>& runs) {
  return write_text_file(path, report::html_report(runs), "report");
}

void add_report_command(CLI::App& app, const GlobalOptions& g, Action& action) {
  auto* cmd = app.add_subcommand(
      "report", "Write an HTML report of runs from their stats files (xpusim run --stats)");
  auto files = std::make_shared<std::vector<std::string>>();
  auto out = std::make_shared<std::string>();
  cmd->add_option("stats", *files, "stats files of `xpusim run` (several: compared side by side)")
      ->required();
  cmd->add_option("-o,--output", *out, "the HTML file to write")->required();
  cmd->callback([&g, &action, files, out] {
    action = [&g, files, out] {
      if (auto errors = reject_sim_outputs(g, "report"); !errors.empty()) return fail(errors);
      std::vector<report::RunStats> runs;
      std::vector<Error> errors;
      std::map<std::string, int> names;
      for (const std::string& path : *files) {
        auto r = report::read_stats(path);
        if (!r) {
          errors.insert(errors.end(), r.errors().begin(), r.errors().end());
          continue;
        }
        ++names[r->label];
        runs.push_back(std::move(r).value());
      }
      if (!errors.empty()) return fail(errors);
      // Two files of one name in different folders: name them by the paths given.
      for (std::size_t i = 0; i < runs.size(); ++i) {
        if (names[runs[i].label] > 1) runs[i].label = (*files)[i];
      }
      if (auto st = write_report(*out, runs); !st.ok()) return fail(st.errors());
      std::printf("report %s: %zu run%s\n", out->c_str(), runs.size(), runs.size() == 1 ? "" : "s");
      return kExitOk;
    };
  });
}

}  // namespace xpusim::cli
