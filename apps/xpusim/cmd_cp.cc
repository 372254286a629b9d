// `cp`: the command processor (src/cp/). `cp replay` runs the Kripke-like six-kernel loop with
// standard dispatch packets or with reference + condensed packets (seed3), prints the time,
// the overhead share, packets and bytes fetched, the timing formula's prediction, and per
// kernel its dispatch overhead next to its run time. Kernels run through the work distributor
// on modelled SMs (--launcher chip, the default) or for a fixed time (--launcher fixed).
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>

#include "cli.h"
#include "config/chip_schema.h"
#include "config/chip_spec.h"
#include "cp/replay.h"
#include "run_summary.h"
#include "sched/policy.h"
#include "sched/runtime_model.h"
#include "system/chip.h"
#include "system/chip_launcher.h"

namespace xpusim::cli {

namespace {

struct ReplayOpts {
  std::string chip = "h100-sxm5";
  std::string graph = "kripke";
  std::string mode = "condensed";
  std::string launcher = "chip";
  std::string policy = "waterfill";
  std::string runtime;  // empty: fixed:<kernel-cycles>
  std::string cp_timing;
  std::string cleanup = "needed";
  cp::ReplayConfig cfg;
};

// The chip's command-processor costs, then the --cp-timing overrides.
Status agent_timing(const config::ChipSpec& chip, const ReplayOpts& o, cp::AgentTiming& t) {
  t = system::agent_timing_of(chip);
  const Knob knobs[] = {{"doorbell", &t.doorbell_cycles}, {"fetch", &t.fetch_cycles},
                        {"decode", &t.decode_cycles},     {"setup", &t.setup_cycles},
                        {"diff", &t.diff_cycles},         {"cleanup", &t.cleanup_cycles}};
  if (auto st = set_knobs("--cp-timing", o.cp_timing, knobs); !st) return st;
  if (o.cleanup != "needed" && o.cleanup != "every") {
    return Error{
        fmt::format("--cleanup = '{}': expected needed (intermediate kernels of a "
                    "condensed packet clean up only if they must, seed3 ¶146) or every",
                    o.cleanup)};
  }
  t.skip_unneeded_cleanup = o.cleanup == "needed";
  return Ok{};
}

void print_result(const cp::ReplayConfig& cfg, const ReplayOpts& o, const cp::ReplayResult& r) {
  const auto ull = [](std::uint64_t v) { return static_cast<unsigned long long>(v); };
  const double us = static_cast<double>(r.total_cycles) / static_cast<double>(cfg.clock_hz) * 1e6;
  std::printf("cp replay: kripke (6 kernels) x %u iterations, %s packets, ", cfg.iterations,
              std::string(cp::name(cfg.mode)).c_str());
  if (o.launcher == "chip") {
    std::printf("kernels through the work distributor (%s), CTAs %s\n", o.policy.c_str(),
                o.runtime.c_str());
  } else {
    std::printf("kernels %llu cycles each\n", ull(cfg.kernel_cycles));
  }
  std::printf("  total           %llu cycles (%.2f us); timing formula %llu cycles\n",
              ull(r.total_cycles), us, ull(r.formula_cycles));
  std::printf("  kernels         %llu, executing %llu cycles\n", ull(r.kernels),
              ull(r.execution_cycles));
  std::printf("  overhead        %.1f%% of the total (agent %llu cycles, host enqueue %llu)\n",
              100 * r.overhead_share(), ull(r.overhead_cycles), ull(r.host_cycles));
  std::printf("  packets fetched %llu (%.2f per iteration), %llu bytes\n", ull(r.packets),
              static_cast<double>(r.packets) / cfg.iterations, ull(r.bytes_fetched));
  std::printf("\n  %-12s %8s %18s %16s %14s\n", "kernel", "launches", "dispatch overhead",
              "launch latency", "run time");
  for (const cp::KernelSummary& k : r.per_kernel) {
    const double n = k.launches == 0 ? 1.0 : static_cast<double>(k.launches);
    std::printf("  %-12s %8llu %11.1f cycles %9.1f cycles %7.1f cycles\n", k.name.c_str(),
                ull(k.launches), static_cast<double>(k.overhead_cycles) / n,
                static_cast<double>(k.latency_cycles) / n, static_cast<double>(k.run_cycles) / n);
  }
  std::printf(
      "  (means per launch; overhead = agent time since the previous kernel completed "
      "plus its cleanup)\n");
}

void add_replay(CLI::App& cp, const GlobalOptions& g, Action& action) {
  auto* cmd =
      cp.add_subcommand("replay", "Run a task graph for N iterations: standard vs condensed");
  auto o = std::make_shared<ReplayOpts>();
  cmd->add_option("--chip", o->chip, "chip: its clock, command-processor costs and SMs")
      ->capture_default_str();
  cmd->add_option("--graph", o->graph, "task graph (kripke: 6 dependent kernels)")
      ->capture_default_str();
  cmd->add_option("--iterations", o->cfg.iterations, "graph iterations")
      ->check(non_negative())
      ->capture_default_str();
  cmd->add_option("--mode", o->mode, "standard | condensed")->capture_default_str();
  cmd->add_option("--launcher", o->launcher,
                  "chip (work distributor + modelled SMs) | fixed (each kernel --kernel-cycles)")
      ->capture_default_str();
  cmd->add_option("--kernel-cycles", o->cfg.kernel_cycles,
                  "fixed: every kernel's run time; chip: every CTA's (unless --runtime-model)")
      ->check(cycles())
      ->capture_default_str();
  cmd->add_option("--runtime-model", o->runtime,
                  "chip: CTA run time, fixed:N or uniform:A-B[,slowdown=S]");
  cmd->add_option("--policy", o->policy,
                  fmt::format("chip: {}", fmt::join(sched::policy_names(), " | ")))
      ->capture_default_str();
  cmd->add_option("--enqueue-cycles", o->cfg.enqueue_cycles, "host time to write one packet")
      ->check(cycles())
      ->capture_default_str();
  cmd->add_option("--cp-timing", o->cp_timing,
                  "agent costs overriding the chip's: doorbell=N,fetch=N,decode=N,setup=N,"
                  "diff=N,cleanup=N (cycles)");
  cmd->add_option("--cleanup", o->cleanup,
                  "needed (skip unneeded intermediate cleanups, seed3 ¶146) | every")
      ->capture_default_str();
  cmd->callback([&g, &action, o] {
    action = [&g, o]() -> int {
      std::vector<Error> errors;
      const auto take = [&errors](const auto& r) {
        if (!r) errors.insert(errors.end(), r.errors().begin(), r.errors().end());
      };
      if (o->graph != "kripke") {
        errors.push_back({fmt::format("--graph = '{}': the only graph is kripke", o->graph)});
      }
      if (o->launcher != "chip" && o->launcher != "fixed") {
        errors.push_back({fmt::format("--launcher = '{}': expected chip or fixed", o->launcher)});
      }
      if (o->launcher == "fixed" && !o->runtime.empty()) {
        errors.push_back(
            {"--runtime-model: only with --launcher chip (the fixed launcher runs "
             "each kernel --kernel-cycles)"});
      }
      auto mode = cp::parse_replay_mode(o->mode);
      take(mode);
      if (o->runtime.empty()) o->runtime = fmt::format("fixed:{}", o->cfg.kernel_cycles);
      auto runtime = sched::parse_runtime_model(o->runtime);
      if (o->launcher == "chip") take(runtime);
      auto path = config::resolve_chip(o->chip, config_dir(g));
      take(path);
      if (!errors.empty()) return fail(errors);
      auto chip = config::load_chip_file(*path);
      if (!chip) return fail(chip.errors());
      cp::ReplayConfig cfg = o->cfg;
      cfg.mode = *mode;
      cfg.clock_hz = chip->clocks.sm_hz;
      if (auto st = agent_timing(*chip, *o, cfg.timing); !st) return fail(st.errors());
      if (o->launcher == "chip") {
        system::ChipLauncherConfig lc;
        lc.policy = o->policy;
        lc.runtime = *runtime;
        cfg.launcher = [spec = *chip, lc](
                           sim::Component& root,
                           const sim::Clock& clock) -> Result<std::unique_ptr<cp::GridLauncher>> {
          auto l = system::ChipLauncher::create(root.sim(), "chip0", clock, spec, lc);
          if (!l) return l.errors();
          return std::unique_ptr<cp::GridLauncher>(std::move(l).value());
        };
      }
      const auto slice = run_slice_from_env();
      if (!slice) return fail(slice.errors());
      auto session = Session::open(g);
      if (!session) return fail(session.errors());
      (*session)->header()["chip"] = chip->name;
      (*session)->header()["chip_config"] = config::chip_to_json(*chip);
      auto study = cp::ReplayStudy::create((*session)->sim(), cfg);
      if (!study) return fail(study.errors());
      int code = kExitOk;
      try {
        // The `run` command's progress line on a terminal.
        const cp::ReplayStudy& running = **study;
        const auto run_until = study_run_until((*session)->sim(), *slice,
                                               [&running] {
                                                 const auto p = running.progress();
                                                 return StudyProgress{.cycles = p.cycles,
                                                                      .done = p.iterations_done,
                                                                      .total = p.iterations};
                                               },
                                               "iterations");
        bool completed = false;
        const cp::ReplayResult r = (*study)->run((*session)->time_limit(), &completed, run_until);
        print_result(cfg, *o, r);
        if (!completed) {
          const Error e{fmt::format("{}: stopped before the last iteration completed",
                                    (*session)->limit_label())};
          print_errors({e});
          (*session)->cut_short(e.message);
          code = kExitSimulationFailure;
        }
      } catch (const std::exception& e) {
        const Error failed{fmt::format("simulation failed: {}", e.what())};
        print_errors({failed});
        (*session)->cut_short(failed.message);
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
