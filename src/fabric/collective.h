// Collective: the ring-phase engine behind the collective kinds of traffic.h.
#pragma once

#include <array>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "fabric/traffic.h"

namespace xpusim::fabric {

class Collective final : public Traffic, public MessageSink {
 public:
  Collective(Network& net, const TrafficSpec& spec);
  Status start() override;
  bool done() const override { return finished_lanes_ == members_.size() * lanes_; }
  sim::Tick finish_time() const override { return finish_; }
  double bus_bytes() const override;
  Status verify() const override;
  std::string describe() const override;
  void delivered(MessageId id, std::uint32_t src, std::uint32_t dst, std::uint64_t tag) override;
  // The value chip `chip` starts with at element e (its reference is recomputed from this).
  static std::uint32_t initial_value(std::uint32_t chip, std::uint64_t e);
  const std::vector<std::uint32_t>& members() const { return members_; }

 private:
  enum class PhaseKind { kReduceScatter, kAllGather };
  struct Phase {
    PhaseKind kind = PhaseKind::kReduceScatter;
    std::vector<std::uint32_t> group;  // ring order; the successor of group[i] is group[i+1]
    std::uint32_t pos = 0;             // this chip's index in group
    std::uint32_t offset = 0;          // 1 when it follows a reduce-scatter (owns chunk pos+1)
    std::uint64_t lo = 0, hi = 0;      // element range the phase works on
  };
  struct Lane {
    std::vector<Phase> phases;
    std::size_t phase = 0;
    std::uint32_t sent = 0, applied = 0;
    std::set<std::uint64_t> arrived;  // tags delivered and not yet applied
    bool finished = false;
  };
  struct ChipState {
    std::array<Lane, 2> lanes;
    std::vector<std::uint32_t> data;  // functional values
  };

  Status plan();
  Status advance(std::uint32_t chip, std::uint32_t lane);
  std::vector<std::uint32_t> snake_order() const;
  std::pair<std::uint64_t, std::uint64_t> chunk(const Phase& ph, std::int64_t j) const;

  Network& net_;
  TrafficSpec spec_;
  std::vector<std::uint32_t> members_;
  std::uint32_t lanes_ = 1;
  std::uint64_t elems_ = 0;
  std::vector<ChipState> chips_;
  std::map<std::pair<std::uint32_t, std::uint64_t>, std::vector<std::uint32_t>> payloads_;
  std::size_t finished_lanes_ = 0;
  sim::Tick finish_ = 0;
  std::string error_;
};

}  // namespace xpusim::fabric
