// Simulation speed of the flagship GEMM (issue 7, experiment 6): the `gemm.tma` workload on the
// H100 config in timing-only mode — bf16 M = N = K = <size>, 128 x 256 CTA tiles, 4 stages,
// cluster 2 x 1 with multicast, SWIZZLE_128B — as the default scenario's headline runs it.
// Counters (rates per second of the timed region's CPU time, one thread):
//   cycles_per_s   simulated SM cycles
//   events_per_s   engine events processed
//   slowdown       wall seconds per simulated second (the target: <= 2000 on one core)
//   tflops         the simulated GEMM's throughput (a sanity check on what was simulated)
// With wave sampling the simulated cycles and seconds are the chip's timeline (the skipped
// waves included). Building the chip and the workload's setup are outside the timed region.
// docs/performance.md
// ("Flagship GEMM") records the figures.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <filesystem>
#include <memory>

#include "config/chip_spec.h"
#include "huge_pages_main.h"
#include "sim/simulation.h"
#include "system/chip.h"
#include "system/run.h"
#include "workloads/register_all.h"

namespace xpusim::system {
namespace {

const config::ChipSpec& h100() {
  static const config::ChipSpec spec =
      config::load_chip_file(std::filesystem::path(XPUSIM_CONFIG_DIR) / "chips/h100-sxm5.yaml")
          .value();
  return spec;
}

void gemm_bench(benchmark::State& state, mem::MemoryTiming memory_timing,
                std::uint32_t set_sampling = 1, double wave_sampling = 0) {
  const auto size = static_cast<std::uint64_t>(state.range(0));
  Scenario scenario = workload_scenario("h100-sxm5", "gemm.tma",
                                        {{"m", size},
                                         {"n", size},
                                         {"k", size},
                                         {"tile_n", 256},
                                         {"stages", 4},
                                         {"cluster_m", 2},
                                         {"cluster_n", 1},
                                         {"multicast", 1},
                                         {"swizzle", 1}},
                                        RunMode::kTimingOnly);
  scenario.memory_timing = memory_timing;
  scenario.set_sampling = set_sampling;
  scenario.wave_sampling = wave_sampling * 100;  // percent
  double cycles = 0, events = 0, seconds = 0;
  for (auto _ : state) {
    state.PauseTiming();
    auto sim = std::make_unique<sim::Simulation>(1);
    auto run = Run::create(*sim, scenario, h100(), workloads::register_all);
    if (!run) {
      state.SkipWithError(run.errors().front().message.c_str());
      return;
    }
    Chip& chip = (*run)->chip();
    state.ResumeTiming();
    sim->run();
    state.PauseTiming();
    if (chip.fault() || !chip.all_done()) state.SkipWithError("the GEMM did not complete");
    // The chip's timeline: with wave sampling, the skipped waves' time too.
    cycles += static_cast<double>(chip.clock().cycle_at(chip.timeline_now()));
    events += static_cast<double>(sim->events().processed());
    seconds += static_cast<double>(chip.timeline_now()) * 1e-12;
    run->reset();
    sim.reset();
    state.ResumeTiming();
  }
  const auto rate = [](double v) { return benchmark::Counter(v, benchmark::Counter::kIsRate); };
  state.counters["cycles_per_s"] = rate(cycles);
  state.counters["events_per_s"] = rate(events);
  // Wall seconds per simulated second: 1 / (simulated seconds per wall second).
  state.counters["slowdown"] =
      benchmark::Counter(seconds, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  const double flop = 2.0 * static_cast<double>(size) * static_cast<double>(size) *
                      static_cast<double>(size) * static_cast<double>(state.iterations());
  state.counters["tflops"] = flop / seconds / 1e12;
}

void BM_GemmTmaTimingOnly(benchmark::State& state) {
  gemm_bench(state, mem::MemoryTiming::kEvents);
}
// The same with the transaction-level memory timing (mem::MemoryTiming::kTransactions).
void BM_GemmTmaTimingOnlyTransactions(benchmark::State& state) {
  gemm_bench(state, mem::MemoryTiming::kTransactions);
}
BENCHMARK(BM_GemmTmaTimingOnlyTransactions)->Arg(1024)->Arg(2048)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_GemmTmaTimingOnlyTransactions)->Arg(8192)->Iterations(1)->Unit(benchmark::kSecond);

// The same with set sampling: TMA lines looked up in one L2 set of 8 (docs/memory-hierarchy.md).
void BM_GemmTmaTimingOnlySampled(benchmark::State& state) {
  gemm_bench(state, mem::MemoryTiming::kTransactions, 8);
}
BENCHMARK(BM_GemmTmaTimingOnlySampled)->Arg(2048)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_GemmTmaTimingOnlySampled)->Arg(8192)->Iterations(1)->Unit(benchmark::kSecond);
// The same with wave sampling too: once three waves agree within 2 %, the middle waves are
// skipped (docs/work-distributor.md, "Wave sampling").
void BM_GemmTmaTimingOnlyWaveSampled(benchmark::State& state) {
  gemm_bench(state, mem::MemoryTiming::kTransactions, 8, 0.02);
}
BENCHMARK(BM_GemmTmaTimingOnlyWaveSampled)->Arg(8192)->Iterations(1)->Unit(benchmark::kSecond);
BENCHMARK(BM_GemmTmaTimingOnly)->Arg(1024)->Arg(2048)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_GemmTmaTimingOnly)->Arg(8192)->Iterations(1)->Unit(benchmark::kSecond);

}  // namespace
}  // namespace xpusim::system

int main(int argc, char** argv) {
  return xpusim::bench::main_with_huge_pages(argc, argv);
}
