// Traffic on the fabric: synthetic patterns (all-to-all, nearest neighbour, uniform random)
// and collectives (ring and bidirectional-ring all-reduce, dimension-ordered torus
// all-reduce, all-gather, reduce-scatter). A collective moves real values when `functional`
// is set, so verify() can compare every chip's result with a naive reference.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "fabric/network.h"
#include "sim/result.h"

namespace xpusim::fabric {

enum class TrafficKind : std::uint8_t {
  kAllToAll,
  kNearestNeighbour,
  kUniformRandom,
  kAllReduce,
  kAllGather,
  kReduceScatter,
};
enum class CollectiveAlgo : std::uint8_t { kRing, kBidirRing, kTorus };

std::string_view traffic_name(TrafficKind k);
Result<TrafficKind> parse_traffic(std::string_view text);
std::string_view algo_name(CollectiveAlgo a);
Result<CollectiveAlgo> parse_algo(std::string_view text);

struct TrafficSpec {
  TrafficKind kind = TrafficKind::kAllReduce;
  CollectiveAlgo algo = CollectiveAlgo::kRing;
  // Per chip: the buffer of an all-reduce / reduce-scatter, the shard of an all-gather, the
  // bytes a chip sends in total for a pattern.
  std::uint64_t bytes = 0;
  std::uint32_t messages = 16;  // uniform random: messages per chip
  bool functional = false;      // carry and check values (collectives, <= 256 MiB in total)
  std::uint64_t seed = 1;
};

class Traffic {
 public:
  virtual ~Traffic() = default;
  // Sends the first messages; the rest follow from deliveries.
  virtual Status start() = 0;
  virtual bool done() const = 0;
  // Time of the last delivery (valid once done).
  virtual sim::Tick finish_time() const = 0;
  // Bytes a chip's algorithm moves per the usual bus-bandwidth convention (NCCL): bus bandwidth
  // = bus_bytes / time. All-reduce: 2(n-1)/n x buffer; all-gather/reduce-scatter: (n-1)/n x
  // the full buffer; patterns: bytes each chip sends.
  virtual double bus_bytes() const = 0;
  // Functional check: every chip holds exactly the naive reference's values (collectives) or
  // received exactly the bytes sent to it (patterns). Error names the first wrong chip/element.
  virtual Status verify() const = 0;
  virtual std::string describe() const = 0;

  // Called when the traffic becomes done (at its last delivery); the job stops its event loop
  // there instead of asking done() after every event.
  void set_on_done(std::function<void()> f) { on_done_ = std::move(f); }

 protected:
  void finished() const {
    if (on_done_) on_done_();
  }

 private:
  std::function<void()> on_done_;
};

Result<std::unique_ptr<Traffic>> make_traffic(Network& net, const TrafficSpec& spec);

}  // namespace xpusim::fabric
