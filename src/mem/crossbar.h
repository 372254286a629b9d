// Crossbar: the SM <-> L2-slice network. Every slice has a request port (SM -> slice) and a
// response port (slice -> SM), each `slice_bytes_per_cycle` wide on the L2 clock with
// `latency_cycles` of wire and switch delay (engine Channels, booked timing-only).
//
// Two L2 partitions: an SM is near the partition its GPC is wired to (GPC g of G is near
// partition g x P / G, so with 2 partitions the first half of the GPCs is near partition 0);
// a request to a slice of the far partition pays `cross_partition_cycles` once per round
// trip, on its way in (A100/H100 whitepapers: the partitions are joined by a crossbar link).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "sim/bandwidth_calendar.h"
#include "sim/channel.h"
#include "sim/clock.h"
#include "sim/component.h"

namespace xpusim::mem {

struct CrossbarParams {
  sim::Cycles latency_cycles = 20;           // one way, L2 clock
  std::uint64_t slice_bytes_per_cycle = 64;  // per slice port and direction
  sim::Cycles cross_partition_cycles = 0;    // far-partition penalty per round trip
};

class Crossbar : public sim::Component {
 public:
  // `near_partition_of_sm[s]` is SM s's near L2 partition; `partition_of_slice[l]` slice l's.
  Crossbar(Component& parent, sim::Clock& l2_clock, const CrossbarParams& params,
           std::vector<std::uint32_t> near_partition_of_sm,
           std::vector<std::uint32_t> partition_of_slice);

  bool is_far(std::uint32_t sm, std::uint32_t slice) const {
    return near_partition_of_sm_[sm] != partition_of_slice_[slice];
  }
  // Books the slice's request port for `bytes` sent now by `sm`; returns the arrival tick at
  // the slice, far-partition penalty included.
  sim::Tick send_request(std::uint32_t sm, std::uint32_t slice, std::uint64_t bytes);
  // The same sent at tick `at` (transaction-level timing: each request port is then a
  // sim::BandwidthCalendar of 16-cycle windows, so a request may be booked ahead of its tick).
  // With `weight` > 1 the request stands for that many like it bound for other slices (set
  // sampling, docs/memory-hierarchy.md): the port is booked and counted for all of them, and
  // the tick returned is its own (sim::BandwidthCalendar::book_first).
  sim::Tick send_request_at(std::uint32_t sm, std::uint32_t slice, std::uint64_t bytes,
                            sim::Tick at, std::uint32_t weight = 1);
  // Books the slice's response port for `bytes` leaving now; returns the arrival tick at the
  // SM after `extra_cycles` of L2 cycles added behind the port (the slice's pipeline).
  sim::Tick send_response(std::uint32_t slice, std::uint64_t bytes, sim::Cycles extra_cycles);
  // The same leaving at tick `at`, which may lie in the future and come in any order: the
  // transaction-level timing books a response when its request is issued (each response port
  // is then a sim::BandwidthCalendar of 16-cycle windows instead of a FIFO).
  sim::Tick send_response_at(std::uint32_t slice, std::uint64_t bytes, sim::Tick at,
                             sim::Cycles extra_cycles, std::uint32_t weight = 1) {
    return clock_.edge(response_cycle_at(slice, bytes, at, extra_cycles, weight));
  }
  // The same as the L2 cycle whose edge it returns (a caller on a clock of the same
  // frequency needs no conversion back).
  sim::Cycles response_cycle_at(std::uint32_t slice, std::uint64_t bytes, sim::Tick at,
                                sim::Cycles extra_cycles, std::uint32_t weight = 1);

  const CrossbarParams& params() const { return params_; }
  std::uint32_t near_partition(std::uint32_t sm) const { return near_partition_of_sm_[sm]; }

 private:
  struct NoPayload {};
  using Port = sim::Channel<NoPayload>;
  sim::Tick later(sim::Tick t, sim::Cycles n) const;

  // Requests and responses alike: whichever thread times an access books both (the memory
  // worker, or the simulation's thread after MemorySystem::drain()), so one Clock's memo serves.
  sim::Clock& clock_;
  CrossbarParams params_;
  std::vector<std::uint32_t> near_partition_of_sm_;
  std::vector<std::uint32_t> partition_of_slice_;
  std::vector<std::unique_ptr<Port>> request_ports_;
  std::vector<std::unique_ptr<Port>> response_ports_;
  // Made by the first send_request_at / send_response_at.
  std::vector<sim::BandwidthCalendar> request_calendars_, response_calendars_;
  // Inline: every line of a transaction-timed access books two of them.
  sim::BandwidthCalendar& calendar(std::vector<sim::BandwidthCalendar>& calendars,
                                   std::uint32_t slice) {
    if (calendars.empty()) [[unlikely]]
      make_calendars(calendars);
    return calendars[slice];
  }
  void make_calendars(std::vector<sim::BandwidthCalendar>& calendars) const;
  sim::Counter& requests_;
  sim::Counter& far_requests_;
  sim::Counter& request_bytes_;
  sim::Counter& response_bytes_;
  sim::BoundedSeries& response_series_;  // for the report's L2 bandwidth over time
};

// Ticks `n` cycles of `clock` after the first edge at or after `t`. Inline: every memory
// request converts several times.
inline sim::Tick cycles_after(const sim::Clock& clock, sim::Tick t, sim::Cycles n) {
  return clock.edge(clock.first_cycle_from(t) + n);
}

}  // namespace xpusim::mem
