// Shared pieces of the xpusim command line: exit codes, global options, error printing,
// and the session that wraps a simulating command (seed, trace, stats file).
#pragma once

#include <CLI/CLI.hpp>

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "config/key_value_list.h"
#include "report/report.h"
#include "sim/result.h"
#include "sim/simulation.h"
#include "sim/trace.h"

namespace xpusim::cli {

// The exit codes are part of the CLI contract (README).
inline constexpr int kExitOk = 0;
inline constexpr int kExitSimulationFailure = 1;
inline constexpr int kExitBadInput = 2;

struct GlobalOptions {
  std::string stats_path;
  std::string trace_path;
  std::vector<std::string> trace_filters;
  std::uint64_t trace_max_events = sim::kDefaultTraceMaxEvents;
  bool trace_max_events_given = false;  // on the command line (run: it overrides the file's)
  std::string trace_window;             // "START:END" (config::parse_time_window); "": whole run
  std::uint64_t seed = 1;
  std::string max_time;                   // e.g. "10us"; empty: run to completion
  std::string config_dir;                 // empty: $XPUSIM_CONFIG_DIR, else the build's configs/
  std::vector<std::string> command_line;  // argv, for the stats file's host section
  std::string command;                    // the subcommand path, e.g. "cp replay"
};

// For unsigned flags: CLI11 would wrap "-1" to 2^64-1, and clamp a value beyond 2^64-1,
// silently. `max` bounds the value (e.g. sim::kMaxUserCycles for a duration in cycles).
CLI::Validator non_negative(std::uint64_t max = ~std::uint64_t{0});
// A duration in cycles: non_negative(sim::kMaxUserCycles).
CLI::Validator cycles();

// `value` as a whole number into `out`; the error names the flag, the key and the value.
Status parse_whole(std::string_view flag, std::string_view key, std::string_view value,
                   std::uint32_t& out);

// A "key=N" item of a cycle-cost flag and the field it sets.
struct Knob {
  std::string_view key;
  std::uint32_t* field;
};
// Sets the knobs named in "key=N,key=N,..." (any subset); an unknown key is an error listing
// the valid ones.
Status set_knobs(std::string_view flag, std::string_view text, std::span<const Knob> knobs);

// Prints each error as one `error: ...` line on stderr.
void print_errors(const std::vector<Error>& errors);
int fail(const std::vector<Error>& errors, int code = kExitBadInput);

std::filesystem::path config_dir(const GlobalOptions& g);

// For commands that run no simulation: --stats/--trace would silently do nothing, so refuse.
std::vector<Error> reject_sim_outputs(const GlobalOptions& g, std::string_view command);

// XPUSIM_RUN_SLICE (docs/run.md): a fixed slice of simulated time for the sliced runs of
// run, launch, cp replay and fabric, to test that slicing changes nothing. 0 when unset.
Result<sim::Tick> run_slice_from_env();

// A simulating command's context: checks the output paths before anything runs (so a long
// simulation never ends in a lost result), and writes the stats file at the end, also when
// the simulation failed. A session destroyed without finish() (bad input found after it
// opened, an exception) removes its trace file: it would describe no run.
class Session {
 public:
  static Result<std::unique_ptr<Session>> open(const GlobalOptions& g);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  sim::Simulation& sim() { return *sim_; }
  // Without --max-time a simulation stops at this simulated time: an endless grid ends with
  // its report. 1 s is hundreds of times the longest shipped scenario (an 8192^3 GEMM: ~2 ms).
  static constexpr const char* kDefaultMaxTime = "1s";
  // The --max-time limit in ticks (kDefaultMaxTime when unset, kMaxTick for `none`).
  sim::Tick time_limit() const { return limit_; }
  // How an error names the limit: "--max-time = 10us" or the default guard.
  const std::string& limit_label() const { return limit_label_; }
  // What the stats file's "header" says about the run besides what every run records
  // (version, command, seed, simulated time): the command adds its chip, scenario, mode...
  nlohmann::json& header() { return header_; }
  // The run's headline figures, computed once (run_summary.h figures_json); the stats file's
  // "figures" when set.
  nlohmann::json& figures() { return figures_; }
  // What the stats file holds (header, figures, every stat), whether or not one is written.
  nlohmann::json stats_json() const;
  // The run did not finish (a fault, a hang, an exception, the time limit): the trace's trailer
  // says so, with `reason`.
  void cut_short(std::string_view reason) { sim_->tracer().mark_incomplete(reason); }
  // Closes the trace and writes the stats file; returns the errors met doing so.
  std::vector<Error> finish();

 private:
  Session(const GlobalOptions& g)
      : g_(g),
        sim_(std::make_unique<sim::Simulation>(g.seed)),
        started_(std::chrono::steady_clock::now()) {}
  GlobalOptions g_;
  nlohmann::json stats_header() const;

  std::unique_ptr<sim::Simulation> sim_;
  sim::Tick limit_ = sim::kMaxTick;
  std::string limit_label_;
  nlohmann::json header_ = nlohmann::json::object();
  nlohmann::json figures_;
  std::chrono::steady_clock::time_point started_;
  bool finished_ = false;
};

// Subcommand registration: each adds itself to the app and returns the action to run.
using Action = std::function<int()>;
void add_info_command(CLI::App& app, const GlobalOptions& g, Action& action);
void add_list_command(CLI::App& app, const GlobalOptions& g, Action& action);
void add_schema_command(CLI::App& app, const GlobalOptions& g, Action& action);
void add_demo_command(CLI::App& app, const GlobalOptions& g, Action& action);
void add_tma_command(CLI::App& app, const GlobalOptions& g, Action& action);
void add_launch_command(CLI::App& app, const GlobalOptions& g, Action& action);
void add_cp_command(CLI::App& app, const GlobalOptions& g, Action& action);
void add_run_command(CLI::App& app, const GlobalOptions& g, Action& action);
void add_fabric_command(CLI::App& app, const GlobalOptions& g, Action& action);
void add_report_command(CLI::App& app, const GlobalOptions& g, Action& action);
// Writes the HTML report of `runs` (cmd_report.cc); errors name the file.
Status write_report(const std::string& path, const std::vector<report::RunStats>& runs);
// Writes `text` to `path`, replacing it (cmd_report.cc); errors give the file and the reason.
Status write_text_file(const std::string& path, std::string_view text, std::string_view what);
// Whether `path` can be written: opened for appending, and removed again if it was not there
// (an output flag fails before the run rather than after it).
Status probe_output(const std::string& path);

}  // namespace xpusim::cli
