// DsmemNetwork: the SM-to-SM network of a GPC that carries distributed-shared-memory (DSMEM)
// accesses between the CTAs of a cluster (Hopper whitepaper: "a dedicated SM-to-SM network
// for clusters"). Each SM has one output port of `bytes_per_cycle` on the SM clock, and every
// message takes `latency_cycles` after its last byte leaves.
//
//  - load / atomic: a request (kControlMessageBytes) from the source SM's port, then the data
//    from the target SM's port once the request has arrived;
//  - store: the data from the source's port, then an acknowledgement from the target's.
// Both ends must be in one GPC (a cluster never spans GPCs): anything else is a model bug.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "mem/mem_request.h"
#include "sim/bandwidth_calendar.h"
#include "sim/channel.h"
#include "sim/clock.h"
#include "sim/component.h"

namespace xpusim::mem {

// Who hears about a typed push (DsmemNetwork::push below): a hot caller (the TMA unit's
// multicast, one push per line and destination) names itself and a tag instead of two
// std::function callbacks whose captures would be allocated per push.
// `acked_at` is the tick the acknowledgement will reach the sender: it is booked on the
// receiver's port as the data arrives, before push_arrived runs (a push the client starts
// from there on that port queues behind it). push_acked runs at that tick only for a push
// that asks for it (an event per push); one that only needs the tick (a multicast line, whose
// acknowledgement gates nothing but the operation's end) saves that event.
class PushClient {
 public:
  virtual void push_arrived(std::uint64_t tag, sim::Tick acked_at) = 0;
  virtual void push_acked(std::uint64_t tag) = 0;

 protected:
  ~PushClient() = default;
};

struct DsmemParams {
  sim::Cycles latency_cycles = 200;    // one way, SM clock
  std::uint64_t bytes_per_cycle = 32;  // per SM output port
};

class DsmemNetwork : public sim::Component {
 public:
  // `calendars`: the transaction-level timing (MemoryTiming::kTransactions): each SM's port
  // is a sim::BandwidthCalendar (16-cycle windows), so push_at may book ahead of time.
  DsmemNetwork(Component& parent, sim::Clock& sm_clock, const DsmemParams& params,
               std::vector<std::uint32_t> gpc_of_sm, bool calendars = false);
  ~DsmemNetwork() override;

  void load(std::uint32_t from_sm, std::uint32_t to_sm, std::uint32_t bytes, Done done);
  void store(std::uint32_t from_sm, std::uint32_t to_sm, std::uint32_t bytes, Done done);
  void atomic(std::uint32_t from_sm, std::uint32_t to_sm, std::uint32_t bytes, Done done) {
    load(from_sm, to_sm, bytes, std::move(done));
  }
  // A one-way data message (a TMA multicast line, a shared-to-cluster copy): `arrived` when
  // its last byte reaches `to_sm`, `acked` when the acknowledgement is back at `from_sm`.
  void push(std::uint32_t from_sm, std::uint32_t to_sm, std::uint32_t bytes, Done arrived,
            Done acked);
  // The same push, reported to `client` with `tag` (the same ticks, for a client that starts
  // nothing on the receiver's port from push_arrived). With `ack_event` false, push_acked is
  // not called: the client has the tick from push_arrived.
  void push(std::uint32_t from_sm, std::uint32_t to_sm, std::uint32_t bytes, PushClient& client,
            std::uint64_t tag, bool ack_event = true);
  // With calendars only: a push whose data leaves `from_sm` at tick `at` (now or later),
  // timed whole, no event: when it arrives and when its acknowledgement is back.
  struct PushTimes {
    sim::Tick arrived = 0;
    sim::Tick acked = 0;
  };
  // `weight` > 1: the push stands for that many like it on the same link (set sampling).
  PushTimes push_at(std::uint32_t from_sm, std::uint32_t to_sm, std::uint32_t bytes, sim::Tick at,
                    std::uint32_t weight = 1);
  // The same push with its two times as edges of clock() (edge(arrived) and edge(acked) are
  // push_at's): a caller that keeps only the earliest or latest of many converts once.
  struct PushCycles {
    sim::Cycles arrived = 0;
    sim::Cycles acked = 0;
  };
  PushCycles push_cycles_at(std::uint32_t from_sm, std::uint32_t to_sm, std::uint32_t bytes,
                            sim::Tick at, std::uint32_t weight = 1);
  const sim::Clock& clock() const { return clock_; }
  const DsmemParams& params() const { return params_; }

 private:
  struct NoPayload {};
  using Port = sim::Channel<NoPayload>;
  class Transfer;
  // Sends `out` bytes from `a` to `b` (`at_b` when they arrive), then `back` bytes from `b` to
  // `a`; `done` at the end.
  void round_trip(std::uint32_t a, std::uint32_t b, std::uint32_t out, std::uint32_t back,
                  Done at_b, Done done);
  Transfer& start(std::uint32_t a, std::uint32_t b, std::uint32_t back);
  // Books SM `sm`'s port for `bytes` leaving at `at` (now, unless calendars); the arrival.
  sim::Tick book(std::uint32_t sm, std::uint64_t bytes, sim::Tick at);

  DsmemParams params_;
  std::vector<std::uint32_t> gpc_of_sm_;
  std::vector<std::unique_ptr<Port>> ports_;
  sim::Clock& clock_;
  std::vector<sim::BandwidthCalendar> calendars_;  // one per SM's port, or none
  sim::Counter& loads_;
  sim::Counter& stores_;
  sim::Counter& bytes_;
  // Transfers in flight are pooled events: no allocation and no posted callback per message.
  std::vector<std::unique_ptr<Transfer>> transfer_pool_;
  std::vector<Transfer*> transfer_free_;
};

}  // namespace xpusim::mem
