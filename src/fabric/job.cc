#include "fabric/job.h"

#include <algorithm>

#include <fmt/format.h>

namespace xpusim::fabric {

// Periodic samples of per-link utilization and per-VC occupancy, as Perfetto counters (one
// track per chip) and, when kept, as arrays in the stats.
class FabricJob::Sampler final : public sim::Event {
 public:
  Sampler(sim::Simulation& sim, Network& net, sim::Tick every, bool keep)
      : sim_(sim), net_(net), every_(every), keep_(keep) {
    const Topology& t = net.topology();
    last_busy_.assign(static_cast<std::size_t>(t.chips()) * t.ports_per_chip(), 0);
    if (sim.tracer().enabled()) {
      for (std::uint32_t c = 0; c < t.chips(); ++c) {
        tracks_.push_back(sim.tracer().track(fmt::format("fabric.chip{}", c)));
      }
    }
  }
  void begin() { sim_.events().schedule(*this, sim_.now() + every_); }
  void stop() {
    if (scheduled()) sim_.events().deschedule(*this);
  }
  nlohmann::json series() const { return series_; }

 protected:
  void process() override {
    const Topology& t = net_.topology();
    const sim::Tick now = sim_.now();
    nlohmann::json util = nlohmann::json::array(), occ = nlohmann::json::array();
    for (std::uint32_t c = 0; c < t.chips(); ++c) {
      for (std::uint32_t p = 0; p < t.ports_per_chip(); ++p) {
        if (!t.port(c, p).used) continue;
        const std::size_t o = static_cast<std::size_t>(c) * t.ports_per_chip() + p;
        const sim::Tick busy = net_.output_stats(c, p).busy_ps;
        const double u =
            static_cast<double>(busy - std::min(busy, last_busy_[o])) / static_cast<double>(every_);
        last_busy_[o] = busy;
        if (!tracks_.empty()) {
          sim_.tracer().counter(tracks_[c], fmt::format("port{}.util", p), now, u);
        }
        if (keep_) util.push_back(u);
        for (std::uint32_t v = 0; v < net_.vcs(); ++v) {
          const auto used = static_cast<double>(net_.queue_used(c, p, v));
          if (!tracks_.empty()) {
            sim_.tracer().counter(tracks_[c], fmt::format("port{}.vc{}.bytes", p, v), now, used);
          }
          if (keep_) occ.push_back(used);
        }
      }
    }
    if (keep_) {
      series_["t_ns"].push_back(static_cast<double>(now) / 1000.0);
      series_["link_utilization"].push_back(std::move(util));
      series_["vc_bytes"].push_back(std::move(occ));
    }
    sim_.events().schedule(*this, now + every_);
  }

 private:
  sim::Simulation& sim_;
  Network& net_;
  sim::Tick every_;
  bool keep_;
  std::vector<sim::Tick> last_busy_;
  std::vector<sim::TrackId> tracks_;
  nlohmann::json series_ = nlohmann::json::object();
};

// seed4 Fig. 5: at each scheduled time pause injection, poll until the buffers are clear;
// within the timeout reprogram from the counters, clear them and resume; otherwise resume
// and retry later (510/512/516).
class FabricJob::Reallocator final : public sim::Event {
 public:
  Reallocator(sim::Simulation& sim, Network& net, const ReallocSchedule& s)
      : sim_(sim), net_(net), s_(s) {}
  // Scheduled times count from the start of the measured traffic (after any profile run).
  void begin() {
    base_ = sim_.now();
    plan_next(sim_.now());
  }
  void stop() {
    if (scheduled()) sim_.events().deschedule(*this);
    if (net_.injection_paused()) net_.pause_injection(false);
  }
  std::uint32_t done_count() const { return done_; }
  std::uint32_t retries() const { return retries_; }
  std::string error() const { return error_; }

 protected:
  void process() override {
    const sim::Tick now = sim_.now();
    if (!net_.injection_paused()) {  // a scheduled time: pause and start polling
      net_.pause_injection(true);
      deadline_ = now + s_.pause_timeout_ps;
    }
    if (net_.drained()) {
      if (Status st = net_.reallocate(s_.policy); !st) {
        if (error_.empty()) error_ = st.error().message;
      } else {
        ++done_;
      }
      net_.clear_counters();
      net_.pause_injection(false);
      plan_next(now);
      return;
    }
    if (now >= deadline_) {
      ++retries_;
      net_.pause_injection(false);
      sim_.events().schedule(*this, now + s_.retry_after_ps);
      return;
    }
    sim_.events().schedule(*this, std::min(deadline_, now + kPoll));
  }

 private:
  static constexpr sim::Tick kPoll = 50'000;  // 50 ns
  void plan_next(sim::Tick now) {
    while (next_ < s_.at.size() && s_.at[next_] + base_ <= now)
      ++next_;
    sim::Tick t = sim::kMaxTick;
    if (next_ < s_.at.size()) {
      t = s_.at[next_++] + base_;
    } else if (s_.every_ps) {
      t = now + s_.every_ps;
    }
    if (t != sim::kMaxTick) sim_.events().schedule(*this, t);
  }

  sim::Simulation& sim_;
  Network& net_;
  ReallocSchedule s_;
  std::size_t next_ = 0;
  sim::Tick base_ = 0, deadline_ = 0;
  std::uint32_t done_ = 0, retries_ = 0;
  std::string error_;
};

FabricJob::FabricJob(sim::Simulation& sim, const Topology& topo, JobOptions opts)
    : sim_(sim), topo_(topo), opts_(std::move(opts)) {}

FabricJob::~FabricJob() {
  if (sampler_) sampler_->stop();
  if (realloc_) realloc_->stop();
}

Status FabricJob::run_profile() {
  // seed4 Fig. 4: start from the profile policy, clear the counters, inject the profile
  // traffic, then allocate from what each port received.
  TrafficSpec ps;
  ps.kind = opts_.profile;
  ps.bytes = opts_.profile_bytes;
  ps.seed = opts_.traffic.seed;
  auto profile = make_traffic(*net_, ps);
  if (!profile) return profile.errors();
  net_->clear_counters();
  if (Status s = (*profile)->start(); !s) return s;
  sim_.run(opts_.time_limit);
  if (!(*profile)->done()) return Error{"profile run: did not finish within --max-time"};
  // The last credits are still on their way back: let them land before reprogramming.
  for (int i = 0; i < 10'000 && !net_->drained(); ++i) {
    sim_.events().post(sim_.now() + 100'000, [] {});
    sim_.run(opts_.time_limit);
  }
  if (Status s = net_->reallocate(opts_.net.policy); !s) return s;
  net_->clear_counters();
  return Ok{};
}

Result<JobReport> FabricJob::run() {
  JobReport r;
  auto policy =
      make_policy(opts_.net.policy.empty() ? topo_.spec().buffer.policy : opts_.net.policy);
  if (!policy) return policy.errors();
  NetworkOptions first = opts_.net;
  if ((*policy)->needs_counts()) first.policy = opts_.profile_policy;
  auto net = Network::create(sim_.events(), topo_, first);
  if (!net) return net.errors();
  net_ = std::move(net.value());
  if ((*policy)->needs_counts()) {
    opts_.net.policy = std::string((*policy)->name());
    const sim::Tick t0 = sim_.now();
    if (Status s = run_profile(); !s) return s.errors();
    r.profile_ps = sim_.now() - t0;
  }
  auto traffic = make_traffic(*net_, opts_.traffic);
  if (!traffic) return traffic.errors();
  net_->clear_stats();
  r.start = sim_.now();
  if (opts_.sample_ps) {
    sampler_ = std::make_unique<Sampler>(sim_, *net_, opts_.sample_ps, opts_.keep_series);
    sampler_->begin();
  }
  if (opts_.realloc.enabled()) {
    realloc_ = std::make_unique<Reallocator>(sim_, *net_, opts_.realloc);
    realloc_->begin();
  }
  // Run until the traffic finishes (the sampler and the re-allocator would run forever).
  (*traffic)->set_on_done([this] { sim_.events().stop(); });
  if (Status s = (*traffic)->start(); !s) return s.errors();
  if (!(*traffic)->done()) sim_.events().run(opts_.time_limit);
  if (sampler_) sampler_->stop();
  if (realloc_) {
    realloc_->stop();
    r.reallocations = realloc_->done_count();
    r.realloc_retries = realloc_->retries();
    if (!realloc_->error().empty()) return Error{"re-allocation: " + realloc_->error()};
  }
  r.completed = (*traffic)->done();
  r.finish = r.completed ? (*traffic)->finish_time() : sim_.now();
  r.traffic = (*traffic)->describe();
  const double secs = static_cast<double>(r.finish - r.start) * 1e-12;
  r.bus_bandwidth = secs > 0 ? (*traffic)->bus_bytes() / secs : 0.0;
  if (opts_.traffic.functional && r.completed) {
    Status v = (*traffic)->verify();
    r.verify = v ? "ok" : v.error().message;
  }
  r.packet_hops = net_->packet_hops();
  r.packets = net_->packets_injected();
  r.stats = net_->stats_json(r.finish - r.start);
  if (sampler_ && opts_.keep_series) r.stats["series"] = sampler_->series();
  summarize(r);
  return r;
}

void FabricJob::summarize(JobReport& r) const {
  const auto& links = r.stats["links"];
  double sum = 0;
  r.link_util_min = links.empty() ? 0.0 : 1e300;
  for (const auto& l : links) {
    const double u = l["utilization"].get<double>();
    const double s = l["stall_ns"].get<double>();
    r.link_util_min = std::min(r.link_util_min, u);
    r.link_util_max = std::max(r.link_util_max, u);
    sum += u;
    r.stall_ns_total += s;
    r.stall_ns_max = std::max(r.stall_ns_max, s);
  }
  r.link_util_mean = links.empty() ? 0.0 : sum / static_cast<double>(links.size());
  double qsum = 0;
  for (const auto& q : r.stats["queues"]) {
    qsum += q["mean_bytes"].get<double>();
    r.queue_max_bytes = std::max(r.queue_max_bytes, q["max_bytes"].get<double>());
  }
  r.queue_mean_bytes =
      r.stats["queues"].empty() ? 0.0 : qsum / static_cast<double>(r.stats["queues"].size());
}

}  // namespace xpusim::fabric
