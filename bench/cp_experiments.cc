// The command-processor experiment of docs/command-processor.md (seed3 digest §5 item 11): the
// Kripke-like six-kernel loop, 100 iterations, standard vs reference + condensed packets, with
// the kernel run time swept from far below to far above the launch overhead. Deterministic.
#include <cstdio>
#include <cstdlib>

#include <filesystem>
#include <optional>

#include "config/chip_spec.h"
#include "cp/replay.h"
#include "system/chip_launcher.h"

using namespace xpusim::cp;

namespace {

// One sweep point in both modes; nullopt (after printing the error) if either run fails.
struct Pair {
  ReplayResult s, c;
  double saving() const {
    return 1.0 - static_cast<double>(c.total_cycles) / static_cast<double>(s.total_cycles);
  }
  const char* formula() const {
    return s.total_cycles == s.formula_cycles && c.total_cycles == c.formula_cycles ? "yes" : "NO";
  }
};

std::optional<Pair> run_both(ReplayConfig cfg) {
  cfg.mode = ReplayMode::kStandard;
  auto s = run_replay(cfg);
  cfg.mode = ReplayMode::kCondensed;
  auto c = run_replay(cfg);
  if (!s || !c) {
    std::fprintf(stderr, "error: replay failed: %s\n", (!s ? s : c).error().message.c_str());
    return std::nullopt;
  }
  return Pair{*s, *c};
}

// The same sweep with every kernel launched through the work distributor onto H100's 132
// (modelled) SMs: each Kripke kernel is 1024 CTAs of 256 threads, one wave, each CTA running
// the swept time. Per-kernel: the agent's dispatch overhead, the CWD's launch latency, run time.
int chip_sweep() {
  auto chip = xpusim::config::load_chip_file(std::filesystem::path(XPUSIM_CONFIG_DIR) /
                                             "chips/h100-sxm5.yaml");
  if (!chip) {
    std::fprintf(stderr, "error: %s\n", chip.error().message.c_str());
    return 1;
  }
  std::printf(
      "\nThrough the work distributor on h100-sxm5 (1024 CTAs x 256 threads per kernel, one "
      "wave):\n\n");
  std::printf(
      "| CTA cycles | standard total | condensed total | saving | dispatch overhead / kernel std "
      "/ cond | CWD launch latency | kernel run time | formula matches |\n");
  std::printf("|---:|---:|---:|---:|---|---:|---:|---|\n");
  for (const std::uint64_t x : {10u, 100u, 500u, 2000u, 10000u, 100000u}) {
    ReplayConfig cfg;
    cfg.iterations = 100;
    cfg.clock_hz = chip->clocks.sm_hz;
    xpusim::system::ChipLauncherConfig lc;
    lc.runtime = {.min_cycles = x, .max_cycles = x, .slowdown = 0};
    cfg.launcher = [spec = *chip, lc](xpusim::sim::Component& root, const xpusim::sim::Clock& clock)
        -> xpusim::Result<std::unique_ptr<GridLauncher>> {
      auto l = xpusim::system::ChipLauncher::create(root.sim(), "chip0", clock, spec, lc);
      if (!l) return l.errors();
      return std::unique_ptr<GridLauncher>(std::move(l).value());
    };
    const auto p = run_both(cfg);
    if (!p) return 1;
    const auto mean = [](const ReplayResult& r, auto field) {
      double sum = 0;
      for (const KernelSummary& k : r.per_kernel)
        sum += static_cast<double>(k.*field);
      return sum / static_cast<double>(r.kernels);
    };
    std::printf(
        "| %llu | %llu | %llu | %.1f%% | %.1f / %.1f | %.1f | %.1f | %s |\n",
        static_cast<unsigned long long>(x), static_cast<unsigned long long>(p->s.total_cycles),
        static_cast<unsigned long long>(p->c.total_cycles), 100 * p->saving(),
        mean(p->s, &KernelSummary::overhead_cycles), mean(p->c, &KernelSummary::overhead_cycles),
        mean(p->c, &KernelSummary::latency_cycles), mean(p->c, &KernelSummary::run_cycles),
        p->formula());
  }
  return 0;
}

}  // namespace

int main() {
  std::printf(
      "# xpusim command-processor experiment: Kripke-like loop, 6 kernels x 100 iterations\n\n");
  const AgentTiming t;
  std::printf(
      "Costs (cycles): host enqueue 50/packet, doorbell %u, fetch %u, decode %u, setup %u, diff "
      "%u, "
      "cleanup %u\n\n",
      t.doorbell_cycles, t.fetch_cycles, t.decode_cycles, t.setup_cycles, t.diff_cycles,
      t.cleanup_cycles);
  std::printf(
      "| kernel cycles | standard total | condensed total | saving | overhead share std / cond | "
      "packets/iter std / cond | bytes/iter std / cond | formula matches |\n");
  std::printf("|---:|---:|---:|---:|---|---|---|---|\n");
  for (const std::uint64_t x : {10u, 100u, 500u, 2000u, 10000u, 100000u}) {
    ReplayConfig cfg;
    cfg.iterations = 100;
    cfg.kernel_cycles = x;
    const auto p = run_both(cfg);
    if (!p) return 1;
    const ReplayResult &s = p->s, &c = p->c;
    std::printf(
        "| %llu | %llu | %llu | %.1f%% | %.1f%% / %.1f%% | %.2f / %.2f | %.0f / %.0f | %s |\n",
        static_cast<unsigned long long>(x), static_cast<unsigned long long>(s.total_cycles),
        static_cast<unsigned long long>(c.total_cycles), 100 * p->saving(),
        100 * s.overhead_share(), 100 * c.overhead_share(), s.packets / 100.0, c.packets / 100.0,
        s.bytes_fetched / 100.0, c.bytes_fetched / 100.0, p->formula());
  }
  return chip_sweep();
}
