// A fabric job: the flow of seed4 Figs. 3-5 around one traffic run. Build the network with a
// policy (Fig. 3); for a count-based policy first run a profile traffic and re-allocate from
// its counters (Fig. 4); optionally re-allocate during the run on a schedule, pausing
// injection and reprogramming only once the buffers drain within a timeout (Fig. 5); sample
// per-link and per-VC time series; report completion time, bus bandwidth, link utilization,
// stall time at zero credits and queue occupancy.
#pragma once

#include <cstdint>
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
  sim::Tick time_limit = sim::kMaxTick;
};

struct JobReport {
  bool completed = false;
  sim::Tick start = 0, finish = 0;  // of the measured traffic (after any profile run)
  sim::Tick profile_ps = 0;         // length of the profile run
  double bus_bandwidth = 0.0;       // bytes/s per chip (traffic.h convention)
  double link_util_min = 0, link_util_mean = 0, link_util_max = 0;
  double stall_ns_total = 0, stall_ns_max = 0;  // senders at zero credits
  double queue_mean_bytes = 0, queue_max_bytes = 0;
  std::uint32_t reallocations = 0, realloc_retries = 0;
  std::uint64_t packet_hops = 0, packets = 0;
  std::string traffic;
  std::string verify;    // "" when not functional; "ok" or the first mismatch
  nlohmann::json stats;  // Network::stats_json + series
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
  void summarize(JobReport& r) const;

  sim::Simulation& sim_;
  const Topology& topo_;
  JobOptions opts_;
  std::unique_ptr<Network> net_;
  std::unique_ptr<Sampler> sampler_;
  std::unique_ptr<Reallocator> realloc_;
};

}  // namespace xpusim::fabric
