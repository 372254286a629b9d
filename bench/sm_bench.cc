// Full-chip simulation speed: the H100 config (132 SMs on the memory hierarchy, behind the work
// distributor) running a kernel that fills every SM, measured in simulated work per second.
//   BM_StreamTimingOnly/<MiB> : each warp loads 16 B per lane (4 lines per warp access),
//                               grid-stride over a <MiB> buffer; timing-only (no data moved)
//   BM_StreamFunctional/<MiB> : the same with real bytes (loads read the functional memory)
//   BM_StreamTimingOnlyTransactions/<MiB>, ...Thread/<MiB> : timing-only under the
//                               transaction-level memory timing, on one thread and with the
//                               memory thread (rates per second of wall time)
//   BM_AluTimingOnly/<iters>  : compute-bound: each warp issues <iters> x alu(16), no memory
// Counters (rates per second of the timed region's CPU time: one thread, so the wall time on an
// idle machine):
//   cycles_per_s       simulated SM cycles
//   warp_instr_per_s   warp instructions issued (alu(n) counts n)
//   lines_per_s        line requests into the memory hierarchy (loads + stores)
//   events_per_s       engine events processed (how much work one cycle costs)
// Each iteration builds a fresh chip (outside the timed region), launches one grid of 2 CTAs x
// 1024 threads per SM (64 warps: the SM's limit) and runs it to completion. docs/performance.md,
// "SM + memory hierarchy: full-chip streaming", records the figures.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <filesystem>
#include <memory>

#include "config/chip_spec.h"
#include "huge_pages_main.h"
#include "kernel/registry.h"
#include "kernel/warp.h"
#include "sim/simulation.h"
#include "system/chip.h"

namespace xpusim::system {
namespace {

using kernel::Addr;
using kernel::Warp;

constexpr Addr kBufferBase = 0x1'0000'0000;  // 4 GiB: page aligned, away from address 0

struct Vec16 {
  std::uint32_t v[4];
};

// for (i = global thread id; i < n; i += grid threads) acc += in[i] (a 16 B element per lane).
// One alu per element stands for the accumulate and the index update.
sim::Task<> stream(Warp& w) {
  const Addr in = w.args().get_ptr(0);
  const std::uint64_t n = w.args().get_u64(1);
  const std::uint64_t stride =
      std::uint64_t{w.params().grid.count()} * w.params().threads_per_block();
  std::uint32_t acc = 0;
  for (auto i = w.global_thread_ids(); i[0] < n;) {
    kernel::LaneMask m = 0;
    for (std::uint32_t l = 0; l < kernel::kWarpSize; ++l)
      m |= (i[l] < n ? kernel::LaneMask{1} << l : 0);
    const auto x = co_await w.load_global<Vec16>(Warp::lane_addresses(in, sizeof(Vec16), i), m);
    acc += x[0].v[0];
    co_await w.alu(1);
    for (auto& v : i)
      v += stride;
  }
  benchmark::DoNotOptimize(acc);
}

const kernel::KernelDef kStream{
    .name = "stream",
    .description = "grid-stride 16 B-per-lane loads",
    .args = {{"in", kernel::ArgKind::kPtr}, {"n", kernel::ArgKind::kU64}},
    .body = stream,
    .static_shared_bytes = 0};

// `iters` dependent batches of 16 ALU instructions per warp: issue-bound, no memory.
sim::Task<> alu_loop(Warp& w) {
  const std::uint64_t iters = w.args().get_u64(0);
  for (std::uint64_t k = 0; k < iters; ++k)
    co_await w.alu(16);
}

const kernel::KernelDef kAlu{.name = "alu_loop",
                             .description = "batches of 16 ALU instructions",
                             .args = {{"iters", kernel::ArgKind::kU64}},
                             .body = alu_loop,
                             .static_shared_bytes = 0};

const config::ChipSpec& h100() {
  static const config::ChipSpec spec =
      config::load_chip_file(std::filesystem::path(XPUSIM_CONFIG_DIR) / "chips/h100-sxm5.yaml")
          .value();
  return spec;
}

std::uint64_t stat_u64(sim::Simulation& sim, const std::string& path) {
  return sim.stats().find(path).value()->to_json()["value"].get<std::uint64_t>();
}

struct Totals {
  double cycles = 0, instructions = 0, lines = 0, events = 0;
};

// One launch of `k` filling the chip, run to completion; the chip is built untimed.
void run_once(benchmark::State& state, bool functional, const kernel::KernelDef& k,
              const kernel::KernelArgs& args, std::uint64_t fill_bytes, Totals& t,
              mem::MemoryTiming memory_timing = mem::MemoryTiming::kEvents,
              bool memory_thread = false) {
  state.PauseTiming();
  auto sim = std::make_unique<sim::Simulation>(1);
  auto chip =
      Chip::create(*sim, h100(),
                   ChipOptions{.functional = functional,
                               .policy = "waterfill",
                               .timing = sm_timing_of(h100()),
                               .distributor = {},
                               .max_touched_bytes = mem::GlobalMemory::kDefaultMaxTouchedBytes,
                               .memory_timing = memory_timing,
                               .memory_thread = memory_thread})
          .value();
  if (functional && fill_bytes > 0 &&
      !chip->memory().fill(kBufferBase, fill_bytes, std::byte{1}).ok()) {
    state.SkipWithError("fill failed");
  }
  const kernel::LaunchParams p{.grid = {2 * chip->num_sms(), 1, 1},
                               .cluster = {1, 1, 1},
                               .block = {1024, 1, 1},
                               .dynamic_shared_bytes = 0,
                               .registers_per_thread = 32};
  const auto id = chip->launch(k, p, args);
  if (!id.ok()) state.SkipWithError(id.error().message.c_str());
  state.ResumeTiming();

  sim->run();

  state.PauseTiming();
  if (chip->fault() || !chip->all_done()) state.SkipWithError("the kernel did not complete");
  t.cycles += static_cast<double>(chip->clock().cycle_at(sim->now()));
  for (std::uint32_t s = 0; s < chip->num_sms(); ++s)
    t.instructions += static_cast<double>(chip->sm(s).warp_instructions());
  t.lines +=
      static_cast<double>(stat_u64(*sim, "chip0.mem.loads") + stat_u64(*sim, "chip0.mem.stores"));
  t.events += static_cast<double>(sim->events().processed());
  chip.reset();  // the chip's components before the simulation they hang off
  sim.reset();
  state.ResumeTiming();
}

void report(benchmark::State& state, const Totals& t) {
  const auto rate = [](double v) { return benchmark::Counter(v, benchmark::Counter::kIsRate); };
  state.counters["cycles_per_s"] = rate(t.cycles);
  state.counters["warp_instr_per_s"] = rate(t.instructions);
  state.counters["lines_per_s"] = rate(t.lines);
  state.counters["events_per_s"] = rate(t.events);
  const double iters = static_cast<double>(state.iterations());
  state.counters["sim_cycles"] = t.cycles / iters;  // per iteration, for sizing
}

void stream_bench(benchmark::State& state, bool functional,
                  mem::MemoryTiming memory_timing = mem::MemoryTiming::kEvents,
                  bool memory_thread = false) {
  const std::uint64_t bytes = static_cast<std::uint64_t>(state.range(0)) << 20;
  const kernel::KernelArgs args = kernel::KernelArgs().ptr(kBufferBase).u64(bytes / sizeof(Vec16));
  Totals t;
  for (auto _ : state)
    run_once(state, functional, kStream, args, bytes, t, memory_timing, memory_thread);
  report(state, t);
}

void BM_StreamTimingOnly(benchmark::State& state) {
  stream_bench(state, false);
}
BENCHMARK(BM_StreamTimingOnly)->Arg(128)->Unit(benchmark::kMillisecond);

// The same with the transaction-level memory timing (mem::MemoryTiming::kTransactions).
void BM_StreamTimingOnlyTransactions(benchmark::State& state) {
  stream_bench(state, false, mem::MemoryTiming::kTransactions);
}
BENCHMARK(BM_StreamTimingOnlyTransactions)->Arg(128)->Unit(benchmark::kMillisecond);

// The same with the warp accesses timed on a second host thread (ChipOptions::memory_thread;
// the same simulated result). Rates per second of wall time: two threads work.
void BM_StreamTimingOnlyTransactionsThread(benchmark::State& state) {
  stream_bench(state, false, mem::MemoryTiming::kTransactions, true);
}
BENCHMARK(BM_StreamTimingOnlyTransactionsThread)
    ->Arg(128)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_StreamFunctional(benchmark::State& state) {
  stream_bench(state, true);
}
BENCHMARK(BM_StreamFunctional)->Arg(128)->Unit(benchmark::kMillisecond);

void BM_AluTimingOnly(benchmark::State& state) {
  const kernel::KernelArgs args =
      kernel::KernelArgs().u64(static_cast<std::uint64_t>(state.range(0)));
  Totals t;
  for (auto _ : state)
    run_once(state, false, kAlu, args, 0, t);
  report(state, t);
}
BENCHMARK(BM_AluTimingOnly)->Arg(1024)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace xpusim::system

int main(int argc, char** argv) {
  return xpusim::bench::main_with_huge_pages(argc, argv);
}
