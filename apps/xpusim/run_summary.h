// The `run` command's report of one run (docs/run.md): the figures read from the chip's stats
// once (RunFigures), the summary block, the workload's measurements, the headline block of a
// run that used the tensor unit, and the progress line of a long run on a terminal.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/simulation.h"
#include "system/chip.h"
#include "system/workload.h"

namespace xpusim::cli {

// What the summary and the headline print, read from the stats at the end of a run.
struct RunFigures {
  std::uint64_t cycles = 0;    // SM cycles simulated
  double seconds = 0;          // simulated time
  std::uint32_t sms = 0;       // SMs of the chip
  std::uint32_t used_sms = 0;  // SMs that issued at least one warp instruction
  std::uint32_t sub_partitions = 0;
  std::uint64_t instructions = 0;  // warp instructions, every SM
  double stall[4] = {0, 0, 0, 0};  // issue, dependency, memory, barrier
  // mm.instructions, mm.math_issues, mm.macs, mm.active_threads, tensor.busy_cycles,
  // mm.token_stall_cycles, summed over the SMs.
  double tensor[6] = {0, 0, 0, 0, 0, 0};
  // posted_stores, store_queue_waits, store_queue_wait_cycles, summed over the SMs.
  double stores[3] = {0, 0, 0};
  double l1_hits = 0, l1_loads = 0;
  double l2_hits = 0, l2_reads = 0;
  double l2_merged = 0;  // reads that joined a miss already in flight (no HBM read of their own)
  double hbm_read = 0, hbm_write = 0;            // bytes
  double hbm_load_wait = 0, hbm_load_reads = 0;  // ps and reads (hbm.loaded_latency)
  double xbar = 0;                               // crossbar response bytes
  double dsmem = 0;                              // bytes
  // Sums of sm*.tma.{busy_cycles, requests, bytes_read, bytes_written, descriptor_hits,
  // descriptor_misses}, when the SMs have a TMA unit's stats.
  std::optional<std::vector<double>> tma = std::nullopt;

  bool used_tensor_unit() const { return tensor[0] > 0 || tensor[4] > 0; }
  // The SMs have TMA stats and the unit did something.
  bool used_tma() const { return tma && ((*tma)[0] > 0 || (*tma)[1] > 0); }
  double gbps(double bytes) const { return seconds > 0 ? bytes / seconds / 1e9 : 0.0; }
};

RunFigures read_figures(system::Chip& chip, sim::Simulation& sim);

// One line per launch: queue, dispatch mode, packet bytes, dispatch overhead, launch latency,
// run cycles, CTAs, clusters resident at peak; then any queue errors.
void print_kernel_table(const system::Chip& chip);
struct Headline;
// The summary block after `header` (the "run FILE: ..." line): simulated time, launches,
// issue utilization, stalls, the tensor unit (busy: the headline's figure), TMA, caches and
// bandwidths.
void print_summary(const std::string& header, system::Chip& chip, const RunFigures& f,
                   const Headline& h);

// The workload's measurements table (nothing when there are none).
void print_measurements(const std::vector<system::Measurement>& ms);

// One figure of the headline, computed once: printed, written to the stats file's "figures"
// and compared across runs by `xpusim report`.
struct Figure {
  std::string name;  // "throughput", "SM issue", ...
  double value = 0;
  std::string unit;  // "TFLOP/s", "%", "us", "GB/s"
  std::string line;  // what the headline prints after the name: the value and its basis
};

// The headline of a run: time, throughput against the chip's dense peak (when there is work),
// SM issue, tensor-unit busy, TMA busy (when used), L2 hit rate, HBM bandwidth, and the
// roofline's inputs. A figure the workload measures under the same name (throughput as
// "TFLOP/s" or "TOPS", "tensor-unit busy", "L2 hit rate") is the workload's value, so the
// measurement table and the headline cannot disagree; the others come from the chip's stats
// over the whole run. The work is the workload's measurement with unit "FLOP" (or "OP" for
// int8) when it reports one, else 2 x mm.macs. `int8`: the int8 peak instead of bf16.
struct Headline {
  std::vector<Figure> figures;
  double work = 0;        // FLOP (OP with int8) of the run
  std::string work_unit;  // "FLOP" or "OP"
  double throughput = 0;  // work per second, the throughput figure's
  double peak = 0;        // the chip's dense peak, work per second
  double hbm_bytes = 0;   // read and written
  double hbm_peak = 0;    // bytes per second
  double seconds = 0;     // simulated

  const Figure& figure(std::string_view name) const;  // one of `figures`, which must exist
};
Headline make_headline(const system::Chip& chip, const RunFigures& f,
                       const std::vector<system::Measurement>& ms, bool int8);
void print_headline(const Headline& h);
// The stats file's "figures" (docs/stats-and-traces.md): the headline, the warp stall cycles
// by reason, the roofline point and roofs.
nlohmann::json figures_json(const Headline& h, const RunFigures& f);

// Runs `sim` up to `limit` in slices of simulated time, or in one go when `slice` is 0 and no
// progress line is wanted. Slicing changes nothing in the results: the events run in the same
// order. With `progress`, a line on stderr updated in place about once per second of wall time
// (simulated time, simulated cycles per second, the share of the expected MACs or of the
// launched CTAs done) and cleared at the end.
struct SliceOptions {
  sim::Tick slice = 0;    // fixed slice length in ticks; 0: adaptive (with progress) or none
  bool progress = false;  // stderr is a terminal
  std::string label;      // the run's name, shown on the progress line ("" for none)
  // The mm MACs the run will do when the workload can tell (a GEMM: m x n x k); 0: unknown,
  // the line shows CTAs done instead.
  double expected_macs = 0;
};
sim::StopReason run_in_slices(sim::Simulation& sim, system::Chip& chip, sim::Tick limit,
                              const SliceOptions& o);
// The same for a run that is not one chip's (a fabric job): `detail(wall seconds since the
// last line)` adds what is done so far to the line after the simulated time (", 12 of 64
// messages delivered"). `o.expected_macs` is not used.
using ProgressDetail = std::function<std::string(double)>;
sim::StopReason run_in_slices(sim::Simulation& sim, sim::Tick limit, const SliceOptions& o,
                              const ProgressDetail& detail);
// A study's run (`launch`, `cp replay`): `run_until(limit)` runs `sim` in `slice`s (0: as
// run_in_slices decides), with the progress line on a terminal: " (C cycles), R cycles/s, WHAT
// D of T done", from what `now()` says is done so far.
struct StudyProgress {
  std::uint64_t cycles = 0, done = 0, total = 0;
};
std::function<sim::StopReason(sim::Tick)> study_run_until(sim::Simulation& sim, sim::Tick slice,
                                                          std::function<StudyProgress()> now,
                                                          std::string what);

}  // namespace xpusim::cli
