#include "mem/crossbar.h"

#include <limits>

#include "sim/result.h"

namespace xpusim::mem {

Crossbar::Crossbar(Component& parent, sim::Clock& l2_clock, const CrossbarParams& params,
                   std::vector<std::uint32_t> near_partition_of_sm,
                   std::vector<std::uint32_t> partition_of_slice)
    : Component(parent, "xbar"),
      clock_(l2_clock),
      params_(params),
      near_partition_of_sm_(std::move(near_partition_of_sm)),
      partition_of_slice_(std::move(partition_of_slice)),
      requests_(add_counter("requests", "count", "requests sent to L2 slices")),
      far_requests_(
          add_counter("far_requests", "count", "requests to a slice of the SM's far L2 partition")),
      request_bytes_(add_counter("request_bytes", "bytes", "bytes sent SM -> L2")),
      response_bytes_(add_counter("response_bytes", "bytes", "bytes sent L2 -> SM")),
      response_series_(
          add_series("response_bytes_series", "bytes", "bytes sent L2 -> SM per interval")) {
  const sim::ChannelParams port{.latency = params.latency_cycles,
                                .bytes_per_cycle = params.slice_bytes_per_cycle,
                                .capacity = std::numeric_limits<std::size_t>::max()};
  add_formula("late_bookings", "bookings",
              "transaction timing: port bookings more than 8 192 cycles behind the newest, "
              "started at the oldest cycle kept (an approximation)",
              [this] {
                std::uint64_t n = 0;
                for (const auto* cs : {&request_calendars_, &response_calendars_}) {
                  for (const sim::BandwidthCalendar& c : *cs)
                    n += c.late_bookings();
                }
                return static_cast<double>(n);
              });
  for (std::size_t s = 0; s < partition_of_slice_.size(); ++s) {
    request_ports_.push_back(std::make_unique<Port>(clock_, port));
    response_ports_.push_back(std::make_unique<Port>(clock_, port));
  }
}

sim::Tick Crossbar::later(sim::Tick t, sim::Cycles n) const {
  return n == 0 ? t : cycles_after(clock_, t, n);
}

sim::Tick Crossbar::send_request(std::uint32_t sm, std::uint32_t slice, std::uint64_t bytes) {
  XPUSIM_CHECK(sm < near_partition_of_sm_.size() && slice < request_ports_.size(),
               "crossbar request names an SM or slice that does not exist");
  ++requests_;
  request_bytes_ += bytes;
  const sim::Tick arrival = request_ports_[slice]->reserve(bytes);
  if (!is_far(sm, slice)) return arrival;
  ++far_requests_;
  return later(arrival, params_.cross_partition_cycles);
}

sim::Tick Crossbar::send_response(std::uint32_t slice, std::uint64_t bytes,
                                  sim::Cycles extra_cycles) {
  response_bytes_ += bytes;
  response_series_.add(now(), static_cast<double>(bytes));
  return later(response_ports_[slice]->reserve(bytes), extra_cycles);
}

void Crossbar::make_calendars(std::vector<sim::BandwidthCalendar>& calendars) const {
  calendars.reserve(response_ports_.size());
  for (std::size_t s = 0; s < response_ports_.size(); ++s)
    calendars.emplace_back(params_.slice_bytes_per_cycle);
}

sim::Tick Crossbar::send_request_at(std::uint32_t sm, std::uint32_t slice, std::uint64_t bytes,
                                    sim::Tick at, std::uint32_t weight) {
  XPUSIM_CHECK(sm < near_partition_of_sm_.size() && slice < request_ports_.size(),
               "crossbar request names an SM or slice that does not exist");
  requests_ += weight;
  request_bytes_ += bytes * weight;
  const sim::Cycles passed =
      calendar(request_calendars_, slice).book_first(clock_.first_cycle_from(at), bytes, weight);
  // later(edge(c), n) is edge(c + n): one conversion, not three.
  const sim::Cycles arrival = passed + params_.latency_cycles;
  if (!is_far(sm, slice)) return clock_.edge(arrival);
  far_requests_ += weight;
  return clock_.edge(arrival + params_.cross_partition_cycles);
}

sim::Cycles Crossbar::response_cycle_at(std::uint32_t slice, std::uint64_t bytes, sim::Tick at,
                                        sim::Cycles extra_cycles, std::uint32_t weight) {
  response_bytes_ += bytes * weight;
  response_series_.add(at, static_cast<double>(bytes * weight));
  const sim::Cycles passed =
      calendar(response_calendars_, slice).book_first(clock_.first_cycle_from(at), bytes, weight);
  return passed + params_.latency_cycles + extra_cycles;  // later(edge(c), n) is edge(c + n)
}

}  // namespace xpusim::mem
