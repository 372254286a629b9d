// `fabric --pod POD --traffic KIND --bytes SIZE --policy NAME`: a traffic run on a pod of chips
// joined by the chip-to-chip fabric (src/fabric, docs/fabric.md). Prints completion time, bus
// bandwidth, link utilization, sender stall time at zero credits and queue occupancy;
// --stats/--trace carry per-link and per-VC series, --svg draws link utilization.
#include <fmt/format.h>

#include <unistd.h>

#include <fstream>
#include <memory>

#include "cli.h"
#include "config/units.h"
#include "fabric/job.h"
#include "fabric/pod_spec.h"
#include "fabric/policy.h"
#include "fabric/svg.h"
#include "fabric/topology.h"
#include "run_summary.h"
#include "system/host_memory.h"

namespace xpusim::cli {
namespace {

struct FabricOpts {
  std::string pod = "tpuv4-4x4x4";
  std::string traffic = "allreduce";
  std::string algo = "ring";
  std::string bytes = "1MiB";
  std::string policy;
  std::string buffer;
  std::string rtt;
  std::string profile = "alltoall";
  std::string profile_bytes = "256KiB";
  std::string sample;
  std::vector<std::string> realloc_at;
  std::string realloc_every, realloc_timeout = "2us", realloc_retry = "5us";
  std::string svg;
  std::uint32_t messages = 16;
  bool functional = false;
};

// A JSON-valued stat: the fabric's per-link and per-queue tables in the --stats file.
class JsonStat final : public sim::Stat {
 public:
  JsonStat(sim::StatsRegistry& reg, nlohmann::json v)
      : Stat(reg, "fabric", "network", "", "per-link, per-queue and time-series fabric stats"),
        v_(std::move(v)) {}
  nlohmann::json to_json() const override { return base_json(v_); }
  void reset() override {}

 private:
  nlohmann::json v_;
};

// Upper bounds of the flags' numbers: far beyond any run (a simulated fabric second is about
// 10^10 packet-hops) and far enough below 2^64 that times added up in a run cannot overflow.
constexpr sim::Tick kMaxFlagTime = 1'000'000'000'000'000;        // 1000 s
constexpr std::uint64_t kMaxFlagBytes = std::uint64_t{1} << 50;  // 1 PiB
constexpr sim::Tick kMinSample = 1000;                           // 1 ns

// A time flag in [min, kMaxFlagTime]. 0 is an error, never "the default": a flag left out
// takes the default, so a 0 typed by the user says something the run would not do.
Result<sim::Tick> time_flag(std::string_view flag, const std::string& text, sim::Tick min,
                            std::string_view why_zero, std::string_view why_min = "") {
  auto t = config::parse_time_ps(text);
  if (!t) return Error{fmt::format("{} = {}: {}", flag, text, t.error().message)};
  if (*t < min) {
    if (*t == 0) return Error{fmt::format("{} = {}: must be > 0 ({})", flag, text, why_zero)};
    return Error{fmt::format("{} = {}: must be at least {} ({})", flag, text,
                             config::format_time(min), why_min)};
  }
  if (*t > kMaxFlagTime) {
    return Error{
        fmt::format("{} = {}: must be at most {}", flag, text, config::format_time(kMaxFlagTime))};
  }
  return *t;
}

// A size flag in [min, kMaxFlagBytes]; as above, 0 below `min` is an error.
Result<std::uint64_t> size_flag(std::string_view flag, const std::string& text, std::uint64_t min,
                                std::string_view why_min) {
  auto b = config::parse_size_bytes(text);
  if (!b) return Error{fmt::format("{} = {}: {}", flag, text, b.error().message)};
  if (*b < min) return Error{fmt::format("{} = {}: must be > 0 ({})", flag, text, why_min)};
  if (*b > kMaxFlagBytes) {
    return Error{
        fmt::format("{} = {}: must be at most {}", flag, text, config::format_size(kMaxFlagBytes))};
  }
  return *b;
}

int run_fabric(const GlobalOptions& g, const FabricOpts& o) {
  std::vector<Error> errors;
  auto path = fabric::resolve_pod(o.pod, config_dir(g));
  if (!path) return fail(path.errors());
  auto spec = fabric::load_pod_file(*path);
  if (!spec) return fail(spec.errors());
  auto topo = fabric::build_topology(*spec);
  if (!topo) return fail(topo.errors());

  fabric::JobOptions jo;
  jo.net.seed = g.seed;
  jo.net.policy = o.policy;
  jo.net.rtt_source = spec->rtt_source;
  if (!o.rtt.empty()) {
    if (o.rtt == "table" || o.rtt == "measured") {
      jo.net.rtt_source =
          o.rtt == "table" ? fabric::RttSource::kTable : fabric::RttSource::kMeasured;
    } else {
      errors.push_back({fmt::format("--rtt = {}: must be table or measured", o.rtt)});
    }
  }
  if (!o.policy.empty()) {
    if (auto p = fabric::make_policy(o.policy); !p)
      errors.push_back({"--policy: " + p.error().message});
  }
  if (!o.buffer.empty()) {
    auto b = size_flag("--buffer", o.buffer, 1, "omit --buffer for the pod's buffer.bytes");
    if (!b)
      errors.push_back(b.error());
    else
      jo.net.buffer_bytes = *b;
  }
  auto kind = fabric::parse_traffic(o.traffic);
  if (!kind)
    errors.push_back(kind.error());
  else
    jo.traffic.kind = *kind;
  auto algo = fabric::parse_algo(o.algo);
  if (!algo)
    errors.push_back(algo.error());
  else
    jo.traffic.algo = *algo;
  auto prof = fabric::parse_traffic(o.profile);
  if (!prof)
    errors.push_back({"--profile: " + prof.error().message});
  else
    jo.profile = *prof;
  auto bytes = size_flag("--bytes", o.bytes, 0, "");
  if (!bytes)
    errors.push_back(bytes.error());
  else
    jo.traffic.bytes = *bytes;
  auto pbytes = size_flag("--profile-bytes", o.profile_bytes, 1, "a profile run needs traffic");
  if (!pbytes)
    errors.push_back(pbytes.error());
  else
    jo.profile_bytes = *pbytes;
  jo.traffic.messages = o.messages;
  jo.traffic.functional = o.functional;
  jo.traffic.seed = g.seed;
  for (const std::string& at : o.realloc_at) {
    auto t = time_flag("--realloc-at", at, 0, "");
    if (!t)
      errors.push_back(t.error());
    else
      jo.realloc.at.push_back(*t);
  }
  std::sort(jo.realloc.at.begin(), jo.realloc.at.end());
  for (auto [flag, text, field, min, why_zero, why_min] :
       {std::tuple{"--realloc-every", &o.realloc_every, &jo.realloc.every_ps, sim::Tick{1},
                   "omit it for no periodic re-allocation", ""},
        std::tuple{"--realloc-timeout", &o.realloc_timeout, &jo.realloc.pause_timeout_ps,
                   sim::Tick{1}, "a drain takes time", ""},
        std::tuple{"--realloc-retry", &o.realloc_retry, &jo.realloc.retry_after_ps, sim::Tick{1},
                   "an immediate retry would find the same fabric", ""},
        std::tuple{"--sample", &o.sample, &jo.sample_ps, kMinSample,
                   "omit --sample for the default 1us",
                   "a finer series reads every port more often than a packet crosses a link"}}) {
    if (text->empty()) continue;
    auto t = time_flag(flag, *text, min, why_zero, why_min);
    if (!t)
      errors.push_back(t.error());
    else
      *field = *t;
  }
  if (!errors.empty()) return fail(errors);
  if (jo.sample_ps == 0 && (!g.stats_path.empty() || !g.trace_path.empty())) {
    jo.sample_ps = 1'000'000;  // 1 us series by default when an output asks for them
  }
  jo.keep_series = !g.stats_path.empty();
  jo.stats_json = !g.stats_path.empty() || !o.svg.empty();
  // Refuse what this host cannot hold before building it, not with bad_alloc hours in.
  if (const std::uint64_t host = system::physical_memory_bytes(); host > 0) {
    jo.host_memory_limit = host / 4 * 3;
    jo.host_memory_limit_text = "3/4 of this host's memory";
  }

  const auto slice = run_slice_from_env();
  if (!slice) return fail(slice.errors());
  auto session = Session::open(g);
  if (!session) return fail(session.errors());
  (*session)->header()["pod"] = spec->name;
  jo.time_limit = (*session)->time_limit();
  sim::Simulation& sim = (*session)->sim();
  fabric::FabricJob* running = nullptr;
  if (::isatty(STDERR_FILENO) == 1 || *slice > 0) {
    // The `run` command's progress line: simulated time, packets and their rate.
    jo.run_until = [&sim, &running, slice = *slice](sim::Tick limit) {
      std::uint64_t last_hops = 0;
      SliceOptions slicing;
      slicing.slice = slice;
      slicing.progress = ::isatty(STDERR_FILENO) == 1;
      return run_in_slices(sim, limit, slicing, [&](double wall) {
        const fabric::Network* net = running ? running->network() : nullptr;
        if (net == nullptr) return std::string();
        const std::uint64_t hops = net->packet_hops();
        const double rate = static_cast<double>(hops - std::min(hops, last_hops)) / wall;
        last_hops = hops;
        return fmt::format(
            ", {} packets injected, {} packet-hops ({:.0f}/s), {} messages "
            "delivered, {} pending",
            net->packets_injected(), hops, rate, net->messages_delivered(),
            net->messages_pending());
      });
    };
  }
  fabric::FabricJob job(sim, *topo, jo);
  running = &job;
  Result<fabric::JobReport> r = Error{};
  try {
    r = job.run();
  } catch (const std::exception& e) {
    const Error failed{fmt::format("simulation failed: {}", e.what())};
    (*session)->cut_short(failed.message);
    errors.push_back(failed);
    for (Error& f : (*session)->finish())
      errors.push_back(std::move(f));
    return fail(errors, kExitSimulationFailure);
  }
  if (!r) return fail(r.errors());
  const fabric::JobReport& rep = *r;
  JsonStat stat(sim.stats(), rep.stats);

  fmt::print("pod        {}\n", topo->summary());
  fmt::print("policy     {} (buffer {} per chip, RTT from the {})\n", job.network()->policy_name(),
             config::format_size(jo.net.buffer_bytes ? jo.net.buffer_bytes : spec->buffer.bytes),
             jo.net.rtt_source == fabric::RttSource::kTable ? "latency table" : "timing messages");
  fmt::print("traffic    {}\n", rep.traffic);
  if (rep.profile_ps)
    fmt::print("profile    {} of {} before the run\n", o.profile,
               config::format_time(rep.profile_ps));
  if (!rep.failure.empty()) {
    fmt::print("result     a link failed: the run stopped at {}\n",
               config::format_time(rep.finish));
    errors.push_back({rep.failure});
    (*session)->cut_short(rep.failure);
  } else if (!rep.completed) {
    fmt::print("result     did not finish by {}\n", config::format_time(rep.finish));
    errors.push_back({fmt::format("{}: the traffic did not finish", (*session)->limit_label())});
    (*session)->cut_short(errors.back().message);
  } else {
    const sim::Tick t = rep.finish - rep.start;
    fmt::print("time       {:.3f} us\n", static_cast<double>(t) / 1e6);
    fmt::print("bus bw     {:.2f} GB/s per chip\n", rep.bus_bandwidth / 1e9);
  }
  fmt::print("links      utilization min {:.1f}% mean {:.1f}% max {:.1f}%\n",
             100 * rep.link_util_min, 100 * rep.link_util_mean, 100 * rep.link_util_max);
  fmt::print("stalls     {:.0f} ns at zero credits in all senders, {:.0f} ns in the worst one\n",
             rep.stall_ns_total, rep.stall_ns_max);
  fmt::print("queues     mean {:.0f} B, max {:.0f} B per (port, VC)\n", rep.queue_mean_bytes,
             rep.queue_max_bytes);
  if (jo.realloc.enabled()) {
    fmt::print("realloc    {} done, {} retried after a timeout\n", rep.reallocations,
               rep.realloc_retries);
  }
  fmt::print("packets    {} injected, {} packet-hops\n", rep.packets, rep.packet_hops);
  if (!rep.verify.empty()) fmt::print("verify     {}\n", rep.verify);
  if (!o.svg.empty()) {
    std::ofstream f(o.svg);
    f << fabric::utilization_svg(*topo, rep.stats["links"]);
    if (!f) errors.push_back({fmt::format("--svg = {}: cannot write the file", o.svg)});
  }
  for (Error& e : (*session)->finish())
    errors.push_back(std::move(e));
  if (!errors.empty()) return fail(errors, kExitSimulationFailure);
  if (!rep.completed) return kExitSimulationFailure;
  if (!rep.verify.empty() && rep.verify != "ok") return kExitSimulationFailure;
  return kExitOk;
}

}  // namespace

void add_fabric_command(CLI::App& app, const GlobalOptions& g, Action& action) {
  auto o = std::make_shared<FabricOpts>();
  CLI::App* cmd = app.add_subcommand(
      "fabric", "run traffic or a collective on a pod of chips (docs/fabric.md)");
  cmd->add_option("--pod", o->pod, "pod file or name under configs/pods")->capture_default_str();
  cmd->add_option("--traffic", o->traffic,
                  "alltoall | neighbour | uniform | allreduce | allgather | reducescatter")
      ->capture_default_str();
  cmd->add_option("--algo", o->algo, "collective algorithm: ring | bidir | torus")
      ->capture_default_str();
  cmd->add_option("--bytes", o->bytes,
                  "per chip: all-reduce/reduce-scatter buffer, all-gather shard, pattern total")
      ->capture_default_str();
  cmd->add_option("--policy", o->policy,
                  fmt::format("buffer allocation policy: {} (default: the pod's)",
                              fmt::join(fabric::policy_names(), " | ")));
  cmd->add_option("--buffer", o->buffer, "shared buffer memory per chip (default: the pod's)");
  cmd->add_option("--rtt", o->rtt, "RTT source: table | measured (default: the pod's)");
  cmd->add_option("--profile", o->profile, "profile traffic before a count-based policy")
      ->capture_default_str();
  cmd->add_option("--profile-bytes", o->profile_bytes, "per chip, for the profile traffic")
      ->capture_default_str();
  cmd->add_option("--messages", o->messages, "uniform traffic: messages per chip")
      ->capture_default_str()
      ->check(CLI::Range(1u, 1u << 20));
  cmd->add_flag("--functional", o->functional, "carry values and check the collective's result");
  cmd->add_option("--realloc-at", o->realloc_at, "in-run re-allocation at these times (e.g. 10us)");
  cmd->add_option("--realloc-every", o->realloc_every, "periodic in-run re-allocation interval");
  cmd->add_option("--realloc-timeout", o->realloc_timeout, "drain timeout of a re-allocation")
      ->capture_default_str();
  cmd->add_option("--realloc-retry", o->realloc_retry, "retry delay after a drain timeout")
      ->capture_default_str();
  cmd->add_option("--sample", o->sample, "time-series interval for --stats/--trace (default 1us)");
  cmd->add_option("--svg", o->svg, "write link utilization on the pod as SVG");
  cmd->callback([&g, &action, o] { action = [&g, o]() -> int { return run_fabric(g, *o); }; });
}

}  // namespace xpusim::cli
