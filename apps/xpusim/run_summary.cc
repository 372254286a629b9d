#include "run_summary.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string_view>

#include "config/chip_spec.h"
#include "sim/result.h"

namespace xpusim::cli {
namespace {

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
  bool has(std::string_view path) const {
    return stats_.find(fmt::format("{}.{}", prefix_, path)).ok();
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

// "12.3 MiB" style for byte counts in one-line summaries.
std::string bytes(double b) {
  constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (b >= 1024 && u < 4) {
    b /= 1024;
    ++u;
  }
  return u == 0 ? fmt::format("{:.0f} B", b) : fmt::format("{:.1f} {}", b, kUnits[u]);
}

constexpr const char* kTmaStats[] = {"busy_cycles",   "requests",        "bytes_read",
                                     "bytes_written", "descriptor_hits", "descriptor_misses"};

}  // namespace

void print_kernel_table(const system::Chip& chip) {
  // One line per launch, the command processor's view and the distributor's side by side.
  constexpr std::uint32_t kShownLaunches = 16;  // then one line for the rest
  const sim::Clock& clock = chip.clock();
  const auto cycles = [&](sim::Tick from, sim::Tick to) {
    return to <= from ? std::uint64_t{0} : clock.cycle_at(to) - clock.cycle_at(from);
  };
  for (std::uint32_t id = 0; id < std::min(chip.launches(), kShownLaunches); ++id) {
    const system::KernelRun& k = chip.run(id);
    const cp::LaunchRecord* a = chip.agent_record(id);
    const system::QueueSpec& q = chip.command_processor().spec(k.queue);
    std::string when;
    if (!k.on_distributor()) {
      when = "did not complete (not dispatched)";
    } else if (chip.distributor().grid_times(k.grid).first_start == sim::kMaxTick) {
      when = "never started";
    } else {
      const sim::Tick first = chip.distributor().grid_times(k.grid).first_start;
      const auto peak = chip.distributor().grid_peak(k.grid);
      when = fmt::format("launch latency {} cycles, ", cycles(k.dispatched, first));
      when += k.done    ? fmt::format("ran {} cycles", cycles(first, k.completed))
              : k.fault ? std::string("faulted (its queue stopped)")
                        : std::string("did not complete");
      when += fmt::format(", {} CTAs", k.params.grid.count());
      if (!k.params.policy.empty()) when += fmt::format(", policy {}", k.params.policy);
      if (k.params.cluster.count() > 1) when += fmt::format(", {} clusters at peak", peak.clusters);
    }
    // The command processor's side: queue, how it was dispatched, its packet bytes, overhead.
    std::string cp = fmt::format("q{} {}", k.queue, to_string(q.dispatch));
    if (a != nullptr) {
      cp = fmt::format("q{} {} {} B", k.queue, a->condensed ? "condensed" : "dispatch packet",
                       a->packet_bytes);
      if (a->done) cp += fmt::format(", dispatch overhead {} cycles", a->overhead_cycles);
    }
    const std::string line =
        fmt::format("  {:<20}{} grid {} block {}: {}; {}", fmt::format("launch {}", id),
                    k.kernel->name, dims(k.params.grid), dims(k.params.block), when, cp);
    std::printf("%s\n", line.c_str());
  }
  if (chip.launches() > kShownLaunches) {
    std::uint32_t done = 0;
    for (std::uint32_t id = kShownLaunches; id < chip.launches(); ++id)
      done += chip.run(id).done ? 1 : 0;
    std::printf("  %-20s(%u more launches, %u of them completed)\n", "...",
                chip.launches() - kShownLaunches, done);
  }
  for (const std::string& e : chip.queue_errors())
    std::printf("  %-20s%s\n", "queue error", e.c_str());
}

RunFigures read_figures(system::Chip& chip, sim::Simulation& sim) {
  RunFigures f;
  // The chip's timeline: with wave sampling, the skipped waves' time too.
  const sim::Tick now = sim.now() + chip.distributor().skipped_ticks();
  f.cycles = chip.clock().cycle_at(now);
  f.seconds = static_cast<double>(now) * 1e-12;
  f.sms = chip.num_sms();
  f.sub_partitions = chip.timing().sub_partitions;
  const StatSums st(sim.stats(), chip.root().path());
  constexpr const char* kStalls[] = {"issue", "dependency", "memory", "barrier"};
  constexpr const char* kStores[] = {"posted_stores", "store_queue_waits",
                                     "store_queue_wait_cycles"};
  constexpr const char* kTensor[] = {
      "mm.instructions",   "mm.math_issues",     "mm.macs",
      "mm.active_threads", "tensor.busy_cycles", "mm.token_stall_cycles"};
  const bool tma = f.sms > 0 && st.has("sm0.tma.busy_cycles");
  if (tma) f.tma = std::vector<double>(std::size(kTmaStats), 0.0);
  for (std::uint32_t i = 0; i < f.sms; ++i) {
    const std::uint64_t n = chip.sm(i).warp_instructions();
    f.instructions += n;
    f.used_sms += n > 0 ? 1 : 0;
    for (int k = 0; k < 4; ++k)
      f.stall[k] += st.at(fmt::format("sm{}.stall_{}_cycles", i, kStalls[k]));
    for (int k = 0; k < 6; ++k)
      f.tensor[k] += st.at(fmt::format("sm{}.{}", i, kTensor[k]));
    for (int k = 0; k < 3; ++k)
      f.stores[k] += st.at(fmt::format("sm{}.{}", i, kStores[k]));
    if (tma) {
      for (std::size_t k = 0; k < std::size(kTmaStats); ++k)
        (*f.tma)[k] += st.at(fmt::format("sm{}.tma.{}", i, kTmaStats[k]));
    }
  }
  f.l1_hits = st.sum("mem.l1", "load_hits");
  f.l1_loads = f.l1_hits + st.sum("mem.l1", "load_misses");
  f.l2_hits = st.at("mem.l2.hits");
  f.l2_merged = st.at("mem.l2.merged_misses");
  f.l2_reads = f.l2_hits + st.at("mem.l2.misses") + f.l2_merged;
  f.hbm_read = st.sum("mem.hbm", "read_bytes");
  f.hbm_write = st.sum("mem.hbm", "write_bytes");
  f.hbm_load_wait = st.sum("mem.hbm", "load_wait");
  f.hbm_load_reads = st.sum("mem.hbm", "load_reads");
  f.xbar = st.at("mem.xbar.response_bytes");
  f.dsmem = st.at("mem.dsmem.bytes");
  return f;
}

void print_summary(const std::string& header, system::Chip& chip, const RunFigures& f,
                   const Headline& h) {
  std::printf("%s\n", header.c_str());
  std::printf("  simulated           %llu cycles, %.3f us\n", ull(f.cycles), f.seconds * 1e6);
  const sched::WorkDistributor& cwd = chip.distributor();
  const auto stat = [&](const char* name) {
    auto s = chip.root().sim().stats().find(fmt::format("{}.{}", cwd.path(), name));
    return s ? (*s)->to_json()["value"].get<double>() : 0.0;
  };
  if (cwd.wave_sampling().on() && cwd.skipped_ticks() == 0) {
    const double ended = stat("sampling.waves_simulated");
    std::printf(
        "  wave sampling       nothing skipped: no grid had three waves within %g%% with a "
        "whole wave still to launch after them (at most %.0f wave%s of a grid ended)\n",
        cwd.wave_sampling().tolerance * 100, ended, ended == 1 ? "" : "s");
  }
  if (cwd.skipped_ticks() > 0) {
    const double period = stat("sampling.period_cycles");
    const double check = stat("sampling.check_cycles");
    std::printf(
        "  wave sampling       %.0f waves skipped (%.0f CTAs, %.0f cycles), each counted as the "
        "steady wave of %.0f cycles%s\n",
        stat("sampling.waves_skipped"), stat("sampling.ctas_skipped"),
        stat("sampling.cycles_skipped"), period,
        check > 0 ? fmt::format("; the wave after took {:.0f} ({:+.2f}%)", check,
                                100 * (check - period) / period)
                        .c_str()
                  : "");
  }
  print_kernel_table(chip);
  std::printf(
      "  warp instructions   %llu; issue utilization %s (of %llu cycles x %u SMs used x %u "
      "sub-partitions)\n",
      ull(f.instructions),
      percent(static_cast<double>(f.instructions),
              static_cast<double>(f.cycles) * f.used_sms * f.sub_partitions)
          .c_str(),
      ull(f.cycles), f.used_sms, f.sub_partitions);
  const double stall_total = f.stall[0] + f.stall[1] + f.stall[2] + f.stall[3];
  std::printf(
      "  stalls              issue %s, dependency %s, memory %s, barrier %s (of %.0f "
      "warp stall cycles)\n",
      percent(f.stall[0], stall_total).c_str(), percent(f.stall[1], stall_total).c_str(),
      percent(f.stall[2], stall_total).c_str(), percent(f.stall[3], stall_total).c_str(),
      stall_total);
  if (f.stores[0] > 0) {
    std::printf(
        "  store queue         %s of %.0f posted stores waited for an entry (%.0f cycles in all)\n",
        percent(f.stores[1], f.stores[0]).c_str(), f.stores[0], f.stores[2]);
  }
  if (f.tensor[0] > 0) {
    // Busy is the headline's figure: one value wherever it is printed.
    std::printf(
        "  tensor unit         %.0f mm (%.0f math issues), %.0f MACs; busy %s; lane utilization "
        "%s, token stalls %.0f cycles\n",
        f.tensor[0], f.tensor[1], f.tensor[2], h.figure("tensor unit busy").line.c_str(),
        percent(f.tensor[3], f.tensor[0] * 32).c_str(), f.tensor[5]);
  }
  if (f.used_tma()) {
    const std::vector<double>& t = *f.tma;
    const double sm_cycles = static_cast<double>(f.cycles) * f.sms;
    std::printf(
        "  TMA                 busy %s of %.0f SM cycles; %.0f requests, %.0f bytes read, %.0f "
        "bytes written; descriptor hits %s of %.0f lookups\n",
        percent(t[0], sm_cycles).c_str(), sm_cycles, t[1], t[2], t[3],
        percent(t[4], t[4] + t[5]).c_str(), t[4] + t[5]);
  }
  std::printf("  L1 hit rate         %s of %.0f loads\n", percent(f.l1_hits, f.l1_loads).c_str(),
              f.l1_loads);
  std::printf("  L2 hit rate         %s of %.0f reads (+ %s merged into misses in flight)\n",
              percent(f.l2_hits, f.l2_reads).c_str(), f.l2_reads,
              percent(f.l2_merged, f.l2_reads).c_str());
  std::printf("  HBM                 read %.1f GB/s, write %.1f GB/s (%.0f and %.0f bytes)\n",
              f.gbps(f.hbm_read), f.gbps(f.hbm_write), f.hbm_read, f.hbm_write);
  if (f.hbm_load_reads > 0) {
    std::printf(
        "  HBM under load      reads waited %.1f ns more on average (%.0f reads; "
        "hbm.loaded_latency)\n",
        f.hbm_load_wait / f.hbm_load_reads / 1000, f.hbm_load_reads);
  }
  std::printf("  L2 -> SM            %.1f GB/s (%.0f bytes of crossbar responses)\n",
              f.gbps(f.xbar), f.xbar);
  std::printf("  DSMEM               %.0f bytes\n", f.dsmem);
}

void print_measurements(const std::vector<system::Measurement>& ms) {
  if (ms.empty()) return;
  std::size_t name_w = 11, unit_w = 4;
  for (const system::Measurement& m : ms) {
    name_w = std::max(name_w, m.name.size());
    unit_w = std::max(unit_w, m.unit.size());
  }
  std::printf("\n  %-*s %12s %12s  %-*s  %s\n", static_cast<int>(name_w), "measurement", "measured",
              "configured", static_cast<int>(unit_w), "unit", "note");
  for (const system::Measurement& m : ms) {
    const std::string configured =
        m.configured ? fmt::format("{:.1f}", *m.configured) : std::string("-");
    std::string line = fmt::format("  {:<{}} {:>12.1f} {:>12}  {:<{}}  {}", m.name, name_w,
                                   m.measured, configured, m.unit, unit_w, m.note);
    while (!line.empty() && line.back() == ' ')
      line.pop_back();
    std::printf("%s\n", line.c_str());
  }
}

namespace {

const system::Measurement* measured(const std::vector<system::Measurement>& ms,
                                    std::string_view name, std::string_view unit) {
  for (const system::Measurement& m : ms) {
    if (m.name == name && m.unit == unit) return &m;
  }
  return nullptr;
}

double share(double part, double whole) {
  return whole > 0 ? 100 * part / whole : 0.0;
}

}  // namespace

Headline make_headline(const system::Chip& chip, const RunFigures& f,
                       const std::vector<system::Measurement>& ms, bool int8) {
  const config::ChipSpec& spec = chip.spec();
  Headline h;
  h.seconds = f.seconds;
  h.work_unit = int8 ? "OP" : "FLOP";
  h.work = 2 * f.tensor[2];
  std::string source = "2 x mm.macs";
  for (const system::Measurement& m : ms) {
    if (m.unit == h.work_unit) {
      h.work = m.measured;
      source = fmt::format("the workload's {}", m.name);
    }
  }
  const char* unit = int8 ? "TOPS" : "TFLOP/s";
  const char* type = int8 ? "int8" : "bf16";
  h.peak = static_cast<double>(int8 ? spec.peak_int8_dense_ops() : spec.peak_bf16_dense_flops());
  h.throughput = f.seconds > 0 ? h.work / f.seconds : 0.0;
  std::string throughput_from = fmt::format("{:.4g} {} from {}", h.work, h.work_unit, source);
  if (const system::Measurement* m = measured(ms, unit, unit)) {
    h.throughput = m->measured * 1e12;
    throughput_from = fmt::format("the workload's {}: {}", m->name, m->note);
  }
  const auto add = [&](std::string name, double value, std::string u, std::string line) {
    h.figures.push_back(
        {.name = std::move(name), .value = value, .unit = std::move(u), .line = std::move(line)});
  };
  add("time", f.seconds * 1e6, "us",
      fmt::format("{:.3f} us ({} cycles)", f.seconds * 1e6, ull(f.cycles)));
  if (h.work > 0) {
    const std::uint32_t fma =
        int8 ? spec.sm.tensor.int8_fma_per_cycle : spec.sm.tensor.bf16_fma_per_cycle;
    const double rate = h.throughput / 1e12, peak = h.peak / 1e12;
    add("throughput", rate, unit,
        fmt::format("{:.1f} {} = {:.1f}% of the dense {} peak {:.1f} {} ({} SMs x {} {} FMA/cycle "
                    "x 2 x {:.3f} GHz); {}",
                    rate, unit, share(rate, peak), type, peak, unit, f.sms, fma, type,
                    static_cast<double>(spec.clocks.sm_hz) / 1e9, throughput_from));
    add("dense peak share", share(rate, peak), "%",
        fmt::format("{:.1f}% of the dense {} peak", share(rate, peak), type));
  }
  const double slots = static_cast<double>(f.cycles) * f.sms * f.sub_partitions;
  const double issue = share(static_cast<double>(f.instructions), slots);
  add("SM issue", issue, "%",
      fmt::format("{:.1f}% of {} SMs x {} sub-partitions", issue, f.sms, f.sub_partitions));
  if (const system::Measurement* m = measured(ms, "tensor-unit busy", "%")) {
    add("tensor unit busy", m->measured, "%",
        fmt::format("{:.1f}% (the workload's: {})", m->measured, m->note));
  } else {
    const double units = static_cast<double>(f.cycles) * f.sms * spec.sm.tensor.cores;
    const double busy = share(f.tensor[4], units);
    add("tensor unit busy", busy, "%",
        fmt::format("{:.1f}% of {} SMs x {} tensor cores", busy, f.sms, spec.sm.tensor.cores));
  }
  if (f.used_tma()) {
    const double busy = share((*f.tma)[0], static_cast<double>(f.cycles) * f.sms);
    add("TMA busy", busy, "%",
        fmt::format("{:.1f}% of {} SMs; {} read, {} written", busy, f.sms, bytes((*f.tma)[2]),
                    bytes((*f.tma)[3])));
  }
  // The merged share too: the two memory timings split the reads that need no HBM read of
  // their own differently between hits and merged misses (docs/memory-hierarchy.md).
  const double merged = share(f.l2_merged, f.l2_reads);
  const system::Measurement* l2 = measured(ms, "L2 hit rate", "%");
  const double hit = l2 != nullptr ? l2->measured : share(f.l2_hits, f.l2_reads);
  add("L2 hit rate", hit, "%",
      f.l2_reads > 0 ? fmt::format("{:.1f}% (+ {:.1f}% merged into misses in flight)", hit, merged)
                     : std::string("n/a (no L2 reads)"));
  h.hbm_bytes = f.hbm_read + f.hbm_write;
  h.hbm_peak = static_cast<double>(spec.hbm_bandwidth_bytes_per_s());
  const double gbps = f.gbps(h.hbm_bytes), peak_gbps = h.hbm_peak / 1e9;
  add("HBM", gbps, "GB/s",
      fmt::format("{:.1f} GB/s (read {:.1f}, write {:.1f}) = {:.1f}% of {:.1f} GB/s", gbps,
                  f.gbps(f.hbm_read), f.gbps(f.hbm_write), share(gbps, peak_gbps), peak_gbps));
  return h;
}

const Figure& Headline::figure(std::string_view name) const {
  for (const Figure& fig : figures) {
    if (fig.name == name) return fig;
  }
  XPUSIM_CHECK(false, "the headline has no such figure");
  return figures.front();
}

void print_headline(const Headline& h) {
  std::printf("\n  headline\n");
  for (const Figure& fig : h.figures) {
    if (fig.name == "dense peak share") continue;  // the throughput line says it
    std::printf("  %-20s%s\n", fig.name.c_str(), fig.line.c_str());
  }
}

nlohmann::json figures_json(const Headline& h, const RunFigures& f) {
  nlohmann::json figures = nlohmann::json::array();
  for (const Figure& fig : h.figures)
    figures.push_back(
        {{"name", fig.name}, {"value", fig.value}, {"unit", fig.unit}, {"text", fig.line}});
  nlohmann::json j;
  j["headline"] = std::move(figures);
  j["stall_cycles"] = {{"issue", f.stall[0]},
                       {"dependency", f.stall[1]},
                       {"memory", f.stall[2]},
                       {"barrier", f.stall[3]}};
  j["roofline"] = {{"work", h.work},
                   {"work_unit", h.work_unit},
                   {"work_per_s", h.throughput},
                   {"peak_work_per_s", h.peak},
                   {"hbm_bytes", h.hbm_bytes},
                   {"peak_hbm_bytes_per_s", h.hbm_peak},
                   {"seconds", h.seconds}};
  j["sms"] = f.sms;
  j["used_sms"] = f.used_sms;
  j["sub_partitions"] = f.sub_partitions;
  j["instructions"] = f.instructions;
  return j;
}

namespace {

// The progress line: simulated time, then what `detail` says is done so far.
class Progress {
 public:
  Progress(sim::Simulation& sim, std::string label, ProgressDetail detail)
      : sim_(sim),
        label_(std::move(label)),
        detail_(std::move(detail)),
        start_(Clock::now()),
        last_(start_) {}
  ~Progress() {
    if (width_ > 0) std::fprintf(stderr, "\r%*s\r", static_cast<int>(width_), "");
  }

  // Prints the line when a second has passed since the last one.
  void tick() {
    const Clock::time_point now = Clock::now();
    if (now - last_ < std::chrono::seconds(1)) return;
    const double wall = std::chrono::duration<double>(now - last_).count();
    last_ = now;
    std::string line = fmt::format("{}simulated {:.3f} us{}", label_.empty() ? "" : label_ + ": ",
                                   static_cast<double>(sim_.now()) * 1e-6, detail_(wall));
    line += fmt::format(", {:.0f} s", std::chrono::duration<double>(now - start_).count());
    const std::size_t pad = width_ > line.size() ? width_ - line.size() : 0;
    std::fprintf(stderr, "\r%s%*s", line.c_str(), static_cast<int>(pad), "");
    std::fflush(stderr);
    width_ = std::max(width_, line.size());
  }

 private:
  using Clock = std::chrono::steady_clock;
  sim::Simulation& sim_;
  std::string label_;
  ProgressDetail detail_;
  Clock::time_point start_, last_;
  std::size_t width_ = 0;  // of the longest line printed
};

// A chip's part of the line: cycles and their rate, the share of the expected MACs or of the
// launched CTAs done (the SMs' `mm.macs` and `ctas` counters).
ProgressDetail chip_detail(sim::Simulation& sim, system::Chip& chip, double expected_macs) {
  std::vector<const sim::Counter*> ctas, macs;
  for (std::uint32_t i = 0; i < chip.num_sms(); ++i) {
    for (const auto& [name, into] : {std::pair{"ctas", &ctas}, {"mm.macs", &macs}}) {
      auto s = sim.stats().find(fmt::format("{}.{}", chip.sm(i).path(), name));
      if (!s) continue;
      if (const auto* c = dynamic_cast<const sim::Counter*>(*s)) into->push_back(c);
    }
  }
  return [&sim, &chip, expected_macs, ctas, macs,
          last_cycles = std::uint64_t{0}](double wall) mutable {
    const std::uint64_t cycles = chip.clock().cycle_at(sim.now());
    const double rate = static_cast<double>(cycles - last_cycles) / wall;
    last_cycles = cycles;
    std::string line = fmt::format(" ({} cycles), {:.0f} cycles/s", cycles, rate);
    if (expected_macs > 0) {
      double done = 0;
      for (const sim::Counter* c : macs)
        done += static_cast<double>(c->value());
      line += fmt::format(", {} of the GEMM's MACs done", percent(done, expected_macs));
    } else {
      std::uint64_t total = 0, done = 0;
      for (std::uint32_t id = 0; id < chip.launches(); ++id) {
        const kernel::Dim3& g = chip.run(id).params.grid;
        total += std::uint64_t{g.x} * g.y * g.z;
      }
      for (const sim::Counter* c : ctas)
        done += c->value();
      if (total > 0) {
        line += fmt::format(", CTAs {} of {} done ({})", done, total,
                            percent(static_cast<double>(done), static_cast<double>(total)));
      }
    }
    return line;
  };
}

}  // namespace

sim::StopReason run_in_slices(sim::Simulation& sim, sim::Tick limit, const SliceOptions& o,
                              const ProgressDetail& detail) {
  if (o.slice == 0 && !o.progress) return sim.run(limit);
  std::optional<Progress> progress;
  if (o.progress) progress.emplace(sim, o.label, detail);
  // Adaptive slices aim at about a tenth of a second of wall time each.
  constexpr double kTargetSeconds = 0.1;
  sim::Tick slice = o.slice > 0 ? o.slice : 1'000'000;  // 1 us to start with
  for (;;) {
    const sim::Tick now = sim.now();
    const sim::Tick end = limit - now > slice ? now + slice : limit;
    const auto t0 = std::chrono::steady_clock::now();
    const sim::StopReason r = sim.run(end);
    if (r != sim::StopReason::kTickLimit || end == limit) return r;
    if (o.slice == 0) {
      const double wall =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      const double scale = wall > 0 ? std::clamp(kTargetSeconds / wall, 0.25, 4.0) : 4.0;
      slice = std::max<sim::Tick>(1000, static_cast<sim::Tick>(static_cast<double>(slice) * scale));
    }
    if (progress) progress->tick();
  }
}

std::function<sim::StopReason(sim::Tick)> study_run_until(sim::Simulation& sim, sim::Tick slice,
                                                          std::function<StudyProgress()> now,
                                                          std::string what) {
  const SliceOptions slicing{
      .slice = slice, .progress = ::isatty(STDERR_FILENO) == 1, .label = {}, .expected_macs = 0};
  // One detail for the whole run: its rate is over the time since the last line.
  ProgressDetail detail = [now = std::move(now), what = std::move(what),
                           last = std::uint64_t{0}](double wall) mutable {
    const StudyProgress p = now();
    const double rate = static_cast<double>(p.cycles - std::min(p.cycles, last)) / wall;
    last = p.cycles;
    return fmt::format(" ({} cycles), {:.0f} cycles/s, {} {} of {} done", p.cycles, rate, what,
                       p.done, p.total);
  };
  return [&sim, slicing, detail = std::move(detail)](sim::Tick limit) {
    return run_in_slices(sim, limit, slicing, detail);
  };
}

sim::StopReason run_in_slices(sim::Simulation& sim, system::Chip& chip, sim::Tick limit,
                              const SliceOptions& o) {
  if (o.slice == 0 && !o.progress) return sim.run(limit);
  return run_in_slices(sim, limit, o,
                       o.progress ? chip_detail(sim, chip, o.expected_macs) : ProgressDetail{});
}

}  // namespace xpusim::cli
