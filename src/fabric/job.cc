#include "fabric/job.h"

#include <algorithm>

#include <fmt/format.h>

namespace xpusim::fabric {

namespace {

// Values of one sample: per used port its utilization and the bytes of each VC, and the time.
std::uint64_t series_width(const Topology& t) {
  std::uint64_t used = 0;
  for (std::uint32_t c = 0; c < t.chips(); ++c)
    used += t.used_ports(c);
  return used * (1 + t.spec().buffer.vcs) + 1;
}

// Samples the series keeps for `t`: an even number, at least 2.
std::uint64_t series_capacity(const Topology& t) {
  const std::uint64_t values = std::max<std::uint64_t>(series_width(t), 1);
  return std::max<std::uint64_t>(2, std::min(kMaxSeriesSamples, kMaxSeriesValues / values)) &
         ~std::uint64_t{1};
}

}  // namespace

// Periodic samples of per-link utilization and per-VC occupancy, as Perfetto counters (one
// track per chip) and, when kept, as arrays in the stats. The kept series is bounded
// (kMaxSeriesValues, kMaxSeriesSamples): when full, neighbouring samples merge in pairs
// (utilization averaged over the two equal intervals, occupancy the later value, as a sample
// at the end of the merged interval would read) and the interval doubles.
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
    if (keep_) cap_ = series_capacity(t);
  }
  void begin() { sim_.events().schedule(*this, sim_.now() + every_); }
  void stop() {
    if (scheduled()) sim_.events().deschedule(*this);
  }
  sim::Tick interval() const { return every_; }
  nlohmann::json series() const {
    nlohmann::json s = nlohmann::json::object();
    s["sample_ns"] = static_cast<double>(every_) / 1000.0;
    s["t_ns"] = t_ns_;
    const std::size_t wu = util_.size() / std::max<std::size_t>(t_ns_.size(), 1);
    const std::size_t wo = occ_.size() / std::max<std::size_t>(t_ns_.size(), 1);
    nlohmann::json u = nlohmann::json::array(), o = nlohmann::json::array();
    for (std::size_t i = 0; i < t_ns_.size(); ++i) {
      u.push_back(std::vector<double>(util_.begin() + static_cast<std::ptrdiff_t>(i * wu),
                                      util_.begin() + static_cast<std::ptrdiff_t>((i + 1) * wu)));
      o.push_back(std::vector<double>(occ_.begin() + static_cast<std::ptrdiff_t>(i * wo),
                                      occ_.begin() + static_cast<std::ptrdiff_t>((i + 1) * wo)));
    }
    s["link_utilization"] = std::move(u);
    s["vc_bytes"] = std::move(o);
    return s;
  }

 protected:
  void process() override {
    const Topology& t = net_.topology();
    const sim::Tick now = sim_.now();
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
        if (keep_) util_.push_back(u);
        for (std::uint32_t v = 0; v < net_.vcs(); ++v) {
          const auto used = static_cast<double>(net_.queue_used(c, p, v));
          if (!tracks_.empty()) {
            sim_.tracer().counter(tracks_[c], fmt::format("port{}.vc{}.bytes", p, v), now, used);
          }
          if (keep_) occ_.push_back(used);
        }
      }
    }
    if (keep_) {
      t_ns_.push_back(static_cast<double>(now) / 1000.0);
      if (t_ns_.size() == cap_) thin();
    }
    sim_.events().schedule(*this, now + every_);
  }

 private:
  void thin() {
    const std::size_t n = t_ns_.size() / 2;
    const std::size_t wu = util_.size() / t_ns_.size(), wo = occ_.size() / t_ns_.size();
    for (std::size_t i = 0; i < n; ++i) {
      t_ns_[i] = t_ns_[2 * i + 1];
      for (std::size_t j = 0; j < wu; ++j)
        util_[i * wu + j] = (util_[2 * i * wu + j] + util_[(2 * i + 1) * wu + j]) / 2;
      for (std::size_t j = 0; j < wo; ++j)
        occ_[i * wo + j] = occ_[(2 * i + 1) * wo + j];
    }
    t_ns_.resize(n);
    util_.resize(n * wu);
    occ_.resize(n * wo);
    every_ *= 2;
  }

  sim::Simulation& sim_;
  Network& net_;
  sim::Tick every_;
  bool keep_;
  std::uint64_t cap_ = 0;
  std::vector<sim::Tick> last_busy_;
  std::vector<sim::TrackId> tracks_;
  std::vector<double> t_ns_, util_, occ_;  // samples in rows
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
  advance(opts_.time_limit);
  if (!net_->link_failure().empty()) return Ok{};  // run() reports it
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

namespace {
std::string approx_size(std::uint64_t bytes) {
  const double b = static_cast<double>(bytes);
  return b >= 0x1p30 ? fmt::format("{:.1f} GiB", b / 0x1p30)
                     : fmt::format("{:.0f} MiB", b / 0x1p20);
}
}  // namespace

HostMemoryEstimate estimate_host_memory(const Topology& topo, const JobOptions& opts) {
  HostMemoryEstimate e;
  const auto add = [&](std::uint64_t bytes, std::string what) {
    e.bytes += bytes;
    if (bytes > e.largest_bytes) {
      e.largest_bytes = bytes;
      e.largest = std::move(what);
    }
  };
  const std::uint64_t n = topo.active_chips(), ports = topo.ports_per_chip();
  add(Network::host_bytes(topo),
      fmt::format("the network state of {} chips x {} ports (pod dims)", topo.chips(), ports));
  // Messages a traffic queues at once (a pattern sends everything at its start; a collective
  // a few per chip at a time), each a record of about 100 B.
  std::uint64_t msgs = 4 * n;
  std::string by = "--traffic";
  switch (opts.traffic.kind) {
    case TrafficKind::kAllToAll:
      msgs = n * (n - 1);
      by = "--traffic alltoall";
      break;
    case TrafficKind::kUniformRandom:
      msgs = n * opts.traffic.messages;
      by = "--traffic uniform with --messages";
      break;
    case TrafficKind::kNearestNeighbour:
      msgs = n * ports;
      break;
    default:
      break;
  }
  add(msgs * 128, fmt::format("{} messages at once ({})", msgs, by));
  if (opts.stats_json) {
    std::uint64_t used = 0;
    for (std::uint32_t c = 0; c < topo.chips(); ++c)
      used += topo.used_ports(c);
    // Measured on a 65 536-chip torus: about 3 KB per link or queue entry, with the copies the
    // stats registry makes and the text of the file.
    add(used * (1 + topo.spec().buffer.vcs) * 3 * 1024,
        fmt::format("the per-link and per-queue stats of {} used ports (--stats, --svg)", used));
  }
  if (opts.sample_ps && opts.keep_series) {
    // Kept as doubles, then as JSON numbers in the stats (16 B each and their arrays).
    const std::uint64_t values = series_capacity(topo) * series_width(topo);
    add(values * 64, fmt::format("the time series, {} samples of {} values (--stats, --sample)",
                                 series_capacity(topo), series_width(topo)));
  }
  return e;
}

Result<JobReport> FabricJob::run() {
  JobReport r;
  if (opts_.host_memory_limit) {
    const HostMemoryEstimate e = estimate_host_memory(topo_, opts_);
    if (e.bytes > opts_.host_memory_limit) {
      return Error{fmt::format(
          "host memory: the run needs about {}, above the limit of {}{}; the largest part is "
          "{} for {}",
          approx_size(e.bytes), approx_size(opts_.host_memory_limit),
          opts_.host_memory_limit_text.empty() ? "" : " (" + opts_.host_memory_limit_text + ")",
          approx_size(e.largest_bytes), e.largest)};
    }
  }
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
    if (!net_->link_failure().empty()) {
      r.failure = "profile run: " + net_->link_failure();
      r.start = r.finish = sim_.now();
      if (opts_.stats_json) r.stats = net_->stats_json(r.profile_ps);
      summarize(r, r.profile_ps);
      return r;
    }
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
  if (!(*traffic)->done()) advance(opts_.time_limit);
  if (sampler_) sampler_->stop();
  if (realloc_) {
    realloc_->stop();
    r.reallocations = realloc_->done_count();
    r.realloc_retries = realloc_->retries();
    if (!realloc_->error().empty()) return Error{"re-allocation: " + realloc_->error()};
  }
  r.failure = net_->link_failure();
  r.completed = r.failure.empty() && (*traffic)->done();
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
  if (opts_.stats_json) {
    r.stats = net_->stats_json(r.finish - r.start);
    if (sampler_ && opts_.keep_series) r.stats["series"] = sampler_->series();
  }
  if (sampler_) r.sample_ps = sampler_->interval();
  summarize(r, r.finish - r.start);
  return r;
}

void FabricJob::summarize(JobReport& r, sim::Tick elapsed) const {
  const NetworkSummary n = net_->summary(elapsed);
  r.link_util_min = n.util_min;
  r.link_util_mean = n.util_mean;
  r.link_util_max = n.util_max;
  r.stall_ns_total = n.stall_ns_total;
  r.stall_ns_max = n.stall_ns_max;
  r.queue_mean_bytes = n.queue_mean_bytes;
  r.queue_max_bytes = n.queue_max_bytes;
}

}  // namespace xpusim::fabric
