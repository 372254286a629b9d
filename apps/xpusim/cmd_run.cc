// `run SCENARIO.yaml`: a scenario file (src/workloads/scenario.h, docs/run.md) on the whole
// modelled chip (system::Chip): a registered workload or one kernel launch, then a summary —
// simulated time, per launch its latency and run time, issue utilization and stall breakdown,
// cache hit rates and bandwidths, the workload's measurements — and the result check in
// functional mode. A fault or a hang is a simulation failure (exit 1) with the fault line or
// the hang report; bad input of any kind is exit 2 before anything is simulated.
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "cli.h"
#include "config/chip_spec.h"
#include "config/units.h"
#include "core/warp_scheduler.h"
#include "sched/policy.h"
#include "sim/suggest.h"
#include "system/chip.h"
#include "workloads/kernels.h"
#include "workloads/scenario.h"
#include "workloads/workload.h"

namespace xpusim::cli {
namespace {

struct RunOpts {
  std::string scenario;
  std::string mode;
  std::string params;
  std::string policy;
  std::string scheduler;
};

// Sums of the chip's stats the summary reads.
class StatSums {
 public:
  StatSums(const sim::StatsRegistry& stats, std::string prefix)
      : stats_(stats), prefix_(std::move(prefix)), paths_(stats.paths()) {}

  // The stat at PREFIX.path, 0 when it does not exist.
  double at(std::string_view path) const {
    auto s = stats_.find(fmt::format("{}.{}", prefix_, path));
    return s ? value(**s) : 0.0;
  }
  // The sum over PREFIX.group.*.name (one level of components, e.g. every SM's L1).
  double sum(std::string_view group, std::string_view name) const {
    const std::string head = fmt::format("{}.{}.", prefix_, group);
    const std::string tail = fmt::format(".{}", name);
    double total = 0;
    for (const std::string& p : paths_) {
      if (p.size() <= head.size() + tail.size() || !p.starts_with(head) || !p.ends_with(tail)) {
        continue;
      }
      const std::string_view middle(p.data() + head.size(), p.size() - head.size() - tail.size());
      if (middle.find('.') != std::string_view::npos) continue;
      total += value(**stats_.find(p));
    }
    return total;
  }

 private:
  static double value(const sim::Stat& s) {
    const auto j = s.to_json();
    return j.contains("value") && j["value"].is_number() ? j["value"].get<double>() : 0.0;
  }
  const sim::StatsRegistry& stats_;
  std::string prefix_;
  std::vector<std::string> paths_;
};

std::string percent(double part, double whole) {
  return whole > 0 ? fmt::format("{:.1f}%", 100 * part / whole) : std::string("n/a");
}

std::string dims(const kernel::Dim3& d) {
  return fmt::format("{}x{}x{}", d.x, d.y, d.z);
}

unsigned long long ull(std::uint64_t v) {
  return static_cast<unsigned long long>(v);
}

void print_summary(const workloads::Scenario& s, system::Chip& chip, sim::Simulation& sim) {
  const sim::Clock& clock = chip.clock();
  const std::uint64_t cycles = clock.cycle_at(sim.now());
  const double seconds = static_cast<double>(sim.now()) * 1e-12;
  std::printf("run %s: %s %s on %s (%s, %s policy, %s warp scheduler)\n", s.source.c_str(),
              s.is_workload() ? "workload" : "kernel",
              s.is_workload() ? s.workload.c_str() : s.kernel.c_str(), chip.spec().name.c_str(),
              std::string(workloads::to_string(s.mode)).c_str(), s.policy.c_str(),
              s.sm_scheduler.c_str());
  std::printf("  simulated           %llu cycles, %.3f us\n", ull(cycles), seconds * 1e6);
  constexpr std::uint32_t kShownLaunches = 16;  // then one line for the rest
  for (std::uint32_t id = 0; id < std::min(chip.launches(), kShownLaunches); ++id) {
    const system::KernelRun& k = chip.run(id);
    const sched::WorkDistributor::GridTimes& t = chip.distributor().grid_times(id);
    std::string when;
    if (t.first_start == sim::kMaxTick) {
      when = "never started";
    } else {
      const std::uint64_t start = clock.cycle_at(t.first_start);
      when = fmt::format("launch latency {} cycles, ", start - clock.cycle_at(t.submitted));
      when += k.done ? fmt::format("ran {} cycles", clock.cycle_at(k.completed) - start)
                     : std::string("did not complete");
    }
    const std::string line =
        fmt::format("  {:<20}{} grid {} block {}: {}", fmt::format("launch {}", id), k.kernel->name,
                    dims(k.params.grid), dims(k.params.block), when);
    std::printf("%s\n", line.c_str());
  }
  if (chip.launches() > kShownLaunches) {
    std::uint32_t done = 0;
    for (std::uint32_t id = kShownLaunches; id < chip.launches(); ++id)
      done += chip.run(id).done ? 1 : 0;
    std::printf("  %-20s(%u more launches, %u of them completed)\n", "...",
                chip.launches() - kShownLaunches, done);
  }

  const StatSums st(sim.stats(), chip.root().path());
  std::uint64_t instructions = 0;
  std::uint32_t used = 0;
  double stall[4] = {0, 0, 0, 0};
  constexpr const char* kStalls[] = {"issue", "dependency", "memory", "barrier"};
  constexpr const char* kTensor[] = {
      "mm.instructions",   "mm.math_issues",     "mm.macs",
      "mm.active_threads", "tensor.busy_cycles", "mm.token_stall_cycles"};
  double tensor[6] = {0, 0, 0, 0, 0, 0};
  for (std::uint32_t i = 0; i < chip.num_sms(); ++i) {
    const std::uint64_t n = chip.sm(i).warp_instructions();
    instructions += n;
    used += n > 0 ? 1 : 0;
    for (int k = 0; k < 4; ++k)
      stall[k] += st.at(fmt::format("sm{}.stall_{}_cycles", i, kStalls[k]));
    for (int k = 0; k < 6; ++k)
      tensor[k] += st.at(fmt::format("sm{}.{}", i, kTensor[k]));
  }
  const std::uint32_t subs = chip.timing().sub_partitions;
  std::printf(
      "  warp instructions   %llu; issue utilization %s (of %llu cycles x %u SMs used x %u "
      "sub-partitions)\n",
      ull(instructions),
      percent(static_cast<double>(instructions), static_cast<double>(cycles) * used * subs).c_str(),
      ull(cycles), used, subs);
  const double stall_total = stall[0] + stall[1] + stall[2] + stall[3];
  std::printf(
      "  stalls              issue %s, dependency %s, memory %s, barrier %s (of %.0f "
      "warp stall cycles)\n",
      percent(stall[0], stall_total).c_str(), percent(stall[1], stall_total).c_str(),
      percent(stall[2], stall_total).c_str(), percent(stall[3], stall_total).c_str(), stall_total);
  if (tensor[0] > 0) {
    const double units = static_cast<double>(cycles) * used * chip.spec().sm.tensor.cores;
    std::printf(
        "  tensor unit         %.0f mm (%.0f math issues), %.0f MACs; busy %s of %.0f unit "
        "cycles, lane utilization %s, token stalls %.0f cycles\n",
        tensor[0], tensor[1], tensor[2], percent(tensor[4], units).c_str(), units,
        percent(tensor[3], tensor[0] * 32).c_str(), tensor[5]);
  }
  const double l1_hits = st.sum("mem.l1", "load_hits");
  const double l1_loads = l1_hits + st.sum("mem.l1", "load_misses");
  std::printf("  L1 hit rate         %s of %.0f loads\n", percent(l1_hits, l1_loads).c_str(),
              l1_loads);
  const double l2_hits = st.at("mem.l2.hits");
  const double l2_reads = l2_hits + st.at("mem.l2.misses") + st.at("mem.l2.merged_misses");
  std::printf("  L2 hit rate         %s of %.0f reads\n", percent(l2_hits, l2_reads).c_str(),
              l2_reads);
  const auto gbps = [&](double bytes) { return seconds > 0 ? bytes / seconds / 1e9 : 0.0; };
  const double hbm_read = st.sum("mem.hbm", "read_bytes");
  const double hbm_write = st.sum("mem.hbm", "write_bytes");
  std::printf("  HBM                 read %.1f GB/s, write %.1f GB/s (%.0f and %.0f bytes)\n",
              gbps(hbm_read), gbps(hbm_write), hbm_read, hbm_write);
  const double xbar = st.at("mem.xbar.response_bytes");
  std::printf("  L2 -> SM            %.1f GB/s (%.0f bytes of crossbar responses)\n", gbps(xbar),
              xbar);
  std::printf("  DSMEM               %.0f bytes\n", st.at("mem.dsmem.bytes"));
}

void print_measurements(const std::vector<workloads::Measurement>& ms) {
  if (ms.empty()) return;
  std::size_t name_w = 11, unit_w = 4;
  for (const workloads::Measurement& m : ms) {
    name_w = std::max(name_w, m.name.size());
    unit_w = std::max(unit_w, m.unit.size());
  }
  std::printf("\n  %-*s %12s %12s  %-*s  %s\n", static_cast<int>(name_w), "measurement", "measured",
              "configured", static_cast<int>(unit_w), "unit", "note");
  for (const workloads::Measurement& m : ms) {
    const std::string configured =
        m.configured ? fmt::format("{:.1f}", *m.configured) : std::string("-");
    std::string line = fmt::format("  {:<{}} {:>12.1f} {:>12}  {:<{}}  {}", m.name, name_w,
                                   m.measured, configured, m.unit, unit_w, m.note);
    while (!line.empty() && line.back() == ' ')
      line.pop_back();
    std::printf("%s\n", line.c_str());
  }
}

int run_scenario(const GlobalOptions& g, const RunOpts& o) {
  if (std::error_code ec; std::filesystem::is_directory(o.scenario, ec)) {
    return fail({{fmt::format("{}: is a folder, not a scenario file", o.scenario)}});
  }
  auto loaded = workloads::load_scenario_file(o.scenario);
  if (!loaded) return fail(loaded.errors());
  workloads::Scenario s = std::move(loaded).value();
  std::vector<Error> errors;
  if (!o.mode.empty()) {
    auto m = workloads::parse_run_mode(o.mode);
    if (m) {
      s.mode = *m;
    } else {
      errors.push_back({fmt::format("--mode: {}", m.error().message)});
    }
  }
  if (!o.policy.empty()) {
    std::vector<std::string> known;
    for (std::string_view n : sched::policy_names())
      known.emplace_back(n);
    if (std::find(known.begin(), known.end(), o.policy) == known.end()) {
      errors.push_back({fmt::format("--policy: '{}' is not a policy{}; policies: {}", o.policy,
                                    sim::did_you_mean(o.policy, known), fmt::join(known, ", "))});
    } else {
      s.policy = o.policy;
    }
  }
  if (!o.scheduler.empty()) {
    if (auto made = core::make_warp_scheduler(o.scheduler); made) {
      s.sm_scheduler = o.scheduler;
    } else {
      errors.push_back({fmt::format("--scheduler: {}", made.error().message)});
    }
  }
  if (auto st = workloads::apply_param_overrides(s, "--param", o.params); !st) {
    errors.insert(errors.end(), st.errors().begin(), st.errors().end());
  }
  if (!errors.empty()) return fail(errors);

  auto path = workloads::resolve_scenario_chip(s, config_dir(g));
  if (!path) return fail(path.errors());
  auto spec = config::load_chip_file(*path);
  if (!spec) return fail(spec.errors());

  kernel::KernelRegistry kernels;
  workloads::WorkloadRegistry registry;
  if (auto st = workloads::register_all(kernels, registry); !st) {
    return fail(st.errors(), kExitSimulationFailure);  // a bug, not the user's input
  }
  auto resolved = workloads::resolve_scenario(s, kernels, registry);
  if (!resolved) return fail(resolved.errors());

  auto session = Session::open(g);
  if (!session) return fail(session.errors());
  sim::Simulation& sim = (*session)->sim();
  const system::ChipOptions options{
      .functional = s.mode == workloads::RunMode::kFunctional,
      .policy = s.policy,
      .scheduler = s.sm_scheduler,
      .timing = workloads::scenario_sm_timing(s, system::sm_timing_of(*spec)),
      .distributor = {},
      .max_touched_bytes = mem::GlobalMemory::kDefaultMaxTouchedBytes};
  auto chip = system::Chip::create(sim, *spec, options);
  if (!chip) return fail(chip.errors());
  if (auto st = workloads::setup_scenario(s, *resolved, **chip, kernels, g.seed); !st) {
    return fail(st.errors());
  }

  std::vector<std::string> hang;  // the hang report, when launches never completed
  try {
    const sim::StopReason stop = sim.run((*session)->time_limit());
    print_summary(s, **chip, sim);
    const std::uint64_t cycle = (*chip)->clock().cycle_at(sim.now());
    if (auto fault = (*chip)->fault()) {
      errors.push_back({fmt::format("fault: {}", fault->message)});
    } else if (!(*chip)->all_done() && stop == sim::StopReason::kTickLimit) {
      errors.push_back({fmt::format(
          "--max-time = {}: the simulation stopped at cycle {} before every launch finished",
          g.max_time, cycle)});
    } else if (!(*chip)->all_done()) {
      hang = (*chip)->hang_report();
      errors.push_back({fmt::format(
          "hang: nothing left to simulate at cycle {} but launches did not complete; {} warp{} "
          "wait{} forever",
          cycle, hang.size(), hang.size() == 1 ? "" : "s", hang.size() == 1 ? "s" : "")});
    } else if (s.is_workload()) {
      auto ms = resolved->workload->report(**chip);
      if (ms) {
        print_measurements(*ms);
        std::printf("  result              %s\n", s.mode == workloads::RunMode::kFunctional
                                                      ? "verified"
                                                      : "not checked (timing-only)");
      } else {
        for (const Error& e : ms.errors())
          errors.push_back({fmt::format("{}: verification failed: {}", s.workload, e.message)});
      }
    } else if (s.mode == workloads::RunMode::kTimingOnly) {
      std::printf("  result              not checked (timing-only)\n");
    } else {
      const auto v = workloads::verify_generic_launch(**chip, *resolved->kernel, resolved->args);
      if (!v) {
        std::printf("  result              not checked (kernel %s has no reference)\n",
                    s.kernel.c_str());
      } else if (*v) {
        std::printf("  result              verified: %s\n", (*v)->c_str());
      } else {
        for (const Error& e : v->errors())
          errors.push_back({fmt::format("{}: verification failed: {}", s.kernel, e.message)});
      }
    }
  } catch (const std::exception& e) {
    errors.push_back({fmt::format("simulation failed: {}", e.what())});
  }
  std::fflush(stdout);
  int code = kExitOk;
  if (!errors.empty()) {
    print_errors(errors);
    code = kExitSimulationFailure;
  }
  if (!hang.empty()) {
    std::fprintf(stderr, "hang report:\n");
    for (const std::string& line : hang)
      std::fprintf(stderr, "  %s\n", line.c_str());
  }
  if (auto errs = (*session)->finish(); !errs.empty()) {
    print_errors(errs);
    if (code == kExitOk) code = kExitSimulationFailure;
  }
  return code;
}

}  // namespace

void add_run_command(CLI::App& app, const GlobalOptions& g, Action& action) {
  auto* cmd = app.add_subcommand(
      "run", "Run a scenario file (a workload or one kernel launch) on the modelled chip");
  auto o = std::make_shared<RunOpts>();
  cmd->add_option("scenario", o->scenario, "scenario file (YAML; docs/run.md)")->required();
  cmd->add_option("--mode", o->mode, "functional | timing-only (overrides the scenario's mode)");
  cmd->add_option("--param", o->params,
                  "workload parameters over the scenario's: key=value,... (sizes may use KiB, "
                  "MiB, GiB)");
  cmd->add_option("--policy", o->policy,
                  "work-distributor policy over the scenario's: waterfill | prior-art | "
                  "round-robin | first-fit");
  cmd->add_option("--scheduler", o->scheduler,
                  "SM warp scheduler over the scenario's: gto | lrr | oldest");
  cmd->callback([&g, &action, o] { action = [&g, o]() -> int { return run_scenario(g, *o); }; });
}

}  // namespace xpusim::cli
