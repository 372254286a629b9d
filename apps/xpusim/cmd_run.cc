// `run SCENARIO.yaml`: a scenario file (src/system/scenario.h, docs/run.md) on the whole
// modelled chip (system::Chip): a registered workload or one kernel launch — or several runs,
// each on a fresh chip — then per run a summary (run_summary.h): simulated time, per launch its
// latency and run time, issue utilization and stall breakdown, cache hit rates and bandwidths,
// the workload's measurements, the result check in functional mode, and the headline of a
// tensor-unit run. A fault or a hang is a simulation failure (exit 1) with the fault line or
// the hang report; bad input of any kind, in any run, is exit 2 before anything is simulated.
#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>

#include "cli.h"
#include "config/chip_schema.h"
#include "config/chip_spec.h"
#include "config/units.h"
#include "core/warp_scheduler.h"
#include "kernel/line_profile.h"
#include "run_summary.h"
#include "sched/policy.h"
#include "system/chip.h"
#include "system/run.h"
#include "system/scenario.h"
#include "workloads/register_all.h"

namespace xpusim::cli {
namespace {

struct RunOpts {
  std::string scenario;
  std::string mode;
  std::string memory_timing;
  std::uint32_t set_sampling = 0;  // 0: the scenario's
  double wave_sampling = -1;       // percent; below 0: the scenario's
  std::string params;
  std::string policy;
  std::string scheduler;
  bool memory_thread = false;
  std::string report;       // --report: the HTML report of every run
  std::string ptx_profile;  // --ptx-profile: per PTX line counts of every run (CSV)
};

unsigned long long ull(std::uint64_t v) {
  return static_cast<unsigned long long>(v);
}

// One run set up and ready to simulate. The run (its chip) goes before the session's
// simulation: members are destroyed in reverse order.
struct PreparedRun {
  system::Scenario s;
  std::unique_ptr<Session> session;
  std::unique_ptr<system::Run> run;
  bool outputs_from_file = false;  // stats/trace named by the scenario, not the flags
};

// Appends the errors whose text is not there yet (a --param error is the same for every run).
void add_errors(std::vector<Error>& to, const std::vector<Error>& from) {
  for (const Error& e : from) {
    if (std::none_of(to.begin(), to.end(),
                     [&](const Error& x) { return x.message == e.message; })) {
      to.push_back(e);
    }
  }
}

// A GEMM workload's m x n x k (the mm MACs it will do), 0 for other workloads.
double expected_macs(const system::ResolvedScenario& r) {
  double macs = 1;
  for (const char* p : {"m", "n", "k"}) {
    const auto it = r.params.find(p);
    if (r.workload == nullptr || it == r.params.end()) return 0;
    macs *= static_cast<double>(it->second);
  }
  return macs;
}

// Simulates one prepared run and prints its summary; returns its failures.
std::vector<Error> simulate(PreparedRun& p, const std::string& header, const SliceOptions& slicing,
                            std::vector<std::string>& hang) {
  std::vector<Error> errors;
  const system::Scenario& s = p.s;
  system::Run& run = *p.run;
  sim::Simulation& sim = run.sim();
  system::Chip& chip = run.chip();
  try {
    const sim::StopReason stop = run_in_slices(sim, chip, p.session->time_limit(), slicing);
    system::RunReport report = run.report(stop);
    const RunFigures figures = read_figures(chip, sim);
    p.session->header()["sim_cycles"] = figures.cycles;  // the summary's "simulated" cycles
    const auto type = run.resolved().params.find("type");
    const bool int8 = s.is_workload() && type != run.resolved().params.end() && type->second == 1;
    const Headline headline = make_headline(chip, figures, report.measurements, int8);
    p.session->figures() = figures_json(headline, figures);
    print_summary(header, chip, figures, headline);
    print_measurements(report.measurements);
    for (const std::string& line : report.results)
      std::printf("  result              %s\n", line.c_str());
    for (const std::string& line : report.outputs)
      std::printf("  output              %s\n", line.c_str());
    for (Error& e : report.errors) {
      if (report.cut_short) e.message = fmt::format("{}: {}", p.session->limit_label(), e.message);
      errors.push_back(std::move(e));
    }
    if (!report.completed && !errors.empty()) p.session->cut_short(errors.front().message);
    hang = std::move(report.hang);
    if (report.completed && figures.used_tensor_unit()) print_headline(headline);
    if (p.outputs_from_file && (!s.stats_path.empty() || !s.trace_path.empty())) {
      std::string outputs;
      if (!s.stats_path.empty()) outputs = fmt::format("stats {}", s.stats_path);
      if (!s.trace_path.empty()) {
        const sim::Tracer& t = sim.tracer();
        outputs += fmt::format("{}trace {} ({} events{})", outputs.empty() ? "" : ", ",
                               s.trace_path, ull(t.events_written()),
                               t.events_dropped() == 0
                                   ? std::string()
                                   : fmt::format("; {} more left out at the trace_max_events cap",
                                                 ull(t.events_dropped())));
      }
      std::printf("  outputs             %s\n", outputs.c_str());
    }
  } catch (const std::exception& e) {
    errors.push_back({fmt::format("simulation failed: {}", e.what())});
    p.session->cut_short(errors.back().message);
  }
  return errors;
}

// Opens the run's session (its output files) and builds its chip; the errors, if any.
std::vector<Error> open_and_build(const GlobalOptions& g, const RunOpts& o,
                                  const config::ChipSpec& spec, PreparedRun& p,
                                  kernel::LineProfile* profile) {
  const system::Scenario& s = p.s;
  GlobalOptions gr = g;
  gr.stats_path = s.stats_path;
  gr.trace_path = s.trace_path;
  gr.trace_max_events = s.trace_max_events;
  // A file's window without a trace (a default for runs that write none) windows nothing.
  gr.trace_window = s.trace_path.empty() ? std::string() : s.trace_window;
  if (o.memory_thread &&
      (s.memory_timing != mem::MemoryTiming::kTransactions || !s.trace_path.empty())) {
    return {
        Error{fmt::format("--memory-thread: {}{}: the second thread times the warp accesses of the "
                          "transaction-level timing, without a trace",
                          s.name.empty() ? "" : fmt::format("run '{}' ", s.name),
                          s.memory_timing != mem::MemoryTiming::kTransactions
                              ? "has memory_timing events (add --memory-timing transactions)"
                              : "writes a trace")}};
  }
  auto session = Session::open(gr);
  if (!session) return session.errors();
  p.session = std::move(session).value();
  nlohmann::json& h = p.session->header();
  h["scenario"] = s.source;
  if (!s.name.empty()) h["run"] = s.name;
  h["what"] = s.what();
  h["mode"] = system::to_string(s.mode);
  h["memory_timing"] =
      s.memory_timing == mem::MemoryTiming::kTransactions ? "transactions" : "events";
  h["policy"] = s.policy;
  h["sm_scheduler"] = s.sm_scheduler;
  h["chip"] = spec.name;
  h["chip_config"] = config::chip_to_json(spec);
  if (auto st =
          p.run->build(p.session->sim(), spec,
                       {.seed = g.seed, .memory_thread = o.memory_thread, .line_profile = profile});
      !st) {
    return st.errors();
  }
  return {};
}

int run_scenario(const GlobalOptions& g, const RunOpts& o) {
  if (std::error_code ec; std::filesystem::is_directory(o.scenario, ec)) {
    return fail({{fmt::format("{}: is a folder, not a scenario file", o.scenario)}});
  }
  auto loaded = system::load_scenario_file(o.scenario);
  if (!loaded) return fail(loaded.errors());
  const system::Scenario file = std::move(loaded).value();
  const bool multi = !file.runs.empty();
  std::vector<system::Scenario> runs = system::scenario_runs(file);

  // The flags, over every run.
  std::vector<Error> errors;
  std::optional<mem::MemoryTiming> memory_timing;
  if (!o.memory_timing.empty()) {
    auto m = system::parse_memory_timing_key(o.memory_timing);
    if (m) {
      memory_timing = *m;
    } else {
      errors.push_back({fmt::format("--memory-timing: {}", m.error().message)});
    }
  }
  std::optional<system::RunMode> mode;
  if (!o.mode.empty()) {
    auto m = system::parse_run_mode(o.mode);
    if (m) {
      mode = *m;
    } else {
      errors.push_back({fmt::format("--mode: {}", m.error().message)});
    }
  }
  if (!o.policy.empty()) {
    const sched::PolicyRegistry policies = sched::policies();
    if (auto found = policies.find(o.policy); !found) {
      errors.push_back({"--policy: " + found.error().message});
    }
  }
  if (!o.scheduler.empty()) {
    if (auto made = core::make_warp_scheduler(o.scheduler); !made) {
      errors.push_back({fmt::format("--scheduler: {}", made.error().message)});
    }
  }
  const auto slice = run_slice_from_env();
  if (!slice) add_errors(errors, slice.errors());
  std::vector<bool> outputs_from_file(runs.size(), true);
  for (std::size_t i = 0; i < runs.size(); ++i) {
    system::Scenario& r = runs[i];
    if (mode) r.mode = *mode;
    if (mode == system::RunMode::kTimingOnly && !r.outputs.empty()) {
      std::vector<std::string> files;
      for (const system::ScenarioOutput& out : r.outputs)
        files.push_back(out.path);
      errors.push_back({fmt::format(
          "--mode timing-only: {} writes outputs ({}), but a timing-only run moves no data, so "
          "it has no buffer bytes to write",
          r.name.empty() ? std::string("the scenario") : fmt::format("run {}", r.name),
          fmt::join(files, ", "))});
    }
    if (memory_timing) r.memory_timing = *memory_timing;
    if (o.set_sampling != 0) r.set_sampling = o.set_sampling;
    // Timing-only runs only: a functional run checks results the skipped CTAs would not make.
    if (o.wave_sampling >= 0 && r.mode == system::RunMode::kTimingOnly) {
      r.wave_sampling = o.wave_sampling;
    }
    if (!o.policy.empty()) r.policy = o.policy;
    if (!o.scheduler.empty()) r.sm_scheduler = o.scheduler;
    if (auto st = system::apply_param_overrides(r, "--param", o.params); !st) {
      add_errors(errors, st.errors());
    }
  }
  // --stats and --trace name the last run's files (for a file without runs:, its only run).
  system::Scenario& last = runs.back();
  if (!g.stats_path.empty() || !g.trace_path.empty()) outputs_from_file.back() = false;
  if (!g.stats_path.empty()) last.stats_path = g.stats_path;
  if (!g.trace_path.empty()) last.trace_path = g.trace_path;
  if (g.trace_max_events_given) last.trace_max_events = g.trace_max_events;
  if (!g.trace_window.empty()) {
    if (auto w = config::parse_time_window(g.trace_window); !w) {
      errors.push_back({fmt::format("--trace-window = {}: {}", g.trace_window, w.error().message)});
    } else if (last.trace_path.empty()) {
      errors.push_back({fmt::format(
          "--trace-window = {}: {} writes no trace to window (add "
          "--trace FILE)",
          g.trace_window,
          multi ? fmt::format("the last run, {},", last.name) : std::string("the scenario"))});
    } else {
      last.trace_window = g.trace_window;
    }
  }
  if (!o.ptx_profile.empty()) {
    if (std::none_of(runs.begin(), runs.end(),
                     [](const system::Scenario& r) { return !r.ptx.empty() || !r.cuda.empty(); })) {
      errors.push_back(
          {fmt::format("--ptx-profile = {}: {} runs no PTX kernel (a profile needs ptx: or cuda:)",
                       o.ptx_profile, multi ? "no run of the file" : "the scenario")});
    } else if (auto st = probe_output(o.ptx_profile); !st) {
      errors.push_back({fmt::format("--ptx-profile = {}: {}", o.ptx_profile, st.error().message)});
    }
  }
  // The file's outputs are distinct (the loader checks); a flag may name one of them.
  for (const auto& [flag, value] :
       {std::pair{"--stats", g.stats_path}, std::pair{"--trace", g.trace_path},
        std::pair{"--ptx-profile", o.ptx_profile}}) {
    if (value.empty()) continue;
    for (const system::Scenario& r : runs) {
      std::vector<std::pair<std::string, std::string>> files = {{"stats", r.stats_path},
                                                                {"trace", r.trace_path}};
      for (const system::ScenarioOutput& out : r.outputs)
        files.emplace_back(out.key, out.path);
      for (const auto& [key, path] : files) {
        if (path != value || (&r == &last && flag == fmt::format("--{}", key))) continue;
        errors.push_back(
            {r.name.empty()
                 ? fmt::format("{} = {}: the scenario's {} file is that file too", flag, value, key)
                 : fmt::format("{} = {}: run {} writes that file too (its {}); --stats and "
                               "--trace name the last run's files",
                               flag, value, r.name, key)});
      }
    }
  }
  if (!errors.empty()) return fail(errors);

  auto path = system::resolve_scenario_chip(file, config_dir(g));
  if (!path) return fail(path.errors());
  auto spec = config::load_chip_file(*path);
  if (!spec) return fail(spec.errors());

  // Every run resolved, then every run built and set up on its own chip: bad input anywhere
  // is found before anything is simulated, bad names before any output file is opened.
  std::vector<std::unique_ptr<PreparedRun>> prepared;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    auto p = std::make_unique<PreparedRun>();
    p->s = runs[i];
    p->outputs_from_file = outputs_from_file[i];
    auto run = system::Run::resolve(p->s, workloads::register_all);
    if (run) {
      p->run = std::move(run).value();
      prepared.push_back(std::move(p));
    } else {
      add_errors(errors, run.errors());
    }
  }
  if (!errors.empty()) return fail(errors);
  // Each run's chip is built here to find setup errors (buffers beyond the memory, bad
  // outputs) before anything is simulated, then freed: a file of hundreds of runs holds one
  // chip at a time. The run builds it again when its turn comes.
  for (auto& p : prepared) {
    if (auto e = open_and_build(g, o, *spec, *p, nullptr); !e.empty()) add_errors(errors, e);
    // The chip first: it refers to the session's simulation (its stats registry).
    p->run = std::move(system::Run::resolve(p->s, workloads::register_all)).value();
    p->session.reset();
  }
  if (!errors.empty()) return fail(errors);

  int code = kExitOk;
  std::vector<report::RunStats> reported;  // for --report, each run's as it ends
  kernel::LineProfile profile;             // --ptx-profile: every run's, merged by file
  for (std::size_t i = 0; i < prepared.size(); ++i) {
    PreparedRun& run = *prepared[i];
    const system::Scenario& s = run.s;
    if (auto e = open_and_build(g, o, *spec, run, o.ptx_profile.empty() ? nullptr : &profile);
        !e.empty()) {  // the files changed since?
      print_errors(e);
      code = kExitBadInput;
      prepared[i].reset();
      continue;
    }
    system::Chip& chip = run.run->chip();
    const std::string header = fmt::format(
        "run {}{}: {} on {} ({}, {} policy, {} warp scheduler{}{}{})", file.source,
        multi ? fmt::format(": {} ({} of {})", s.name, i + 1, prepared.size()) : std::string(),
        s.what(), chip.spec().name, system::to_string(s.mode), s.policy, s.sm_scheduler,
        s.memory_timing == mem::MemoryTiming::kTransactions ? ", transaction-level memory" : "",
        s.set_sampling > 1 ? fmt::format(", TMA loads set-sampled 1 in {}", s.set_sampling)
                           : std::string(),
        s.wave_sampling > 0 ? fmt::format(", waves sampled within {}%", s.wave_sampling)
                            : std::string());
    if (i > 0) std::printf("\n");
    const SliceOptions slicing{.slice = *slice,
                               .progress = ::isatty(STDERR_FILENO) == 1,
                               .label = multi ? s.name : std::string(),
                               .expected_macs = expected_macs(run.run->resolved())};
    std::vector<std::string> hang;  // the hang report, when launches never completed
    std::vector<Error> failed = simulate(run, header, slicing, hang);
    std::fflush(stdout);
    if (multi) {
      for (Error& e : failed)
        e.message = fmt::format("run {}: {}", s.name, e.message);
    }
    if (!failed.empty()) {
      print_errors(failed);
      code = kExitSimulationFailure;
    }
    if (!hang.empty()) {
      std::fprintf(stderr, "hang report:\n");
      for (const std::string& line : hang)
        std::fprintf(stderr, "  %s\n", line.c_str());
    }
    if (auto errs = run.session->finish(); !errs.empty()) {
      print_errors(errs);
      if (code == kExitOk) code = kExitSimulationFailure;
    }
    if (!o.report.empty() && !run.session->figures().is_null()) {
      const std::string label =
          multi ? s.name : std::filesystem::path(file.source).filename().string();
      auto r = report::check_stats(report::essentials(run.session->stats_json()), label,
                                   fmt::format("run {}", label));
      if (r) reported.push_back(std::move(r).value());
    }
    prepared[i].reset();  // frees the run's chip and simulation before the next run
  }
  // Written whatever the runs' outcome: where a faulting or hanging kernel stood is the point.
  if (!o.ptx_profile.empty()) {
    if (auto st = write_text_file(o.ptx_profile, profile.csv(), "profile"); !st) {
      print_errors({Error{fmt::format("--ptx-profile: {}", st.error().message)}});
      if (code == kExitOk) code = kExitSimulationFailure;
    } else {
      std::printf("\nptx profile %s: %zu line%s\n", o.ptx_profile.c_str(), profile.rows(),
                  profile.rows() == 1 ? "" : "s");
    }
  }
  if (!o.report.empty()) {
    const Status st = reported.empty()
                          ? Status(Error{fmt::format("--report = {}: no run ended with figures to "
                                                     "report",
                                                     o.report)})
                          : write_report(o.report, reported);
    if (!st.ok()) {
      print_errors(st.errors());
      if (code == kExitOk) code = kExitSimulationFailure;
    } else {
      std::printf("\nreport %s: %zu run%s\n", o.report.c_str(), reported.size(),
                  reported.size() == 1 ? "" : "s");
    }
  }
  return code;
}

}  // namespace

void add_run_command(CLI::App& app, const GlobalOptions& g, Action& action) {
  auto* cmd = app.add_subcommand(
      "run", "Run a scenario file (a workload or one kernel launch) on the modelled chip");
  auto o = std::make_shared<RunOpts>();
  cmd->add_option("scenario", o->scenario, "scenario file (YAML; docs/run.md)")->required();
  cmd->add_option("--mode", o->mode,
                  "functional | timing-only (overrides the scenario's mode, in every run)");
  cmd->add_option("--memory-timing", o->memory_timing,
                  "events | transactions: the memory hierarchy's timing over the scenario's, in "
                  "every run (docs/memory-hierarchy.md)");
  cmd->add_option("--set-sampling", o->set_sampling,
                  "with transactions: TMA loads time one L2 set in N, each timed line standing "
                  "for the box's lines next to it (1: every line; docs/memory-hierarchy.md)")
      ->check(CLI::Range(1u, mem::kMaxSetSampling));
  cmd->add_option("--wave-sampling", o->wave_sampling,
                  "in timing-only runs: once three consecutive waves of a grid take the same time "
                  "within PERCENT, skip its middle waves, each counted as the last (0: off; "
                  "docs/work-distributor.md)")
      ->check(
          [](const std::string& v) {
            double x = -1;
            const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
            return ec == std::errc() && end == v.data() + v.size() && x >= 0 &&
                           x <= system::kMaxWaveSamplingPercent
                       ? std::string()
                       : fmt::format("{}: must be a percentage from 0 (off) to {}", v,
                                     system::kMaxWaveSamplingPercent);
          },
          "PERCENT");
  cmd->add_flag("--memory-thread", o->memory_thread,
                "with transactions, no trace: time warp loads and stores on a second host "
                "thread; the results are byte-identical (docs/memory-hierarchy.md)");
  cmd->add_option("--report", o->report,
                  "write an HTML report of the runs to this file: plots over time, roofline, "
                  "stalls, and the runs' headline figures side by side (docs/report.md)");
  cmd->add_option("--ptx-profile", o->ptx_profile,
                  "write per PTX source line of the runs' kernels: warp-instructions executed, "
                  "active and predicated-on lane shares, stall cycles by reason (CSV; "
                  "docs/ptx.md)");
  cmd->add_option("--param", o->params,
                  "workload parameters over the scenario's, in every run: key=value,... (sizes "
                  "may use KiB, MiB, GiB)");
  cmd->add_option("--policy", o->policy,
                  fmt::format("work-distributor policy over the scenario's: {}",
                              fmt::join(sched::policy_names(), " | ")));
  cmd->add_option("--scheduler", o->scheduler,
                  fmt::format("SM warp scheduler over the scenario's: {}",
                              fmt::join(core::warp_scheduler_names(), " | ")));
  cmd->callback([&g, &action, o] { action = [&g, o]() -> int { return run_scenario(g, *o); }; });
}

}  // namespace xpusim::cli
