// `cp`: the command processor (src/cp/). `cp replay` runs the Kripke-like six-kernel loop with
// standard dispatch packets or with reference + condensed packets (seed3), prints the time,
// the overhead share, packets and bytes fetched, and the timing formula's prediction.
#include <fmt/format.h>

#include <cstdio>

#include "cli.h"
#include "config/chip_spec.h"
#include "cp/replay.h"

namespace xpusim::cli {

namespace {

void add_replay(CLI::App& cp, const GlobalOptions& g, Action& action) {
  auto* cmd =
      cp.add_subcommand("replay", "Run a task graph for N iterations: standard vs condensed");
  struct Opts {
    std::string chip = "h100-sxm5";
    std::string graph = "kripke";
    std::string mode = "condensed";
    cp::ReplayConfig cfg;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("--chip", o->chip, "chip whose clock times the command processor")
      ->capture_default_str();
  cmd->add_option("--graph", o->graph, "task graph (kripke: 6 dependent kernels)")
      ->capture_default_str();
  cmd->add_option("--iterations", o->cfg.iterations, "graph iterations")
      ->check(non_negative())
      ->capture_default_str();
  cmd->add_option("--mode", o->mode, "standard | condensed")->capture_default_str();
  cmd->add_option("--kernel-cycles", o->cfg.kernel_cycles, "run time of every kernel")
      ->check(non_negative())
      ->capture_default_str();
  cmd->add_option("--enqueue-cycles", o->cfg.enqueue_cycles, "host time to write one packet")
      ->check(non_negative())
      ->capture_default_str();
  cmd->callback([&g, &action, o] {
    action = [&g, o]() -> int {
      std::vector<Error> errors;
      if (o->graph != "kripke") {
        errors.push_back({fmt::format("--graph = '{}': the only graph is kripke", o->graph)});
      }
      auto mode = cp::parse_replay_mode(o->mode);
      if (!mode) errors.insert(errors.end(), mode.errors().begin(), mode.errors().end());
      auto path = config::resolve_chip(o->chip, config_dir(g));
      if (!path) errors.insert(errors.end(), path.errors().begin(), path.errors().end());
      if (!errors.empty()) return fail(errors);
      auto chip = config::load_chip_file(*path);
      if (!chip) return fail(chip.errors());
      cp::ReplayConfig cfg = o->cfg;
      cfg.mode = *mode;
      cfg.clock_hz = chip->clocks.sm_hz;
      auto session = Session::open(g);
      if (!session) return fail(session.errors());
      auto study = cp::ReplayStudy::create((*session)->sim(), cfg);
      if (!study) return fail(study.errors());
      bool completed = false;
      const cp::ReplayResult r = (*study)->run((*session)->time_limit(), &completed);
      const double us =
          static_cast<double>(r.total_cycles) / static_cast<double>(cfg.clock_hz) * 1e6;
      std::printf(
          "cp replay: kripke (6 kernels) x %u iterations, %s packets, kernels %llu cycles each\n",
          cfg.iterations, std::string(cp::name(cfg.mode)).c_str(),
          static_cast<unsigned long long>(cfg.kernel_cycles));
      std::printf("  total           %llu cycles (%.2f us); timing formula %llu cycles\n",
                  static_cast<unsigned long long>(r.total_cycles), us,
                  static_cast<unsigned long long>(r.formula_cycles));
      std::printf("  kernels         %llu, executing %llu cycles\n",
                  static_cast<unsigned long long>(r.kernels),
                  static_cast<unsigned long long>(r.execution_cycles));
      std::printf("  overhead        %.1f%% of the total (agent %llu cycles, host enqueue %llu)\n",
                  100 * r.overhead_share(), static_cast<unsigned long long>(r.overhead_cycles),
                  static_cast<unsigned long long>(r.host_cycles));
      std::printf("  packets fetched %llu (%.2f per iteration), %llu bytes\n",
                  static_cast<unsigned long long>(r.packets),
                  static_cast<double>(r.packets) / cfg.iterations,
                  static_cast<unsigned long long>(r.bytes_fetched));
      int code = kExitOk;
      if (!completed) {
        print_errors({{fmt::format("--max-time = {}: stopped before the last iteration completed",
                                   g.max_time)}});
        code = kExitSimulationFailure;
      }
      if (auto errs = (*session)->finish(); !errs.empty()) {
        print_errors(errs);
        if (code == kExitOk) code = kExitSimulationFailure;
      }
      return code;
    };
  });
}

}  // namespace

void add_cp_command(CLI::App& app, const GlobalOptions& g, Action& action) {
  auto* cp = app.add_subcommand("cp", "Command processor: AQL queues, condensed dispatch");
  cp->require_subcommand(1);
  add_replay(*cp, g, action);
}

}  // namespace xpusim::cli
