#include "system/run.h"

#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <utility>

#include "system/ptx_module.h"

namespace xpusim::system {

ChipOptions chip_options(const Scenario& s, const config::ChipSpec& spec, bool memory_thread) {
  return ChipOptions{.functional = s.mode == RunMode::kFunctional,
                     .policy = s.policy,
                     .scheduler = s.sm_scheduler,
                     .timing = scenario_sm_timing(s, sm_timing_of(spec)),
                     .distributor = {.rasterization = s.rasterization},
                     .cga_memory_slots = s.cga_memory_slots,
                     .max_touched_bytes = mem::GlobalMemory::kDefaultMaxTouchedBytes,
                     .check_accesses = true,
                     .memory_timing = s.memory_timing,
                     .set_sampling = s.set_sampling,
                     .wave_sampling = {.tolerance = s.wave_sampling / 100},
                     .memory_thread = memory_thread,
                     .queues = s.queues,
                     .cp_timing = scenario_cp_timing(s, agent_timing_of(spec))};
}

namespace {

// The scenario's module into `kernels`: a .ptx read, or a .cu compiled to a temporary .ptx.
Status load_ptx(const Scenario& s, kernel::KernelRegistry& kernels) {
  const bool cu = !s.cuda.empty();
  const std::filesystem::path file = s.dir / (cu ? s.cuda : s.ptx);
  const config::SourcePos pos = cu ? s.cuda_pos : s.ptx_pos;
  const char* key = cu ? "cuda" : "ptx";
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec))
    return s.error_at(pos, key, fmt::format("{}: no such file", file.string()));
  std::filesystem::path ptx = file;
  std::filesystem::path temp;
  if (cu) {
    temp = std::filesystem::temp_directory_path() /
           fmt::format("xpusim-{}-{}.ptx", ::getpid(), std::hash<std::string>{}(file.string()));
    if (auto st = compile_cuda(file, temp); !st) return s.error_at(pos, key, st.error().message);
    ptx = temp;
  }
  Status st = register_ptx_file(ptx, cu ? file.string() + " (nvcc -ptx)" : file.string(), kernels);
  if (!temp.empty()) std::filesystem::remove(temp, ec);
  if (!st) return s.error_at(pos, key, st.error().message);
  return Ok{};
}

}  // namespace

Result<std::unique_ptr<Run>> Run::resolve(const Scenario& s, Registrar registrar) {
  std::unique_ptr<Run> run(new Run(s));
  // A registrar error is a bug in the registered code, not the user's input; it still comes
  // back as an error rather than a crash. A PTX module's entries replace the C++ kernels.
  const bool ptx = !s.ptx.empty() || !s.cuda.empty();
  kernel::KernelRegistry cpp_kernels;
  if (auto st = registrar(ptx ? cpp_kernels : run->kernels_, run->workloads_); !st)
    return st.errors();
  if (ptx) {
    if (auto st = load_ptx(s, run->kernels_); !st) return st.errors();
  }
  auto resolved = resolve_scenario(run->s_, run->kernels_, run->workloads_);
  if (!resolved) return resolved.errors();
  run->resolved_ = std::move(resolved).value();
  // Each workload entry of a graph gets a workload of its own, from a registry of its own.
  for (const auto& node : run->resolved_.graph) {
    Workload* w = nullptr;
    if (node.workload != nullptr) {
      auto kernels = std::make_unique<kernel::KernelRegistry>();
      auto workloads = std::make_unique<WorkloadRegistry>();
      if (auto st = registrar(*kernels, *workloads); !st) return st.errors();
      auto found = workloads->find(node.workload->name());
      if (!found) return found.errors();
      w = *found;
      run->entry_kernels_.push_back(std::move(kernels));
      run->entry_workloads_.push_back(std::move(workloads));
    }
    run->entry_workload_.push_back(w);
  }
  return run;
}

Status Run::build(sim::Simulation& sim, const config::ChipSpec& spec, const RunOptions& o) {
  XPUSIM_CHECK(chip_ == nullptr, "a run is built once");
  sim_ = &sim;
  ChipOptions options = chip_options(s_, spec, o.memory_thread);
  options.line_profile = o.line_profile;
  auto chip = Chip::create(sim, spec, options);
  if (!chip) return chip.errors();
  chip_ = std::move(chip).value();
  auto ids = setup_scenario(s_, resolved_, *chip_, kernels_, o.seed);
  if (!ids) return ids.errors();
  if (auto st = probe_scenario_outputs(s_); !st) return st.errors();
  launch_ids_ = std::move(ids).value();
  if (s_.is_graph()) {
    auto host = GraphHost::start(s_, resolved_, entry_workload_, *chip_, kernels_);
    if (!host) return host.errors();
    graph_ = std::move(host).value();
  }
  return Ok{};
}

Result<std::unique_ptr<Run>> Run::create(sim::Simulation& sim, const Scenario& s,
                                         const config::ChipSpec& spec, Registrar registrar,
                                         const RunOptions& o) {
  auto run = resolve(s, registrar);
  if (!run) return run.errors();
  if (auto st = (*run)->build(sim, spec, o); !st) return st.errors();
  return std::move(run).value();
}

sim::StopReason Run::simulate(sim::Tick limit) {
  return sim_->run(limit);
}

void Run::check_results(RunReport& r) {
  Chip& chip = *chip_;
  if (s_.is_workload()) {
    if (!chip.all_done()) return;  // a workload checks its launches together
    auto ms = resolved_.workload->report(chip);
    if (!ms) {
      for (const Error& e : ms.errors())
        r.errors.push_back({fmt::format("{}: verification failed: {}", s_.workload, e.message)});
      return;
    }
    r.measurements = std::move(ms).value();
    r.results.emplace_back(s_.mode == RunMode::kFunctional ? "verified"
                                                           : "not checked (timing-only)");
    return;
  }
  if (s_.is_graph()) {
    check_graph(r);
    return;
  }
  if (s_.mode == RunMode::kTimingOnly) {
    if (chip.all_done()) r.results.emplace_back("not checked (timing-only)");
    return;
  }
  // The kernel against its host reference.
  const KernelRun& k = chip.run(launch_ids_.front());
  if (!k.done) return;
  if (k.kernel->check == nullptr) {
    r.results.push_back(fmt::format("not checked (kernel {} has no reference)", k.kernel->name));
    return;
  }
  const auto v = k.kernel->check(chip.memory(), k.args, k.params);
  if (!v) {
    for (const Error& e : v.errors())
      r.errors.push_back({fmt::format("{}: verification failed: {}", k.kernel->name, e.message)});
    return;
  }
  r.results.push_back(fmt::format("verified: {}", *v));
}

void Run::check_graph(RunReport& r) {
  // Each entry: a kernel against its host reference, a workload through its report; in a run
  // where a queue failed, the entries that finished still are.
  Chip& chip = *chip_;
  for (const Error& e : graph_->errors())
    r.errors.push_back(e);
  for (std::size_t i = 0; i < s_.graph.size(); ++i) {
    const ScenarioKernel& g = s_.graph[i];
    const std::vector<std::uint32_t> ids = graph_->launches(i);
    const std::string label =
        fmt::format("{} ({})", g.name, g.is_workload() ? g.workload : g.kernel);
    const GraphHost::Node& node = graph_->node(i);
    if (node.failed || !graph_->finished(i)) {
      const bool faulted =
          std::any_of(ids.begin(), ids.end(), [&](std::uint32_t id) { return chip.run(id).fault; });
      const std::string_view why = node.failed    ? "it failed to start: see its error"
                                   : faulted      ? "it faulted"
                                   : !node.issued ? "its queue stopped before it was issued"
                                                  : "it did not complete";
      r.results.push_back(fmt::format("{}: not checked ({})", label, why));
      continue;
    }
    if (g.is_workload()) {
      auto ms = graph_->workload(i)->report(chip);
      if (!ms) {
        for (const Error& e : ms.errors())
          r.errors.push_back({fmt::format("{}: verification failed: {}", label, e.message)});
        continue;
      }
      for (Measurement m : *ms) {
        m.name = fmt::format("{}: {}", g.name, m.name);
        r.measurements.push_back(std::move(m));
      }
      r.results.push_back(
          fmt::format("{}: {}", label,
                      s_.mode == RunMode::kFunctional ? "verified" : "not checked (timing-only)"));
      continue;
    }
    const KernelRun& k = chip.run(ids.front());
    if (s_.mode == RunMode::kTimingOnly) {
      r.results.push_back(fmt::format("{}: not checked (timing-only)", label));
      continue;
    }
    if (k.kernel->check == nullptr) {
      r.results.push_back(fmt::format("{}: not checked (no reference)", label));
      continue;
    }
    const auto v = k.kernel->check(chip.memory(), k.args, k.params);
    if (!v) {
      for (const Error& e : v.errors())
        r.errors.push_back({fmt::format("{}: verification failed: {}", label, e.message)});
      continue;
    }
    r.results.push_back(fmt::format("{}: verified: {}", label, *v));
  }
}

RunReport Run::report(sim::StopReason stop) {
  Chip& chip = *chip_;
  chip.memory_system().settle();  // a run cut short counts the fills back too
  RunReport r;
  r.stop = stop;
  // The chip's timeline: with wave sampling, the skipped waves' time too.
  r.cycles = chip.clock().cycle_at(sim_->now() + chip.distributor().skipped_ticks());
  // A fault ends its queue (HSA error state); a bad packet ends its queue too. The other
  // queues' kernels ran on: those that completed are checked below.
  std::vector<std::uint32_t> faulted_queues;
  for (const std::uint32_t id : chip.faulted()) {
    const KernelRun& k = chip.run(id);
    faulted_queues.push_back(k.queue);
    r.errors.push_back(
        {fmt::format("fault: {} (queue {} is in the HSA error state)", k.fault->message, k.queue)});
  }
  const CommandProcessor& cp = chip.command_processor();
  for (std::uint32_t q = 0; q < cp.queues(); ++q) {
    const auto& e = cp.queue(q).error();
    if (e && std::find(faulted_queues.begin(), faulted_queues.end(), q) == faulted_queues.end()) {
      r.errors.push_back({fmt::format("queue error: {}", e->message)});
    }
  }
  // Launches on queues still working that never completed: cut short, or a hang.
  bool stuck = false;
  for (std::uint32_t id = 0; id < chip.launches(); ++id) {
    const KernelRun& k = chip.run(id);
    stuck = stuck || (!k.done && cp.queue(k.queue).active());
  }
  if (stuck && stop == sim::StopReason::kTickLimit) {
    r.cut_short = true;
    r.errors.push_back(
        {fmt::format("the simulation stopped at cycle {} before every launch finished", r.cycles)});
  } else if (stuck) {
    r.hang = chip.hang_report();
    r.errors.push_back({fmt::format(
        "hang: nothing left to simulate at cycle {} but launches did not complete; {} warp{} "
        "wait{} forever",
        r.cycles, r.hang.size(), r.hang.size() == 1 ? "" : "s", r.hang.size() == 1 ? "s" : "")});
  }
  r.completed = chip.all_done();
  if (!r.cut_short) check_results(r);
  // TMA requests dropped at setup (seed0 ¶88) in a run that still completed: bad input too.
  if (r.completed) {
    for (const std::string& e : chip.tma_errors())
      r.errors.push_back({fmt::format("tma: {}", e)});
  }
  if (!s_.outputs.empty()) {
    // A failed run's buffers hold what it left half done: no file is better than a wrong one.
    if (!r.ok()) {
      for (const ScenarioOutput& o : s_.outputs)
        r.outputs.push_back(fmt::format("{}: not written (the run failed)", o.path));
    } else if (auto written = write_scenario_outputs(s_, chip.memory()); written) {
      r.outputs = std::move(written).value();
    } else {
      for (const Error& e : written.errors())
        r.errors.push_back(e);
      for (const ScenarioOutput& o : s_.outputs)
        r.outputs.push_back(fmt::format("{}: not written (see the error)", o.path));
    }
  }
  return r;
}

Result<RunReport> run(const Scenario& s, const config::ChipSpec& spec, Registrar registrar,
                      const RunOptions& o) {
  sim::Simulation sim{o.seed};
  auto r = Run::create(sim, s, spec, registrar, o);
  if (!r) return r.errors();
  return (*r)->report((*r)->simulate());
}

}  // namespace xpusim::system
