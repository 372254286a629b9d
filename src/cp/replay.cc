#include "cp/replay.h"

#include <fmt/format.h>

#include "cp/host.h"
#include "mem/global_memory.h"
#include "sim/clock.h"

namespace xpusim::cp {

namespace {

constexpr std::uint64_t kIterationSignal = 0x51;  // handle of the last kernel's signal

// The six Kripke kernels (¶66): same launch shape, their own code object and arguments. Only the
// last carries a completion signal, and only it needs cleanup inside a condensed packet.
std::vector<DispatchPacket> kripke() {
  std::vector<DispatchPacket> out;
  for (std::uint32_t k = 0; k < 6; ++k) {
    DispatchPacket p;
    p.header = {.type = PacketType::kKernelDispatch,
                .barrier = true,  // each kernel depends on the previous one
                .acquire = FenceScope::kAgent,
                .release = k == 5 ? FenceScope::kSystem : FenceScope::kNone};
    p.setup = 1;
    p.workgroup_size = {256, 1, 1};
    p.grid_size = {256 * 1024, 1, 1};
    p.group_segment_size = 16384;
    p.kernel_object = 0x7000'0000 + 0x100 * k;
    p.kernarg_address = 0x6000'0000 + 0x1000 * k;
    p.completion_signal = k == 5 ? kIterationSignal : 0;
    out.push_back(p);
  }
  return out;
}

constexpr const char* kKernelNames[6] = {"LTimes",     "Scattering", "Source",
                                         "LPlusTimes", "Sweep",      "Population"};

}  // namespace

std::string_view name(ReplayMode m) {
  return m == ReplayMode::kStandard ? "standard" : "condensed";
}

Result<ReplayMode> parse_replay_mode(std::string_view text) {
  if (text == "standard") return ReplayMode::kStandard;
  if (text == "condensed") return ReplayMode::kCondensed;
  return Error{fmt::format("--mode = '{}': expected standard or condensed", text)};
}

struct ReplayStudy::Model {
  Model(sim::Simulation& s, const ReplayConfig& c, TaskGraph g)
      : sim(s),
        cfg(c),
        clock(s.events(), c.clock_hz),
        root(s, "host0"),
        host(memory),
        queue(std::move(host.create_queue(64)).value()),
        graph(std::move(g)),
        iteration_done(s.events()) {}
  // Second phase, once the launcher exists.
  void attach(std::unique_ptr<GridLauncher> l) {
    launcher = std::move(l);
    agent = std::make_unique<KernelAgent>(root, "cp", clock, queue, *launcher, cfg.timing);
    for (std::size_t k = 0; k < graph.launches().size(); ++k)
      agent->register_kernel(graph.launches()[k].kernel_object, kKernelNames[k]);
    agent->register_signal(kIterationSignal, signal);
  }
  sim::Task<> host_loop();

  sim::Simulation& sim;
  ReplayConfig cfg;
  sim::Clock clock;
  sim::Component root;
  mem::GlobalMemory memory;
  Host host;
  AqlQueue queue;
  TaskGraph graph;
  Signal signal;
  std::unique_ptr<GridLauncher> launcher;
  std::unique_ptr<KernelAgent> agent;  // after the launcher: it dies first
  sim::Signal iteration_done;
  bool done_flag = false;
  std::uint32_t finished = 0;
  std::uint64_t host_cycles = 0;
};

sim::Task<> ReplayStudy::Model::host_loop() {
  for (std::uint32_t it = 0; it < cfg.iterations; ++it) {
    std::vector<PacketBytes> packets;
    if (cfg.mode == ReplayMode::kStandard) {
      for (const DispatchPacket& p : graph.launches())
        packets.push_back(encode(p));
    } else if (it == 0) {
      for (const DispatchPacket& p : graph.first_launch())
        packets.push_back(encode(p));
    } else {
      for (const CondensedPacket& c : graph.replay()) {
        auto bytes = encode(c);
        XPUSIM_CHECK(bytes.ok(), "the recorded graph's replay encodes");
        packets.push_back(*bytes);
      }
    }
    signal.store_release(1);
    done_flag = false;
    signal.when(SignalCondition::kLt, 1, [this](Signal::Value) {
      done_flag = true;
      iteration_done.notify_all();
    });
    // The host writes every packet (E each), then rings the doorbell once.
    const std::uint64_t e = std::uint64_t{cfg.enqueue_cycles} * packets.size();
    host_cycles += e;
    co_await clock.cycles(e);
    auto submitted = host.submit_all(queue, packets);
    XPUSIM_CHECK(submitted.ok(), "an iteration fits the 64-packet queue");
    while (!done_flag)
      co_await iteration_done.wait();
    ++finished;
  }
}

ReplayStudy::ReplayStudy(std::unique_ptr<Model> m) : m_(std::move(m)) {}
ReplayStudy::~ReplayStudy() {
  m_->sim.shutdown();  // the agent waits on its doorbell forever once the host is done
}

Result<std::unique_ptr<ReplayStudy>> ReplayStudy::create(sim::Simulation& sim,
                                                         const ReplayConfig& cfg) {
  std::vector<Error> errors;
  if (cfg.iterations == 0) errors.push_back({"--iterations = 0: run at least one iteration"});
  if (cfg.kernel_cycles == 0) {
    errors.push_back({"--kernel-cycles = 0: a kernel runs at least one cycle"});
  }
  if (!errors.empty()) return errors;
  auto graph = TaskGraph::record(kripke());
  XPUSIM_CHECK(graph.ok(), "the Kripke graph records");
  auto m = std::make_unique<Model>(sim, cfg, std::move(graph).value());
  if (cfg.launcher) {
    auto launcher = cfg.launcher(m->root, m->clock);
    if (!launcher) return launcher.errors();
    m->attach(std::move(launcher).value());
  } else {
    auto fixed = std::make_unique<FixedTimeLauncher>(sim, m->clock);
    for (const DispatchPacket& p : m->graph.launches())
      fixed->set_cycles(p.kernel_object, cfg.kernel_cycles);
    m->attach(std::move(fixed));
  }
  return std::unique_ptr<ReplayStudy>(new ReplayStudy(std::move(m)));
}

ReplayStudy::Progress ReplayStudy::progress() const {
  return {.cycles = m_->clock.cycle_at(m_->sim.now()),
          .iterations_done = m_->finished,
          .iterations = m_->cfg.iterations};
}

ReplayResult ReplayStudy::run(sim::Tick limit, bool* completed,
                              const std::function<sim::StopReason(sim::Tick)>& run_until) {
  Model& m = *m_;
  m.sim.spawn(m.host_loop(), "host0.process");
  if (run_until) {
    run_until(limit);
  } else {
    m.sim.run(limit);
  }
  if (completed != nullptr) *completed = m.finished == m.cfg.iterations;
  ReplayResult r;
  r.total_cycles = m.clock.cycle_at(m.sim.now());
  r.packets = m.agent->packets();
  r.bytes_fetched = r.packets * 64;
  r.kernels = m.agent->kernels();
  r.overhead_cycles = m.agent->overhead_cycles();
  r.execution_cycles = m.agent->execution_cycles();
  r.host_cycles = m.host_cycles;
  r.per_kernel = m.agent->kernel_summaries();
  // Digest §3: T_base = Σ_k (E + P + X_k + C) per iteration, P = fetch + decode + setup; the
  // condensed iterations: E_c + P_c + Σ_k (D_k + X_k) + C, P_c = fetch + decode, D_k = diff +
  // setup (no intermediate cleanups: only the last kernel needs one). Plus the doorbell once
  // per iteration in both (the agent is idle when the host rings).
  // Σ X_k enters as measured, so the check covers the agent's overhead accounting on any
  // launcher (it is 6 × iterations × kernel_cycles on the fixed-time one).
  const AgentTiming& t = m.cfg.timing;
  const std::uint64_t n = 6, e = m.cfg.enqueue_cycles;
  const std::uint64_t base = t.doorbell_cycles + n * (e + t.fetch_cycles + t.decode_cycles +
                                                      t.setup_cycles + t.cleanup_cycles);
  const std::uint64_t cond = t.doorbell_cycles + e + t.fetch_cycles + t.decode_cycles +
                             n * (t.diff_cycles + t.setup_cycles) +
                             (t.skip_unneeded_cleanup ? 1 : n) * t.cleanup_cycles;
  const std::uint64_t iters = r.kernels / n;  // completed iterations
  r.formula_cycles = r.execution_cycles + (m.cfg.mode == ReplayMode::kStandard || iters == 0
                                               ? iters * base
                                               : base + (iters - 1) * cond);
  return r;
}

Result<ReplayResult> run_replay(const ReplayConfig& cfg) {
  sim::Simulation sim;
  auto study = ReplayStudy::create(sim, cfg);
  if (!study) return study.errors();
  return (*study)->run();
}

}  // namespace xpusim::cp
