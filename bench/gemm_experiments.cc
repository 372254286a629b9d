// The flagship GEMM's experiments (issue 7; docs/workloads.md "Experiments"): variants of the
// `gemm.tma` workload on the H100 config in timing-only mode, one table each. Not a Google
// Benchmark: it prints what each variant simulated, not how fast the simulator ran.
//   1. TMA producer vs per-thread copies (copy=1)
//   2. multicast on vs off for clusters of 2 and 4
//   3. SWIZZLE_128B vs none on the A tile the consumers read into registers
//   4. pipeline depth S = 1..6
//   5. bf16 4096^3 (and 8192^3 with --large) against the public H100 figure; 5b: B once per
//      warpgroup (warpgroup_mm) with 4 and 8 consumer warps, 4096^3
// Usage: gemm_experiments [--large]
#include <fmt/format.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

#include "config/chip_spec.h"
#include "kernel/registry.h"
#include "sim/simulation.h"
#include "system/chip.h"
#include "system/run.h"
#include "workloads/register_all.h"

namespace xpusim {
namespace {

struct Figures {
  double cycles = 0, us = 0, tflops = 0, peak_pct = 0;
  double instructions = 0, issue_util = 0;  // over the SMs that ran CTAs
  double moved_kib = 0;                     // A and B tile bytes landed in shared memory
  double l2_read_bytes = 0;                 // crossbar responses (L2 -> SM)
  double tma_read_bytes = 0, dsmem_bytes = 0;
  double wavefronts = 0, conflicts = 0;
  double stall[4] = {};  // issue, dependency, memory, barrier
};

class Runner {
 public:
  Runner()
      : spec_(config::load_chip_file(std::filesystem::path(XPUSIM_CONFIG_DIR) /
                                     "chips/h100-sxm5.yaml")
                  .value()) {}

  Figures run(const system::ParamValues& overrides) {
    sim::Simulation sim(1);
    auto run = system::Run::create(
        sim,
        system::workload_scenario("h100-sxm5", "gemm.tma", overrides, system::RunMode::kTimingOnly),
        spec_, workloads::register_all);
    if (!run) {
      fmt::print("  error: {}\n", run.errors().front().message);
      return {};
    }
    system::Chip* chip = &(*run)->chip();
    const system::ParamValues* values = &(*run)->resolved().params;
    sim.run();
    if (chip->fault() || !chip->all_done()) {
      fmt::print("  error: the GEMM did not complete\n");
      return {};
    }
    Figures f;
    const auto v = [&](std::string_view k) {
      return static_cast<double>(values->at(std::string(k)));
    };
    const double m = v("m"), n = v("n"), k = v("k");
    f.cycles = static_cast<double>(chip->clock().cycle_at(sim.now()));
    f.us = static_cast<double>(sim.now()) * 1e-6;
    f.tflops = 2 * m * n * k / (f.us * 1e-6) / 1e12;
    const double peak = static_cast<double>(chip->num_sms()) * spec_.sm.tensor.bf16_fma_per_cycle *
                        2 * static_cast<double>(spec_.clocks.sm_hz) / 1e12;
    f.peak_pct = 100 * f.tflops / peak;
    double used = 0;
    for (std::uint32_t s = 0; s < chip->num_sms(); ++s) {
      f.instructions += static_cast<double>(chip->sm(s).warp_instructions());
      used += chip->sm(s).warp_instructions() > 0 ? 1 : 0;
    }
    f.issue_util = 100 * f.instructions / (f.cycles * used * spec_.sm.sub_partitions);
    const double tm = 32 * v("consumers"), tn = v("tile_n");
    f.moved_kib = 2 * k * (m * n / tn + m * n / tm) / 1024;  // bf16 A and B tiles, every CTA
    for (const std::string& p : sim.stats().paths()) {
      const double x = sim.stats().find(p).value()->to_json()["value"].get<double>();
      const auto is = [&](std::string_view tail) { return p.ends_with(tail); };
      if (p == "chip0.mem.xbar.response_bytes") f.l2_read_bytes = x;
      if (is(".tma.bytes_read")) f.tma_read_bytes += x;
      if (is(".tma.dsmem_bytes")) f.dsmem_bytes += x;
      if (is(".shared_wavefronts")) f.wavefronts += x;
      if (is(".bank_conflicts")) f.conflicts += x;
      if (is(".stall_issue_cycles")) f.stall[0] += x;
      if (is(".stall_dependency_cycles")) f.stall[1] += x;
      if (is(".stall_memory_cycles")) f.stall[2] += x;
      if (is(".stall_barrier_cycles")) f.stall[3] += x;
    }
    return f;
  }

 private:
  config::ChipSpec spec_;
};

std::string pct(double part, double whole) {
  return whole > 0 ? fmt::format("{:.0f}%", 100 * part / whole) : "-";
}

}  // namespace
}  // namespace xpusim

int main(int argc, char** argv) {
  using namespace xpusim;
  const bool large = argc > 1 && std::string_view(argv[1]) == "--large";
  Runner r;
  // One wave of 128 x 256 CTAs on 132 SMs: M = 2048, N = 2048 (128 CTAs), K = 1024.
  const system::ParamValues base{{"m", 2048},      {"n", 2048},      {"k", 1024},
                                 {"tile_n", 256},  {"stages", 4},    {"swizzle", 1},
                                 {"cluster_m", 1}, {"cluster_n", 1}, {"multicast", 0}};
  const auto with = [&](system::ParamValues extra) {
    system::ParamValues p = base;
    for (auto& [key, value] : extra)
      p[key] = value;
    return p;
  };

  fmt::print("1. TMA vs per-thread copies (bf16 2048 x 2048 x 1024, 128 x 256 tiles, 4 stages)\n");
  fmt::print("  {:<12} {:>10} {:>9} {:>14} {:>11} {:>10}\n", "copies", "cycles", "TFLOP/s",
             "instr per KiB", "issue util", "stall mem");
  for (const std::uint64_t copy : {0u, 1u}) {
    const Figures f = r.run(with({{"copy", copy}}));
    const double stalls = f.stall[0] + f.stall[1] + f.stall[2] + f.stall[3];
    fmt::print("  {:<12} {:>10.0f} {:>9.1f} {:>14.2f} {:>10.1f}% {:>10}\n",
               copy ? "per-thread" : "TMA", f.cycles, f.tflops, f.instructions / f.moved_kib,
               f.issue_util, pct(f.stall[2], stalls));
  }

  fmt::print("\n2. Multicast (clusters along M share the B tile)\n");
  fmt::print("  {:<8} {:<10} {:>10} {:>9} {:>16} {:>16} {:>14}\n", "cluster", "multicast", "cycles",
             "TFLOP/s", "L2->SM bytes", "TMA read bytes", "DSMEM bytes");
  for (const std::uint64_t c : {2u, 4u}) {
    for (const std::uint64_t mc : {0u, 1u}) {
      const Figures f = r.run(with({{"cluster_m", c}, {"multicast", mc}}));
      fmt::print("  {:<8} {:<10} {:>10.0f} {:>9.1f} {:>16.0f} {:>16.0f} {:>14.0f}\n",
                 fmt::format("{}x1", c), mc ? "on" : "off", f.cycles, f.tflops, f.l2_read_bytes,
                 f.tma_read_bytes, f.dsmem_bytes);
    }
  }

  fmt::print("\n3. SWIZZLE_128B vs none on the A tile (consumers load A rows into registers)\n");
  fmt::print("  {:<10} {:>10} {:>9} {:>18} {:>16}\n", "swizzle", "cycles", "TFLOP/s",
             "shared wavefronts", "bank conflicts");
  for (const std::uint64_t sw : {1u, 0u}) {
    const Figures f = r.run(with({{"swizzle", sw}}));
    fmt::print("  {:<10} {:>10.0f} {:>9.1f} {:>18.0f} {:>16.0f}\n", sw ? "128B" : "none", f.cycles,
               f.tflops, f.wavefronts, f.conflicts);
  }

  fmt::print("\n4. Pipeline depth (128 x 128 tiles: 32 KiB stages, so six fit)\n");
  fmt::print("  {:<7} {:>10} {:>9} {:>8} {:>11} {:>9} {:>10}\n", "stages", "cycles", "TFLOP/s",
             "issue", "dependency", "memory", "barrier");
  for (std::uint64_t s = 1; s <= 6; ++s) {
    const Figures f = r.run(with({{"stages", s}, {"tile_n", 128}}));
    const double t = f.stall[0] + f.stall[1] + f.stall[2] + f.stall[3];
    fmt::print("  {:<7} {:>10.0f} {:>9.1f} {:>8} {:>11} {:>9} {:>10}\n", s, f.cycles, f.tflops,
               pct(f.stall[0], t), pct(f.stall[1], t), pct(f.stall[2], t), pct(f.stall[3], t));
  }

  fmt::print(
      "\n5. bf16 GEMM against the public H100 SXM figure (795 TFLOP/s measured, 989.4 peak)\n");
  fmt::print("  {:<6} {:>12} {:>10} {:>9} {:>8}\n", "size", "cycles", "us", "TFLOP/s", "% peak");
  for (const std::uint64_t size : {4096u, 8192u}) {
    if (size == 8192 && !large) {
      fmt::print("  8192   (run with --large: about 4 minutes)\n");
      continue;
    }
    const Figures f =
        r.run(with({{"m", size}, {"n", size}, {"k", size}, {"cluster_m", 2}, {"multicast", 1}}));
    fmt::print("  {:<6} {:>12.0f} {:>10.1f} {:>9.1f} {:>7.1f}%\n", size, f.cycles, f.us, f.tflops,
               f.peak_pct);
  }

  // What closes the gap: B fetched once per warpgroup (a wgmma-like mm), and two consumer
  // warps per sub-partition so that one's B fetch overlaps the other's math.
  fmt::print("\n5b. 4096^3: B once per warp or per warpgroup (warpgroup_mm), 4 or 8 consumers\n");
  fmt::print("  {:<10} {:<11} {:<10} {:>10} {:>9} {:>8} {:>18}\n", "consumers", "tile", "mm",
             "cycles", "TFLOP/s", "% peak", "shared wavefronts");
  for (const std::uint64_t consumers : {4u, 8u}) {
    for (const std::uint64_t wg : {0u, 1u}) {
      const std::uint64_t tile_n = consumers == 4 ? 256 : 128;
      const Figures f = r.run(with({{"m", 4096},
                                    {"n", 4096},
                                    {"k", 4096},
                                    {"cluster_m", 2},
                                    {"multicast", 1},
                                    {"consumers", consumers},
                                    {"tile_n", tile_n},
                                    {"warpgroup_mm", wg}}));
      fmt::print("  {:<10} {:<11} {:<10} {:>10.0f} {:>9.1f} {:>7.1f}% {:>18.0f}\n", consumers,
                 fmt::format("{} x {}", 32 * consumers, tile_n), wg ? "warpgroup" : "warp",
                 f.cycles, f.tflops, f.peak_pct, f.wavefronts);
    }
  }
  return 0;
}
