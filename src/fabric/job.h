// A fabric job: the flow of seed4 Figs. 3-5 around one traffic run. Build the network with a
// policy (Fig. 3); for a count-based policy first run a profile traffic and re-allocate from
// its counters (Fig. 4); optionally re-allocate during the run on a schedule, pausing
// injection and reprogramming only once the buffers drain within a timeout (Fig. 5); sample
// per-link and per-VC time series; report completion time, bus bandwidth, link utilization,
// stall time at zero credits and queue occupancy.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fabric/network.h"
#include "fabric/traffic.h"
#include "sim/simulation.h"

namespace xpusim::fabric {

struct ReallocSchedule {
  std::vector<sim::Tick> at;               // explicit times (seed4 ¶64 "a fixed number of times")
  sim::Tick every_ps = 0;                  // periodic, after the explicit times (0 = none)
  sim::Tick pause_timeout_ps = 2'000'000;  // drain must finish within this (¶63, 510/512)
  sim::Tick retry_after_ps = 5'000'000;    // when it did not: resume, retry this much later
  std::string policy = "count";
  bool enabled() const { return !at.empty() || every_ps != 0; }
};

struct JobOptions {
  NetworkOptions net;
  TrafficSpec traffic;
  TrafficKind profile = TrafficKind::kAllToAll;  // profile traffic for count-based policies
  std::uint64_t profile_bytes = 1 << 20;
  std::string profile_policy = "rtt";  // the allocation the profile run uses
  ReallocSchedule realloc;
  sim::Tick sample_ps = 0;   // time-series interval; 0 = no series
  bool keep_series = false;  // also keep the series for stats_json (memory: chips x ports)
  bool stats_json = true;    // fill JobReport::stats (per link and queue; ~2 KB per used port)
  sim::Tick time_limit = sim::kMaxTick;
  // Runs the simulation up to a tick (the CLI's sliced run with a progress line); empty:
  // Simulation::run. Either must stop early on EventQueue::stop.
  std::function<sim::StopReason(sim::Tick)> run_until;
  // run() refuses, before building anything, a job whose host memory estimate is above this
  // (bytes; 0: no check). The error names the largest part and what sets it.
  std::uint64_t host_memory_limit = 0;
  std::string host_memory_limit_text;  // how the limit was chosen, for the error
};

// The series keeps at most this many values (samples x values per sample): when full, pairs of
// neighbouring samples merge and the interval doubles, so a long run's memory stays bounded.
inline constexpr std::uint64_t kMaxSeriesValues = std::uint64_t{1} << 24;
inline constexpr std::uint64_t kMaxSeriesSamples = 4096;

// The host memory a job needs, estimated from the pod and the options, and the largest part
// with the flag or key that sets it ("2.1 GiB for 4 294 901 760 messages at once (--traffic
// alltoall)").
struct HostMemoryEstimate {
  std::uint64_t bytes = 0;
  std::uint64_t largest_bytes = 0;
  std::string largest;
};
HostMemoryEstimate estimate_host_memory(const Topology& topo, const JobOptions& opts);

struct JobReport {
  bool completed = false;
  std::string failure;  // a link declared failed during the run (Network::link_failure), or ""
  sim::Tick start = 0, finish = 0;  // of the measured traffic (after any profile run)
  sim::Tick profile_ps = 0;         // length of the profile run
  double bus_bandwidth = 0.0;       // bytes/s per chip (traffic.h convention)
  double link_util_min = 0, link_util_mean = 0, link_util_max = 0;
  double stall_ns_total = 0, stall_ns_max = 0;  // senders at zero credits
  double queue_mean_bytes = 0, queue_max_bytes = 0;
  std::uint32_t reallocations = 0, realloc_retries = 0;
  sim::Tick sample_ps = 0;  // the kept series' final interval (doubled when it was thinned)
  std::uint64_t packet_hops = 0, packets = 0;
  std::string traffic;
  std::string verify;    // "" when not functional; "ok" or the first mismatch
  nlohmann::json stats;  // Network::stats_json + series (null without opts.stats_json)
};

class FabricJob {
 public:
  FabricJob(sim::Simulation& sim, const Topology& topo, JobOptions opts);
  ~FabricJob();
  // Runs everything; errors are bad input (policy, traffic, routes) found before simulating.
  Result<JobReport> run();
  Network* network() { return net_.get(); }

 private:
  class Sampler;
  class Reallocator;
  Status run_profile();
  sim::StopReason advance(sim::Tick limit) {
    return opts_.run_until ? opts_.run_until(limit) : sim_.run(limit);
  }
  void summarize(JobReport& r, sim::Tick elapsed) const;

  sim::Simulation& sim_;
  const Topology& topo_;
  JobOptions opts_;
  std::unique_ptr<Network> net_;
  std::unique_ptr<Sampler> sampler_;
  std::unique_ptr<Reallocator> realloc_;
};

}  // namespace xpusim::fabric
