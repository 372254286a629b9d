// `launch`: the work distributor on its own (src/sched/): one grid of CTAs or clusters on a
// chip, CTAs run by a run-time model; prints residency, utilization, makespan and launch
// latency; --explain says why a cluster does or does not fit each GPC; --svg draws it.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <fstream>

#include "cli.h"
#include "config/chip_schema.h"
#include "config/chip_spec.h"
#include "config/units.h"
#include "run_summary.h"
#include "sched/explain.h"
#include "sched/launch_run.h"
#include "sched/launch_svg.h"
#include "sched/policy.h"

namespace xpusim::cli {
namespace {

struct LaunchOpts {
  std::string chip = "h100-sxm5";
  std::string grid;
  std::string cluster = "1,1,1";
  std::uint32_t gpu_cga = 0;
  std::uint32_t ugpu_cga = 0;
  std::uint32_t cpc_cga = 0;
  std::uint32_t cpcs_per_gpc = 0;  // 0: the chip's
  std::uint32_t ugpus = 0;         // 0: the chip's
  std::string cta = "threads=128,regs=32,smem=0";
  bool multicast = false;
  std::string policy = "waterfill";
  std::string runtime = "fixed:10000";
  std::uint32_t ids_per_gpc = 256;
  std::uint32_t cga_slots = 0;
  std::string timing;
  bool explain = false;
  std::string svg;
};

// "X,Y,Z" (or "X" / "X,Y"): whole numbers >= 1.
Result<sched::Dim3> parse_dim3(std::string_view flag, std::string_view text) {
  std::uint32_t v[3] = {1, 1, 1};
  std::size_t i = 0;
  std::string_view rest = text;
  while (true) {
    const auto comma = rest.find(',');
    const std::string_view part = rest.substr(0, comma);
    const auto r = std::from_chars(part.data(), part.data() + part.size(), v[i]);
    if (i >= 3 || part.empty() || r.ec != std::errc{} || r.ptr != part.data() + part.size()) {
      return Error{fmt::format("{} = '{}': expected X,Y,Z with whole numbers", flag, text)};
    }
    if (v[i] == 0) {
      return Error{
          fmt::format("{} = '{}': dim {} is 0; every dim must be >= 1", flag, text, "xyz"[i])};
    }
    ++i;
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
    if (i == 3) return Error{fmt::format("{} = '{}': more than 3 dims", flag, text)};
  }
  return sched::Dim3{.x = v[0], .y = v[1], .z = v[2]};
}

// "threads=N,regs=N,smem=SIZE": any subset, the rest default.
Result<sched::CtaShape> parse_cta(std::string_view text) {
  constexpr std::string_view flag = "--cta-resources";
  sched::CtaShape s;
  auto st = config::for_each_key_value(flag, text, [&](auto item, auto key, auto value) -> Status {
    if (key == "threads") return parse_whole(flag, key, value, s.threads);
    if (key == "regs") return parse_whole(flag, key, value, s.registers_per_thread);
    if (key == "smem") {
      auto bytes = config::parse_size_bytes(value);
      if (!bytes) {
        return Error{fmt::format("{}: smem = '{}': {}", flag, value, bytes.error().message)};
      }
      s.shared_bytes = *bytes;
      return Ok{};
    }
    return Error{fmt::format(
        "{}: unknown item '{}' (valid: threads=N, regs=N, smem=SIZE such as 48KiB)", flag, item)};
  });
  if (!st) return st.errors();
  return s;
}

// "key=N,...": the distributor's decision costs and latencies (docs/work-distributor.md).
Status parse_timing(std::string_view text, sched::DecisionCost& cost, sched::DistributorTiming& t) {
  const Knob knobs[] = {
      {"step", &cost.step_cycles},       {"probe", &cost.probe_cycles},
      {"per_cta", &cost.per_cta_cycles}, {"broadcast", &t.broadcast_cycles},
      {"launch", &t.cta_launch_cycles},  {"completion", &t.completion_cycles},
      {"flush", &t.flush_cycles},        {"packets_per_cycle", &t.packets_per_cycle}};
  if (auto st = set_knobs("--timing", text, knobs); !st) return st;
  if (t.packets_per_cycle == 0) return Error{"--timing: packets_per_cycle = 0; it must be >= 1"};
  return Ok{};
}

void print_report(const sched::LaunchScenario& s, const sched::LaunchReport& r,
                  const config::ChipSpec& chip) {
  const sched::GridSpec& g = s.grids.front();
  std::printf("launch on %s: grid %u,%u,%u", chip.name.c_str(), g.grid.x, g.grid.y, g.grid.z);
  if (g.kind != sched::ClusterKind::kNone) {
    std::printf(", clusters %u,%u,%u (%u CTAs)%s", g.cluster.x, g.cluster.y, g.cluster.z,
                g.ctas_per_cga(), g.multicast ? ", multicast" : "");
  }
  if (g.kind == sched::ClusterKind::kGpuCga) {
    std::printf(", GPU_CGAs of %u clusters", g.gpc_cgas_per_gpu_cga);
  }
  if (g.kind == sched::ClusterKind::kUgpuCga) {
    std::printf(", µGPU_CGAs of %u clusters (%u µGPUs)", g.gpc_cgas_per_ugpu_cga,
                s.topology.num_ugpus());
  }
  if (g.cpc_cgas_per_gpc_cga != 0) {
    std::printf(", each cluster %u CPC_CGAs of %u CTAs (%u CPCs per GPC)", g.cpc_cgas_per_gpc_cga,
                g.ctas_per_cpc_cga(), s.topology.cpcs_per_gpc());
  }
  std::printf("\n  policy          %s; CTA %u threads, %u regs/thread, %llu B shared\n",
              r.policy.c_str(), g.shape.threads, g.shape.registers_per_thread,
              static_cast<unsigned long long>(g.shape.shared_bytes));
  std::printf("  run-time model  %s\n", s.runtime.describe().c_str());
  if (g.kind != sched::ClusterKind::kNone) {
    std::string per_gpc;
    for (std::size_t i = 0; i < r.max_clusters_per_gpc.size(); ++i) {
      per_gpc += fmt::format("{}{}", i == 0 ? "" : " ", r.max_clusters_per_gpc[i]);
    }
    std::printf("  clusters resident at once  %llu (per GPC, most at once: %s)\n",
                static_cast<unsigned long long>(r.max_clusters), per_gpc.c_str());
  }
  std::printf("  CTAs resident at once      %llu on %u SMs\n",
              static_cast<unsigned long long>(r.peak_ctas), r.num_sms);
  std::printf(
      "  launch latency             first CTA at cycle %llu; peak residency at cycle %llu\n",
      static_cast<unsigned long long>(r.first_start_cycles),
      static_cast<unsigned long long>(r.fill_cycles));
  std::printf(
      "  distributor                %llu steps, %llu decision cycles, %llu id-pool stalls\n",
      static_cast<unsigned long long>(r.steps), static_cast<unsigned long long>(r.decision_cycles),
      static_cast<unsigned long long>(r.id_stalls));
  if (s.tracker.memory_slots != 0) {
    std::printf(
        "  CGA memory slots           %u of %u in use at most; %llu launch attempts found none\n",
        r.peak_slots, s.tracker.memory_slots, static_cast<unsigned long long>(r.slot_stalls));
  }
  std::printf("  makespan                   %llu cycles (%.3f us)\n",
              static_cast<unsigned long long>(r.makespan_cycles),
              static_cast<double>(r.makespan_cycles) / static_cast<double>(s.clock_hz) * 1e6);
  std::printf("  SM utilization             %.1f%% (%llu idle SM-cycles)\n", 100 * r.utilization,
              static_cast<unsigned long long>(r.idle_sm_cycles));
  // Utilization over time in ten slices of the makespan.
  std::string slices;
  const std::uint64_t span = std::max<std::uint64_t>(1, r.makespan_cycles);
  for (int k = 0; k < 10; ++k) {
    const std::uint64_t a = span * k / 10, b = span * (k + 1) / 10;
    double busy = 0;
    for (std::size_t i = 0; i < r.curve.size(); ++i) {
      const std::uint64_t from = std::max(a, r.curve[i].tick);
      const std::uint64_t to = std::min(b, i + 1 < r.curve.size() ? r.curve[i + 1].tick : span);
      if (to > from)
        busy += static_cast<double>(r.curve[i].busy_sms) * static_cast<double>(to - from);
    }
    slices +=
        fmt::format(" {:3.0f}%", 100 * busy /
                                     (static_cast<double>(r.num_sms) *
                                      static_cast<double>(std::max<std::uint64_t>(1, b - a))));
  }
  std::printf("  utilization over time     %s (tenths of the makespan)\n", slices.c_str());
}

}  // namespace

void add_launch_command(CLI::App& app, const GlobalOptions& g, Action& action) {
  auto* cmd = app.add_subcommand(
      "launch", "Run the work distributor on one grid: residency, utilization, makespan");
  auto o = std::make_shared<LaunchOpts>();
  cmd->add_option("--chip", o->chip, "chip name or file")->capture_default_str();
  cmd->add_option("--grid", o->grid, "grid size in CTAs, X,Y,Z")->required();
  cmd->add_option("--cluster", o->cluster, "cluster (GPC_CGA) size in CTAs, X,Y,Z; 1,1,1 = none")
      ->capture_default_str();
  cmd->add_option("--gpu-cga", o->gpu_cga,
                  "group N clusters into one GPU_CGA (all-or-nothing across GPCs); 0 = no")
      ->check(non_negative())
      ->capture_default_str();
  cmd->add_option("--ugpu-cga", o->ugpu_cga,
                  "group N clusters into one µGPU_CGA (all-or-nothing inside one µGPU); 0 = no")
      ->check(non_negative())
      ->capture_default_str();
  cmd->add_option("--cpc-cga", o->cpc_cga,
                  "split each cluster into N CPC_CGAs, each inside one CPC; 0 = no")
      ->check(non_negative())
      ->capture_default_str();
  cmd->add_option("--cpcs-per-gpc", o->cpcs_per_gpc,
                  "what-if: split each GPC into N CPCs (0 = the chip's topology.cpcs_per_gpc)")
      ->check(non_negative())
      ->capture_default_str();
  cmd->add_option("--ugpus", o->ugpus,
                  "what-if: split the GPCs into N µGPUs (0 = the chip's topology.ugpus)")
      ->check(non_negative())
      ->capture_default_str();
  cmd->add_option("--cta-resources", o->cta, "per-CTA needs: threads=N,regs=N,smem=SIZE")
      ->capture_default_str();
  cmd->add_flag("--multicast", o->multicast,
                "at most one CTA of a cluster per SM (TPC pairs first)");
  cmd->add_option("--policy", o->policy, fmt::format("{}", fmt::join(sched::policy_names(), " | ")))
      ->capture_default_str();
  cmd->add_option("--runtime-model", o->runtime,
                  "CTA run time: fixed:CYCLES or uniform:MIN-MAX, then ,slowdown=S")
      ->capture_default_str();
  cmd->add_option("--ids-per-gpc", o->ids_per_gpc, "gpc_local_cga_id pool size per GPC (1..256)")
      ->check(non_negative())
      ->capture_default_str();
  cmd->add_option("--cga-slots", o->cga_slots,
                  "the CWD's CGA memory-slot pool: one per resident cluster (0 = unlimited)")
      ->check(non_negative())
      ->capture_default_str();
  cmd->add_option("--timing", o->timing,
                  "distributor cycles: step=N,probe=N,per_cta=N,broadcast=N,launch=N,"
                  "completion=N,flush=N,packets_per_cycle=N (any subset)");
  cmd->add_flag("--explain", o->explain,
                "say for the cluster shape why it fits or not on each GPC of an empty chip");
  cmd->add_option("--svg", o->svg, "write the placement map and utilization curve to this file");
  cmd->callback([&g, &action, o] {
    action = [&g, o]() -> int {
      std::vector<Error> errors;
      auto path = config::resolve_chip(o->chip, config_dir(g));
      if (!path) return fail(path.errors());
      auto chip = config::load_chip_file(*path);
      if (!chip) return fail(chip.errors());
      auto grid = parse_dim3("--grid", o->grid);
      auto cluster = parse_dim3("--cluster", o->cluster);
      auto cta = parse_cta(o->cta);
      auto runtime = sched::parse_runtime_model(o->runtime);
      for (const auto* e :
           {grid.ok() ? nullptr : &grid.errors(), cluster.ok() ? nullptr : &cluster.errors(),
            cta.ok() ? nullptr : &cta.errors(), runtime.ok() ? nullptr : &runtime.errors()}) {
        if (e != nullptr) errors.insert(errors.end(), e->begin(), e->end());
      }
      if (!errors.empty()) return fail(errors);

      sched::LaunchScenario s;
      if (o->cpcs_per_gpc > 0) chip->topology.cpcs_per_gpc = o->cpcs_per_gpc;
      if (o->ugpus > 0) chip->topology.ugpus = o->ugpus;
      auto topo = sched::Topology::make(
          chip->topology.tpcs_per_gpc, chip->topology.sms_per_tpc,
          sched::SmCapacity::from_chip(*chip),
          {.cpcs_per_gpc = chip->topology.cpcs_per_gpc, .ugpus = chip->topology.ugpus});
      if (!topo) return fail(topo.errors());
      if (o->gpu_cga > 1 && o->ugpu_cga > 0) {
        return fail({Error{fmt::format(
            "--gpu-cga {} and --ugpu-cga {}: clusters group into GPU_CGAs or µGPU_CGAs, not both",
            o->gpu_cga, o->ugpu_cga)}});
      }
      s.topology = *topo;
      s.max_cluster_size = chip->topology.max_cluster_size;
      s.clock_hz = chip->clocks.sm_hz;
      s.policy = o->policy;
      s.runtime = *runtime;
      s.tracker.ids_per_gpc = o->ids_per_gpc;
      s.tracker.memory_slots = o->cga_slots;
      if (auto st = parse_timing(o->timing, s.cost, s.timing); !st) return fail(st.errors());
      sched::GridSpec spec;
      spec.grid = *grid;
      spec.cluster = *cluster;
      spec.shape = *cta;
      spec.multicast = o->multicast;
      spec.kind = cluster->count() > 1 || o->gpu_cga > 0 || o->ugpu_cga > 0 || o->cpc_cga > 0
                      ? sched::ClusterKind::kGpcCga
                      : sched::ClusterKind::kNone;
      if (o->gpu_cga > 0) {
        spec.kind = sched::ClusterKind::kGpuCga;
        spec.gpc_cgas_per_gpu_cga = o->gpu_cga;
      }
      if (o->ugpu_cga > 0) {
        spec.kind = sched::ClusterKind::kUgpuCga;
        spec.gpc_cgas_per_ugpu_cga = o->ugpu_cga;
      }
      spec.cpc_cgas_per_gpc_cga = o->cpc_cga;
      s.grids.push_back(spec);

      if (o->explain) {
        sched::GpuState empty(s.topology);
        for (const std::string& line : sched::explain_fit(empty, spec))
          std::printf("%s\n", line.c_str());
      }
      const auto slice = run_slice_from_env();
      if (!slice) return fail(slice.errors());
      auto session = Session::open(g);
      if (!session) return fail(session.errors());
      (*session)->header()["chip"] = chip->name;
      (*session)->header()["chip_config"] = config::chip_to_json(*chip);
      auto study = sched::LaunchStudy::create((*session)->sim(), s);
      if (!study) return fail(study.errors());
      int code = kExitOk;
      try {
        // The `run` command's progress line on a terminal.
        const sched::LaunchStudy& running = **study;
        const auto run_until = study_run_until(
            (*session)->sim(), *slice,
            [&running] {
              const auto p = running.progress();
              return StudyProgress{.cycles = p.cycles, .done = p.ctas_done, .total = p.ctas_total};
            },
            "CTAs");
        const sched::LaunchReport r = (*study)->run((*session)->time_limit(), run_until);
        print_report(s, r, *chip);
        if (!o->svg.empty()) {
          std::ofstream out(o->svg);
          out << sched::launch_svg(s.topology, r,
                                   fmt::format("xpusim launch: {} on {}", r.policy, chip->name));
          if (!out) {
            print_errors({{fmt::format("--svg = '{}': cannot write the file", o->svg)}});
            code = kExitSimulationFailure;
          }
        }
        if (!r.completed) {
          const Error e{
              fmt::format("{}: the simulation stopped at cycle {} before every CTA "
                          "finished",
                          (*session)->limit_label(), r.makespan_cycles)};
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

}  // namespace xpusim::cli
