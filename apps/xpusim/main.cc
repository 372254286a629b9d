// xpusim: the command-line tool. Exit codes: 0 ok, 1 simulation failure, 2 bad input.
#include <cstdio>
#include <exception>

#include "cli.h"
#include "sim/huge_pages.h"
#include "sim/one_line.h"
#include "sim/version.h"

int main(int argc, char** argv) {
  xpusim::sim::reexec_with_huge_pages(argv);  // once, before anything else (huge_pages.h)
  using namespace xpusim::cli;
  CLI::App app{"xpusim: a fast, bit-exact simulator of a tensor accelerator", "xpusim"};
  app.set_version_flag("--version", std::string("xpusim ") + xpusim::version());
  app.require_subcommand(1);
  app.fallthrough();  // global flags may also follow the subcommand

  GlobalOptions g;
  for (int i = 0; i < argc; ++i)
    g.command_line.push_back(argv[i]);
  app.add_option("--stats", g.stats_path, "write every stat as JSON to this file");
  app.add_option("--trace", g.trace_path,
                 "write a Chrome/Perfetto trace (open in ui.perfetto.dev) to this file");
  app.add_option("--trace-filter", g.trace_filters,
                 "trace only components whose path matches this glob (repeatable)");
  CLI::Option* max_events =
      app.add_option("--trace-max-events", g.trace_max_events,
                     "stop recording trace events after this many (the rest are counted, and "
                     "the trace says it is incomplete)")
          ->check(non_negative())
          ->capture_default_str();
  app.add_option("--trace-window", g.trace_window,
                 "trace only events in this stretch of simulated time, START:END (e.g. "
                 "10us:20us; either side may be empty: from the start, to the end)");
  app.add_option("--seed", g.seed, "random seed: same config and seed give identical results")
      ->check(non_negative())
      ->capture_default_str();
  app.add_option("--max-time", g.max_time,
                 "stop simulating at this simulated time (e.g. 10us; default 1s, a guard "
                 "against endless runs; none: no limit); unfinished work is a simulation "
                 "failure (exit 1), stats are still written");
  app.add_option("--config-dir", g.config_dir,
                 "directory holding chips/*.yaml (default: $XPUSIM_CONFIG_DIR or the source tree)");

  Action action;
  add_info_command(app, g, action);
  add_list_command(app, g, action);
  add_schema_command(app, g, action);
  add_demo_command(app, g, action);
  add_tma_command(app, g, action);
  add_launch_command(app, g, action);
  add_cp_command(app, g, action);
  add_run_command(app, g, action);
  add_fabric_command(app, g, action);
  add_report_command(app, g, action);

  try {
    app.parse(argc, argv);
    g.trace_max_events_given = max_events->count() > 0;
    for (const CLI::App* sub = &app; !sub->get_subcommands().empty();) {
      sub = sub->get_subcommands().front();
      g.command += (g.command.empty() ? "" : " ") + sub->get_name();
    }
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    std::string msg = e.what();
    if (app.get_subcommands().empty() && !app.remaining().empty()) {
      std::string valid;
      for (const CLI::App* sub : app.get_subcommands({})) {
        valid += (valid.empty() ? "" : ", ") + sub->get_name();
      }
      msg = "unknown command '" + app.remaining().front() + "' (valid: " + valid + ")";
    }
    for (char& c : msg) {
      if (c == '\n') c = ' ';
    }
    std::fprintf(stderr, "error: %s (see 'xpusim --help')\n", msg.c_str());
    return kExitBadInput;
  }
  if (!action) return kExitBadInput;
  try {
    return action();
  } catch (const std::exception& e) {
    // Unwinding closes the sessions (a trace that describes no finished run is removed); an
    // escaped exception would leave a truncated trace and a core dump instead of one line.
    std::fprintf(stderr, "error: %s failed: %s\n", g.command.c_str(),
                 xpusim::sim::one_line(e.what()).c_str());
    return kExitSimulationFailure;
  }
}
