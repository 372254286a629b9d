// Synthetic traffic patterns and the traffic factory (traffic.h).
#include "fabric/traffic.h"

#include <array>

#include <fmt/format.h>

#include "fabric/collective.h"
#include "sim/rng.h"

namespace xpusim::fabric {
namespace {

constexpr std::array kTrafficNames{"alltoall",  "neighbour", "uniform",
                                   "allreduce", "allgather", "reducescatter"};
constexpr std::array kAlgoNames{"ring", "bidir", "torus"};

// Every chip sends its messages at time 0; done when every message is consumed. verify()
// compares the bytes each chip received with the bytes addressed to it.
class Pattern final : public Traffic, public MessageSink {
 public:
  Pattern(Network& net, const TrafficSpec& spec) : net_(net), spec_(spec) {}

  Status start() override {
    const Topology& t = net_.topology();
    expected_.assign(t.chips(), 0);
    received_.assign(t.chips(), 0);
    std::vector<std::uint32_t> active;
    for (std::uint32_t c = 0; c < t.chips(); ++c) {
      if (t.active(c)) active.push_back(c);
    }
    if (active.size() < 2) return Error{"traffic: the job has fewer than 2 active chips"};
    chips_ = active.size();
    sim::Rng rng = sim::Rng::for_stream(spec_.seed, "fabric.traffic");
    for (std::uint32_t src : active) {
      std::vector<std::uint32_t> dsts;
      switch (spec_.kind) {
        case TrafficKind::kAllToAll:
          for (std::uint32_t d : active) {
            if (d != src) dsts.push_back(d);
          }
          break;
        case TrafficKind::kNearestNeighbour:
          for (std::uint32_t p = 0; p < t.ports_per_chip(); ++p) {
            if (t.port(src, p).used) dsts.push_back(t.port(src, p).peer_chip);
          }
          break;
        default:
          for (std::uint32_t m = 0; m < spec_.messages; ++m) {
            std::uint32_t d = src;
            while (d == src)
              d = active[rng.uniform(active.size())];
            dsts.push_back(d);
          }
          break;
      }
      if (dsts.empty()) continue;
      for (std::size_t i = 0; i < dsts.size(); ++i) {
        // An even split of the chip's bytes, the remainder to the first messages.
        const std::uint64_t b = spec_.bytes / dsts.size() + (i < spec_.bytes % dsts.size());
        expected_[dsts[i]] += b;
        auto id = net_.send(src, dsts[i], b, b, this);
        if (!id) return id.errors();
        ++pending_;
      }
    }
    return Ok{};
  }
  bool done() const override { return pending_ == 0; }
  sim::Tick finish_time() const override { return finish_; }
  double bus_bytes() const override { return static_cast<double>(spec_.bytes); }
  Status verify() const override {
    for (std::size_t c = 0; c < expected_.size(); ++c) {
      if (expected_[c] != received_[c]) {
        return Error{fmt::format("verify: chip {} received {} bytes, {} were sent to it", c,
                                 received_[c], expected_[c])};
      }
    }
    return Ok{};
  }
  std::string describe() const override {
    return fmt::format("{} of {} per chip over {} chips", traffic_name(spec_.kind), spec_.bytes,
                       chips_);
  }
  void delivered(MessageId, std::uint32_t, std::uint32_t dst, std::uint64_t tag) override {
    received_[dst] += tag;  // the tag carries the message's size
    finish_ = net_.now();
    if (--pending_ == 0) finished();
  }

 private:
  Network& net_;
  TrafficSpec spec_;
  std::vector<std::uint64_t> expected_, received_;
  std::uint64_t pending_ = 0;
  std::size_t chips_ = 0;
  sim::Tick finish_ = 0;
};

}  // namespace

std::string_view traffic_name(TrafficKind k) {
  return kTrafficNames[static_cast<int>(k)];
}
std::string_view algo_name(CollectiveAlgo a) {
  return kAlgoNames[static_cast<int>(a)];
}

Result<TrafficKind> parse_traffic(std::string_view text) {
  for (std::size_t i = 0; i < kTrafficNames.size(); ++i) {
    if (text == kTrafficNames[i]) return static_cast<TrafficKind>(i);
  }
  return Error{fmt::format("--traffic: unknown pattern \"{}\"; valid: {}", text,
                           fmt::join(kTrafficNames, ", "))};
}

Result<CollectiveAlgo> parse_algo(std::string_view text) {
  for (std::size_t i = 0; i < kAlgoNames.size(); ++i) {
    if (text == kAlgoNames[i]) return static_cast<CollectiveAlgo>(i);
  }
  return Error{fmt::format("--algo: unknown algorithm \"{}\"; valid: {}", text,
                           fmt::join(kAlgoNames, ", "))};
}

Result<std::unique_ptr<Traffic>> make_traffic(Network& net, const TrafficSpec& spec) {
  switch (spec.kind) {
    case TrafficKind::kAllReduce:
    case TrafficKind::kAllGather:
    case TrafficKind::kReduceScatter:
      if (spec.algo != CollectiveAlgo::kRing && spec.kind != TrafficKind::kAllReduce) {
        return Error{fmt::format("--algo {}: {} runs on the ring only", algo_name(spec.algo),
                                 traffic_name(spec.kind))};
      }
      return std::unique_ptr<Traffic>(std::make_unique<Collective>(net, spec));
    default:
      return std::unique_ptr<Traffic>(std::make_unique<Pattern>(net, spec));
  }
}

}  // namespace xpusim::fabric
