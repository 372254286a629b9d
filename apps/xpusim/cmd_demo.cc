// `demo`: the engine demo (system/link_demo.h) on a chip's SM clock, with --stats/--trace.
#include <fmt/format.h>

#include <cstdio>
#include <exception>

#include "cli.h"
#include "config/chip_schema.h"
#include "config/chip_spec.h"
#include "system/link_demo.h"

namespace xpusim::cli {

void add_demo_command(CLI::App& app, const GlobalOptions& g, Action& action) {
  auto* cmd = app.add_subcommand(
      "demo", "Run the engine demo: producers stream messages over one shared link");
  struct Opts {
    std::string chip = "h100-sxm5";
    system::LinkDemoParams p;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("--chip", o->chip, "chip whose SM clock drives the model")->capture_default_str();
  cmd->add_option("--producers", o->p.producers, "number of producers")
      ->check(non_negative())
      ->capture_default_str();
  cmd->add_option("--messages", o->p.messages, "messages per producer")
      ->check(non_negative())
      ->capture_default_str();
  cmd->add_option("--bytes", o->p.mean_bytes, "mean message size in bytes (uniform 1..2x)")
      ->check(non_negative())
      ->capture_default_str();
  cmd->add_option("--link-bytes-per-cycle", o->p.bytes_per_cycle, "link bandwidth")
      ->check(non_negative())
      ->capture_default_str();
  cmd->add_option("--latency", o->p.latency_cycles, "link latency in cycles")
      ->check(cycles())
      ->capture_default_str();
  cmd->add_option("--capacity", o->p.capacity, "messages in flight or unread before senders block")
      ->check(non_negative())
      ->capture_default_str();
  cmd->callback([&g, &action, o] {
    action = [&g, o]() -> int {
      auto path = config::resolve_chip(o->chip, config_dir(g));
      if (!path) return fail(path.errors());
      auto chip = config::load_chip_file(*path);
      if (!chip) return fail(chip.errors());
      system::LinkDemoParams p = o->p;
      p.clock_hz = chip->clocks.sm_hz;

      auto session = Session::open(g);
      if (!session) return fail(session.errors());
      (*session)->header()["chip"] = chip->name;
      (*session)->header()["chip_config"] = config::chip_to_json(*chip);
      auto demo = system::LinkDemo::create((*session)->sim(), p);
      if (!demo) return fail(demo.errors());

      int code = kExitOk;
      try {
        const system::LinkDemoResult r = (*demo)->run((*session)->time_limit());
        std::printf("demo on %s (SM clock %.3f GHz), seed %llu\n", chip->name.c_str(),
                    static_cast<double>(p.clock_hz) / 1e9, static_cast<unsigned long long>(g.seed));
        std::printf("  simulated      %llu cycles (%.3f us), %llu events\n",
                    static_cast<unsigned long long>(r.cycles), static_cast<double>(r.end) / 1e6,
                    static_cast<unsigned long long>(r.events));
        std::printf("  delivered      %llu messages, %llu bytes\n",
                    static_cast<unsigned long long>(r.messages),
                    static_cast<unsigned long long>(r.bytes));
        std::printf("  link           %.2f of %llu B/cycle (%.1f%%)\n", r.achieved_bytes_per_cycle,
                    static_cast<unsigned long long>(p.bytes_per_cycle),
                    100.0 * r.achieved_bytes_per_cycle / static_cast<double>(p.bytes_per_cycle));
        std::printf("  mean latency   %.1f cycles (send start to receipt)\n",
                    r.mean_latency_cycles);
        if (!r.completed) {
          const Error e{
              fmt::format("{}: the simulation stopped at {} ps with {} of {} messages delivered",
                          (*session)->limit_label(), r.end, r.messages, r.expected_messages)};
          print_errors({e});
          (*session)->cut_short(e.message);
          code = kExitSimulationFailure;
        }
      } catch (const std::exception& e) {
        const Error failed{
            fmt::format("simulation failed at t = {} ps: {}", (*session)->sim().now(), e.what())};
        print_errors({failed});
        (*session)->cut_short(failed.message);
        code = kExitSimulationFailure;
      }
      // Whatever happened, keep what was simulated.
      if (auto errors = (*session)->finish(); !errors.empty()) {
        print_errors(errors);
        if (code == kExitOk) code = kExitSimulationFailure;
      }
      return code;
    };
  });
}

}  // namespace xpusim::cli
