// Fabric simulation speed (docs/performance.md "Fabric"): packet-hops per wall second for a
// bandwidth-bound torus all-reduce on one TPU v4 cube, uniform random traffic (multi-hop
// routes, contention) and the 4,096-chip pod all-reduce of experiment 4.
#include <benchmark/benchmark.h>

#include <string>

#include "fabric/job.h"
#include "fabric/pod_spec.h"
#include "fabric/topology.h"

namespace xpusim::fabric {
namespace {

void run_job(benchmark::State& state, const std::string& pod, TrafficKind kind, CollectiveAlgo algo,
             std::uint64_t bytes) {
  auto spec = load_pod_file(std::string(XPUSIM_CONFIG_DIR) + "/pods/" + pod + ".yaml");
  if (!spec) {
    state.SkipWithError(spec.error().message.c_str());
    return;
  }
  auto topo = build_topology(*spec);
  if (!topo) {
    state.SkipWithError(topo.error().message.c_str());
    return;
  }
  std::uint64_t hops = 0, events = 0;
  double sim_us = 0;
  for (auto _ : state) {
    sim::Simulation sim(1);
    JobOptions o;
    o.traffic.kind = kind;
    o.traffic.algo = algo;
    o.traffic.bytes = bytes;
    FabricJob job(sim, *topo, o);
    auto r = job.run();
    if (!r || !r->completed) {
      state.SkipWithError("the job failed");
      return;
    }
    hops += r->packet_hops;
    events += sim.events().processed();
    sim_us = static_cast<double>(r->finish - r->start) / 1e6;
  }
  state.counters["packet_hops_per_s"] =
      benchmark::Counter(static_cast<double>(hops), benchmark::Counter::kIsRate);
  state.counters["simulated_us"] = sim_us;
  state.counters["events_per_hop"] =
      hops ? static_cast<double>(events) / static_cast<double>(hops) : 0.0;
}

void BM_TorusAllReduce64(benchmark::State& state) {
  run_job(state, "tpuv4-4x4x4", TrafficKind::kAllReduce, CollectiveAlgo::kTorus,
          static_cast<std::uint64_t>(state.range(0)) << 20);
}
BENCHMARK(BM_TorusAllReduce64)->Arg(16)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_UniformRandom64(benchmark::State& state) {
  run_job(state, "tpuv4-4x4x4", TrafficKind::kUniformRandom, CollectiveAlgo::kRing,
          static_cast<std::uint64_t>(state.range(0)) << 20);
}
BENCHMARK(BM_UniformRandom64)->Arg(4)->Unit(benchmark::kMillisecond)->UseRealTime();

// Experiment 4: 16x16x16 chips, 1 MiB per chip, dimension-ordered torus all-reduce.
void BM_Pod4096AllReduce(benchmark::State& state) {
  run_job(state, "tpuv4-16x16x16", TrafficKind::kAllReduce, CollectiveAlgo::kTorus, 1 << 20);
}
BENCHMARK(BM_Pod4096AllReduce)->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();

}  // namespace
}  // namespace xpusim::fabric
BENCHMARK_MAIN();
