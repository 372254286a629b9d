#include "mem/dsmem_network.h"

#include <limits>

namespace xpusim::mem {

DsmemNetwork::DsmemNetwork(Component& parent, sim::Clock& sm_clock, const DsmemParams& params,
                           std::vector<std::uint32_t> gpc_of_sm, bool calendars)
    : Component(parent, "dsmem"),
      params_(params),
      gpc_of_sm_(std::move(gpc_of_sm)),
      clock_(sm_clock),
      loads_(add_counter("loads", "count", "DSMEM loads and atomics")),
      stores_(add_counter("stores", "count", "DSMEM stores")),
      bytes_(add_counter("bytes", "bytes", "data bytes moved between SMs")) {
  const sim::ChannelParams port{.latency = params.latency_cycles,
                                .bytes_per_cycle = params.bytes_per_cycle,
                                .capacity = std::numeric_limits<std::size_t>::max()};
  add_formula("late_bookings", "bookings",
              "transaction timing: port bookings more than 8 192 cycles behind the newest, "
              "started at the oldest cycle kept (an approximation)",
              [this] {
                std::uint64_t n = 0;
                for (const sim::BandwidthCalendar& c : calendars_)
                  n += c.late_bookings();
                return static_cast<double>(n);
              });
  for (std::size_t s = 0; s < gpc_of_sm_.size(); ++s) {
    ports_.push_back(std::make_unique<Port>(sm_clock, port));
    if (calendars) calendars_.emplace_back(params.bytes_per_cycle);
  }
}

sim::Tick DsmemNetwork::book(std::uint32_t sm, std::uint64_t bytes, sim::Tick at) {
  if (calendars_.empty()) return ports_[sm]->reserve(bytes);  // at == now
  const sim::Cycles passed = calendars_[sm].book(clock_.first_cycle_from(at), bytes);
  return clock_.edge(passed + params_.latency_cycles);
}

DsmemNetwork::PushTimes DsmemNetwork::push_at(std::uint32_t from_sm, std::uint32_t to_sm,
                                              std::uint32_t bytes, sim::Tick at,
                                              std::uint32_t weight) {
  const PushCycles c = push_cycles_at(from_sm, to_sm, bytes, at, weight);
  return {.arrived = clock_.edge(c.arrived), .acked = clock_.edge(c.acked)};
}

DsmemNetwork::PushCycles DsmemNetwork::push_cycles_at(std::uint32_t from_sm, std::uint32_t to_sm,
                                                      std::uint32_t bytes, sim::Tick at,
                                                      std::uint32_t weight) {
  XPUSIM_CHECK(!calendars_.empty() && at >= now(),
               "push_at needs the transaction-level timing and a tick not in the past");
  XPUSIM_CHECK(from_sm < ports_.size() && to_sm < ports_.size(),
               "DSMEM access names an SM that does not exist");
  XPUSIM_CHECK(gpc_of_sm_[from_sm] == gpc_of_sm_[to_sm],
               "DSMEM access between SMs of different GPCs");
  // The pushes a sampled one stands for take the same link: all of them are booked, and
  // the tick returned is the last one's.
  stores_ += weight;
  bytes_ += std::uint64_t{bytes} * weight;
  // In cycles: the acknowledgement leaves on the edge the data arrived at (first_cycle_from
  // of edge(c) is c), so the two bookings need one conversion, not four.
  const sim::Cycles at_far =
      calendars_[from_sm].book(clock_.first_cycle_from(at), std::uint64_t{bytes} * weight) +
      params_.latency_cycles;
  const sim::Cycles back =
      calendars_[to_sm].book(at_far, kControlMessageBytes * weight) + params_.latency_cycles;
  return {.arrived = at_far, .acked = back};
}

// One message and its reply: the first leg's arrival at the far end, then the reply's at
// the requester. The same ticks and scheduling order as posting a callback per leg.
class DsmemNetwork::Transfer final : public sim::Event {
 public:
  explicit Transfer(DsmemNetwork& net) : net_(net) {}
  Done at_far, done;
  PushClient* client = nullptr;  // a typed push: reported to the client instead
  std::uint64_t tag = 0;
  std::uint32_t back_from = 0, back_bytes = 0;
  bool returning = false;
  bool ack_event = true;  // a typed push: report the acknowledgement at its tick

 protected:
  void process() override {
    if (!returning) {
      if (client == nullptr) {
        if (at_far) at_far();
        returning = true;
        net_.events().schedule(*this, net_.book(back_from, back_bytes, net_.now()));
        return;
      }
      // A typed push is told its reply's tick, so the reply is booked before the client
      // hears of the arrival (the TMA unit books nothing on this network when it does).
      const sim::Tick back = net_.book(back_from, back_bytes, net_.now());
      if (!ack_event) {
        PushClient* c = client;
        client = nullptr;
        net_.transfer_free_.push_back(this);
        c->push_arrived(tag, back);
        return;
      }
      client->push_arrived(tag, back);
      returning = true;
      net_.events().schedule(*this, back);
      return;
    }
    // Back to the pool first: the callback may start another transfer and reuse this one.
    returning = false;
    net_.transfer_free_.push_back(this);
    if (client != nullptr) {
      PushClient* c = client;
      client = nullptr;
      c->push_acked(tag);
      return;
    }
    Done d = std::move(done);
    at_far = nullptr;
    done = nullptr;
    d();
  }

 private:
  DsmemNetwork& net_;
};

DsmemNetwork::~DsmemNetwork() = default;

void DsmemNetwork::load(std::uint32_t from_sm, std::uint32_t to_sm, std::uint32_t bytes,
                        Done done) {
  ++loads_;
  bytes_ += bytes;
  round_trip(from_sm, to_sm, kControlMessageBytes, bytes, nullptr, std::move(done));
}

void DsmemNetwork::store(std::uint32_t from_sm, std::uint32_t to_sm, std::uint32_t bytes,
                         Done done) {
  ++stores_;
  bytes_ += bytes;
  round_trip(from_sm, to_sm, bytes, kControlMessageBytes, nullptr, std::move(done));
}

void DsmemNetwork::push(std::uint32_t from_sm, std::uint32_t to_sm, std::uint32_t bytes,
                        Done arrived, Done acked) {
  ++stores_;
  bytes_ += bytes;
  round_trip(from_sm, to_sm, bytes, kControlMessageBytes, std::move(arrived), std::move(acked));
}

void DsmemNetwork::push(std::uint32_t from_sm, std::uint32_t to_sm, std::uint32_t bytes,
                        PushClient& client, std::uint64_t tag, bool ack_event) {
  ++stores_;
  bytes_ += bytes;
  Transfer& t = start(from_sm, to_sm, kControlMessageBytes);
  t.client = &client;
  t.tag = tag;
  t.ack_event = ack_event;
  events().schedule(t, book(from_sm, bytes, now()));
}

void DsmemNetwork::round_trip(std::uint32_t a, std::uint32_t b, std::uint32_t out,
                              std::uint32_t back, Done at_b, Done done) {
  Transfer& t = start(a, b, back);
  t.at_far = std::move(at_b);
  t.done = std::move(done);
  events().schedule(t, book(a, out, now()));
}

// A pooled transfer from `a` to `b` whose reply is `back` bytes, not yet scheduled.
DsmemNetwork::Transfer& DsmemNetwork::start(std::uint32_t a, std::uint32_t b, std::uint32_t back) {
  XPUSIM_CHECK(a < ports_.size() && b < ports_.size(),
               "DSMEM access names an SM that does not exist");
  XPUSIM_CHECK(gpc_of_sm_[a] == gpc_of_sm_[b], "DSMEM access between SMs of different GPCs");
  Transfer* t;
  if (transfer_free_.empty()) {
    transfer_pool_.push_back(std::make_unique<Transfer>(*this));
    t = transfer_pool_.back().get();
  } else {
    t = transfer_free_.back();
    transfer_free_.pop_back();
  }
  t->back_from = b;
  t->back_bytes = back;
  t->ack_event = true;
  return *t;
}

}  // namespace xpusim::mem
